"""Temporal expressions: find "yesterday", "last Monday", "next week", "2 days
ago", "Nov 30" … in a text and turn each into a calendar date or date range,
relative to the turn's own timestamp (never the wall clock of whoever replays
the session later).

Named relative expressions are computed here directly: they are the common
case, must be instant, and need choices dateparser does not make ("next week"
is a range, a bare weekday is the nearer one unless the tense says otherwise).
Explicit dates go to dateparser with RELATIVE_BASE set to the turn's time.
"""

from __future__ import annotations

import calendar
import functools
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from chatapp.preprocess.entities.spans import keep_unclaimed

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
_NUM = r"(?:\d{1,3}|a couple of|couple of|a few|few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?:day|week|month|year)s?"
_ORD = r"(?:st|nd|rd|th)?"

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
        ("iso", r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
        ("numeric", r"\b(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y>\d{2}|\d{4}))?\b"),
        ("month_day", rf"\b(?P<mon>{_MON})\.?\s+(?P<d>\d{{1,2}}){_ORD}(?:,?\s+(?P<y>\d{{4}}))?\b"),
        ("day_month", rf"\b(?P<d>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<mon>{_MON})\.?(?:,?\s+(?P<y>\d{{4}}))?\b"),
        ("quarter", r"\bQ(?P<q>[1-4])(?:\s+(?P<y>\d{4}))?\b"),
        ("month_year", rf"\b(?P<mon>{_MON})\.?\s+(?P<y>\d{{4}})\b"),
        # A bare month name is a date only after a preposition ("in March");
        # the span is the month itself.
        ("in_month", r"\b(?:in|during|since|until|by)\s+(?P<core>(?P<mon>january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec))\b"),
    ]
]

_FUTURE_CUES = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|upcoming|coming|schedule[ds]?|plan(?:ned|ning)?|due|next|'ll)\b|\w'll\b",
    re.IGNORECASE,
)
_PAST_CUES = re.compile(
    r"\b(?:did|was|were|had|sent|said|wrote|mentioned|happened|ago|last|yesterday|went|met|told|asked|got|received)\b",
    re.IGNORECASE,
)


@dataclass
class TemporalExpression:
    text: str
    span: tuple[int, int]
    start: date
    end: date  # == start for a single day
    granularity: str  # day | week | weekend | month | quarter | year | range
    confidence: float

    @property
    def is_range(self) -> bool:
        return self.start != self.end

    @property
    def canonical(self) -> str:
        return self.start.isoformat() if not self.is_range else f"{self.start.isoformat()}..{self.end.isoformat()}"

    def attributes(self) -> dict[str, str]:
        if self.is_range:
            return {"start": self.start.isoformat(), "end": self.end.isoformat()}
        return {"date": self.start.isoformat()}


def _number(text: str) -> int:
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else NUMBER_WORDS.get(text, 1)


def _month_number(text: str) -> int:
    text = text.lower().rstrip(".")
    return _MONTH_ABBR.get(text[:4] if text.startswith("sept") else text[:3], 0)


def _weekday_number(text: str) -> int:
    text = text.lower().rstrip(".")
    return WEEKDAYS.index(text) if text in WEEKDAYS else _WEEKDAY_ABBR[text]


def _shift_months(day: date, months: int) -> date:
    month_index = day.year * 12 + day.month - 1 + months
    year, month = divmod(month_index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _month_range(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _quarter_range(year: int, quarter: int) -> tuple[date, date]:
    start = date(year, 3 * quarter - 2, 1)
    return start, _month_range(year, 3 * quarter)[1]


def _shift(today: date, amount: int, unit: str) -> date:
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return today + timedelta(days=amount)
    if unit == "week":
        return today + timedelta(weeks=amount)
    if unit == "month":
        return _shift_months(today, amount)
    return _shift_months(today, 12 * amount)


def _nearest_year(today: date, month: int, day: int, tense: str) -> date | None:
    """A month/day without a year: the occurrence nearest to today, unless the
    sentence's tense picks a side."""
    options = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            options.append(date(year, month, day))
        except ValueError:
            continue
    if not options:
        return None
    if tense == "future":
        later = [d for d in options if d >= today]
        return min(later) if later else None
    if tense == "past":
        earlier = [d for d in options if d <= today]
        return max(earlier) if earlier else None
    return min(options, key=lambda d: (abs((d - today).days), d > today))


def sentence_tense(text: str) -> str:
    """"future", "past" or "" from cue words: which way a bare "Friday" leans."""
    future, past = bool(_FUTURE_CUES.search(text)), bool(_PAST_CUES.search(text))
    if future and not past:
        return "future"
    if past and not future:
        return "past"
    return ""


def _resolve_match(kind: str, m: re.Match, today: date, tense: str) -> tuple[date, date, str, float] | None:
    g = {k: v for k, v in m.groupdict().items() if v}
    text = " ".join(m.group(0).lower().split())
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
        step = {"last": -1, "previous": -1, "past": -1, "next": 1, "coming": 1}.get(g["mod"].lower(), 0)
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
            first = _shift_months(today.replace(day=1), step)
            return (*_month_range(first.year, first.month), "month", 0.9)
        if unit == "quarter":
            index = today.year * 4 + (today.month - 1) // 3 + step
            return (*_quarter_range(index // 4, index % 4 + 1), "quarter", 0.9)
        year = today.year + step
        return date(year, 1, 1), date(year, 12, 31), "year", 0.9
    if kind == "rel_weekday":
        target = _weekday_number(g["wd"])
        mod = (g.get("mod") or "").lower()
        back = (today.weekday() - target) % 7 or 7  # days to the previous such weekday
        ahead = (target - today.weekday()) % 7 or 7
        if mod in ("last", "previous", "past"):
            day = today - timedelta(days=back)
        elif mod in ("next", "coming"):
            day = today + timedelta(days=ahead)
        elif mod == "this":
            day = today - timedelta(days=today.weekday()) + timedelta(days=target)
        elif target == today.weekday():
            day = today
        elif tense == "past":
            day = today - timedelta(days=back)
        elif tense == "future":
            day = today + timedelta(days=ahead)
        else:
            day = today - timedelta(days=back) if back <= ahead else today + timedelta(days=ahead)
        return day, day, "day", 0.9 if mod else 0.75
    if kind == "quarter":
        year = int(g["y"]) if g.get("y") else today.year
        return (*_quarter_range(year, int(g["q"])), "quarter", 0.85)
    if kind == "month_year":
        return (*_month_range(int(g["y"]), _month_number(g["mon"])), "month", 0.9)
    if kind == "in_month":
        month = _month_number(g["mon"])
        candidates = [(_month_range(y, month)) for y in (today.year - 1, today.year, today.year + 1)]
        if tense == "future":
            candidates = [c for c in candidates if c[1] >= today] or candidates
        elif tense == "past":
            candidates = [c for c in candidates if c[0] <= today] or candidates
        start, end = min(candidates, key=lambda c: 0 if c[0] <= today <= c[1] else min(abs((c[0] - today).days), abs((c[1] - today).days)))
        return start, end, "month", 0.8
    return _explicit_date(kind, g, m.group(0), today, tense)


def _explicit_date(kind: str, g: dict, text: str, today: date, tense: str) -> tuple[date, date, str, float] | None:
    """Explicit calendar dates. dateparser does the parsing (locales, odd
    spellings); a date written without a year lands on the nearest year."""
    if kind == "numeric":
        a, b = int(g["a"]), int(g["b"])
        month, day = (a, b) if a <= 12 else (b, a)  # US order unless impossible
        if not g.get("y"):
            found = _nearest_year(today, month, day, tense) if 1 <= month <= 12 else None
            return (found, found, "day", 0.7) if found else None
        year = int(g["y"]) + (2000 if len(g["y"]) == 2 else 0)
        try:
            found = date(year, month, day)
        except ValueError:
            return None
        return found, found, "day", 0.85
    if kind in ("month_day", "day_month") and not g.get("y"):
        found = _nearest_year(today, _month_number(g["mon"]), int(g["d"]), tense)
        return (found, found, "day", 0.85) if found else None
    parsed = parse_date(text, datetime.combine(today, datetime.min.time()))
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


def find_temporal_expressions(text: str, now: datetime, extra_spans: list[tuple[int, int]] = ()) -> list[TemporalExpression]:
    """Every date expression in `text`, left to right, without overlaps.

    `extra_spans` are spans another component (spaCy's DATE entities, the
    correction stage's date markers) believes are dates; those not covered by
    the patterns here are handed to dateparser, and kept unresolved (no date)
    when it cannot read them either — the caller decides what to do with them.
    """
    today = now.date()
    tense = sentence_tense(text)
    found: list[TemporalExpression] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if kind == "rel_weekday" and not m.group("mod") and m.group("wd").lower() in ("sun", "sat", "wed", "mar", "mon"):
                continue  # "sun", "wed" … are words first; only a modifier makes them days
            resolved = _resolve_match(kind, m, today, tense)
            if resolved is None:
                continue
            start, end, granularity, confidence = resolved
            span_start, span_end = m.span("core") if m.groupdict().get("core") else m.span()
            surface = text[span_start:span_end].rstrip(".")
            span = (span_start, span_start + len(surface))
            found.append(TemporalExpression(surface, span, start, end, granularity, confidence))
    covered = bytearray(len(text))
    for expression in found:
        covered[expression.span[0]:expression.span[1]] = b"\x01" * (expression.span[1] - expression.span[0])
    for start_char, end_char in extra_spans:
        if any(covered[start_char:end_char]):
            continue
        surface = text[start_char:end_char]
        if not re.search(rf"\d|\b{_MON}\b|\b{_WD}\b", surface, re.IGNORECASE):
            continue  # "the past", "recently": dateparser would invent a date
        parsed = parse_date(surface, now)
        if parsed:
            found.append(TemporalExpression(surface, (start_char, end_char), parsed, parsed, "day", 0.6))
    # Longest first, then leftmost, so "last Monday" beats "Monday".
    found.sort(key=lambda e: (-(e.span[1] - e.span[0]), e.span[0]))
    return keep_unclaimed(found, len(text))


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
