"""Checkable values in text: emails, phones, URLs, dates, times, amounts,
quantities and plain numbers — found with their spans, parsed into forms that
compare ("$1.2M" equals "$1,200,000", "2pm" equals "14:00"), and written back
in the style the answer used when a correction replaces them.

Hand-written patterns rather than dateparser: an answer is checked on every
turn, these run in microseconds, and an impossible date ("February 30") must
be caught rather than silently rolled over.
"""

from __future__ import annotations

import calendar
import functools
import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from chatapp.knowledge.extraction.people import phone_spans
from chatapp.knowledge.extraction.values import (
    FRENCH_MONTH,
    FRENCH_MONTHS,
    GERMAN_MONTH,
    GERMAN_MONTHS,
    INDIAN_SCALES,
    NAIRA,
    OTHER_SIGNS,
    RAND,
    SPANISH_MONTH,
    SPANISH_MONTHS,
    TRAILING_AMOUNT,
    find_amounts,
    numeric_day_first,
)

MONTHS = {
    name: number
    for number, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
         ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
         ("oct", "october"), ("nov", "november"), ("dec", "december")],
        start=1,
    )
    for name in names
}
FRENCH_MONTH_NAMES = ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
                      "octobre", "novembre", "décembre")
WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
# French weekdays, written before a French date ("samedi 5 juin 2027").
FRENCH_WEEKDAY_NAMES = ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche")
WEEKDAYS.update({name: n for n, name in enumerate(FRENCH_WEEKDAY_NAMES)})
SMALL_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
                "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
                "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
                "million": 1e6, "billion": 1e9}
ORDINAL_WORDS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
                 "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
                 "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20}
_MONTH = r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
_SMALL = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"

EMAIL_RE = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
URL_RE = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+")
# A reference as offices write one, in capitals and figures: "26/01873/LBC", "INV-20931", "HAR0031".
# Lower-case runs ("email-2026-11-24-go-live.eml") are file names and slugs, not references.
CODE_RE = re.compile(r"(?<![\w/.-])(?:[A-Z0-9]+(?:[/-][A-Z0-9]+)+|[A-Z]{2,}\d{3,})(?![\w/-]|\.\w)")
# Year first, with dashes or, as Japanese and Chinese documents write it, slashes ("2027/02/19").
ISO_DATE_RE = re.compile(r"(?<![\w/-])(\d{4})(?:-(?=\d{1,2}-)|/(?=\d{1,2}/))(\d{1,2})[-/](\d{1,2})(?![\w/-])")
# A month ending a line is no date with the number opening the next when that number opens a list's
# item: "… review the draft on 14 Dec.\n2. Office move" (a wrapped "December\n14, 2026" still is one).
MONTH_DAY_RE = re.compile(r"\b" + _MONTH + r"\.?(?:[^\S\n]+|[^\S\n]*\n\s*(?!\d{1,2}[.)]\s))(\d{1,2})(?:st|nd|rd|th)?\b"
                          r"(?:,?\s+(\d{4})\b)?", re.IGNORECASE)
DAY_MONTH_RE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"\b\.?(?:,?\s+(\d{4})\b)?", re.IGNORECASE)
# "11. Januar 2027", "30. November": German writes a full stop after the day.
GERMAN_DAY_MONTH_RE = re.compile(r"(?<![\d.,])\b(\d{1,2})\.\s?(" + GERMAN_MONTH + r")\b\.?(?:\s+(\d{4})\b)?", re.IGNORECASE)
_MONTH_RE_EN = re.compile(_MONTH, re.IGNORECASE)
GERMAN_MONTH_NAMES = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
                      "November", "Dezember")
FRENCH_DAY_MONTH_RE = re.compile(r"\b(\d{1,2})(?:er)?\s+(" + FRENCH_MONTH + r")\b\.?(?:\s+(\d{4})\b)?", re.IGNORECASE)
# "15 de enero de 2027", "22 de febrero": Spanish puts "de" before the month and the year.
SPANISH_DAY_MONTH_RE = re.compile(r"\b(\d{1,2})\s+de\s+(" + SPANISH_MONTH + r")\b(?:\s+del?\s+(\d{4})\b)?", re.IGNORECASE)
SPANISH_MONTH_NAMES = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
                       "octubre", "noviembre", "diciembre")
MONTH_YEAR_RE = re.compile(r"\b" + _MONTH + r"\s+(?:of\s+)?(\d{4})\b", re.IGNORECASE)
# "9/12/2026", "09/12/26"; "14-12-2026" and "07.12.2026" (India, the Netherlands, Germany…) only with a
# four-digit year, so a phone number or a version ("1.2.26") is no date.
NUMERIC_DATE_RE = re.compile(
    r"(?<![\w/.-])(\d{1,2})(?:/(\d{1,2})/(\d{4}|\d{2})|([.-])(\d{1,2})\4(\d{4}))(?![\w/]|[.-]\d)")
# "Tuesday 12/8", "by 12/4", "from 12/19 to 12/23", "12/19–12/23": a day and month written in numbers
# without a year, as US mail writes them, only where a weekday, a word for when or a range makes it a
# date (a lone "1/3" may be a fraction, "24/7" is not a day).
YEARLESS_NUMERIC_RE = re.compile(
    r"\b(?P<when>(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?|on|from|to|until|till"
    r"|through|thru|due|before|after|since|starting|ending|by|of)\s+"
    r"(?<![\w/.-])(?P<first>\d{1,2})/(?P<second>\d{1,2})(?![\w/]|[.,-]\d|\s+of\b)",
    re.IGNORECASE)
YEARLESS_RANGE_RE = re.compile(
    r"(?<![\w/.-])(\d{1,2})/(\d{1,2})\s*[-–—]\s*(\d{1,2})/(\d{1,2})(?![\w/]|[.,-]\d)")
RELATIVE_RE = re.compile(  # not inside a longer number: "1,250,000 days later" is no "000 days later"
    r"(?<![\d.,])\b(?:the day before yesterday|the day after tomorrow|yesterday|today|tonight|tomorrow"
    r"|(?:last|next|this) (?:week|month|year)"
    r"|(?:last|next|this) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|" + _SMALL + r" (?:days?|weeks?|months?) (?:ago|from now|later)"
    r"|in " + _SMALL + r" (?:days?|weeks?))\b",
    re.IGNORECASE,
)
WEEKDAY_RE = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday"
                        r"|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)s?\b", re.IGNORECASE)
# A day as a rota or a roster writes it: in full, or cut short and capitalised ("Mon", "Tues.", "Thurs"),
# which alone could be a word ("Sat down", "Wed in June") and so counts only in a run of days.
_DAY = (r"(?:[Mm]onday|[Tt]uesday|[Ww]ednesday|[Tt]hursday|[Ff]riday|[Ss]aturday|[Ss]unday)s?"
        r"|(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\.?(?![\w])")
_DAY_RANGE_SEPARATOR = r"\s*[–—-]\s*|\s+(?:to|through|thru|until|till)\s+"
DAY_RUN_RE = re.compile(rf"\b(?:{_DAY})(?:(?:\s*[,/&+]\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|{_DAY_RANGE_SEPARATOR})"
                        rf"(?:{_DAY}))+")
_DAY_ONE_RE = re.compile(_DAY)
TIME_RE = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?|(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])|\b(noon|midnight)\b",
    re.IGNORECASE,
)
# French clock times: "18 h 34", "09 h 14", and a whole hour where French puts one ("de 11 h à 19 h", "à 13 h",
# "vers 10 h"); a bare "3 h" may be a duration.
FRENCH_TIME_RE = re.compile(
    r"(?P<lead>\b(?:à|de|dès|vers|avant|après|jusqu'à|jusqu’à|entre|et)\s+|,\s+)?"
    r"(?<![\d:,.])(?P<hour>[01]?\d|2[0-3])\s?h(?:\s?(?P<minute>[0-5]\d))?(?![\w:])",
    re.IGNORECASE,
)
# "NZ$", "A$", "US$", "HK$": a dollar sign with its country's letters in front is still an amount.
# "EUR 0.12", "CHF 1,200": a currency's ISO code before the number, as price lists and invoices write it.
# "R3 864 500,00", "ZAR 450 000,00": thousands grouped with spaces, cents after a comma (South Africa's way),
# and the rand's bare R (knowledge/extraction/values.py).
# East African shillings: "KSh 4.85M", "Kshs. 45,000/=", "KES 4,850,000", "USh", "TSh"; "/=" after the
# figure closes a shilling amount, with or without the mark before it ("45,000/=").
# Dutch and German close a whole amount with ",-" where the cents would be: "€ 186.400,-", "€ 45,–".
_CODES = "usd|eur|gbp|chf|jpy|cad|aud|nzd|sek|nok|dkk|pln|czk|huf|inr|cny|hkd|sgd|zar|kes|ugx|tzs|ngn|ghs|mxn|cop|clp|ars|brl"
# "$1,240,000.00 MXN", "$412,000.00 MXN": Latin America writes its peso with the dollar sign and the code after
# the figure to tell it from US dollars; the code is part of the amount.
_CODE_AFTER = r"(?:\s(?-i:" + _CODES.upper() + r")(?![\w$]))?"
_SHILLING_MARKS = r"(?-i:K[Ss]hs?|[UT]Shs?)\.?(?=\s?\d)"
AMOUNT_RE = re.compile(
    r"(?<!\w)((?:[A-Z]{1,3}(?=\$))?[$€£₹¥" + OTHER_SIGNS + r"]|Rs\.?(?=\s?\d)|(?-i:" + RAND + r")|(?-i:" + NAIRA + r")|"
    + _SHILLING_MARKS + r"|(?-i:T)(?:EUR\s|€)|(?:"
    + _CODES + r")\s)\s?"
    r"([1-9]\d{0,2}(?:\.\d{3})+(?:,\d{1,2})?(?![\d.,]\d)|[1-9]\d{0,2}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d{1,2})?(?![\d.,]\d)"
    r"|\d[\d,]*(?:\.\d+)?)"
    r"(?:\s?(k|m|bn|b|thousand|million|billion|mil|milhão|milhões|millón|millones|lakhs?|lacs?|crores?|cr)(?!\w))?"
    r"(?:/=|/-|,[-–]{1,2}(?![\w-]))?" + _CODE_AFTER +
    # The figure ends on a digit: in "6–11 March 2027, USD 14,350" the year and its comma are no amount.
    r"|\b(\d(?:[\d,]*\d)?(?:\.\d+)?)(?:\s?(dollars|euros?|pounds|rupees|shillings|naira|cedis|" + _CODES + r")\b|/=)",
    re.IGNORECASE,
)
# Thousands separators belong to the number: "9,000 years" is nine thousand, not "000 years", and so do
# the spaces (plain, no-break or narrow) much of Europe groups a number's thousands with: "4 200 tonnes",
# "14 800 t" are one figure each, not "4" and "200 tonnes". A figure right after another and a space is
# no group of it ("pens 3 200 m apart" is left alone only when nothing else reads it).
SPACED_THOUSANDS = r"(?<!\d[ \u00a0\u202f])[1-9]\d{0,2}(?:[ \u00a0\u202f]\d{3})+(?![\d.,]\d|[ \u00a0\u202f]\d)"
QUANTITY_RE = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|" + SPACED_THOUSANDS + r"|\d+(?:\.\d+)?)[\s-]?"
    r"(minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|percent|%)(?!\w)",
    re.IGNORECASE,
)
DECADE_RE = re.compile(r"(?<![\w$-])(1[5-9]\d0|20[0-9]0)['’]?s\b")
YEAR_RE = re.compile(r"(?<![\w.,$-])(1[5-9]\d\d|20\d\d)(?![\w-]|[.,]\d)")
ORDINAL_RE = re.compile(r"(?<![\w.,$-])(\d+)(?:st|nd|rd|th)\b", re.IGNORECASE)
# Spelled numbers count as claims too ("his seventh reign"); "one" and "first" are too often not numbers.
NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(list(NUMBER_WORDS) + list(ORDINAL_WORDS)) + r")\b", re.IGNORECASE)
# "thirty-five", "forty two": one number, not "five" or "two" after a round ten.
TENS_UNITS_RE = re.compile(r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[-\s](one|two|three|four|five|six|"
                           r"seven|eight|nine)\b", re.IGNORECASE)
# "thirty-five pounds", "twelve dollars": an amount, as "£35" is ("five thousand dollars" is left to the
# words' numbers: no round hundred or thousand here).
SPELLED_AMOUNT_RE = re.compile(r"\b(" + TENS_UNITS_RE.pattern[2:-2] + r"|" + "|".join(w for w, n in NUMBER_WORDS.items() if n < 100)
                               + r"|one)\s+"
                               r"(dollars|euros|pounds)\b", re.IGNORECASE)
NUMBER_RE = re.compile(r"(?<![\w.,$€£₹¥₦₵₱₩₺₪₫₴₽/:-])(\d{1,3}(?:,\d{3})+|" + SPACED_THOUSANDS
                       + r"|\d+)(?:\.\d+)?(?![\w/-]|[.,:]\d)")

# Portuguese and Spanish write thousands and millions as words too: "R$ 350 mil", "R$ 1,1 milhão".
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9,
          "mil": 1e3, "milhão": 1e6, "milhões": 1e6, "millón": 1e6, "millones": 1e6, **INDIAN_SCALES}
# "€1,2M", "R$ 1,1 milhão": a comma before one or two digits, ending the number, is a decimal comma
# (a thousands comma always has three digits after it). "R$ 1.100.000,00", "€48.000": dots between groups
# of three are thousands, as the ingest reads them (knowledge/extraction/values.py).
_DECIMAL_COMMA = re.compile(r"\d+,\d{1,2}")
# One group after the dot ("$2.125 a gallon") is a decimal where the dot is the decimal mark: a pound or a
# dollar other than Brazil's real.
_DOT_THOUSANDS = re.compile(r"[1-9]\d{0,2}(?:\.\d{3})+(?:,\d{1,2})?")
_ONE_GROUP = re.compile(r"\d+\.\d{3}")
_DECIMAL_DOT_CURRENCY = re.compile(r"(?:[A-QS-Z]{1,3})?\$|£|usd|gbp|cad|aud|nzd|hkd|sgd|₦|ngn|(?-i:N)|₵|ghs", re.IGNORECASE)
# Measures with a unit symbol, written as work documents write them ("150 kW", "422 kWh", "1,500 kVA",
# "280 km", "60,000 litres"): each unit as (what it measures, how many of that dimension's base unit).
# Case matters ("MW" is not "mW"), so these are matched apart from the words above.
MEASURES = {
    "W": ("power", 1.0), "kW": ("power", 1e3), "MW": ("power", 1e6), "GW": ("power", 1e9),
    "Wh": ("energy", 1.0), "kWh": ("energy", 1e3), "MWh": ("energy", 1e6), "GWh": ("energy", 1e9),
    "VA": ("apparent power", 1.0), "kVA": ("apparent power", 1e3), "MVA": ("apparent power", 1e6),
    "V": ("voltage", 1.0), "kV": ("voltage", 1e3), "mAh": ("charge", 1e-3), "Ah": ("charge", 1.0),
    "mm": ("length", 1e-3), "cm": ("length", 1e-2), "km": ("length", 1e3), "miles": ("length", 1609.344),
    "km/h": ("speed", 1.0), "kph": ("speed", 1.0), "mph": ("speed", 1.609344),
    "kg": ("mass", 1.0), "tonnes": ("mass", 1e3),
    "litres": ("volume", 1.0), "liters": ("volume", 1.0), "litre": ("volume", 1.0), "liter": ("volume", 1.0),
    "L": ("volume", 1.0), "ml": ("volume", 1e-3), "mL": ("volume", 1e-3),
    "Hz": ("frequency", 1.0), "kHz": ("frequency", 1e3), "MHz": ("frequency", 1e6), "GHz": ("frequency", 1e9),
    "MB": ("data", 1e6), "GB": ("data", 1e9), "TB": ("data", 1e12),
}
MEASURE_RE = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|" + SPACED_THOUSANDS + r"|\d+(?:\.\d+)?)[\s-]?("
    + "|".join(re.escape(u) for u in sorted(MEASURES, key=len, reverse=True)) + r")(?![\w/])"
)


def measure_pattern(*dimensions: str) -> re.Pattern:
    """A number with a unit of one of these dimensions ("150 kW" for power)."""
    units = sorted((u for u, (d, _) in MEASURES.items() if d in dimensions), key=len, reverse=True)
    return re.compile(r"(?<![\w.,])\d[\d,.]*[\s-]?(?:" + "|".join(map(re.escape, units)) + r")(?![\w/])")
_UNIT = {"min": "minute", "mins": "minute", "minute": "minute", "minutes": "minute", "hour": "hour",
         "hours": "hour", "hr": "hour", "hrs": "hour", "day": "day", "days": "day", "week": "week",
         "weeks": "week", "month": "month", "months": "month", "year": "year", "years": "year",
         "percent": "percent", "%": "percent"}


# A record's field whose name ends with its unit, as a register's JSON keys and CSV columns are written:
# "mtb_tonnes: 3900", "lead_time_weeks: 4", "Capacity (kWh): 422". The bare figure is a value in that
# unit, so "4 200 tonnes" in an answer is checked against it and corrected to "3900 tonnes".
_LABEL_UNITS = {u.lower(): u for u in MEASURES if sum(v.lower() == u.lower() for v in MEASURES) == 1} | {
    u: u for u in _UNIT if u != "%"} | {"pct": "%", "%": "%"}
_MEASURE_WORDS = "|".join(re.escape(u.lower()) for u in sorted(MEASURES, key=len, reverse=True) if len(u) > 2)
LABELLED_UNIT_RE = re.compile(
    # A measure's unit may also close a label in words ("mtb tonnes: 3900", as a record's key reads once
    # its underscores are spaces); a period of time must be set off ("last week: 12" is no 12 weeks).
    r"(?<![\w])[A-Za-z][A-Za-z0-9]*(?:[_ ][A-Za-z0-9]+)*?(?: (?P<worded>" + _MEASURE_WORDS + r")|_(?P<unit>" + "|".join(
        re.escape(u) for u in sorted(_LABEL_UNITS, key=len, reverse=True)) + r")|\s?\((?P<bracketed>"
    + "|".join(re.escape(u) for u in sorted(_LABEL_UNITS, key=len, reverse=True)) + r")\))\s*:\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|" + SPACED_THOUSANDS + r"|\d+(?:\.\d+)?)(?![\w/:-]|[.,]\d)",
    re.IGNORECASE,
)


def labelled_unit_value(match: re.Match) -> tuple[str, str, Any] | None:
    """(the figure with its unit, the value type, the parsed value) of a LABELLED_UNIT_RE match."""
    unit = _LABEL_UNITS.get((match.group("unit") or match.group("bracketed") or match.group("worded")).lower())
    if unit is None:
        return None
    figure = match.group("num")
    if unit in MEASURES:
        dimension, factor = MEASURES[unit]
        return f"{figure} {unit}", "quantity", (_figure(figure) * factor, dimension)
    return f"{figure} {unit}".replace(" %", "%"), "quantity", (_figure(figure), _UNIT[unit])


@dataclass(frozen=True)
class DateValue:
    year: int | None = None
    month: int | None = None
    day: int | None = None
    weekday: int | None = None
    valid: bool = True
    # "9/12/2026": read month first, but day first in most of the world (9 December); either reading
    # agrees with a date stated another way. Not part of equality: it is how the date was written.
    either_way: bool = field(default=False, compare=False)

    def as_date(self) -> date | None:
        if self.valid and self.year and self.month and self.day:
            return date(self.year, self.month, self.day)
        return None


@dataclass(frozen=True)
class RelativeDate:
    text: str

    def resolve(self, now: datetime) -> tuple[date, date]:
        """The range of days the expression covers, relative to `now`."""
        text, today = self.text.lower(), now.date()
        fixed = {"today": 0, "tonight": 0, "yesterday": -1, "tomorrow": 1,
                 "the day before yesterday": -2, "the day after tomorrow": 2}
        if text in fixed:
            day = today + timedelta(days=fixed[text])
            return day, day
        words = text.split()
        if words[-1] in WEEKDAYS:
            target = WEEKDAYS[words[-1]]
            delta = target - today.weekday()
            if words[0] == "last":
                delta = delta - 7 if delta >= 0 else delta
            elif words[0] == "next":
                delta = delta + 7 if delta <= 0 else delta
            day = today + timedelta(days=delta)
            return day, day
        if words[0] in ("last", "next", "this"):
            sign = {"last": -1, "next": 1, "this": 0}[words[0]]
            if words[1] == "week":
                start = today - timedelta(days=today.weekday()) + timedelta(weeks=sign)
                return start, start + timedelta(days=6)
            if words[1] == "month":
                month_index = today.year * 12 + today.month - 1 + sign
                year, month = divmod(month_index, 12)
                return date(year, month + 1, 1), date(year, month + 1, calendar.monthrange(year, month + 1)[1])
            year = today.year + sign
            return date(year, 1, 1), date(year, 12, 31)
        count_word = words[1] if words[0] == "in" else words[0]
        count = int(count_word) if count_word.isdigit() else SMALL_NUMBERS.get(count_word, 1)
        unit = words[2] if words[0] == "in" else words[1]
        days = count * (7 if unit.startswith("week") else 30 if unit.startswith("month") else 1)
        sign = -1 if words[-1] == "ago" else 1
        slack = 0 if unit.startswith("day") else 3 if unit.startswith("week") else 7
        centre = today + timedelta(days=sign * days)
        return centre - timedelta(days=slack), centre + timedelta(days=slack)


@dataclass(frozen=True)  # shared between checks through find_values' cache
class FoundValue:
    span: tuple[int, int]
    text: str
    kind: str  # the Claim kind: email | phone | url | date | amount | number
    vtype: str  # email phone url code date relative weekday year time amount quantity number
    parsed: Any


def _date(year, month, day, weekday=None) -> DateValue:
    year = int(year) if year else None
    if year is not None and year < 100:
        year += 2000
    month, day = int(month) if month else None, int(day) if day else None
    valid = month is None or 1 <= month <= 12
    if valid and day is not None:
        limit = calendar.monthrange(year or 2024, month)[1] if month else 31  # leap year when unknown
        valid = 1 <= day <= limit
    return DateValue(year, month, day, weekday, valid)


def _numeric_like(claimed: re.Match, day: date, known: re.Match | None = None) -> str:
    """`day` written in numbers as the answer wrote its date: the same order, separator, padding
    and year ("14-12-2026" → "11-01-2027", "9/12/26" → "1/11/27"). Two figures each ("20.12.2026") do not
    show whether a folder pads them: then as the document (`known`, its date in figures) writes them,
    "22.1.2027" where Finland and Norway write no zero."""
    first, second, year = claimed.group(1), claimed.group(2) or claimed.group(5), claimed.group(3) or claimed.group(6)
    separator = claimed.group(4) or "/"
    padded = first.startswith("0") or second.startswith("0") or (len(first) == len(second) == 2)
    if padded and not (first.startswith("0") or second.startswith("0")) and known is not None and (
            known.group(4) or "/") == separator:
        parts = [part for part in (known.group(1), known.group(2) or known.group(5)) if part]
        padded = not any(len(part) == 1 for part in parts)
    day_text, month_text = (f"{day.day:02d}", f"{day.month:02d}") if padded else (str(day.day), str(day.month))
    pair = (day_text, month_text) if numeric_day_first(int(first), int(second), separator) else (month_text, day_text)
    return separator.join([*pair, str(day.year)[-len(year):]])


def is_day(parsed: DateValue, written: str) -> bool:
    """Whether a date the answer gives is the day of a document's date (ISO text, perhaps with a time)."""
    if parsed.day is None or parsed.month is None or not re.match(r"\d{4}-\d{2}-\d{2}", written):
        return False
    year, month, day = (int(part) for part in written[:10].split("-"))
    return (parsed.day, parsed.month) == (day, month) and parsed.year in (None, year)


def _month(name: str) -> int:
    return MONTHS[name.lower().rstrip(".")[:3] if name.lower()[:3] != "sep" else "sep"]


def _amount(number: str, scale: str | None, currency: str = "") -> float:
    number = re.sub(r"[ \u00a0\u202f]", "", number)
    if _DOT_THOUSANDS.fullmatch(number) and not (_ONE_GROUP.fullmatch(number)
                                                 and _DECIMAL_DOT_CURRENCY.fullmatch(currency.strip())):
        number = number.replace(".", "")
    if _DECIMAL_COMMA.fullmatch(number):
        number = number.replace(",", ".")
    return float(number.replace(",", "")) * _SCALE.get((scale or "").lower(), 1.0)


def _time(hour, minute, meridiem, word=None) -> int | None:
    if word:
        return 12 * 60 if word.lower() == "noon" else 0
    hour, minute = int(hour), int(minute or 0)
    if meridiem:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if meridiem.lower() == "p" else 0)
    return hour * 60 + minute


def days_in_runs(text: str) -> list[FoundValue]:
    """The weekdays a run of days states, each on its own: "Mon, Wed, Fri" is Monday, Wednesday and
    Friday, and a range states the days inside it ("Tue–Sat", "Monday to Thursday"). What a source
    says, so that an answer's "he works Wednesdays" is borne out by a roster's "Mon, Wed, Fri";
    overlapping values, so never an answer's own (find_values)."""
    found = []
    for run in DAY_RUN_RE.finditer(text):
        days = list(_DAY_ONE_RE.finditer(run.group(0)))
        numbers = [WEEKDAYS[_day_name(d.group(0))] for d in days]
        for day, number in zip(days, numbers):
            span = (run.start() + day.start(), run.start() + day.end())
            found.append(FoundValue(span, day.group(0), "date", "weekday", DateValue(weekday=number)))
        for (a, first), (b, last) in zip(zip(days, numbers), zip(days[1:], numbers[1:])):
            if re.fullmatch(_DAY_RANGE_SEPARATOR, run.group(0)[a.end():b.start()]):
                inside = (first + 1) % 7
                while inside != last:
                    found.append(FoundValue(run.span(), run.group(0), "date", "weekday", DateValue(weekday=inside)))
                    inside = (inside + 1) % 7
    return found


def _day_name(day: str) -> str:
    short = day.lower().rstrip(".")[:3]
    return next(name for name in WEEKDAYS if name.startswith(short))


def find_values(text: str) -> list[FoundValue]:
    """Every checkable value in `text`, without overlaps (the most specific wins)."""
    return list(_values_of(text))


@functools.lru_cache(maxsize=20_000)
def _values_of(text: str) -> tuple[FoundValue, ...]:
    # Each check reads the same evidence sentences again for every value claim of an answer, and a chat
    # turn's retrieved chunks come back turn after turn: parse each text once.
    found: list[FoundValue] = []
    taken: list[tuple[int, int]] = []

    def add(match_span, kind, vtype, parsed, group_text=None) -> None:
        start, end = match_span
        value_text = (group_text or text[start:end]).rstrip(".,;:")
        end = start + len(value_text)
        if any(start < b and a < end for a, b in taken):
            return
        taken.append((start, end))
        found.append(FoundValue((start, end), value_text, kind, vtype, parsed))

    for m in EMAIL_RE.finditer(text):
        add(m.span(), "email", "email", m.group(0).rstrip(".").lower())
    for m in URL_RE.finditer(text):
        add(m.span(), "url", "url", m.group(0).rstrip(".,;").lower().rstrip("/"))
    for m in CODE_RE.finditer(text):
        if is_code(m.group(0)) and not text[:m.start()].endswith("+"):  # "+358-401234567" is a phone
            if _FIGURES_ID.fullmatch(m.group(0)) and re.search(r"\d[\s.-]$", text[:m.start()]):
                continue  # "+49 711 3905528-0": a line and its extension, the end of a phone number
            add(m.span(), "number", "code", m.group(0).upper())
    for m, (_, number) in find_amounts(text):
        if m.re is TRAILING_AMOUNT:  # "38 500 $", "12 500,00 $": the French way (the rest are read below)
            add(m.span(), "amount", "amount", number)
    for m in AMOUNT_RE.finditer(text):
        if m.group(2):
            thousands = 1e3 if m.group(1)[:1] == "T" else 1  # "TEUR 85": thousands of euros, as German writes them
            add(m.span(), "amount", "amount", _amount(m.group(2), m.group(3), m.group(1)) * thousands)
        else:
            add(m.span(), "amount", "amount", _amount(m.group(4), None))
    for m in SPELLED_AMOUNT_RE.finditer(text):
        add(m.span(), "amount", "amount", _amount(str(spelled_number(m.group(1))), None))
    for m in ISO_DATE_RE.finditer(text):
        add(m.span(), "date", "date", _date(m.group(1), m.group(2), m.group(3)))
    for m in GERMAN_DAY_MONTH_RE.finditer(text):
        if not m.group(3) and _MONTH_RE_EN.fullmatch(m.group(2)):
            continue  # "3. May we …" in a numbered list: without a year, only a German month's name is a date
        add(m.span(), "date", "date", _date(m.group(3), GERMAN_MONTHS[m.group(2).lower()], m.group(1)))
    for m in RELATIVE_RE.finditer(text):
        add(m.span(), "date", "relative", RelativeDate(m.group(0).lower()))
    for m in MONTH_DAY_RE.finditer(text):
        if _lowercase_short_month(m.group(1)):
            continue
        add(m.span(), "date", "date", _date(m.group(3), _month(m.group(1)), m.group(2)))
    for m in DAY_MONTH_RE.finditer(text):
        if _lowercase_short_month(m.group(2)) and not m.group(3):  # "18 nov. 2026" is a date
            continue
        add(m.span(), "date", "date", _date(m.group(3), _month(m.group(2)), m.group(1)))
    for m in FRENCH_DAY_MONTH_RE.finditer(text):
        add(m.span(), "date", "date", _date(m.group(3), FRENCH_MONTHS[m.group(2).lower()], m.group(1)))
    for m in SPANISH_DAY_MONTH_RE.finditer(text):
        add(m.span(), "date", "date", _date(m.group(3), SPANISH_MONTHS[m.group(2).lower()], m.group(1)))
    for m in MONTH_YEAR_RE.finditer(text):
        if _lowercase_short_month(m.group(1)):
            continue
        add(m.span(), "date", "date", _date(m.group(2), _month(m.group(1)), None))
    for m in NUMERIC_DATE_RE.finditer(text):
        # With slashes, month first, as the date readers take it, unless that is impossible: "22/01/2027"
        # is written day first (the 22nd of January), not a date off the calendar. Dashes and dots are
        # day first where they are used ("14-12-2026", "07.12.2026"); only a dash may be month first.
        first, second, year = m.group(1), m.group(2) or m.group(5), m.group(3) or m.group(6)
        separator = m.group(4) or "/"
        month, day = (second, first) if numeric_day_first(int(first), int(second), separator) else (first, second)
        either_way = separator != "." and first != second and int(first) <= 12 and int(second) <= 12
        add(m.span(), "date", "date", replace(_date(year, month, day), either_way=either_way))
    yearless = [((m.start("first"), m.end()), m.group("first"), m.group("second"), m.group("when"))
                for m in YEARLESS_NUMERIC_RE.finditer(text)]
    for m in YEARLESS_RANGE_RE.finditer(text):
        yearless += [(m.span(1)[:1] + m.span(2)[1:], m.group(1), m.group(2), ""),
                     (m.span(3)[:1] + m.span(4)[1:], m.group(3), m.group(4), "")]
    for span, first_text, second_text, when in yearless:
        first, second = int(first_text), int(second_text)
        if when.lower() == "by" and first < second <= 8:
            continue  # "cut by 1/3": a fraction
        month, day = (second, first) if numeric_day_first(first, second, "/") else (first, second)
        either_way = first != second and first <= 12 and second <= 12
        add(span, "date", "date", replace(_date(None, month, day), either_way=either_way))
    for span, number in phone_spans(text):
        # An extension is dialled after the line's number: "555-0148 ext. 214" is 555-0148, then 214
        # ("5550148x214"), so two people on one practice line are told apart by theirs.
        line, *extension = re.split(r"(?i)\s*\b(?:ext\.?|x|poste|ramal)\s*(?=\d)", number, maxsplit=1)
        ext = digits(extension[0]) if extension and digits(line) else ""
        add(span, "phone", "phone", f"{digits(line) or digits(number)}{'x' + ext if ext else ''}")
    for m in TIME_RE.finditer(text):
        minutes = _time(m.group(1) or m.group(4), m.group(2) or m.group(5), m.group(3), m.group(6))
        if minutes is not None:
            add(m.span(), "date", "time", minutes)
    for m in FRENCH_TIME_RE.finditer(text):
        if m.group("lead") or m.group("minute"):
            add((m.start("hour"), m.end()), "date", "time", int(m.group("hour")) * 60 + int(m.group("minute") or 0))
    for m in WEEKDAY_RE.finditer(text):
        add(m.span(), "date", "weekday", DateValue(weekday=WEEKDAYS[m.group(1).lower()]))
    for m in LABELLED_UNIT_RE.finditer(text):
        if (read := labelled_unit_value(m)) is not None:
            add(m.span("num"), "number", read[1], read[2])
            found[-1] = replace(found[-1], text=read[0])  # the figure's place, with its unit as the value's text
    for m in QUANTITY_RE.finditer(text):
        add(m.span(), "number", "quantity", (_figure(m.group(1)), _UNIT[m.group(2).lower()]))
    for m in MEASURE_RE.finditer(text):
        dimension, factor = MEASURES[m.group(2)]
        add(m.span(), "number", "quantity", (_figure(m.group(1)) * factor, dimension))
    for m in DECADE_RE.finditer(text):
        add(m.span(), "date", "decade", int(m.group(1)))
    for m in YEAR_RE.finditer(text):
        add(m.span(), "date", "year", DateValue(year=int(m.group(1))))
    for m in NUMBER_RE.finditer(text):
        add(m.span(), "number", "number", _figure(m.group(0)))
    for m in ORDINAL_RE.finditer(text):
        add(m.span(), "number", "number", float(m.group(1)))
    for m in TENS_UNITS_RE.finditer(text):
        add(m.span(), "number", "number", float(tens_units(m)))
    for m in NUMBER_WORD_RE.finditer(text):
        word = m.group(1).lower()
        if word == "second" and re.match(r"\s+(?:half|hand|thought|look|chance|time)\b", text[m.end():], re.IGNORECASE):
            continue  # "on second thought"
        add(m.span(), "number", "number", float(NUMBER_WORDS.get(word) or ORDINAL_WORDS[word]))
    found.sort(key=lambda f: f.span)
    return tuple(found)


def _figure(text: str) -> float:
    """A figure with its thousands grouped by commas or spaces: "9,000", "4 200", "14\u202f800"."""
    return float(re.sub(r"[,\s\u202f]", "", text))


# A register's number in figures only, a long run and a short one: a business ID with its check digit ("3011456-1",
# Finland's Y-tunnus), Sweden's "556123-4567", a US EIN "12-3456789". Not a zip+4, a range or a phone's groups:
# a short run first that opens with a trunk "0" ("040-1234567") is an area code.
_FIGURES_ID = re.compile(r"\d{6,9}-\d{1,4}|[1-9]\d{0,2}-\d{6,9}")


def is_code(text: str) -> bool:
    """A reference, not a date, a phone line or a model name: a letter and at least three figures, or a
    register's number in figures only."""
    return (any(c.isalpha() for c in text) and sum(c.isdigit() for c in text) >= 3) or bool(_FIGURES_ID.fullmatch(text))


def _lowercase_short_month(name: str) -> bool:
    # "may 30" in lower-case prose is more often a verb than a month.
    return name.islower() and len(name.rstrip(".")) <= 3


def digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def classify(raw: str) -> tuple[str, Any]:
    """The shape of a stored attribute value and its parsed form."""
    text = raw.strip()
    values = find_values(text)
    if len(values) == 1 and values[0].span == (0, len(text.rstrip("."))):
        value = values[0]
        shape = {"relative": "text", "weekday": "text", "year": "date", "number": "number"}.get(value.vtype, value.vtype)
        return shape, value.parsed
    dated = _weekday_date(text, values)
    if dated is not None:
        return "date", dated
    # "Thu 17 Dec 2026", "Tues 8th Dec 2026": a date after its weekday cut short (a change's new day, given its
    # year by the merge) is that date, when the calendar agrees.
    if len(values) == 1 and values[0].vtype == "date" and values[0].span[1] == len(text.rstrip(".")) and (
            short := _SHORT_WEEKDAY.fullmatch(text[:values[0].span[0]])):
        full = values[0].parsed.as_date()
        if full is not None and full.strftime("%a").lower() == short.group(1).lower()[:3]:
            return "date", values[0].parsed
    if values and values[0].vtype == "time" and values[0].span[0] == 0 and re.fullmatch(r"[A-Z]{2,4}", text[values[0].span[1]:].strip()):
        return "time", values[0].parsed  # "09:52 PST"
    return "text", text


_SHORT_WEEKDAY = re.compile(r"(mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?,?\s+", re.IGNORECASE)


def _weekday_date(text: str, values: list[FoundValue]) -> DateValue | None:
    """"Monday 11 January 2027", "Tuesday, January 19, 2027": one date, its weekday written out
    (kept only when the calendar agrees)."""
    if len(values) != 2 or (values[0].vtype, values[1].vtype) != ("weekday", "date"):
        return None
    weekday, day = values
    if weekday.span[0] != 0 or day.span[1] != len(text.rstrip(".")) or text[weekday.span[1]:day.span[0]].strip(", "):
        return None
    full = day.parsed.as_date()
    if full is None or full.weekday() != weekday.parsed.weekday:
        return None
    return day.parsed


def same_value(vtype: str, claimed: Any, known: Any) -> bool:
    if vtype in ("email", "url"):
        return claimed == known
    if vtype == "phone":
        return _same_phone(claimed, known)
    if vtype == "number" and float(claimed).is_integer() and float(known).is_integer() and int(claimed) % 10:
        # A whole number not ending in 0 is no rounding of another: extension 2201 is not 2210.
        return claimed == known
    if vtype in ("amount", "number"):
        return abs(claimed - known) <= max(0.005 * abs(known), 1e-9)
    if vtype == "time":
        return claimed == known
    if vtype == "quantity":
        return _minutes(claimed) == _minutes(known)
    if vtype in ("date", "weekday", "year"):
        return dates_agree(claimed, known)
    return str(claimed).casefold() == str(known).casefold()


def dates_agree(a: DateValue, b: DateValue) -> bool:
    """True when every field both dates state is the same (weekdays computed), in either reading of a
    date written "9/12/2026" (9 December where the day comes first, September 12 where the month does)."""
    if _fields_agree(a, b):
        return True
    return any(one.either_way and _fields_agree(day_first_reading(one), other) for one, other in ((a, b), (b, a)))


def day_first_reading(value: DateValue) -> DateValue:
    """The other reading of a date written "9/12/2026" (see DateValue.either_way)."""
    return _date(value.year, value.day, value.month, value.weekday)


def _fields_agree(a: DateValue, b: DateValue) -> bool:
    for field_name in ("year", "month", "day"):
        x, y = getattr(a, field_name), getattr(b, field_name)
        if x is not None and y is not None and x != y:
            return False
    for one, other in ((a, b), (b, a)):
        if one.weekday is not None:
            full = other.as_date()
            if full is not None and full.weekday() != one.weekday:
                return False
            if other.weekday is not None and other.weekday != one.weekday:
                return False
    return True


def _same_phone(a: str, b: str) -> bool:
    """Two numbers (digits, then "x" and an extension) the same line: equal; a seven-digit local number and one with its
    area code; or one with a country code ("44 20 7946 0312", "1 555 555 0142") and the national
    form, whose trunk 0 the international one drops ("020 7946 0312", "555 555 0142")."""
    if a == b:
        return True
    (a, _, a_extension), (b, _, b_extension) = a.partition("x"), b.partition("x")
    if a_extension and b_extension and a_extension != b_extension:
        return False  # one practice line, two people's extensions; a number without one is the line's
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if len(short) < 7:
        return False
    if len(short) == 7:
        return long.endswith(short)
    national = short[1:] if short.startswith("0") else short
    return 1 <= len(long) - len(national) <= 3 and long.endswith(national)


def _minutes(quantity: tuple[float, str]) -> tuple[float, str]:
    amount, unit = quantity
    factor = {"hour": 60, "day": 1440, "week": 10080}.get(unit)
    return (amount * factor, "minute") if factor else (amount, unit)


_CURRENCY = {"$": "$", "dollars": "$", "usd": "USD", "us$": "USD", "nz$": "NZD", "a$": "AUD", "au$": "AUD",
             "c$": "CAD", "ca$": "CAD", "hk$": "HKD", "s$": "SGD", "€": "EUR", "euro": "EUR", "euros": "EUR",
             "eur": "EUR", "£": "GBP", "pounds": "GBP", "gbp": "GBP", "₹": "INR", "rs": "INR", "rupees": "INR",
             "inr": "INR", "¥": "JPY", "ksh": "KES", "kshs": "KES", "kes": "KES", "ush": "UGX", "ushs": "UGX",
             "ugx": "UGX", "tsh": "TZS", "tshs": "TZS", "tzs": "TZS", "r": "ZAR", "₦": "NGN", "n": "NGN",
             "naira": "NGN", "ngn": "NGN", "₵": "GHS", "cedis": "GHS", "ghs": "GHS", "₱": "PHP", "₩": "KRW", "₺": "TRY",
             "₪": "ILS", "₫": "VND", "₴": "UAH", "₽": "RUB", "mx$": "MXN", "mxn": "MXN"}
# Currencies a bare "$" (or "dollars") may stand for: a New Zealander's "$1.2M" is NZ$.
_DOLLARS = frozenset({"USD", "NZD", "AUD", "CAD", "HKD", "SGD"})
# and the pesos Latin America writes with the same "$" ("$8,400.00" on a Mexican rate card is MX$ 8.400).
_PESOS = frozenset({"MXN", "COP", "CLP", "ARS"})


def currency(amount_text: str) -> str | None:
    """The currency an amount is written in ("€23,400", "23,400 euros" → "EUR", "NZ$1,240,000" →
    "NZD"); a bare "$" is "$", any dollar."""
    found = re.search(r"(?<![A-Za-z])[A-Z]{1,3}\$|[$€£₹¥" + OTHER_SIGNS + r"]|\bRs\b|(?-i:" + RAND + r")|(?-i:" + NAIRA + r")"
                      r"|\b(?:dollars|euros?|pounds|rupees|naira|cedis|[KUT]shs?|" + _CODES
                      + r")\b", amount_text, re.IGNORECASE)
    if not found:
        return None
    mark = found.group(0).lower()
    return _CURRENCY.get(mark, mark.upper() if mark.endswith("$") or mark in _CODES.split("|") else None)


def same_currency(one: str | None, other: str | None) -> bool:
    """Whether two amounts' currencies (from `currency`) may be the same: unknown matches anything,
    and a bare "$" any dollar."""
    if one is None or other is None or one == other:
        return True
    return {one, other} - _DOLLARS - _PESOS == {"$"}


def one_slip(claimed: str, stated: str) -> bool:
    """Two references one slip apart: one character changed, or two side by side swapped
    ("26/01837/LBC" for "26/01873/LBC")."""
    if len(claimed) != len(stated) or claimed == stated:
        return False
    differ = [i for i, (a, b) in enumerate(zip(claimed, stated)) if a != b]
    return len(differ) == 1 or (len(differ) == 2 and differ[1] == differ[0] + 1
                                and claimed[differ[0]] == stated[differ[1]] and claimed[differ[1]] == stated[differ[0]])


def near_miss(claimed: float, stated: float) -> bool:
    """Two different amounts one slip apart: the same digits in another order ("32,400" for
    "23,400") or one digit changed ("7,540" for "7,450" is both). Small numbers are left alone:
    too many of them are a digit apart by chance."""
    a, b = f"{claimed:.2f}".rstrip("0").rstrip("."), f"{stated:.2f}".rstrip("0").rstrip(".")
    if a == b or len(a) != len(b) or min(claimed, stated) < 100:
        return False
    return sorted(a) == sorted(b) or sum(x != y for x, y in zip(a, b)) == 1


def same_digits(claimed: float, stated: float) -> bool:
    """Two different amounts of four digits or more written with the same digits in another order
    ("32,750" for "23,750"): a copying slip, seldom a chance likeness."""
    a, b = f"{claimed:.2f}".rstrip("0").rstrip("."), f"{stated:.2f}".rstrip("0").rstrip(".")
    return a != b and sum(c.isdigit() for c in a) >= 4 and sorted(a) == sorted(b)


def _ordinal_suffix(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def render_like(claimed_text: str, vtype: str, known_raw: str, known_parsed: Any) -> str:
    """The known value written the way the answer wrote the wrong one."""
    if vtype in ("date", "weekday", "relative", "year") and isinstance(known_parsed, DateValue):
        day = known_parsed.as_date()
        if day is None:
            return known_raw
        if vtype == "weekday":
            french = claimed_text.lower() in FRENCH_WEEKDAY_NAMES  # "samedi" is corrected to "vendredi"
            return FRENCH_WEEKDAY_NAMES[day.weekday()].capitalize() if french and claimed_text[:1].isupper() else (
                FRENCH_WEEKDAY_NAMES[day.weekday()] if french else day.strftime("%A"))
        if vtype == "year":
            return str(day.year)
        if ISO_DATE_RE.fullmatch(claimed_text):
            return day.isoformat().replace("-", "/" if "/" in claimed_text else "-")
        if numeric := NUMERIC_DATE_RE.fullmatch(claimed_text):
            # A date in figures reads two ways across countries ("04/01/2027"): where the document names
            # the month ("2nd February 2027"), the correction says it as the document does.
            if re.search(r"[A-Za-z]{3,}", known_raw) and (DAY_MONTH_RE.search(known_raw) or MONTH_DAY_RE.search(known_raw)):
                return known_raw.strip()
            # A document's "09/03/2027" reads two ways; the answer's "17/02/2027" shows the order this folder
            # writes its dates in, so the document's figures are given as written, not turned round.
            written = NUMERIC_DATE_RE.fullmatch(known_raw.strip())
            if (written and getattr(known_parsed, "either_way", False)
                    and (written.group(4) or "/") == (numeric.group(4) or "/")):
                return known_raw.strip()
            return _numeric_like(numeric, day, written)
        with_year = bool(re.search(r"\d{4}", claimed_text))
        if GERMAN_DAY_MONTH_RE.search(claimed_text):  # "7. Dezember 2026" is corrected in German
            return f"{day.day}. {GERMAN_MONTH_NAMES[day.month - 1]}" + (f" {day.year}" if with_year else "")
        if FRENCH_DAY_MONTH_RE.search(claimed_text):
            # "le samedi 15 mai 2027" is corrected in French: "5 juin 2027".
            first = "1er" if day.day == 1 else str(day.day)
            return f"{first} {FRENCH_MONTH_NAMES[day.month - 1]}" + (f" {day.year}" if with_year else "")
        if SPANISH_DAY_MONTH_RE.search(claimed_text):  # "15 de enero de 2027" is corrected in Spanish
            return f"{day.day} de {SPANISH_MONTH_NAMES[day.month - 1]}" + (f" de {day.year}" if with_year else "")
        # "May" is a month written in full in three letters: "26 May" is corrected to "9 June", not "9 Jun".
        written_full = re.search(r"[A-Za-z]{4,}|\bMay\b", claimed_text, re.IGNORECASE)
        month = day.strftime("%B") if written_full else day.strftime("%b")
        if not written_full and re.search(r"\b(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.", claimed_text,
                                          re.IGNORECASE):
            month += "."  # "Feb. 19, 2027" is corrected to "Mar. 15, 2027", its abbreviation's dot kept
        if re.match(r"\s*(?:on\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Za-z]", claimed_text):
            # "20 November 2026"; "7th December 2026" keeps its ordinal: "4th January 2027"
            ordinal = _ordinal_suffix(day.day) if re.search(r"\d(?:st|nd|rd|th)\b", claimed_text, re.IGNORECASE) else ""
            # "7th December, 2026", as Nigeria and Ghana write it: the comma before the year is kept too.
            comma = "," if re.search(r"[A-Za-z.],\s*\d{4}", claimed_text) else ""
            text = f"{day.day}{ordinal} {month}" + (f"{comma} {day.year}" if with_year else "")
        else:
            text = f"{month} {day.day}" + (f", {day.year}" if with_year else "")
        return f"on {text}" if vtype == "relative" else text
    if vtype == "time" and isinstance(known_parsed, int):
        hour, minute = divmod(known_parsed, 60)
        if re.search(r"[ap]\.?\s?m", claimed_text, re.IGNORECASE):
            suffix = re.search(r"[ap]\.?\s?m\.?", claimed_text, re.IGNORECASE).group(0)
            letter = "p" if hour >= 12 else "a"
            suffix = re.sub(r"[ap]", letter, suffix, count=1, flags=re.IGNORECASE)
            if suffix[0].isupper() or claimed_text[-2:].isupper():
                suffix = suffix.upper()
            clock = str(hour % 12 or 12) + (f":{minute:02d}" if minute or ":" in claimed_text else "")
            return clock + (" " if " " in claimed_text else "") + suffix
        return f"{hour:02d}:{minute:02d}"
    if vtype == "amount" and isinstance(known_parsed, float) and (french := _french_or_english_amount(
            claimed_text, known_raw, known_parsed)):
        return french
    if vtype == "amount" and isinstance(known_parsed, float):
        scale = re.search(r"(?i)\d\s?(k|m|bn|b|thousand|million|billion)\b", claimed_text)
        known_scale = re.search(r"(?i)\d\s?(m|million)\b", known_raw)
        if scale and known_scale and known_scale.group(1).lower() == scale.group(1).lower():
            return known_raw  # the document's own "R 1,2 million", decimal comma and all
        if scale and scale.group(1).lower() in ("m", "million") and known_parsed >= 1e5:
            # The answer's own currency mark: "KSh 2.1M" is corrected to "KSh 1.2M", not to dollars.
            mark = re.match(r"[^\d]*", claimed_text).group(0) or "$"
            # … and its own way of writing the scale: "$3.69m" is corrected to "$3.96m".
            return (f"{mark}{known_parsed / 1e6:g}{scale.group(1)}" if scale.group(1).lower() == "m"
                    else f"{mark}{known_parsed / 1e6:g} million")
        grouped = re.fullmatch(r"(?P<mark>[^\d\s]{1,4}\s?)\d{1,3}(?:,\d{3})+(?P<cents>\.\d{2})?", claimed_text.strip())
        if not scale and grouped and (re.search(r"(?i)\d\s?(k|m|bn|million|billion|thousand)\b", known_raw)
                                      or re.fullmatch(r"\s*\d{4,}(?:\.\d+)?\s*", known_raw)):
            # "N12,080,000.00" against the minutes' "NGN 12.8 million" is corrected as the answer writes its
            # sums, to "N12,800,000.00", mark, grouping and kobo kept; so is a register's bare 640000.
            figure = f"{known_parsed:,.2f}" if grouped.group("cents") else f"{known_parsed:,.0f}"
            return grouped.group("mark") + figure
    return known_raw


def _french_or_english_amount(claimed_text: str, known_raw: str, known: float) -> str | None:
    """An amount written back the answer's way where one side writes it the French way: "2 500 $" is
    corrected to "2 800 $", not "$2,800", and "$38,500" to "$35,800", not "35 800 $". None when neither
    side is French, or the currencies differ."""
    claimed_french = TRAILING_AMOUNT.fullmatch(claimed_text.strip())
    known_french = TRAILING_AMOUNT.fullmatch(known_raw.strip())
    if not (claimed_french or known_french) or bool(claimed_french) == bool(known_french):
        return None
    if not same_currency(currency(claimed_text), currency(known_raw)):
        return None
    cents = bool(re.search(r"[.,]\d{2}(?!\d)", claimed_text))
    figure = f"{known:,.2f}" if cents else f"{known:,.0f}"
    if claimed_french:
        return figure.replace(",", " ").replace(".", ",") + " " + claimed_french.group("cur")
    mark = re.match(r"\s*([^\d\s]+)", claimed_text)
    return f"{mark.group(1) if mark else '$'}{figure}" if mark else None


def tens_units(match: re.Match) -> int:
    return NUMBER_WORDS[match.group(1).lower()] + SMALL_NUMBERS[match.group(2).lower()]


def spelled_number(words: str) -> float:
    """"thirty-five" → 35, "twelve" → 12, "one" → 1."""
    tens = TENS_UNITS_RE.fullmatch(words)
    if tens:
        return tens_units(tens)
    word = words.lower()
    return NUMBER_WORDS.get(word) or SMALL_NUMBERS[word]


def parse_number_words(text: str) -> list[float]:
    """Numbers spelled as small words ("two titles"), for evidence that spells them."""
    found = [float(tens_units(m)) for m in TENS_UNITS_RE.finditer(text)]
    for w in re.findall(r"[a-z]+", text.lower()):
        if w in SMALL_NUMBERS and w not in ("a", "an"):
            found.append(float(SMALL_NUMBERS[w]))
        elif w in NUMBER_WORDS or w in ORDINAL_WORDS:
            found.append(float(NUMBER_WORDS.get(w) or ORDINAL_WORDS[w]))
    found += [float(n) for n in re.findall(r"\b(\d+)(?:st|nd|rd|th)\b", text.lower())]
    return found
