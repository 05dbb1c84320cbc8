"""Temporal expressions: find "yesterday", "last Monday", "next week", "2 days
ago", "Nov 30", "Q1", "in March" … in a text and turn each into a calendar
date or date range, relative to an anchor day: a chat turn's own timestamp
(never the wall clock of whoever replays the session later), or the date of
the document the text comes from (resolve_in_document).

Named relative expressions are computed here directly: they are the common
case, must be instant, and need choices dateparser does not make ("next week"
is a range, a bare weekday is the nearer one unless the tense says otherwise).
A date without a year takes its year from the anchor, its sentence's tense
and the years the text or the conversation named (anchoring.py). An explicit
date whose year, month and day the patterns read is that day; what else is
explicit goes to dateparser with RELATIVE_BASE set to the anchor.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Sequence

from chatapp.dates.anchoring import (
    FUTURE,
    PAST,
    Occurrence,
    Period,
    choose_among,
    choose_occurrence,
    day_in,
    month_range,
    quarter_range,
    sentence_spans,
    sentence_tense,
    shift_months,
    years_named,
)
from chatapp.overlaps import keep_unclaimed

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAY_ABBR = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6}
MONTHS = [
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
]
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2, "a couple of": 2,
    "few": 3, "a few": 3,
}

_WD = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)"
_MON = r"(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)"
_MONTH_NAME = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_NUM = r"(?:\d{1,3}|a couple of|couple of|a few|few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?:day|week|month|year)s?"
_ORD = r"(?:st|nd|rd|th)?"

_REL_YEAR = re.compile(r"\b(?P<mod>last|next|this|coming|previous)\s+year\b", re.IGNORECASE)

# Order matters only for readability: overlapping matches keep the longest.
_PATTERNS: list[tuple[str, re.Pattern]] = [
    (name, re.compile(rx, re.IGNORECASE))
    for name, rx in [
        ("day_word", r"\b(?:the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tonight|tomorrow|tmrw|last\s+night|this\s+(?:morning|afternoon|evening))\b"),
        ("ago", rf"\b(?P<n>{_NUM})\s+(?P<unit>{_UNIT})\s+(?:ago|back|earlier)\b"),
        ("ahead", rf"\b(?:in\s+(?P<n>{_NUM})\s+(?P<unit>{_UNIT})|(?P<n2>{_NUM})\s+(?P<unit2>{_UNIT})\s+from\s+now)\b"),
        ("past_span", rf"\b(?:the\s+)?(?:past|last|previous)\s+(?P<n>{_NUM})\s+(?P<unit>{_UNIT})\b"),
        ("earlier_this", r"\bearlier\s+this\s+(?P<unit>week|month|year)\b"),
        ("rel_period", r"\b(?P<mod>last|next|this|coming|previous|past)\s+(?P<unit>week(?:end)?|month|quarter|year)\b"),
        ("rel_weekday", rf"\b(?:(?P<mod>last|next|this|coming|previous|past)\s+)?(?P<wd>{_WD})\b\.?"),
        ("iso", r"\b(?P<y>\d{4})(?:-(?=\d{1,2}-)|/(?=\d{1,2}/))(?P<m>\d{1,2})[-/](?P<d>\d{1,2})\b"),
        ("numeric", r"\b(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y>\d{2}|\d{4}))?\b"),
        ("month_day", rf"\b(?P<mon>{_MON})\.?\s+(?P<d>\d{{1,2}}){_ORD}(?:,?\s+(?P<y>\d{{4}}))?\b"),
        ("day_month", rf"\b(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mon>{_MON})\.?(?:,?\s+(?P<y>\d{{4}}))?\b"),
        ("quarter", r"\bQ(?P<q>[1-4])(?:\s+(?P<y>\d{4}))?\b"),
        # A day of the month alone ("on the 14th", "by the 3rd"), after a word that dates it and not
        # before a noun it counts ("on the 5th floor").
        ("ordinal_day", r"\b(?:on|by|until|till|before|after|from|since|for)\s+(?P<core>the\s+(?P<d>3[01]|[12]\d|0?[1-9])"
                        r"(?:st|nd|rd|th))\b(?!\s+(?!(?:at|or|and|to|in|for|with|please)\b)[a-z])"),
        ("month_year", rf"\b(?P<mon>{_MON})\.?\s+(?P<y>\d{{4}})\b"),
        # A bare month name is a date only after a preposition ("in March");
        # the span is the month itself.
        ("in_month", r"\b(?:in|during|since|until|by)\s+(?P<core>(?P<mon>january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec))\b"),
        # …or before a noun it dates ("the March review", "our December offsite"),
        ("the_month", rf"\b(?:the|our|their|your)\s+(?P<core>(?P<mon>{_MONTH_NAME}))(?=\s+[a-z])(?!\s+(?:of|to)\b)"),
        # …or with a modifier that says which one ("next March", "last May").
        ("rel_month", rf"\b(?P<mod>this|next|last|coming|previous)\s+(?P<mon>{_MONTH_NAME})\b"),
    ]
]

# Below this certainty a yearless date's choice was close (the other occurrence is
# less than twice as far from the anchor, or a named year overrode it), and its alternatives
# are part of what it says (attributes).
CLOSE_CALL = 0.85


@dataclass
class TemporalExpression:
    text: str
    span: tuple[int, int]
    start: date
    end: date  # == start for a single day
    granularity: str  # day | week | weekend | month | quarter | year | range
    confidence: float
    # Other occurrences a yearless date could mean ("March": last March when this
    # one was chosen), and how sure the choice among them was (1.0: no choice, or
    # the tense or a named year made it).
    alternatives: tuple[Period, ...] = ()
    certainty: float = 1.0

    @property
    def is_range(self) -> bool:
        return self.start != self.end

    @property
    def canonical(self) -> str:
        return self.start.isoformat() if not self.is_range else f"{self.start.isoformat()}..{self.end.isoformat()}"

    @property
    def close_call(self) -> bool:
        """The anchor barely decided between this occurrence and another."""
        return bool(self.alternatives) and self.certainty < CLOSE_CALL

    def attributes(self) -> dict[str, object]:
        found: dict[str, object] = (
            {"start": self.start.isoformat(), "end": self.end.isoformat()} if self.is_range
            else {"date": self.start.isoformat()}
        )
        if self.close_call:  # the reader (and the model) should know the other reading
            found["alternatives"] = [_iso(start, end) for start, end in self.alternatives]
        return found


def _iso(start: date, end: date) -> str:
    return start.isoformat() if start == end else f"{start.isoformat()}..{end.isoformat()}"


_STEPS = {"last": -1, "previous": -1, "past": -1, "next": 1, "coming": 1}


def _number(text: str) -> int:
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else NUMBER_WORDS.get(text, 1)


def _month_number(text: str) -> int:
    text = text.lower().rstrip(".")
    return _MONTH_ABBR.get(text[:4] if text.startswith("sept") else text[:3], 0)


def _weekday_number(text: str) -> int:
    text = text.lower().rstrip(".")
    return WEEKDAYS.index(text) if text in WEEKDAYS else _WEEKDAY_ABBR[text]


def _shift(today: date, amount: int, unit: str) -> date:
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return today + timedelta(days=amount)
    if unit == "week":
        return today + timedelta(weeks=amount)
    if unit == "month":
        return shift_months(today, amount)
    return shift_months(today, 12 * amount)


def _resolve_match(kind: str, m: re.Match, today: date, tense: str, years: Sequence[int]) -> tuple[Occurrence, str, float] | None:
    """(occurrence, granularity, confidence before the occurrence's certainty) of one match."""
    g = {k: v for k, v in m.groupdict().items() if v}
    if kind in ("quarter", "in_month", "the_month", "month_day", "day_month", "numeric") and not g.get("y"):
        return _yearless(kind, g, today, tense, years)
    if kind == "rel_month":
        return _relative_month(_month_number(g["mon"]), g["mod"].lower(), today)
    if kind == "ordinal_day":
        return _day_of_month(int(g["d"]), today, tense)
    if kind == "rel_weekday" and not g.get("mod"):
        return _bare_weekday(_weekday_number(g["wd"]), today, tense)
    fixed = _fixed(kind, g, m.group(0), today)
    if fixed is None:
        return None
    start, end, granularity, confidence = fixed
    return Occurrence(start, end), granularity, confidence


def _yearless(kind: str, g: dict, today: date, tense: str, years: Sequence[int]) -> tuple[Occurrence, str, float] | None:
    """A quarter, month or day written without a year: its occurrence nearest the
    anchor in the direction the sentence points, or in a year the context named."""
    if kind == "quarter":
        quarter = int(g["q"])
        period_in, granularity, confidence = (lambda y: quarter_range(y, quarter)), "quarter", 0.85
    elif kind in ("in_month", "the_month"):
        month = _month_number(g["mon"])
        period_in, granularity, confidence = (lambda y: month_range(y, month)), "month", 0.8
    else:
        if kind == "numeric":
            a, b = int(g["a"]), int(g["b"])
            month, day = (a, b) if a <= 12 else (b, a)  # US order unless impossible
            confidence = 0.7
        else:
            month, day, confidence = _month_number(g["mon"]), int(g["d"]), 0.85
        if not 1 <= month <= 12:
            return None
        period_in, granularity = (lambda y: day_in(y, month, day)), "day"
    chosen = choose_occurrence(period_in, today, tense, years)
    return (chosen, granularity, confidence) if chosen else None


def _relative_month(month: int, mod: str, today: date) -> tuple[Occurrence, str, float] | None:
    """"next March" is the first March after this month, "last March" the last
    one before it, "this March" the anchor year's."""
    if mod == "this":
        return Occurrence(*month_range(today.year, month)), "month", 0.9
    step = _STEPS.get(mod, 0)
    first_of_month = today.replace(day=1)
    # Seen from just outside the current month, so "next March" said in March is a year on.
    edge = shift_months(first_of_month, 1) if step > 0 else first_of_month - timedelta(days=1)
    chosen = choose_occurrence(lambda y: month_range(y, month), edge, FUTURE if step > 0 else PAST)
    return (Occurrence(chosen.start, chosen.end), "month", 0.9) if chosen else None


def _day_of_month(day: int, today: date, tense: str) -> tuple[Occurrence, str, float] | None:
    """ "the 14th": that day of last month, this month or next, as the tense or the nearness says."""
    months = [shift_months(today.replace(day=1), step) for step in (-1, 0, 1)]
    days = [period for first in months if (period := day_in(first.year, first.month, day)) is not None]
    chosen = choose_among(days, today, tense)
    return (chosen, "day", 0.75) if chosen else None


def _bare_weekday(target: int, today: date, tense: str) -> tuple[Occurrence, str, float]:
    """"Friday": today, or the one before or after, as the tense or the nearness says."""
    if target == today.weekday():
        return Occurrence(today, today), "day", 0.75
    back = (today.weekday() - target) % 7
    days = [today - timedelta(days=back), today + timedelta(days=7 - back)]
    return choose_among([(d, d) for d in days], today, tense), "day", 0.75


def _fixed(kind: str, g: dict, surface: str, today: date) -> tuple[date, date, str, float] | None:
    """Expressions that say exactly which days they mean, given the anchor."""
    text = " ".join(surface.lower().split())
    if kind == "day_word":
        offsets = {"yesterday": -1, "last night": -1, "tomorrow": 1, "tmrw": 1,
                   "the day before yesterday": -2, "the day after tomorrow": 2}
        day = today + timedelta(days=offsets.get(text, 0))
        return day, day, "day", 0.97
    if kind == "ago":
        day = _shift(today, -_number(g["n"]), g["unit"])
        return day, day, "day", 0.9
    if kind == "ahead":
        day = _shift(today, _number(g.get("n") or g["n2"]), g.get("unit") or g["unit2"])
        return day, day, "day", 0.9
    if kind == "past_span":
        return _shift(today, -_number(g["n"]), g["unit"]), today, "range", 0.85
    if kind == "earlier_this":
        unit = g["unit"].lower()
        if unit == "week":
            start = today - timedelta(days=today.weekday())
        elif unit == "month":
            start = today.replace(day=1)
        else:
            start = date(today.year, 1, 1)
        return start, today, "range", 0.85
    if kind == "rel_period":
        step = _STEPS.get(g["mod"].lower(), 0)
        unit = g["unit"].lower()
        if g["mod"].lower() == "past" and unit != "weekend":
            # "the past week" is the last seven days, not the previous calendar week.
            start = _shift(today, -3, "month") if unit == "quarter" else _shift(today, -1, unit)
            return start, today, "range", 0.85
        if unit in ("week", "weekend"):
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
            if unit == "weekend":
                return monday + timedelta(days=5), monday + timedelta(days=6), "weekend", 0.9
            return monday, monday + timedelta(days=6), "week", 0.9
        if unit == "month":
            first = shift_months(today.replace(day=1), step)
            return (*month_range(first.year, first.month), "month", 0.9)
        if unit == "quarter":
            index = today.year * 4 + (today.month - 1) // 3 + step
            return (*quarter_range(index // 4, index % 4 + 1), "quarter", 0.9)
        year = today.year + step
        return date(year, 1, 1), date(year, 12, 31), "year", 0.9
    if kind == "rel_weekday":
        target = _weekday_number(g["wd"])
        mod = g["mod"].lower()
        if mod == "this":
            day = today - timedelta(days=today.weekday()) + timedelta(days=target)
        elif _STEPS.get(mod, 0) < 0:
            day = today - timedelta(days=(today.weekday() - target) % 7 or 7)
        else:
            day = today + timedelta(days=(target - today.weekday()) % 7 or 7)
        return day, day, "day", 0.9
    if kind == "quarter":
        return (*quarter_range(int(g["y"]), int(g["q"])), "quarter", 0.85)
    if kind == "month_year":
        return (*month_range(int(g["y"]), _month_number(g["mon"])), "month", 0.9)
    if kind == "numeric":
        a, b = int(g["a"]), int(g["b"])
        month, day = (a, b) if a <= 12 else (b, a)  # US order unless impossible
        year = int(g["y"]) + (2000 if len(g["y"]) == 2 else 0)
        try:
            found = date(year, month, day)
        except ValueError:
            return None
        return found, found, "day", 0.85
    if kind in ("iso", "month_day", "day_month"):
        # The pattern has read year, month and day: a real calendar day needs no parser (dateparser
        # gives the same day, but its first call costs a cold `ask` 0.6 s of locale and time-zone
        # patterns). What is no calendar day ("2026-13-05") goes to dateparser, which may still
        # read it (as 13 May).
        month = int(g["m"]) if kind == "iso" else _month_number(g["mon"])
        try:
            found = date(int(g["y"]), month, int(g["d"]))
        except ValueError:
            pass
        else:
            return found, found, "day", 0.95
    # Other explicit dates: dateparser does the parsing (locales, odd spellings).
    parsed = parse_date(surface, datetime.combine(today, time()))
    return (parsed, parsed, "day", 0.95) if parsed else None


@functools.lru_cache(maxsize=1024)
def parse_date(text: str, now: datetime, prefer: str = "past") -> date | None:
    """dateparser on one expression, relative to `now`; None when it cannot tell."""
    import dateparser

    settings = {
        "RELATIVE_BASE": now.replace(tzinfo=None),
        "PREFER_DATES_FROM": prefer,
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    try:
        parsed = dateparser.parse(text, languages=["en"], settings=settings)
    except Exception:  # dateparser raises assorted errors on odd input; a miss is fine
        return None
    return parsed.date() if parsed else None


_BARE_YEAR = re.compile(r"(?:19|20)\d\d")
_BEFORE_AN_AMOUNT = re.compile(
    r"\b(?:over|under|above|below|than|exceeding|exceeds?|up\s+to|about|around|approximately|roughly|"
    r"nearly|almost|least|most|costs?|costing|paid|pay|spent|spend|budget|totals?|total\s+of)\s*$",
    re.IGNORECASE,
)


def is_an_amount(text: str, span: tuple[int, int]) -> bool:
    """Whether a bare number a tagger took for a year is a quantity by the word before it: "invoices
    over 2000", "more than 1500" (not "in 2025", "by 2027", "the class of 2019")."""
    return bool(_BARE_YEAR.fullmatch(text[span[0]:span[1]])) and bool(_BEFORE_AN_AMOUNT.search(text, 0, span[0]))


def find_temporal_expressions(
    text: str,
    now: date | datetime,
    extra_spans: list[tuple[int, int]] = (),
    context_years: Sequence[int] = (),
) -> list[TemporalExpression]:
    """Every date expression in `text`, left to right, without overlaps.

    `now` is the anchor: the turn's time, or the date of the document `text`
    comes from. A date without a year takes the occurrence its sentence's
    tense points to from there; `context_years` (oldest first) are years the
    conversation named, preferred when they fit, like the years `text` itself
    names up to the end of the sentence.

    `extra_spans` are spans another component (spaCy's DATE entities, the
    correction stage's date markers) believes are dates; those not covered by
    the patterns here are handed to dateparser, and kept unresolved (no date)
    when it cannot read them either — the caller decides what to do with them.
    """
    today = now.date() if isinstance(now, datetime) else now
    sentences = sentence_spans(text)
    sentence_starts = [start for start, _ in sentences]
    tenses: dict[int, str] = {}
    named = _years_in(text, today)
    found: list[TemporalExpression] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if kind == "rel_weekday" and not m.group("mod") and m.group("wd").lower() in ("sun", "sat", "wed", "mar", "mon"):
                continue  # "sun", "wed" … are words first; only a modifier makes them days
            sentence = bisect.bisect_right(sentence_starts, m.start()) - 1
            if sentence not in tenses:
                tenses[sentence] = sentence_tense(text[slice(*sentences[sentence])])
            years = [*context_years, *(year for position, year in named if position < sentences[sentence][1])]
            resolved = _resolve_match(kind, m, today, tenses[sentence], years)
            if resolved is None:
                continue
            occurrence, granularity, confidence = resolved
            span_start, span_end = m.span("core") if m.groupdict().get("core") else m.span()
            surface = text[span_start:span_end].rstrip(".")
            span = (span_start, span_start + len(surface))
            found.append(TemporalExpression(surface, span, occurrence.start, occurrence.end, granularity,
                                            round(confidence * occurrence.certainty, 2), occurrence.alternatives,
                                            occurrence.certainty))
    covered = bytearray(len(text))
    for expression in found:
        covered[expression.span[0]:expression.span[1]] = b"\x01" * (expression.span[1] - expression.span[0])
    for start_char, end_char in extra_spans:
        if any(covered[start_char:end_char]):
            continue
        surface = text[start_char:end_char]
        if not re.search(rf"\d|\b{_MON}\b|\b{_WD}\b", surface, re.IGNORECASE):
            continue  # "the past", "recently": dateparser would invent a date
        if _BARE_YEAR.fullmatch(surface):
            # "in 2025" is that whole year (dateparser would give today's day of it)
            if not is_an_amount(text, (start_char, end_char)):
                year = int(surface)
                found.append(TemporalExpression(surface, (start_char, end_char), date(year, 1, 1), date(year, 12, 31),
                                                "year", 0.6))
            continue
        if re.fullmatch(r"\d+", surface):
            continue  # a bare number out of the years' range ("1510 W. Koenig"): a street number, not a date
        parsed = parse_date(surface, now if isinstance(now, datetime) else datetime.combine(now, time()))
        if parsed:
            found.append(TemporalExpression(surface, (start_char, end_char), parsed, parsed, "day", 0.6))
    # Longest first, then leftmost, so "last Monday" beats "Monday".
    found.sort(key=lambda e: (-(e.span[1] - e.span[0]), e.span[0]))
    return keep_unclaimed(found, len(text))


def resolve_in_document(text: str, document_date: date | datetime | str,
                        context_years: Sequence[int] = ()) -> list[TemporalExpression]:
    """The date expressions of a document's text, read from the document's own
    date: "yesterday" in a mail of 24 Nov 2026 is 23 Nov 2026, "in March we
    will launch" is March 2027. `document_date`: a date or an ISO date string."""
    if isinstance(document_date, str):
        try:
            document_date = date.fromisoformat(document_date.strip()[:10])
        except ValueError:
            raise ValueError(f"not an ISO date (YYYY-MM-DD): {document_date[:40]!r}") from None
    return find_temporal_expressions(text, document_date, context_years=context_years)


# Words that make a day relative to when it was written: "next Tuesday", "tomorrow".
_RELATIVE_DAY = re.compile(
    r"\b(?:(?:next|last|this|coming)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|yesterday|today|tonight)\b",
    re.IGNORECASE,
)


def with_days_meant(text: str, written: date | datetime | str | None, keep_words: bool = True) -> str:
    """`text` with each relative day it names given as the date it meant when it was written: in
    a mail of Thursday 26 November 2026, "next Tuesday" becomes "next Tuesday (1 December 2026)",
    or with `keep_words` False "Tuesday 1 December 2026". Dated days ("Friday 4 December") and
    text with no date of writing are left as they are."""
    if not written or not _RELATIVE_DAY.search(text):
        return text
    try:
        found = resolve_in_document(text, written)
    except ValueError:
        return text
    for expression in sorted(found, key=lambda e: e.span[0], reverse=True):
        if (expression.granularity != "day" or not _RELATIVE_DAY.search(expression.text)
                or re.search(r"\d", expression.text)):
            continue
        day, (start, end) = expression.start, expression.span
        meant = f"{day.day} {day:%B %Y}"
        text = (f"{text[:end]} ({meant}){text[end:]}" if keep_words
                else f"{text[:start]}{day:%A} {meant}{text[end:]}")
    return text


def _years_in(text: str, today: date) -> list[tuple[int, int]]:
    """(position, year) of the years `text` names: written out ("the 2027
    budget") or as "this year", "next year", "last year"."""
    found = years_named(text)
    for m in _REL_YEAR.finditer(text):
        found.append((m.start(), today.year + _STEPS.get(m.group("mod").lower(), 0)))
    return sorted(found)


_TIME = re.compile(
    r"\b(?:(?P<h>\d{1,2})(?::(?P<m>[0-5]\d))?\s*(?P<ampm>[ap]\.?m\.?)(?![a-z])|(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)\b|(?P<word>noon|midnight)\b)",
    re.IGNORECASE,
)


@dataclass
class TimeExpression:
    text: str
    span: tuple[int, int]
    time: str  # "HH:MM", 24-hour


def find_time_expressions(text: str) -> list[TimeExpression]:
    """Clock times ("3pm", "14:00", "9:30 a.m.", "noon") as 24-hour HH:MM."""
    found = []
    for m in _TIME.finditer(text):
        if m.group("word"):
            hour, minute = (12, 0) if m.group("word").lower() == "noon" else (0, 0)
        elif m.group("ampm"):
            hour, minute = int(m.group("h")), int(m.group("m") or 0)
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if m.group("ampm").lower().startswith("p") else 0)
        else:
            hour, minute = int(m.group("h24")), int(m.group("m24"))
        found.append(TimeExpression(m.group(0), (m.start(), m.end()), f"{hour:02d}:{minute:02d}"))
    return found
