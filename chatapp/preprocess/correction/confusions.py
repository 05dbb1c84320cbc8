"""Tier 2: real words typed for others that sound alike — to/too, then/than,
your/you're, its/it's, there/their/they're, loose/lose, affect/effect —
where the words around them show which is meant.

Every word here is English as typed, so a slip is only ever a guess from its
context: each record has a confidence below the standard level's threshold
(CONFIDENCE), so it is applied at the aggressive level and offered as a
suggestion, text unchanged, at the standard one. (The near-certain cases,
"more then that", "their is", "its been", "your welcome" at the end, are
grammar.py's and are applied at the standard level.)

The cues are grammar, not phrases:
- "then" after a comparative a few words back ("more money then", "better
  for us then") compares, so it is "than";
- "too" comes before "much"/"many" or an adjective closing its clause, after
  a verb that cannot take "to" there ("have to much work", "it's to late");
- "your", "its", "there", "their" before a verb in -ing ("your going",
  "there going"), or "your" before an article or "not" ("your the best"),
  need a subject and a verb: "you're", "it's", "they're";
- "lose" is the verb ("we loose", "to loose"), "loose" the adjective ("is
  lose"); "affect" the verb ("it effects us"), "effect" the noun ("an affect
  on", "affect on").

spaCy's tagger (words tagged alone) tells "your going" from "your meeting";
without one those two cues are skipped.
"""

from __future__ import annotations

from chatapp.preprocess.correction.apostrophes import CLAUSE_OPENERS_WITHOUT_SUBJECT, FineTagger
from chatapp.preprocess.correction.grammar import COMPARATIVES
from chatapp.preprocess.correction.text_helpers import match_case, next_word, previous_word
from chatapp.preprocess.correction.tokens import TokenizedInput

CONFIDENCE = 0.6
COMPARATIVE_REACH = 3  # words back from "then" where a comparative may stand
# Before "then" these start a sequence, not a comparison: "more tests and then ship".
SEQUENCE_WORDS = frozenset("and but or so since until till by even only just right back now".split())
BE_FORMS = frozenset("is are was were be been being am it's that's there's he's she's what's".split())
# Words before "to much"/"to many" that show it is "too": a form of "be" or "have", "way", "far", or
# "its" that tier 2 left alone. Before an adjective only a form of "be" ("it's to late"): "way to go".
TOO_MUCH_BEFORE = BE_FORMS | frozenset("its have has had got get way far".split())
TOO_ADJECTIVE_BEFORE = BE_FORMS | frozenset({"its"})
DEGREE_WORDS = frozenset("much many late early soon often far long fast slow quickly slowly".split())
ING_BEFORE = {"your": "you're", "its": "it's", "there": "they're", "their": "they're"}
# A subject and its verb start a clause: after a verb "there" is a place ("stood there looking").
CLAUSE_OPENERS = CLAUSE_OPENERS_WITHOUT_SUBJECT | frozenset("and but or if when because that think".split())
NOT_A_SUBJECT_VERB = frozenset({"being"})  # "there being no answer" is right as typed
YOURE_BEFORE = frozenset("a an the not so very too welcome".split())
SUBJECT_PRONOUNS = frozenset("i you we they".split())
THIRD_PERSON_SUBJECTS = frozenset("it this that he she which".split())
OBJECT_STARTS = frozenset("the a an my your our their his her its us them me you him it how".split())
LOOSE_AFTER = BE_FORMS | frozenset("come came comes coming got get gets break broke cut".split())


def fix_confusions(doc: TokenizedInput, edits, tagger: FineTagger | None) -> None:
    """Swap sound-alike words the context shows are wrong (sets token texts, confidence CONFIDENCE)."""
    for index, token in enumerate(doc.tokens):
        if token.kind != "word" or token.protected or not token.text:
            continue
        lower = token.text.lower()
        before = previous_word(doc, index)
        following = next_word(doc, index)
        prev = doc.tokens[before].text.lower().replace("’", "'") if before is not None else ""
        after = doc.tokens[following].text.lower() if following is not None else ""
        replacement = None
        if lower == "then":
            replacement = "than" if _after_comparative(doc, index) and following is not None else None
        elif lower == "to":
            replacement = "too" if _wants_too(prev, after, doc, following, tagger) else None
        elif lower in ING_BEFORE and after and (before is None or prev in CLAUSE_OPENERS):
            if lower == "your" and after in YOURE_BEFORE and next_word(doc, following) is not None:
                replacement = "you're"  # "your the best", "your not listening"
            elif tagger is not None and after not in NOT_A_SUBJECT_VERB and tagger(("their", after))[1] == "VBG":
                # Read after a possessive, as the typed word would be: "their going", not "their meeting".
                replacement = ING_BEFORE[lower]
        elif lower == "loose" and (prev in SUBJECT_PRONOUNS or prev == "to"):
            replacement = "lose"
        elif lower == "lose" and prev in LOOSE_AFTER and (not after or after in ("again", "now", "and")):
            replacement = "loose"
        elif lower in ("affect", "affects") and after == "on":
            replacement = "effect" + lower[6:]  # the verb takes no "on": "had an affect on"
        elif lower == "effects" and prev in THIRD_PERSON_SUBJECTS and after in OBJECT_STARTS:
            replacement = "affects"
        elif lower == "effect" and prev in SUBJECT_PRONOUNS and after in OBJECT_STARTS:
            replacement = "affect"
        if replacement is not None:
            edits.set(index, match_case(replacement, token.text), "Grammar", CONFIDENCE)


def _after_comparative(doc: TokenizedInput, index: int) -> bool:
    """A comparative 2 to COMPARATIVE_REACH words before, nothing but words between."""
    position = previous_word(doc, index)
    if position is None or doc.tokens[position].text.lower() in SEQUENCE_WORDS:
        return False
    for _ in range(COMPARATIVE_REACH - 1):
        position = previous_word(doc, position)
        if position is None:
            return False
        if doc.tokens[position].text.lower() in COMPARATIVES:
            return True
    return False


def _wants_too(prev: str, after: str, doc: TokenizedInput, following: int | None, tagger: FineTagger | None) -> bool:
    """"to" where "too" belongs: before much/many or an adjective that ends the clause."""
    if not after:
        return False
    if after in ("much", "many"):
        return prev in TOO_MUCH_BEFORE  # "have to much work", "way to many meetings"
    if prev not in TOO_ADJECTIVE_BEFORE:
        return False
    if next_word(doc, following) is not None and doc.tokens[next_word(doc, following)].text.lower() not in ("to", "for"):
        return False  # "is to new users": the adjective belongs to a noun
    if after in DEGREE_WORDS:
        return True
    return tagger is not None and tagger(("is", "too", after))[2] == "JJ"
