"""Tier 3's pragmatic step: a follow-up that leaves out what it asks about.

After "What is John's email?", the next input "and sarah?" means "and
Sarah's email?". Read alone, the short form gives retrieval and the model
nothing to look for, so it is completed from the previous question:

- the input must be only an opener ("and", "what about", "how about", "and
  what about") and one known name, with at most a "?" after it;
- the previous user question must ask for an attribute through a possessive
  ("John's email address") — the words after the "'s", up to punctuation or
  a function word, at most three.

The record (PragmaticAdjustment) spans the name, which becomes "Sarah's
email". Anything else is left as typed.
"""

from __future__ import annotations

from chatapp.preprocess.correction.names import KnownNames
from chatapp.preprocess.correction.text_helpers import FUNCTION_WORDS
from chatapp.preprocess.correction.tokens import TokenizedInput, tokenize
from chatapp.records import CorrectionRecord

OPENERS = (("and", "what", "about"), ("and", "how", "about"), ("what", "about"), ("how", "about"), ("and",))
MAX_ATTRIBUTE_WORDS = 3
CONFIDENCE = 0.75


def complete_followup(doc: TokenizedInput, previous_question: str | None, names: KnownNames,
                      tier: str) -> list[CorrectionRecord]:
    """Complete "and sarah?" from the previous question (sets the name's last token text)."""
    if not previous_question or len(names) == 0:
        return []
    attribute = asked_attribute(previous_question)
    if attribute is None:
        return []
    present = [i for i, t in enumerate(doc.tokens) if t.text]
    words = [i for i in present if doc.tokens[i].kind == "word"]
    trailing = [doc.tokens[i].text for i in present if doc.tokens[i].kind != "word"]
    if trailing not in ([], ["?"]) or (trailing and doc.tokens[present[-1]].kind == "word"):
        return []
    lowered = tuple(doc.tokens[i].text.lower() for i in words)
    opener = next((o for o in OPENERS if lowered[: len(o)] == o), None)
    if opener is None:
        return []
    name_indices = words[len(opener):]
    match = next((m for m in names.find(doc) if m.indices == name_indices), None)
    if match is None or any(doc.tokens[i].text.lower().endswith(("'s", "’s")) for i in name_indices):
        return []
    first, last = doc.tokens[name_indices[0]], doc.tokens[name_indices[-1]]
    name = doc.original[first.start : last.end]
    last.text = last.text + "'s " + attribute
    corrected = " ".join(doc.tokens[i].text for i in name_indices)
    return [CorrectionRecord(
        tier=tier, span=(first.start, last.end), original=name, corrected=corrected,
        correction_type="PragmaticAdjustment", confidence=CONFIDENCE,
        alternatives=[(corrected, CONFIDENCE), (name, round(1 - CONFIDENCE, 3))])]


def asked_attribute(question: str) -> str | None:
    """"email address" from "What is John's email address?", or None."""
    tokens = tokenize(question).tokens
    for position, token in enumerate(tokens):
        text = token.text.replace("’", "'")
        if token.kind != "word" or not text.lower().endswith("'s") or not text[:1].isupper():
            continue
        attribute = []
        for following in tokens[position + 1 :]:
            if following.kind != "word" or following.text.lower() in FUNCTION_WORDS:
                break
            attribute.append(following.text.lower())
        if 0 < len(attribute) <= MAX_ATTRIBUTE_WORDS:
            return " ".join(attribute)
    return None
