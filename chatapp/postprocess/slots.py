"""Which value of the evidence a claimed value stands for: the one an evidence
sentence gives in the same slot — the same words either side of it, so the
same attribute of the same subject ("claiming £242,000." against "claiming
£212,000.", "There are 18 of us in total" against "There are 15 of us in
total") — and of the same kind (a date for a date, a duration for a duration).

Such a value is what the answer should have said: it may replace the claimed
one. A value merely found somewhere near similar words is not: that is a doubt
for a flag, never a correction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from chatapp.postprocess import values as V
from chatapp.postprocess.evidence import TextIndex

# Words either side of the slot that are compared, and how many must agree on a side (fewer when the
# sentence has fewer there: a value at the end of a sentence agrees on the right by ending it too).
CONTEXT = 4
SIDE_AGREES = 2
DURATIONS = frozenset({"minute", "hour", "day", "week", "month", "year"})


@dataclass
class Slot:
    sentence: str  # the evidence sentence
    value: V.FoundValue  # the value it gives in the claim's slot
    agreeing: int  # words either side that agree


def value_group(vtype: str) -> str:
    """Value types that say the same kind of thing: a weekday, a year and a date are all dates."""
    return {"weekday": "date", "year": "date", "relative": "date"}.get(vtype, vtype)


def same_kind(claimed: V.FoundValue, found: V.FoundValue) -> bool:
    """Could `found` replace `claimed`: a date a date, a count a count, a duration a duration."""
    if value_group(claimed.vtype) != value_group(found.vtype):
        return False
    if claimed.vtype == "quantity":
        return dimension(claimed.parsed[1]) == dimension(found.parsed[1])
    return True


def dimension(unit: str) -> str:
    """What a quantity's unit measures: every duration is a time ("2 days" may be said for "48
    hours"); a measure's unit is already its dimension (power, length, …); a percentage is its own."""
    return "time" if unit in DURATIONS else unit


def slot_value(claim_sentence: str, value_span: tuple[int, int], claimed: V.FoundValue,
               evidence: TextIndex, of_another: Callable[[str, str], bool] | None = None) -> Slot | None:
    """The value the evidence gives where the claim sentence (`value_span` inside it) gives
    `claimed`, when one evidence sentence has the same words on both sides of a value of the same
    kind and no other sentence gives another value as well placed. None when none does, or when
    several disagree. `of_another(sentence, its text)`: the sentence is about something other than the
    claim (it, or the passage it is in, names another site in place of the claim's), and gives no slot."""
    left = _words(claim_sentence[:value_span[0]])[::-1][:CONTEXT]
    right = _words(claim_sentence[value_span[1]:])[:CONTEXT]
    best: list[Slot] = []
    for sentence, _, index in evidence.sentences:
        if of_another is not None and of_another(sentence, evidence.texts[index]):
            continue
        for found in V.find_values(sentence):
            if not same_kind(claimed, found) or _says(claimed, found):
                continue
            agree_left = _agreeing(left, _words(sentence[:found.span[0]])[::-1])
            agree_right = _agreeing(right, _words(sentence[found.span[1]:]))
            if agree_left < min(SIDE_AGREES, len(left)) or agree_right < min(SIDE_AGREES, len(right)):
                continue
            agreeing = agree_left + agree_right
            if agreeing < SIDE_AGREES:
                continue
            if not best or agreeing > best[0].agreeing:
                best = [Slot(sentence, found, agreeing)]
            elif agreeing == best[0].agreeing:
                best.append(Slot(sentence, found, agreeing))
    if not best or len({(s.value.vtype, repr(s.value.parsed)) for s in best}) != 1:
        return None
    return best[0]


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _agreeing(said: list[str], stated: list[str]) -> int:
    """How many words, outward from the slot, are the same in both."""
    count = 0
    for a, b in zip(said, stated):
        if a != b:
            break
        count += 1
    return count


def _says(claimed: V.FoundValue, found: V.FoundValue) -> bool:
    """The found value is the claimed one ("April of 2010" and "2010" are one date)."""
    if claimed.text.lower() == found.text.lower():
        return True
    if isinstance(claimed.parsed, V.DateValue) and isinstance(found.parsed, V.DateValue):
        return V.dates_agree(claimed.parsed, found.parsed)
    return claimed.vtype == found.vtype and V.same_value(claimed.vtype, claimed.parsed, found.parsed)
