"""Tier 3's type check: a word whose part of speech does not fit its slot.

"the affect of the change" needs a noun where the verb "affect" stands, and
"I could loose the file" a verb where the adjective "loose" stands. Each pair
below is two words that sound alike and differ in type; a word is replaced
only when the slot decides its type without doubt:

- a noun slot: right after a determiner or possessive ("the", "my", "an");
- a verb slot: right after a modal or a negated auxiliary ("could",
  "don't"), or after "to" that follows a verb wanting an infinitive
  ("need to", "trying to"). A bare "to" is often a preposition ("listen to
  advice"), so it does not count.

Records are TypeMismatch corrections.
"""

from __future__ import annotations

from chatapp.preprocess.correction.text_helpers import is_editable_word, match_case, next_word, previous_word
from chatapp.preprocess.correction.tokens import TokenizedInput
from chatapp.records import CorrectionRecord

NOUN_SLOT_BEFORE = frozenset("a an the my your his her our their its this that no any every each some".split())
VERB_SLOT_BEFORE = frozenset(
    "can could will would should must might may shall cannot can't couldn't won't wouldn't shouldn't "
    "don't doesn't didn't do does did".split()
)
INFINITIVE_TAKERS = frozenset(
    "want wants wanted need needs needed going trying try tried able have has had how afraid".split()
)
# wrong word in a noun slot -> the noun, confidence
AS_NOUN = {"advise": ("advice", 0.9), "breathe": ("breath", 0.85), "lose": ("loss", 0.85), "affect": ("effect", 0.8)}
# wrong word in a verb slot -> the verb, confidence
AS_VERB = {"advice": ("advise", 0.9), "breath": ("breathe", 0.85), "loose": ("lose", 0.85), "loss": ("lose", 0.85)}


def fix_word_types(doc: TokenizedInput, claimed: set[int], tier: str) -> list[CorrectionRecord]:
    """Replace sound-alike words of the wrong type (sets token texts); `claimed` tokens stay."""
    records = []
    for index, token in enumerate(doc.tokens):
        lower = token.text.lower()
        if index in claimed or not is_editable_word(token) or (lower not in AS_NOUN and lower not in AS_VERB):
            continue
        slot = _slot(doc, index)
        table = AS_NOUN if slot == "noun" else AS_VERB if slot == "verb" else {}
        if lower not in table:
            continue
        replacement, confidence = table[lower]
        corrected = match_case(replacement, token.text)
        records.append(CorrectionRecord(
            tier=tier, span=(token.start, token.end), original=token.original, corrected=corrected,
            correction_type="TypeMismatch", confidence=confidence,
            alternatives=[(corrected, confidence), (token.text, round(1 - confidence, 3))]))
        token.text = corrected
    return records


def _slot(doc: TokenizedInput, index: int) -> str | None:
    """"noun" or "verb" when the word before decides the type of this one."""
    before = previous_word(doc, index)  # only spaces between, or None
    if before is None:
        return None
    word = doc.tokens[before].text.lower().replace("’", "'")
    if word in NOUN_SLOT_BEFORE:
        # "that" also starts a clause ("so that lose...") and "no" answers: a noun must follow
        # them only when something comes after the pair ("the loss of", "no advice here").
        return "noun" if word not in ("that", "no") or next_word(doc, index) is not None else None
    if word in VERB_SLOT_BEFORE:
        return "verb"
    if word == "to":
        taker = previous_word(doc, before)
        if taker is not None and doc.tokens[taker].text.lower() in INFINITIVE_TAKERS:
            return "verb"
    return None

