"""Tier 2: contractions typed without their apostrophe whose bare form is a
word as well: "were" (we're), "id" (I'd), "ill" (I'll), "lets" (let's).

Tier 1 writes out the bare forms that are no words ("dont", "im", "theyre");
these four mean what they spell as often as not, so they change only where
the grammar asks for the contraction:

- the word has no subject: it starts a sentence or clause ("were going to
  ship", "ok, ill send it"), or follows a word that opens a clause without
  being a subject ("i think were going", "so id rather wait"). After "if",
  "you", "they" or a noun, "were" is the verb it spells;
- the word after it is what the contraction takes, as spaCy's tagger reads
  the contraction with it, tagged alone so the answer cannot change with the
  words around: "we 're going" (a verb in -ing), "I 'd like" (a bare verb
  that is not rather a noun: "id number" stays).

"were" before an adjective or "not" ("were late") may be a past tense
without its subject ("(we) were late"), so that is only a suggestion at the
standard level. Without a tagger (the live path, a blank pipeline) nothing
here changes.
"""

from __future__ import annotations

from typing import Callable

from chatapp.preprocess.correction.text_helpers import match_case, next_word, previous_word
from chatapp.preprocess.correction.tokens import TokenizedInput

FineTagger = Callable[[tuple[str, ...]], tuple[str, ...]]  # words -> spaCy's fine (Penn) tags

# Words that open a clause without being its subject: "i think were going", "so id rather wait".
CLAUSE_OPENERS_WITHOUT_SUBJECT = frozenset(
    "so because cause think guess hope know sure said says then also maybe probably actually "
    "honestly ok okay yes yeah no well thanks".split()
)
# bare form -> (contraction, how the tagger reads it, words before it that open a clause without a subject)
CONTRACTIONS: dict[str, tuple[str, tuple[str, str], frozenset[str]]] = {
    "were": ("we're", ("we", "'re"), CLAUSE_OPENERS_WITHOUT_SUBJECT),
    "id": ("I'd", ("I", "'d"), CLAUSE_OPENERS_WITHOUT_SUBJECT | {"but", "and", "or", "if", "when"}),
    "ill": ("I'll", ("I", "'ll"), CLAUSE_OPENERS_WITHOUT_SUBJECT | {"but", "and", "or", "if", "when"}),
    "lets": ("let's", ("let", "'s"), frozenset({"ok", "okay", "so", "then", "yes", "yeah", "well", "now"})),
}
AT_START_CONFIDENCE = 0.85
AFTER_OPENER_CONFIDENCE = 0.75
PAST_TENSE_DOUBT = 0.55  # "were late": we're late, or (we) were late
# Words after a verb that show it has an object or a complement: "id love to", "ill send it".
OBJECT_WORDS = frozenset("to a an the it that this these those them him her me you us my your our their some "
                         "any more if".split())


def fix_bare_contractions(doc: TokenizedInput, edits, tagger: FineTagger | None) -> None:
    """Give "were", "id", "ill" and "lets" their apostrophe where the sentence needs it (sets token texts)."""
    if tagger is None:
        return
    for index, token in enumerate(doc.tokens):
        lower = token.text.lower()
        if lower not in CONTRACTIONS or token.kind != "word" or token.protected:
            continue
        contraction, reading, openers = CONTRACTIONS[lower]
        before = previous_word(doc, index)
        if before is None:
            confidence = AT_START_CONFIDENCE
        elif doc.tokens[before].text.lower() in openers:
            confidence = AFTER_OPENER_CONFIDENCE
        else:
            continue
        following = next_word(doc, index)
        if following is None:
            continue
        after = next_word(doc, following)
        words = [doc.tokens[i].text.lower() for i in (following, after) if i is not None]
        confidence = _fit(lower, reading, words, tagger, confidence)
        if confidence is not None:
            written = contraction if contraction[0].isupper() else match_case(contraction, token.text)
            edits.set(index, written, "Grammar", confidence)


def _fit(lower: str, reading: tuple[str, str], words: list[str], tagger: FineTagger, confidence: float) -> float | None:
    """The confidence that the contraction is meant before `words` (the next one or two), or None."""
    tags = tagger((*reading, *words))[2:]
    first = tags[0]
    if lower == "were":
        if first == "VBG":
            return confidence  # "were going", "were shipping"
        if first == "JJ" or words[0] == "not":
            return min(confidence, PAST_TENSE_DOUBT)
        return None
    if lower == "lets" and first == "VB" and words[0] not in OBJECT_WORDS:
        return confidence  # "lets meet", not "lets you"
    if lower in ("id", "ill"):
        if first in ("RB", "RBR") and len(tags) > 1 and tags[1] == "VB":
            return confidence  # "id rather go", "ill also send"
        if first == "VB" and words[0] not in OBJECT_WORDS:
            if tagger(("the", words[0]))[1].startswith("NN"):
                # A word that is a noun as often ("id number", "ill health") needs an object after it.
                return confidence if len(words) > 1 and words[1] in OBJECT_WORDS else None
            return confidence
    return None
