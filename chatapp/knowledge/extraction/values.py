"""Dates and amounts inside document text, found and normalised so two ways of writing one
value compare equal ("Monday 7 December 2026" and "2026-12-07"; "£48,500" and "£48500")."""

from __future__ import annotations

import re
from datetime import date

_MONTHS = {m: n for n, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}
_MONTHS.update({m[:3]: n for m, n in list(_MONTHS.items())})
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
# French month names and the abbreviations Québec and France write ("le 15 avril 2027", "18 nov. 2026",
# "1er mars"): French puts the day first. The names English shares ("sept", "oct", "nov", "dec") are
# read by the English patterns.
FRENCH_MONTHS = {"janvier": 1, "janv": 1, "février": 2, "fevrier": 2, "févr": 2, "fevr": 2, "fév": 2, "mars": 3,
                 "avril": 4, "avr": 4, "mai": 5, "juin": 6, "juillet": 7, "juil": 7, "août": 8, "aout": 8,
                 "septembre": 9, "octobre": 10, "novembre": 11, "décembre": 12, "decembre": 12, "déc": 12}
FRENCH_MONTH = "(?:" + "|".join(sorted(FRENCH_MONTHS, key=len, reverse=True)) + ")"
# German month names ("am 11. Januar 2027", "30. Nov. 2026"): the day comes first, with a full stop after it.
GERMAN_MONTHS = {"januar": 1, "jänner": 1, "jan": 1, "februar": 2, "feb": 2, "märz": 3, "maerz": 3, "mrz": 3, "april": 4,
                 "apr": 4, "mai": 5, "juni": 6, "jun": 6, "juli": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
                 "sep": 9, "sept": 9, "oktober": 10, "okt": 10, "november": 11, "nov": 11, "dezember": 12, "dez": 12}
GERMAN_MONTH = "(?:" + "|".join(sorted(GERMAN_MONTHS, key=len, reverse=True)) + ")"
# Spanish month names ("15 de enero de 2027", "lunes 22 de febrero de 2027", "6 de marzo del 2027"): the
# day first, "de" before the month and before the year. Mexico and Spain write "setiembre" too.
SPANISH_MONTHS = {"enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8,
                  "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12}
SPANISH_MONTH = "(?:" + "|".join(sorted(SPANISH_MONTHS, key=len, reverse=True)) + ")"
_SPANISH_WEEKDAY = r"(?:lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo),?\s+(?:el\s+)?"
_FRENCH_WEEKDAY = r"(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|(?:lun|mar|mer|jeu|ven|sam|dim)\.),?\s+"
_WEEKDAY_NAME = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?"
_WEEKDAY = rf"(?:{_WEEKDAY_NAME}\.?,?\s+)?"
DATE = re.compile(
    rf"\b(?:{_WEEKDAY}(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<m1>{_MONTH})\.?,?\s+(?P<y1>\d{{4}})"
    rf"|{_WEEKDAY}(?P<m2>{_MONTH})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{{4}})"
    rf"|(?:{_FRENCH_WEEKDAY})?(?P<d5>\d{{1,2}})(?:er)?\s+(?P<m5>{FRENCH_MONTH})\.?\s+(?P<y5>\d{{4}})"
    rf"|(?P<d6>\d{{1,2}})\.\s?(?P<m6>{GERMAN_MONTH})\.?\s+(?P<y6>\d{{4}})"
    rf"|(?:{_SPANISH_WEEKDAY})?(?P<d7>\d{{1,2}})\s+de\s+(?P<m7>{SPANISH_MONTH})\s+del?\s+(?P<y7>\d{{4}})"
    rf"|(?P<y3>\d{{4}})-(?P<m3>\d{{2}})-(?P<d3>\d{{2}})(?![\d-])"
    # "14/12/2026", "14-12-2026", "07.12.2026": numbers only, the year in full (see _numeric_date)
    rf"|(?<![\w/.-])(?P<a4>\d{{1,2}})(?P<s4>[/.-])(?P<b4>\d{{1,2}})(?P=s4)(?P<y4>\d{{4}})(?![\w/]|[.-]\d))",
    re.IGNORECASE,
)
# "Monday 11 May", "May 11th": a day of a month with no year, at the start of a text.
_YEARLESS_DATE = re.compile(
    rf"^\s?(?:{_WEEKDAY_NAME},?\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\.?|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?)\b",
    re.IGNORECASE,
)
# A dollar sign may carry its country's letters: "NZ$1,240,000", "A$95", "US$12,000".
# Indian grouping keeps pairs of digits above the thousands: "₹48,50,000" is 4,850,000.
# East Africa writes its shillings "KSh 4.85M", "Kshs. 45,000/=", "KES 4,850,000" (Uganda's "USh", Tanzania's "TSh").
_SHILLINGS = r"(?<![A-Za-z])(?:K[Ss]hs?\.?|KES|[UT]Shs?\.?|UGX|TZS)(?=\s?\d)"
# "EUR 3,200.00", "USD 350": a currency's code before the number, in capitals.
_CODE_MARKS = r"(?<![A-Za-z])(?:EUR|USD|GBP|CHF|CAD|AUD|NZD|INR|ZAR|SEK|NOK|DKK|PLN|NGN|GHS|MXN|COP|CLP|ARS|BRL)(?=\s?\d)"
# India counts large sums in lakhs (100,000) and crores (10,000,000): "₹38.5 lakh", "INR 1.2 crore",
# "Rs. 2 Cr"; "/-" closes a rupee amount ("Rs. 45,000/-").
_INDIAN_SCALE = r"(?i:lakhs?|lacs?|crores?|cr)"
INDIAN_SCALES = {"lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5, "crore": 1e7, "crores": 1e7, "cr": 1e7}
# "€1.2m", "R 1,2 million": one decimal digit is a part of the scale after it, never cents.
# German amounts group thousands with a full stop and write cents after a comma: "EUR 23.750,00"; "TEUR 85"
# (or "T€") counts in thousands of euros.
_THOUSANDS_OF_EUROS = r"(?<![A-Za-z])T(?:EUR|€)(?=\s?\d)"
# South Africa writes its rand with a bare capital R: "R12 500", "R 1,2 million", "R3 864 500,00", "R1.2m".
# A short figure after an R is as often a road or a revision ("the R21", "R2 drawings"), so an R counts as
# a mark only before three digits, a grouped or decimal figure, or a scale.
RAND = r"(?<![\w$])R(?=\s?(?:\d{3}|\d{1,2}[\s,.]\d|\d{1,2}\s?(?:[kKmM]|bn|million)\b))"
# Nigeria writes its naira "₦4.5m", "NGN 3.2 million", and as often with a bare capital N, as typewriters
# had no ₦: "N12,500,000.00", "N850k". A bare N counts as a mark only before a grouped figure or a scale
# ("N2" is a floor, "N1 road" a road). Other signs of their own: Ghana's cedi, the peso, won, lira, shekel,
# dong, hryvnia, rouble.
NAIRA = r"(?<![\w$])N(?=\s?(?:\d{1,3},\d{3}|\d+(?:\.\d+)?\s?(?:[kKmM]|bn|million)\b))"
OTHER_SIGNS = "₦₵₱₩₺₪₫₴₽"
AMOUNT = re.compile(r"(?P<cur>(?:(?<![A-Za-z])[A-Z]{1,3}(?=\$))?[£$€¥₹" + OTHER_SIGNS + r"]|Rs\.?(?=\s?\d)|" + RAND + "|"
                    + NAIRA + "|" + _SHILLINGS + "|"
                    + _THOUSANDS_OF_EUROS + "|" + _CODE_MARKS
                    + r")\s?(?P<num>\d{1,3}(?:[,.\s]\d{3})+|\d{1,2}(?:,\d\d)+,\d{3}|\d+)"
                    r"(?:[.,](?P<cents>\d{2})(?!\d|,\d)|[.,](?P<tenths>\d)(?=\s?(?:[kKmM]|million|bn|" + _INDIAN_SCALE + r")\b))?"
                    r"(?P<scale>\s?(?:[kKmM]|million|bn|" + _INDIAN_SCALE + r")\b)?(?:/=|/-)?")

# French writes the mark after the figure, thousands grouped with a space (often a no-break one) and cents
# after a comma: "38 500 $", "12 500,00 $", "2 800 €".
# German writes it so too, thousands grouped with a full stop: "6.480,00 €", "48.500 EUR", "85 TEUR".
TRAILING_AMOUNT = re.compile(r"(?<![\w,.])(?<!\d[ \u00a0\u202f])(?P<num>\d{1,3}(?:[ \u00a0\u202f.]\d{3})+|\d+)"
                             r"(?:,(?P<cents>\d{2}))?[ \u00a0\u202f]?(?P<cur>[$€£]|T?EUR|T€)(?![\w$])")


def _sign(written: str) -> str:
    """One spelling of each currency mark: "Rs." is "₹", "Kshs." and "KSh" are "KES"."""
    if written.startswith("Rs"):
        return "₹"
    mark = written.rstrip(".").upper()
    return {"KSH": "KES", "KSHS": "KES", "USH": "UGX", "USHS": "UGX", "TSH": "TZS", "TSHS": "TZS",
            "EUR": "€", "GBP": "£", "USD": "$", "INR": "₹", "R": "ZAR", "N": "₦", "NGN": "₦", "GHS": "₵"}.get(mark, written)


def real_day(year: int, month: int, day: int) -> bool:
    """Whether the calendar has that day (no 30 February)."""
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def find_dates(text: str) -> list[tuple[re.Match, date]]:
    found = []
    for match in DATE.finditer(text):
        g = match.groupdict()
        try:
            if g["y3"]:
                value = date(int(g["y3"]), int(g["m3"]), int(g["d3"]))
            elif g["y4"]:
                value = _numeric_date(int(g["y4"]), int(g["a4"]), int(g["b4"]), g["s4"])
            elif g["y7"]:
                value = date(int(g["y7"]), SPANISH_MONTHS[g["m7"].lower()], int(g["d7"]))
            elif g["y6"]:
                value = date(int(g["y6"]), GERMAN_MONTHS[g["m6"].lower()], int(g["d6"]))
            elif g["y5"]:
                value = date(int(g["y5"]), FRENCH_MONTHS[g["m5"].lower()], int(g["d5"]))
            elif g["y1"]:
                value = date(int(g["y1"]), _MONTHS[g["m1"].lower()[:3]], int(g["d1"]))
            else:
                value = date(int(g["y2"]), _MONTHS[g["m2"].lower()[:3]], int(g["d2"]))
        except (ValueError, KeyError):
            continue
        found.append((match, value))
    return found


def numeric_day_first(first: int, second: int, separator: str) -> bool:
    """Whether a date written in numbers gives its day first: with dashes or dots yes, as the countries
    that write them do, unless that is impossible; with slashes only when the month cannot come first
    ("22/01/2027")."""
    return second <= 12 and (first > 12 or separator != "/")


def _numeric_date(year: int, first: int, second: int, separator: str) -> date:
    """A date written in numbers (numeric_day_first). With slashes the order is the writer's country's
    ("7/12/2026" is July 12 in the US, 7 December in the UK), so only one that can be read one way is a
    date here ("22/01/2027", "12/25/2026"); the answer checks read the others both ways (postprocess/values.py)."""
    if separator == "/" and first <= 12 and second <= 12 and first != second:
        raise ValueError("a date written with slashes that reads two ways")
    return date(year, second, first) if numeric_day_first(first, second, separator) else date(year, first, second)


def find_amounts(text: str) -> list[tuple[re.Match, tuple[str, float]]]:
    found = []
    leading = list(AMOUNT.finditer(text))
    trailing = [m for m in TRAILING_AMOUNT.finditer(text)
                if not any(m.start() < other.end() and other.start() < m.end() for other in leading)]
    for match in sorted(leading + trailing, key=lambda m: m.start()):
        number = float(re.sub(r"[,.\s\u202f]", "", match.group("num")))
        if match.group("cents"):
            number += int(match.group("cents")) / 100
        if match.groupdict().get("tenths"):  # "€1.2m" (a French amount after its figure has none)
            number += int(match.group("tenths")) / 10
        scale = (match.groupdict().get("scale") or "").strip().lower()
        number *= {"k": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, **INDIAN_SCALES}.get(scale, 1)
        written = match.group("cur")
        if written.startswith("T") and len(written) > 1:  # "TEUR 85": thousands of euros
            number, written = number * 1e3, written[1:]
        sign = _sign(written)
        found.append((match, (sign, number)))
    return found


def normal_value(text: str) -> str:
    """One spelling for a value: a date as ISO, an amount as "£48500", anything else folded and squeezed."""
    text = text.strip()
    dates = find_dates(text)
    if len(dates) == 1 and len(dates[0][0].group(0)) >= len(text) - 2:
        return dates[0][1].isoformat()
    amounts = find_amounts(text)
    if len(amounts) == 1 and len(amounts[0][0].group(0)) >= len(text) - 2:
        currency, number = amounts[0][1]
        # Every digit kept: "{:g}" would make 1,240,000 and 1,240,001 one value.
        return currency + f"{number:.2f}".rstrip("0").rstrip(".")
    return " ".join(re.sub(r"[^\w@.+]+", " ", text.casefold()).split())


def value_shape(text: str) -> str:
    """date | amount | text — what kind of value a stated value is, for matching a change to it."""
    normal = normal_value(text)
    # "1/4/2027" reads either way round, so no one ISO form; a date all the same.
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", normal) or re.fullmatch(r"\s*\d{1,2}/\d{1,2}/\d{4}\s*", text):
        return "date"
    if re.match(r"(?:[A-Z]{1,3}(?=\$))?[£$€¥₹" + OTHER_SIGNS + r"]\d|(?:KES|UGX|TZS|ZAR|CHF|CAD|AUD|NZD|SEK|NOK|DKK|PLN)\d",
                normal):
        return "amount"
    return "text"


def leading_value(text: str) -> str:
    """The value a field starts with, without the note after it: "£48,500 (approved on 7 Oct)" ->
    "£48,500"; "€ 412,800 net, including installation" -> "€ 412,800"; "7 December 2026, subject to
    sign-off" -> "7 December 2026". Other text is kept whole."""
    text = text.strip()
    for finder in (find_amounts, find_dates):
        found = finder(text)
        if found and found[0][0].start() == 0:
            rest = text[found[0][0].end():].lstrip()
            if not rest or rest[0] in "(,;–—-" or rest.startswith(("excl", "incl", "plus", "per ", "zzgl", "inkl", "exkl")):
                return found[0][0].group(0).strip()
            # "€ 412,800 net, including installation": the amount, before or after tax, and the note after.
            if re.match(r"(?:net|gross|netto|brutto)\b", rest):
                return found[0][0].group(0).strip()
    return text


def yearless_date_at_start(text: str) -> str:
    """The day of a month a text opens with when it names no year ("Monday 11 May"), or ""."""
    match = _YEARLESS_DATE.match(text)
    return match.group(0).strip() if match else ""
