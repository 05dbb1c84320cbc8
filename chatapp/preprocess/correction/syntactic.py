"""Tier 2, syntactic: capitals, "I", known names, doubled words, a/an,
frequent slips and the terminal "?".

Rules work on the shared token view (tokens.py) and never on a string, so
every record keeps an exact span in the ORIGINAL input:

- `record.original == original_input[span[0]:span[1]]` always. A record says
  what that span becomes after this tier, so when tier 1 turned "u" into
  "you" and this tier capitalises it, this tier's record reads "u" -> "You".
- A deletion (the second of a doubled word) sets the token's text to "" and
  records corrected "".
- An insertion (terminal "?" or ".") adds a zero-width punctuation token just
  after the last non-empty token; its record has span (end, end), original ""
  and corrected "?". `punctuate` runs after every other tier has settled, so
  the mark lands after the word that really ends the text.

Names come from the knowledge base (KnownNames, built from registry names,
aliases and place attributes) and a short list of always-capitalised words
(days, months, nationalities). spaCy's NER comes second: on the full path,
`entity_hints` offers names only it found as suggestions, never applied (see
there why). Only `words_in_context` asks spaCy's tagger (about a few words
alone), so a blank pipeline or the live path loses those rules and the hints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatapp.accents import strip_accents
from chatapp.lexicon import zipf
from chatapp.preprocess.correction import grammar
from chatapp.preprocess.correction.apostrophes import FineTagger, fix_bare_contractions
from chatapp.preprocess.correction.confusions import fix_confusions
from chatapp.preprocess.correction.text_helpers import (  # noqa: F401 - render_with_owners re-exported
    ParsedText,
    is_editable_word,
    next_word,
    previous_word,
    render_with_owners,
)
from chatapp.preprocess.correction.tokens import Token, TokenizedInput
from chatapp.records import CorrectionRecord

if TYPE_CHECKING:
    from chatapp.preprocess.correction.names import KnownNames

TIER = "syntactic"

QUESTION_WORDS = frozenset("what where when who whom whose why which how".split())
# Words that open a follow-up without being its first word ("and what's his email?").
FOLLOW_UP_OPENERS = frozenset("and but so also then ok okay oh".split())
AUXILIARIES = frozenset(
    "can could would will should shall may might must is are am was were do does did have has had "
    "isn't aren't wasn't weren't don't doesn't didn't can't couldn't won't wouldn't shouldn't "
    "haven't hasn't".split()
)
# Words that, right after an auxiliary, make "is it", "can you", "did John" a question.
PRONOUN_SUBJECTS = frozenset(
    "i you u we they he she it this that these those there anyone someone anybody somebody everyone everybody".split()
)
SUBJECT_WORDS = PRONOUN_SUBJECTS | frozenset("the a an my your our his her their its any some".split())
MODALS = frozenset("can could would will should shall may might".split())
# Words after which an everyday word that is also a known name stands bare, as a name does: a
# preposition ("on atlas"), an auxiliary or question word ("is atlas late", "when does beacon ship").
BARE_NAME_BEFORE = frozenset(
    "on about for from with without in into of at to by regarding re behind under and or".split()
) | AUXILIARIES | QUESTION_WORDS
BARE_NAME_CONFIDENCE = 0.8
# A person's name that is an everyday word, where the sentence leaves room only for a person.
NAME_SLOT_CONFIDENCE = 0.8
# Auxiliaries a question puts before its subject: "what did will say", "is hope coming".
QUESTION_AUXILIARIES = frozenset("did does do has had is was can could will would should".split())
# Verbs whose object is a person, and the words that follow that object: "ask joy to check".
PERSON_OBJECT_VERBS = frozenset("ask asked tell told email emailed call called message remind ping cc "
                                "thank invite contact text".split())
AFTER_A_PERSON_OBJECT = frozenset("to about for if whether when what why . ? , !".split())
# A dot after these does not end a sentence.
ABBREVIATIONS = frozenset("e.g i.e etc vs mr mrs ms dr st jr sr inc ltd co approx no fig dept est al".split())
SENTENCE_END = frozenset(". ! ? ?! !? ... …".split())
OPENERS = frozenset("( [ { \" ' “ ‘ « - * • >".split())

# Proper nouns every English text capitalises. May, March and August are
# left out: they are also ordinary words.
ALWAYS_CAPITALISED = {
    w: w.capitalize()
    for w in (
        "monday tuesday wednesday thursday friday saturday sunday january february april june july "
        "september october november december english french german spanish italian chinese japanese "
        "korean russian portuguese dutch american british canadian european australian indian "
        "christmas easter thanksgiving"
    ).split()
}
NER_LABELS = frozenset({"PERSON", "GPE", "LOC", "ORG", "NORP", "FAC", "EVENT"})


class _Edits:
    """Collects this tier's edits, one record per token however many rules touched it."""

    def __init__(self, doc: TokenizedInput):
        self.doc = doc
        self.before: dict[int, str] = {}
        self.kinds: dict[int, list[tuple[str, float]]] = {}

    def set(self, index: int, text: str, correction_type: str, confidence: float) -> None:
        token = self.doc.tokens[index]
        if text == token.text:
            if index in self.kinds:  # a second rule wants the same text: "will" starts a sentence too
                kind, surest = self.kinds[index][-1]
                self.kinds[index][-1] = (kind, max(surest, confidence))
            return
        self.before.setdefault(index, token.text)
        self.kinds.setdefault(index, []).append((correction_type, confidence))
        token.text = text

    def records(self) -> list[CorrectionRecord]:
        records = []
        for index in sorted(self.before):
            token = self.doc.tokens[index]
            if token.text == self.before[index]:
                continue
            kinds = self.kinds[index]
            confidence = round(min(c for _, c in kinds), 3)
            records.append(
                CorrectionRecord(
                    tier=TIER,
                    span=(token.start, token.end),
                    original=token.original,
                    corrected=token.text,
                    correction_type=kinds[0][0],
                    confidence=confidence,
                    alternatives=[(token.text, confidence), (self.before[index], round(1 - confidence, 3))],
                )
            )
        return records


class SyntacticCorrector:
    def __init__(self, names: KnownNames | None = None, tagger: FineTagger | None = None):
        """`tagger`: words -> spaCy's fine tags, for the rules of `words_in_context`
        that need to know a word's type ("were going": a verb in -ing); None on the live path."""
        self.names = names
        self.tagger = tagger

    def correct(self, doc: TokenizedInput) -> list[CorrectionRecord]:
        """Apply every rule to `doc` (setting token texts); one record per changed token."""
        edits = _Edits(doc)
        grammar.fix_slips(doc, edits)
        self._capitalise_pronoun_i(doc, edits)
        self._capitalise_names(doc, edits)
        grammar.remove_doubled_words(doc, edits)
        grammar.fix_articles(doc, edits)
        self._capitalise_sentence_starts(doc, edits)
        return edits.records()

    def words_in_context(self, doc: TokenizedInput) -> list[CorrectionRecord]:
        """Bare contractions that are words too ("were going" -> "we're going",
        apostrophes.py) and sound-alike slips ("more money then", confusions.py).
        A step of its own after `correct`: a guess kept as a suggestion then
        takes only itself back, not the capital its sentence start got."""
        edits = _Edits(doc)
        fix_bare_contractions(doc, edits, self.tagger)
        fix_confusions(doc, edits, self.tagger)
        return edits.records()

    def reorder(self, doc: TokenizedInput) -> list[CorrectionRecord]:
        """Word order of short questions ("where it is?" -> "where is it?"); a
        separate step from `correct` because its record spans two tokens that
        other rules of this tier may already have touched ("where i am")."""
        return grammar.fix_question_order(doc, TIER)

    def entity_hints(self, doc: TokenizedInput, parsed: ParsedText) -> list[CorrectionRecord]:
        """Lower-case words that spaCy's NER takes for names the knowledge
        base does not know ("mike", "boston"), as suggestions only
        (confidence 0.35, below every level's threshold): NER on lower-case
        text is weak, and a parse shifts with the words around it, so an
        applied fix could appear or vanish when corrected text is corrected
        again. Leaves the tokens as they are."""
        known = {i for match in (self.names.find(doc) if self.names else ()) for i in match.indices}
        hints = []
        for index, token in enumerate(doc.tokens):
            text = token.text
            if index in known or not is_editable_word(token) or not text.islower() or len(text) < 3:
                continue
            if parsed.entity(index) in NER_LABELS and parsed.pos(index) == "PROPN" and zipf(text) < 4.5:
                # zipf: "johns report" is no ORG, "report" is an everyday word.
                name = text[0].upper() + text[1:]
                hints.append(CorrectionRecord(
                    tier=TIER, span=(token.start, token.end), original=token.original, corrected=name,
                    correction_type="Capitalization", confidence=0.35, alternatives=[(name, 0.35), (text, 0.65)],
                ))
        return hints

    # --- rules ------------------------------------------------------------------

    def _capitalise_pronoun_i(self, doc: TokenizedInput, edits: _Edits) -> None:
        for index, token in enumerate(doc.tokens):
            if not is_editable_word(token):
                continue
            lower = token.text.lower().replace("’", "'")
            if token.text[0] != "i" or lower not in ("i", "i'm", "i've", "i'll", "i'd"):
                continue
            after = doc.tokens[index + 1] if index + 1 < len(doc.tokens) else None
            # "i.e." and list labels like "i)" are not the pronoun.
            if after is not None and after.start == token.end and after.text[:1] in (".", ")"):
                continue
            edits.set(index, "I" + token.text[1:], "Capitalization", 0.95)

    def _capitalise_names(self, doc: TokenizedInput, edits: _Edits) -> None:
        claimed: set[int] = set()
        for match in self.names.find(doc) if self.names is not None else ():
            claimed.update(match.indices)
            confidence = match.form.capitalize_confidence
            if match.form.common_word and _bare(doc, match.indices[0]):
                confidence = BARE_NAME_CONFIDENCE  # "the tech lead on atlas": no article, so a name
            elif confidence <= 0.5 and match.form.entity_type == "person" and self._in_name_slot(doc, match.indices):
                confidence = NAME_SLOT_CONFIDENCE  # "what did will say": only a person says
            # "jean-francois belanger", "marie-eve": a name of several words typed whole is that name, so each
            # word gets its accents back however common it is alone ("eve", "francois").
            whole = sum(any(c.isalpha() for c in doc.tokens[i].text) for i in match.indices) >= 2
            for index, canonical in zip(match.indices, match.canonical):
                token = doc.tokens[index]
                current = token.text
                if (
                    confidence > 0
                    and is_editable_word(token)
                    and current.islower()
                    and canonical != current
                    # "siobhan" is "Siobhán": a name typed without its accents gets them back, unless the
                    # word is a common one ("van" is no "Văn").
                    and (canonical.lower() == current.lower() or (
                        (whole or zipf(current.lower()) < 3.0)
                        and strip_accents(canonical).lower() == strip_accents(current).lower()))
                ):
                    edits.set(index, canonical, "Capitalization", confidence)
            if confidence > 0 and match.form.entity_type == "person":
                _capitalise_title_before(doc, match.indices[0], edits)
        for index, token in enumerate(doc.tokens):
            if index not in claimed and is_editable_word(token) and token.text.lower() in ALWAYS_CAPITALISED:
                if token.text.islower():
                    edits.set(index, ALWAYS_CAPITALISED[token.text.lower()], "Capitalization", 0.9)

    def _in_name_slot(self, doc: TokenizedInput, indices: list[int]) -> bool:
        """Whether a one-word person's name that is also an everyday word ("will", "joy", "hope")
        stands where only a name can: the subject between a question's auxiliary and its verb
        ("what did will say", "has joy sent it"), or the person asked or told something ("ask
        joy to check", "email will about it")."""
        if len(indices) != 1:
            return False
        before, after = previous_word(doc, indices[0]), next_word(doc, indices[0])
        if before is None:
            return False
        previous = doc.tokens[before].text.lower()
        following = doc.tokens[after].text.lower() if after is not None else None
        if previous in PERSON_OBJECT_VERBS:
            return following is None or following in AFTER_A_PERSON_OBJECT
        if previous not in QUESTION_AUXILIARIES or following is None or self.tagger is None:
            return False
        opener = previous_word(doc, before)
        if opener is not None and doc.tokens[opener].text.lower() not in QUESTION_WORDS:
            return False  # "they did will it": no question's inversion
        name = doc.tokens[indices[0]].text.capitalize()
        return self.tagger((previous, name, following))[2] in ("VB", "VBG", "VBN")

    def _capitalise_sentence_starts(self, doc: TokenizedInput, edits: _Edits) -> None:
        at_start, confidence = True, 0.9
        previous: Token | None = None
        for index, token in enumerate(doc.tokens):
            if token.text == "":
                continue
            if previous is not None and "\n\n" in doc.original[previous.end : token.start]:
                at_start, confidence = True, 0.6  # a new paragraph, or pasted code: unsure
            if at_start:
                if token.kind == "punct" and token.text in OPENERS:
                    previous = token
                    continue
                text = token.text
                # The first word only: an expansion "as far as I know" starts a sentence too,
                # while "iPhone" keeps its capitals.
                if is_editable_word(token) and text[0].islower() and text.split(" ")[0].islower():
                    edits.set(index, text[0].upper() + text[1:], "Capitalization", confidence)
                at_start = False
            if token.kind == "punct" and token.text in SENTENCE_END and token.text not in ("...", "…"):
                if not _is_abbreviation(doc, index):
                    at_start, confidence = True, 0.85
            previous = token

    # --- terminal punctuation -------------------------------------------------------

    def punctuate(self, doc: TokenizedInput) -> CorrectionRecord | None:
        """Add "?" to a question (or "." to a long statement) that ends without
        a mark. Inserts a zero-width token; see the module docstring."""
        last = _last_nonempty(doc)
        if last is None:
            return None
        token = doc.tokens[last]
        if token.kind not in ("word", "acronym", "id", "number", "handle"):
            return None
        first = _last_sentence_start(doc, last)
        sentence = [t for t in doc.tokens[first : last + 1] if t.text and t.kind != "punct"]
        if not sentence:
            return None
        mark, confidence = _terminal_mark(sentence)
        if mark != "?":
            # "thanks, can you send it": the question may start after a comma.
            clause_start = max(
                (i for i in range(first, last) if doc.tokens[i].text in (",", ";", ":")), default=None
            )
            if clause_start is not None:
                clause = [t for t in doc.tokens[clause_start + 1 : last + 1] if t.text and t.kind != "punct"]
                clause_mark, clause_confidence = _terminal_mark(clause) if clause else (None, 0.0)
                if clause_mark == "?":
                    mark, confidence = "?", round(clause_confidence - 0.1, 3)
        if mark == "?" and any(t.text == ":" for t in doc.tokens[first:last]):
            confidence = round(confidence - 0.2, 3)  # "What needs fixing: the charts" is a heading
        # A handle swallows a following dot ("@jsmith." is one token): no "." there.
        if mark is None or (mark == "." and token.kind == "handle") or token.text[-1:] in ".!?…":
            return None
        doc.tokens.insert(last + 1, Token(token.end, token.end, "", mark, "punct"))
        return CorrectionRecord(
            tier=TIER,
            span=(token.end, token.end),
            original="",
            corrected=mark,
            correction_type="Punctuation",
            confidence=confidence,
            alternatives=[(mark, confidence), ("", round(1 - confidence, 3))],
        )


def _capitalise_title_before(doc: TokenizedInput, index: int, edits) -> None:
    """ "dr chebet", "mama grace": a title or respectful form said right before a person's name is
    written with a capital, as the name is ("Dr Chebet", "Mama Grace")."""
    from chatapp.preprocess.correction.possessives import TITLES_BEFORE_A_NAME

    before = previous_word(doc, index)
    if before is None or not is_editable_word(doc.tokens[before]):
        return
    title = doc.tokens[before].text
    if title.islower() and title in TITLES_BEFORE_A_NAME:
        edits.set(before, title.capitalize(), "Capitalization", 0.9)


def _bare(doc: TokenizedInput, index: int) -> bool:
    """The word stands without an article or other word before it that makes it a common noun."""
    before = next((t for t in reversed(doc.tokens[:index]) if t.text.strip()), None)
    # First in a sentence it is capitalised either way ("atlas is late" -> "Atlas is late").
    return before is None or before.text in SENTENCE_END or before.text.lower() in BARE_NAME_BEFORE


def _terminal_mark(sentence: list[Token]) -> tuple[str | None, float]:
    """"?" for a question, "." for a longer statement, with a confidence."""
    # Split texts, so a token that tier 1 expanded ("alot" -> "a lot") reads as it will next time.
    written = " ".join(t.text for t in sentence).split()
    words = [w.lower().replace("’", "'") for w in written]
    # A follow-up opens with a link to what came before: "and whats his email", "so when is it".
    while len(words) > 2 and words[0] in FOLLOW_UP_OPENERS:
        written, words = written[1:], words[1:]
    first = words[0]
    second = words[1] if len(words) > 1 else ""
    if first.endswith("'s") and first[:-2] in QUESTION_WORDS and len(words) > 1:
        return "?", 0.85  # "what's Tom's phone", "where's the report"
    if first in QUESTION_WORDS:
        if second in AUXILIARIES or (first == "how" and second in ("many", "much", "long", "often", "far")):
            return "?", 0.9
        if first in ("when", "where", "why", "how"):
            return "?", 0.55  # "when they came back, ..." is a statement
        return "?", 0.6 if second in SUBJECT_WORDS else 0.75  # "who sent it", not "what you need is"
    if first in ("do", "have", "has", "had"):
        # "do you", "have they": a question; "have a look", "do the rest": an order.
        if second in PRONOUN_SUBJECTS:
            return "?", 0.88
        # "has Siobhán sent the quote", "has the invoice gone": no order or statement opens with "has";
        # "had" asks only of someone named ("had a good weekend" is a statement).
        if len(written) > 2 and (first == "has" or (first == "had" and written[1][:1].isupper())):
            return "?", 0.85
        return None, 0.0
    if first in AUXILIARIES:
        if second in SUBJECT_WORDS or (len(written) > 1 and written[1][:1].isupper()):
            return "?", 0.88
        return "?", 0.65 if first in MODALS else 0.75
    if len(words) >= 4:
        return ".", 0.5  # a statement: only at the aggressive level
    return None, 0.0


def _is_abbreviation(doc: TokenizedInput, dot_index: int) -> bool:
    """A "." after "e.g", "Inc" or a single letter does not end the sentence."""
    if doc.tokens[dot_index].text != ".":
        return False
    tokens = doc.tokens
    dot = tokens[dot_index]
    after = dot_index + 1 < len(tokens) and tokens[dot_index + 1].start == dot.end
    if after:
        return True  # "3.5", "e.g.x": no space after the dot
    if dot_index == 0:
        return False
    before = tokens[dot_index - 1]
    if before.end != dot.start or before.text == "":
        return False
    word = before.text.lower()
    if len(word) == 1 and word.isalpha() and word != "i":
        return True
    if word in ABBREVIATIONS:
        return True
    # "e.g." tokenises as e . g . : look one step further back.
    return dot_index >= 3 and (tokens[dot_index - 3].text + "." + word).lower() in ABBREVIATIONS


def _last_nonempty(doc: TokenizedInput) -> int | None:
    for index in range(len(doc.tokens) - 1, -1, -1):
        if doc.tokens[index].text != "":
            return index
    return None


def _last_sentence_start(doc: TokenizedInput, last: int) -> int:
    """Index of the first token of the sentence that ends at `last`."""
    for index in range(last - 1, -1, -1):
        token = doc.tokens[index]
        if token.kind == "punct" and token.text in SENTENCE_END and not _is_abbreviation(doc, index):
            return index + 1
        if index > 0 and "\n\n" in doc.original[doc.tokens[index - 1].end : token.start]:
            return index
    return 0
