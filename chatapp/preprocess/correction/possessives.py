"""Tier 3's possessives typed without an apostrophe: "johns email" -> "John's
email", "robs direct dial number" -> "Rob's direct dial number", "mondays
meeting" -> "Monday's meeting", "the office managers email" -> "the office
manager's email" (a role one registry person alone holds).

A word ending in "s" is read as a name's possessive when two things hold:

- its stem is a name: a person the registry knows (surest), a word the
  registry's vocabulary writes with a capital (a product, a place), a day
  ("monday", "today"), or a first name of the census tables ("rob", "kim");
  the word itself is no everyday word ("bills", "marks"), no common surname
  ("Williams" is nobody's William's) and no first name of its own ("Carlos");
- a noun phrase follows: spaCy tags "Rob 's direct dial number" with "'s" as
  the possessive marker and a noun as the head after any adjectives. The
  words are tagged alone, so the answer cannot change when the words around
  them are corrected (correcting twice is stable). For a name the registry
  does not know, the word before must not make the word a plain noun or verb
  ("the jacks", "car jacks", "he robs"), judged by the same tagging.

The possessive is never dropped: the record replaces the word by the name
plus "'s". Names the registry does not know need spaCy's tagger; without one
(a blank pipeline) only registry people are fixed, as before.
"""

from __future__ import annotations

from typing import Callable

from chatapp.lexicon import is_common_surname, is_first_name, zipf
from chatapp.preprocess.correction.names import KnownNames
from chatapp.preprocess.correction.text_helpers import FUNCTION_WORDS, is_editable_word, next_word, previous_word
from chatapp.preprocess.correction.tokens import TokenizedInput
from chatapp.records import CorrectionRecord

Tagger = Callable[[tuple[str, ...]], tuple[str, ...]]  # words -> spaCy POS tags
# A word this common is meant as itself, never as a registry name plus a lost apostrophe.
COMMON_WORD_ZIPF = 4.5
# ...and for a name the registry does not know, a word this common ("hunters", "springs").
UNKNOWN_NAME_WORD_ZIPF = 3.5
DAYS = {d: d.capitalize() for d in "monday tuesday wednesday thursday friday saturday sunday".split()} | {
    w: w for w in ("today", "tomorrow", "yesterday", "tonight")}
NOUN_PHRASE_WORDS = 3  # words after the name that may make up the noun phrase
# Words before a name that make the word after them a plain noun or a verb: "the jacks", "he robs".
NOT_BEFORE_A_POSSESSIVE = frozenset(
    "a an the my your his her our their its this that these those some any no every each all both "
    "i you he she it we they who which".split()
)
# Tags of the word before a name that say it modifies or is the subject of the word: "car jacks".
NOT_BEFORE_TAGS = frozenset({"NOUN", "PROPN", "ADJ", "NUM", "DET", "PRON"})
REGISTRY_CONFIDENCE = {"NOUN": 0.85, "PROPN": 0.85, "ADJ NOUN": 0.8, "ADJ": 0.6}
# Words after which no verb comes: a word ending in "s" there is a noun or a possessive.
NO_VERB_AFTER = frozenset("what's how's where's when's who's is was about of for from with on at to".split())
OTHER_NAME_CONFIDENCE = {"NOUN": 0.8, "PROPN": 0.8, "ADJ NOUN": 0.75}
ROLE_WORDS = 4  # the most words of a role read before "the" ("the head of science departments email")
# "which site is livs": a possessive with no noun after it, last after a form of "be", stands for the
# thing; said of a registry person only, who is known to be somebody's name.
BE_FORMS = frozenset("is was are were".split())
PREDICATIVE_CONFIDENCE = 0.8
PLURAL_DAY_CONFIDENCE = 0.55  # a suggestion at the standard level, applied when aggressive


def fix_possessives(doc: TokenizedInput, claimed: set[int], names: KnownNames, tagger: Tagger | None,
                    vocabulary_form: Callable[[str], str | None] | None, tier: str) -> list[CorrectionRecord]:
    """Give possessives of names their apostrophe (sets token texts); `claimed` tokens stay."""
    records = []
    for index, token in enumerate(doc.tokens):
        if index in claimed or not is_editable_word(token):
            continue
        if title := _honorific_possessive(doc, index, names):
            # "tanaka-sans cell" -> "Tanaka-san's cell": a person's name, a Japanese honorific joined to it
            # by a hyphen, and the possessive's "s" without its apostrophe.
            corrected = title + "'s"
            records.append(CorrectionRecord(
                tier=tier, span=(token.start, token.end), original=token.original, corrected=corrected,
                correction_type="EntityCorrection", confidence=0.85,
                alternatives=[(corrected, 0.85), (token.text, 0.15)]))
            token.text = corrected
            claimed.add(index)
            continue
        for written in dict.fromkeys([token.text, token.original]):
            found = _possessive(doc, index, written.lower(), names, tagger, vocabulary_form)
            if found is None:
                continue
            name, confidence = found
            corrected = name + "'s"
            records.append(CorrectionRecord(
                tier=tier, span=(token.start, token.end), original=token.original, corrected=corrected,
                correction_type="EntityCorrection", confidence=round(confidence, 3),
                alternatives=[(corrected, round(confidence, 3)), (token.text, round(1 - confidence, 3))]))
            token.text = corrected
            claimed.add(index)
            records += _title_capitalised(doc, index, tier)
            records += _joined_part_capitalised(doc, index, tier, vocabulary_form, claimed, names)
            break
    return records


def _joined_part_capitalised(doc: TokenizedInput, index: int, tier: str,
                             vocabulary_form: Callable[[str], str | None] | None, claimed: set[int],
                             names: KnownNames) -> list:
    """ "gethin rees-parrys email" -> "Gethin Rees-Parry's": the part of a hyphenated name before the
    possessive one takes its capital as the documents write it, and so does the given name before it when
    the three make a known name ("faith wambui-otienos" -> "Faith Wambui-Otieno's")."""
    if index < 2 or vocabulary_form is None:
        return []
    dash, part = doc.tokens[index - 1], doc.tokens[index - 2]
    if dash.text != "-" or dash.start != part.end or doc.tokens[index].start != dash.end or index - 2 in claimed:
        return []
    records = []
    fixes = [(index - 2, vocabulary_form(part.text.lower()))]
    given = previous_word(doc, index - 2)
    surname = part.text + "-" + doc.tokens[index].text.removesuffix("'s")
    # (A given name another step kept as typed is still only recased: "faith" stays the word typed.)
    if given is not None and names.exact(f"{doc.tokens[given].text} {surname}"):
        fixes.append((given, vocabulary_form(doc.tokens[given].text.lower()) or doc.tokens[given].text.capitalize()))
    for at, written in fixes:
        token = doc.tokens[at]
        if not written or not token.text.islower() or written.lower() != token.text or written == token.text:
            continue
        token.text = written
        claimed.add(at)
        records.append(CorrectionRecord(tier=tier, span=(token.start, token.end), original=token.original,
                                        corrected=written, correction_type="CaseNormalization", confidence=0.85,
                                        alternatives=[(written, 0.85), (token.original, 0.15)]))
    return records


HONORIFICS_AFTER_A_NAME = frozenset("san sama kun chan sensei".split())


def _honorific_possessive(doc: TokenizedInput, index: int, names: KnownNames) -> str | None:
    """ "san" when the token at `index` is "sans" written right after "<person>-" ("tanaka-sans"), else None."""
    token = doc.tokens[index]
    title = token.text.lower()
    if index < 2 or not title.endswith("s") or title[:-1] not in HONORIFICS_AFTER_A_NAME:
        return None
    dash, name = doc.tokens[index - 1], doc.tokens[index - 2]
    if dash.text != "-" or dash.start != name.end or token.start != dash.end:
        return None
    return title[:-1] if names.person_word(name.text) is not None else None


def _title_capitalised(doc: TokenizedInput, index: int, tier: str) -> list[CorrectionRecord]:
    """ "mama graces number" -> "Mama Grace's number": the title before a name takes a capital too."""
    before = previous_word(doc, index)
    token = doc.tokens[before] if before is not None else None
    if token is None or not is_editable_word(token) or not token.text.islower() or token.text not in TITLES_BEFORE_A_NAME:
        return []
    title = token.text.capitalize()
    record = CorrectionRecord(tier=tier, span=(token.start, token.end), original=token.original, corrected=title,
                              correction_type="Capitalization", confidence=0.9,
                              alternatives=[(title, 0.9), (token.text, 0.1)])
    token.text = title
    return [record]


def _possessive(doc, index, lower, names, tagger, vocabulary_form) -> tuple[str, float] | None:
    """(the name, confidence) when `lower` at `index` is a name's possessive, else None."""
    # Three letters only for a registry person's two-letter name ("zes" for Zé, "jos" for Jo): a census
    # name or a capitalised word of the documents that short is too often a word.
    if len(lower) < 3 or not lower.endswith("s") or not lower.isalpha() or lower in FUNCTION_WORDS:
        return None
    stem = lower[:-1]
    form = names.person_word(stem)
    if form is not None and names.exact(lower) is None and (
            form.capitalize_confidence > 0.5 or _no_verb_can_follow(doc, index)):
        if zipf(lower) >= COMMON_WORD_ZIPF:
            return None  # "does" is not "Doe's", "news" not "New's"
        confidence = _registry_confidence(doc, index, form.words[0], tagger)
        if confidence is None:
            return None
        return form.words[0], confidence - (0 if form.explicit else 0.15)  # "smiths": a plural or a surname
    name = _other_name(lower, stem, names, vocabulary_form) if len(lower) >= 4 else None
    if name is None:
        return _role_possessive(doc, index, stem, names, tagger)
    if tagger is None:
        return None
    confidence = _noun_phrase_confidence(doc, index, name, tagger)
    if confidence is None:
        return None
    if stem in DAYS and _reads_as_plural_subject(doc, index, lower, tagger):
        confidence = PLURAL_DAY_CONFIDENCE  # "mondays work best": days are plural as often
    return name, confidence


def _role_possessive(doc, index, stem, names, tagger) -> tuple[str, float] | None:
    """("manager", confidence) for "the office managers email" when "office manager" is a role one
    registry entity alone holds (several holders make the plural as likely) and a noun follows."""
    words: list[str] = [stem]
    at = index
    while (at := previous_word(doc, at)) is not None and len(words) <= ROLE_WORDS:
        word = doc.tokens[at].text.lower()
        if word == "the":
            if tuple(words) in names.sole_roles:
                confidence = _registry_confidence(doc, index, stem, tagger)
                return (doc.tokens[index].text[:-1], confidence) if confidence is not None else None
            return None
        if not word.isalpha():
            return None
        words.insert(0, word)
    return None


def _other_name(lower: str, stem: str, names: KnownNames, vocabulary_form) -> str | None:
    """The name `stem` spells, written as a name, if it is one the registry does not hold as a person."""
    if stem in DAYS:
        return DAYS[stem]
    if names.exact(lower) is not None or zipf(lower) >= UNKNOWN_NAME_WORD_ZIPF:
        return None
    known = vocabulary_form(stem) if vocabulary_form is not None else None
    if known is not None and known[:1].isupper():
        return known
    if is_first_name(stem) and not is_first_name(lower) and not is_common_surname(lower):
        return stem.capitalize()
    return None


# Titles and respectful forms of address said before a first name ("dr hopes", "mama graces number"):
# the word after them is a name.
TITLES_BEFORE_A_NAME = frozenset("mr mrs ms dr prof eng mama baba mzee auntie aunty uncle".split())


def _no_verb_can_follow(doc: TokenizedInput, index: int) -> bool:
    """A registry person's name that is an everyday word ("hope", "will") is read as the name's
    possessive only where the word before leaves no room for the verb ("how's hopes plan") or is a
    title said before a name ("mama graces number")."""
    before = previous_word(doc, index)
    word = doc.tokens[before].text.lower().replace("’", "'").rstrip(".") if before is not None else None
    return word is not None and (word in NO_VERB_AFTER or word in TITLES_BEFORE_A_NAME)


def _registry_confidence(doc: TokenizedInput, index: int, name: str, tagger: Tagger | None) -> float | None:
    """How sure "<name>s <next>" is a registry person's possessive: a noun must follow."""
    following = next_word(doc, index)
    if following is None:
        return _predicative_confidence(doc, index)
    noun = doc.tokens[following].text.lower()
    if noun in FUNCTION_WORDS:
        return None
    if tagger is None:
        return 0.75
    _, marker, tag = tagger((name, "'s", noun))
    if marker != "PART":
        return None  # spaCy reads "'s" as "is" / "has": "John's going"
    after = next_word(doc, following)
    if tag == "ADJ" and after is not None:
        _, marker, tag, head = tagger((name, "'s", noun, doc.tokens[after].text.lower()))
        if marker == "PART" and tag == "ADJ" and head in ("NOUN", "PROPN"):
            return REGISTRY_CONFIDENCE["ADJ NOUN"]  # "Cillian's next meeting"
        return REGISTRY_CONFIDENCE["ADJ"]
    return REGISTRY_CONFIDENCE.get(tag)


def _predicative_confidence(doc: TokenizedInput, index: int) -> float | None:
    """ "which site is livs", "the blue pen was josteins": a registry person's possessive standing for the
    thing itself, last in the question after a form of "be" (nothing may follow it but punctuation)."""
    before = previous_word(doc, index)
    if before is None or doc.tokens[before].text.lower() not in BE_FORMS:
        return None
    return PREDICATIVE_CONFIDENCE


def _noun_phrase_confidence(doc: TokenizedInput, index: int, name: str, tagger: Tagger) -> float | None:
    """How sure a noun phrase follows "<name>'s" and nothing before makes the word a plain noun."""
    following: list[str] = []
    at = index
    while len(following) < NOUN_PHRASE_WORDS:
        at = next_word(doc, at)
        if at is None or not doc.tokens[at].text.isalpha():
            break
        following.append(doc.tokens[at].text.lower())
    if not following or following[0] in FUNCTION_WORDS:
        return None
    before = previous_word(doc, index)
    previous = doc.tokens[before].text.lower() if before is not None else None
    if previous in NOT_BEFORE_A_POSSESSIVE:
        return None
    plain_previous = previous is not None and previous.isalpha() and previous not in FUNCTION_WORDS
    words = ((previous,) if plain_previous else ()) + (name, "'s", *following)
    tags = tagger(words)
    if plain_previous:
        if tags[0] in NOT_BEFORE_TAGS:
            return None
        tags = tags[1:]
    if tags[1] != "PART":
        return None  # "'s" read as "is" or "has": "Rob's going"
    head = tags[2:]
    if head[0] in ("NOUN", "PROPN"):
        return OTHER_NAME_CONFIDENCE[head[0]]
    adjectives = 0
    while adjectives < len(head) and head[adjectives] == "ADJ":
        adjectives += 1
    if 0 < adjectives < len(head) and head[adjectives] in ("NOUN", "PROPN"):
        return OTHER_NAME_CONFIDENCE["ADJ NOUN"]
    return None


def _reads_as_plural_subject(doc: TokenizedInput, index: int, lower: str, tagger: Tagger) -> bool:
    """Whether the plain plural reads as well: "Mondays work best", a subject and its verb."""
    following = next_word(doc, index)
    if following is None:
        return False
    tags = tagger((lower.capitalize(), doc.tokens[following].text.lower()))
    return tags[0] in ("NOUN", "PROPN") and tags[1] in ("VERB", "AUX")
