"""Which year a date written without one means.

"Q1", "the March review", "on 7 December", "Friday" name a period that
recurs; the reader picks one occurrence relative to an anchor day — the chat
turn's time, or the date of the document the words come from — and the way
the sentence points: future cues ("will", "next", "due", "launching") take
the next occurrence on or after the anchor, past cues the latest on or before
it, and a sentence that says neither the nearest (ties go forward). A year the
conversation or the document has named ("the 2027 budget", an earlier turn's
"Q3 2027") wins when it fits the tense. The other plausible occurrences are
kept as alternatives, and a choice the anchor barely decided is less certain.

Only calendar arithmetic and cue words: no patterns for whole expressions
(those are in expressions.py), no knowledge of chat or documents.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Callable, Iterable, Sequence

FUTURE, PAST = "future", "past"
Period = tuple[date, date]  # first and last day; equal for a single day

# How far from the anchor a year named in the context may still be chosen: the
# plausible occurrences of a yearless date are the anchor's year and its
# neighbours; a named year a little further out ("our 2028 roadmap") still counts.
_CONTEXT_REACH = 2

# How sure a choice is that a named year made against the anchor's own pick.
_OVERRIDDEN = 0.8

_FUTURE_CUES = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|upcoming|coming|schedule[ds]?|plan(?:ned|ning)?|due|next|'ll)\b|\w'll\b",
    re.IGNORECASE,
)
# Words that point forward only when nothing points back: "the launch was a success".
_WEAK_FUTURE_CUES = re.compile(r"\b(?:launch(?:es|ing)?|kick(?:s|ing)?\s+off|deadline)\b", re.IGNORECASE)
_PAST_CUES = re.compile(
    r"\b(?:did|was|were|had|sent|said|wrote|mentioned|happened|ago|last|yesterday|went|met|told|asked|got|received"
    r"|launched|held|finished|completed|ended|closed|took\s+place|began|came|gave|made|took|paid|spent|sold|bought"
    r"|built|brought|grew|fell|rose|won|lost)\b"
    # A pronoun and a regular past form ("we hired", "they moved"): the sentence tells what happened.
    r"|\b(?:i|we|they|he|she|you)\s+(?:\w+ly\s+)?\w+ed\b",
    re.IGNORECASE,
)

_MONTH_WORD = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
               r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_YEAR = re.compile(r"(?<![\w$£€¥#.,/:-])(?:FY\s?)?(?P<y>(?:19|20)\d{2})(?![\w%])(?![-/.:]\d)", re.IGNORECASE)
# The year of a full date ("24 Nov 2026", "November 24, 2026", "11/24/2026") dates a day, often only the
# message itself: it says nothing about which year the text is about.
_DAY_BEFORE_YEAR = re.compile(
    rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_WORD}\.?,?|{_MONTH_WORD}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?)\s+$",
    re.IGNORECASE,
)
_SENTENCE_BREAK = re.compile(r"[.!?]+[\"')\]]*\s+(?=[A-Z\"“'(\[])|\n\s*(?![a-z])")


@dataclass(frozen=True)
class Occurrence:
    """The chosen occurrence of a yearless date, the others worth keeping, and
    how sure the choice is (1.0: the tense or a named year decided it)."""

    start: date
    end: date
    alternatives: tuple[Period, ...] = ()
    certainty: float = 1.0


def shift_months(day: date, months: int) -> date:
    month_index = day.year * 12 + day.month - 1 + months
    year, month = divmod(month_index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def month_range(year: int, month: int) -> Period:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def quarter_range(year: int, quarter: int) -> Period:
    start = date(year, 3 * quarter - 2, 1)
    return start, month_range(year, 3 * quarter)[1]


def day_in(year: int, month: int, day: int) -> Period | None:
    """That day of `year`, or None when the year has no such day (29 February)."""
    try:
        found = date(year, month, day)
    except ValueError:
        return None
    return found, found


def sentence_tense(text: str) -> str:
    """FUTURE, PAST or "" from cue words: which way a yearless date leans."""
    future, past = bool(_FUTURE_CUES.search(text)), bool(_PAST_CUES.search(text))
    if not future and not past and _WEAK_FUTURE_CUES.search(text):
        return FUTURE
    if future and not past:
        return FUTURE
    if past and not future:
        return PAST
    return ""


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of `text`, in order, covering it all."""
    spans, start = [], 0
    for match in _SENTENCE_BREAK.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def years_named(text: str) -> list[tuple[int, int]]:
    """(position, year) of each year `text` names on its own — "the 2027 budget",
    "Q1 2027", "FY2027", "in 2026" — left to right. The year of a full date is
    not counted (see _DAY_BEFORE_YEAR), nor amounts, percentages and codes."""
    found = []
    for match in _YEAR.finditer(text):
        if _DAY_BEFORE_YEAR.search(text, max(0, match.start() - 24), match.start()):
            continue
        found.append((match.start("y"), int(match.group("y"))))
    return found


def choose_occurrence(
    period_in: Callable[[int], Period | None],
    anchor: date,
    tense: str = "",
    preferred_years: Sequence[int] = (),
) -> Occurrence | None:
    """The occurrence of a yearly period (`period_in(year)`) that a sentence
    with `tense`, read on `anchor`, most likely means. `preferred_years`: years
    the context named, most recent last; the latest that fits the tense wins."""
    years = {anchor.year - 1, anchor.year, anchor.year + 1}
    years |= {y for y in preferred_years if abs(y - anchor.year) <= _CONTEXT_REACH}
    periods = {year: period for year in sorted(years) if (period := period_in(year)) is not None}
    preferred = [periods[y] for y in reversed(preferred_years) if y in periods]
    return choose_among(periods.values(), anchor, tense, preferred)


def choose_among(candidates: Iterable[Period], anchor: date, tense: str = "",
                 preferred: Sequence[Period] = ()) -> Occurrence | None:
    """The same choice among explicit candidates (a bare weekday: last week's or
    this coming one). `preferred`: candidates the context points to, best first."""
    candidates = sorted(set(candidates))
    if not candidates:
        return None
    latest_before = max((p for p in candidates if p[0] <= anchor), default=None)
    next_after = min((p for p in candidates if p[1] >= anchor), default=None)
    for period in preferred:
        if _fits(period, anchor, tense):
            # A year the context named is a good guess, not a certainty: when it
            # overrides what the anchor and tense alone would pick, the other stays visible.
            alone = choose_among(candidates, anchor, tense)
            certainty = 1.0 if (alone.start, alone.end) == period else _OVERRIDDEN
            return _occurrence(period, [latest_before, next_after], certainty)
    if tense == FUTURE and next_after:
        return _occurrence(next_after, [latest_before], 1.0)
    if tense == PAST and latest_before:
        return _occurrence(latest_before, [next_after], 1.0)
    ranked = sorted(candidates, key=lambda p: (_distance(p, anchor), p[0] < anchor))
    chosen, runner_up = ranked[0], ranked[1] if len(ranked) > 1 else None
    return _occurrence(chosen, [latest_before, next_after], _certainty(chosen, runner_up, anchor))


def _fits(period: Period, anchor: date, tense: str) -> bool:
    if tense == FUTURE:
        return period[1] >= anchor
    if tense == PAST:
        return period[0] <= anchor
    return True


def _distance(period: Period, anchor: date) -> int:
    if period[0] <= anchor <= period[1]:
        return 0
    return min(abs((period[0] - anchor).days), abs((period[1] - anchor).days))


def _certainty(chosen: Period, runner_up: Period | None, anchor: date) -> float:
    """1.0 when the anchor falls inside the chosen period or nothing competes,
    0.7 when the runner-up is as near: how much nearer the chosen one is."""
    if runner_up is None:
        return 1.0
    near, far = _distance(chosen, anchor), _distance(runner_up, anchor)
    return round(0.7 + 0.3 * (far - near) / max(far, 1), 2)


def _occurrence(chosen: Period, others: list[Period | None], certainty: float) -> Occurrence:
    alternatives = tuple(dict.fromkeys(p for p in others if p is not None and p != chosen))
    return Occurrence(chosen[0], chosen[1], alternatives, certainty)
