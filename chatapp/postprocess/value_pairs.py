"""Values a source sentence pairs with names, checked against the name the answer gives them to.

"Fintan got two quotes: Kerrow Motors £3,450 and Brightline Vans £3,980." writes each amount right
after the name it belongs to. "Kerrow Motors quoted £3,980" uses a value the very sentence states, so
nothing else calls it wrong; but that sentence gives £3,980 to Brightline Vans and Kerrow Motors its own
£3,450: the answer has swapped them. A ContradictsFact, corrected to the value paired with the answer's
name.

Left alone: a sentence where a value has no name right before it (a few words at most, no other value
or name between), where two values share a name, and an answer sentence that names both or neither.
"""

from __future__ import annotations

import functools
import re

from chatapp.postprocess import values as V
from chatapp.postprocess.claims import SentenceInfo, ValueClaim
from chatapp.postprocess.evidence import TextIndex

# A name as a list writes one: capitalised words, "&" and "of" inside ("Kerrow Motors", "Smith & Sons").
_NAME = re.compile(r"[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|&|of)(?![\w'’]))*")
# What may stand between a name and its value: "Kerrow Motors £3,450", "Kerrow Motors (£3,450)",
# "Kerrow Motors at £3,450", "Kerrow Motors: £3,450", "Kerrow Motors quoted £3,450".
_GAP = re.compile(r"[\s:,(–—-]*(?:(?:at|for|with|quoted|quote|of|is|was|on)\s+)?[\s(]*", re.IGNORECASE)
# Sentence-initial and everyday capitalised words that are no names.
_NOT_NAMES = frozenset({"The", "A", "An", "We", "I", "It", "They", "He", "She", "Our", "This", "That"})
CONFIDENCE = 0.8


@functools.lru_cache(maxsize=4096)  # the same evidence sentences come back turn after turn
def pairs(sentence: str, kind: str) -> dict[str, V.FoundValue]:
    """Name -> the value of `kind` (a vtype) written right after it, for each such pair in the
    sentence; empty unless there are two or more, each with its own name."""
    values = [f for f in V.find_values(sentence) if f.vtype == kind]
    if len(values) < 2:
        return {}
    names = [m for m in _NAME.finditer(sentence) if m.group(0) not in _NOT_NAMES]
    found: dict[str, V.FoundValue] = {}
    for value in values:
        before = [m for m in names if m.end() <= value.span[0]]
        if not before:
            return {}
        name = before[-1]
        if _GAP.fullmatch(sentence[name.end():value.span[0]]) is None or name.group(0) in found:
            return {}
        found[name.group(0)] = value
    return found


def swapped_value(vc: ValueClaim, sentence: SentenceInfo, supplied: TextIndex) -> tuple[str, V.FoundValue, str] | None:
    """(the answer's name, the value a source sentence pairs with it, that sentence) when the sentence
    gives the claim's value to another name the answer does not say, and the answer's sentence says
    exactly one of its names; else None."""
    number = re.search(r"\d[\d,.]*\d", vc.claim.text)
    if vc.value.vtype not in ("amount", "number", "quantity") or number is None or len(number.group(0)) < 3:
        return None  # "3", "12": too many sentences hold one
    text = sentence.claim.text
    for stated, _, _ in supplied.sentences:
        if number.group(0) not in stated:
            continue  # cheap: most sentences hold no such number as the answer writes it
        paired = pairs(stated, vc.value.vtype)
        owner = next((name for name, value in paired.items()
                      if V.same_value(value.vtype, value.parsed, vc.value.parsed)), None)
        if owner is None:
            continue
        said = [name for name in paired if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text)]
        if len(said) == 1 and said[0] != owner:
            return said[0], paired[said[0]], stated
        return None  # the sentence giving the value pairs it as the answer does, or cannot tell
    return None
