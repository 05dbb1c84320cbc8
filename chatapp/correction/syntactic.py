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
there why). No rule here needs spaCy, so a blank pipeline loses only hints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatapp.correction.text_helpers import (  # noqa: F401 - render_with_owners re-exported
    FUNCTION_WORDS,
    ParsedText,
    is_editable_word,
    match_case,
    next_word,
    previous_word,
    render_with_owners,
    zipf,
)
from chatapp.correction.tokens import Token, TokenizedInput
from chatapp.records import CorrectionRecord

if TYPE_CHECKING:
    from chatapp.correction.names import KnownNames

TIER = "syntactic"

QUESTION_WORDS = frozenset("what where when who whom whose why which how".split())
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
# A dot after these does not end a sentence.
ABBREVIATIONS = frozenset("e.g i.e etc vs mr mrs ms dr st jr sr inc ltd co approx no fig dept est al".split())
SENTENCE_END = frozenset(". ! ? ?! !? ... …".split())
OPENERS = frozenset("( [ { \" ' “ ‘ « - * • >".split())

# Repeats that are usually meant ("I had had enough", "bye bye").
INTENTIONAL_REPEATS = frozenset(
    "had that is bye ha haha no yes very really so too much many more now well please go knock "
    "tick tock chop blah hush night yeah wow".split()
)

# Single tokens that are always a slip: text -> (replacement, confidence).
# (Contractions typed without an apostrophe, "dont", "im", are tier 1's.)
SLIP_WORDS: dict[str, tuple[str, float]] = {
    "alot": ("a lot", 0.95), "atleast": ("at least", 0.9), "aswell": ("as well", 0.85),
    "infact": ("in fact", 0.85), "eachother": ("each other", 0.9), "incase": ("in case", 0.8),
    "everytime": ("every time", 0.8), "irregardless": ("regardless", 0.75),
}
HAVE_SLIP_VERBS = frozenset("could should would must might".split())
COMPARATIVES = frozenset(
    "more less better worse rather other greater fewer larger smaller higher lower bigger faster "
    "slower longer shorter cheaper older newer easier harder".split()
)
ITS_BEFORE = frozenset("a an the not been going ok okay fine all just really so very".split())
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
# Letter names that start with a vowel sound: "an FBI agent", "an SQL query".
VOWEL_SOUND_LETTERS = frozenset("aefhilmnorsx")
# Vowel letters sounding like a consonant, and silent h's.
A_BEFORE_PREFIXES = ("uni", "use", "usu", "uti", "ute", "eu", "one", "once", "ubiq", "ufo", "uk")
AN_BEFORE_PREFIXES = ("hour", "honest", "honor", "honour", "heir")


class _Edits:
    """Collects this tier's edits, one record per token however many rules touched it."""

    def __init__(self, doc: TokenizedInput):
        self.doc = doc
        self.before: dict[int, str] = {}
        self.kinds: dict[int, list[tuple[str, float]]] = {}

    def set(self, index: int, text: str, correction_type: str, confidence: float) -> None:
        token = self.doc.tokens[index]
        if text == token.text:
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
    def __init__(self, names: KnownNames | None = None):
        self.names = names

    def correct(self, doc: TokenizedInput) -> list[CorrectionRecord]:
        """Apply every rule to `doc` (setting token texts); one record per changed token."""
        edits = _Edits(doc)
        self._fix_slips(doc, edits)
        self._capitalise_pronoun_i(doc, edits)
        self._capitalise_names(doc, edits)
        self._remove_doubled_words(doc, edits)
        self._fix_articles(doc, edits)
        self._capitalise_sentence_starts(doc, edits)
        return edits.records()

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

    def _fix_slips(self, doc: TokenizedInput, edits: _Edits) -> None:
        tokens = doc.tokens
        for index, token in enumerate(tokens):
            if not is_editable_word(token):
                continue
            lower = token.text.lower()
            following = next_word(doc, index)
            previous = previous_word(doc, index)
            next_lower = tokens[following].text.lower() if following is not None else ""
            prev_lower = tokens[previous].text.lower() if previous is not None else ""
            if lower in SLIP_WORDS:
                replacement, confidence = SLIP_WORDS[lower]
                edits.set(index, match_case(replacement, token.text), "Grammar", confidence)
            elif lower == "of" and prev_lower in HAVE_SLIP_VERBS and next_lower not in ("course", ""):
                edits.set(index, match_case("have", token.text), "Grammar", 0.9)
            elif lower == "then" and prev_lower in COMPARATIVES and following is not None:
                edits.set(index, match_case("than", token.text), "Grammar", 0.8)
            elif lower == "their" and next_lower in ("is", "are", "was", "were"):
                edits.set(index, match_case("there", token.text), "Grammar", 0.85)
            elif lower == "its" and next_lower in ITS_BEFORE:
                edits.set(index, match_case("it's", token.text), "Grammar", 0.8)
            elif lower == "your" and next_lower == "welcome" and next_word(doc, following) is None:
                edits.set(index, match_case("you're", token.text), "Grammar", 0.85)

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
            for index, canonical in zip(match.indices, match.canonical):
                token = doc.tokens[index]
                current = token.text
                if (
                    confidence > 0
                    and is_editable_word(token)
                    and current.islower()
                    and canonical != current
                    and canonical.lower() == current.lower()
                ):
                    edits.set(index, canonical, "Capitalization", confidence)
        for index, token in enumerate(doc.tokens):
            if index not in claimed and is_editable_word(token) and token.text.lower() in ALWAYS_CAPITALISED:
                if token.text.islower():
                    edits.set(index, ALWAYS_CAPITALISED[token.text.lower()], "Capitalization", 0.9)

    def _remove_doubled_words(self, doc: TokenizedInput, edits: _Edits) -> None:
        tokens = doc.tokens
        previous_end = -1
        previous_word = previous_text = ""  # the previous word, as it read before this rule
        for index, token in enumerate(tokens):
            if token.text == "":
                continue
            # One word as typed: not an expansion like "a lot" that a rule made of "alot".
            word = token.text.lower() if is_editable_word(token) and " " not in token.text else ""
            gap = doc.original[previous_end : token.start] if previous_end >= 0 else "\n"
            if word and word == previous_word and gap.strip() == "" and "\n" not in gap:
                # Capitalised twice is a name or a refrain ("Rin Tin Tin", "Bora Bora").
                if word not in INTENTIONAL_REPEATS and not (token.text[:1].isupper() and previous_text[:1].isupper()):
                    edits.set(index, "", "Grammar", 0.9 if word in FUNCTION_WORDS else 0.75)
            previous_end, previous_word, previous_text = token.end, word, token.text

    def _fix_articles(self, doc: TokenizedInput, edits: _Edits) -> None:
        for index, token in enumerate(doc.tokens):
            if not is_editable_word(token) or token.text.lower() not in ("a", "an"):
                continue
            following = next_word(doc, index, allow_kinds=("word", "acronym", "number", "id"))
            if following is None:
                continue
            word = doc.tokens[following]
            wants_an, confidence = _wants_an(word)
            if wants_an is None:
                continue
            article = "an" if wants_an else "a"
            if token.text.lower() != article:
                edits.set(index, match_case(article, token.text), "Grammar", confidence)

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
                if is_editable_word(token) and text[0].islower() and text.islower():
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


def _terminal_mark(sentence: list[Token]) -> tuple[str | None, float]:
    """"?" for a question, "." for a longer statement, with a confidence."""
    # Split texts, so a token that tier 1 expanded ("alot" -> "a lot") reads as it will next time.
    written = " ".join(t.text for t in sentence).split()
    words = [w.lower().replace("’", "'") for w in written]
    first = words[0]
    second = words[1] if len(words) > 1 else ""
    if first in QUESTION_WORDS:
        if second in AUXILIARIES or (first == "how" and second in ("many", "much", "long", "often", "far")):
            return "?", 0.9
        if first in ("when", "where", "why", "how"):
            return "?", 0.55  # "when they came back, ..." is a statement
        return "?", 0.6 if second in SUBJECT_WORDS else 0.75  # "who sent it", not "what you need is"
    if first in ("do", "have", "has", "had"):
        # "do you", "have they": a question; "have a look", "do the rest": an order.
        return ("?", 0.88) if second in PRONOUN_SUBJECTS else (None, 0.0)
    if first in AUXILIARIES:
        if second in SUBJECT_WORDS or (len(written) > 1 and written[1][:1].isupper()):
            return "?", 0.88
        return "?", 0.65 if first in MODALS else 0.75
    if len(words) >= 4:
        return ".", 0.5  # a statement: only at the aggressive level
    return None, 0.0


def _wants_an(word: Token) -> tuple[bool | None, float]:
    """Whether `word` takes "an", and how sure we are (None: leave it)."""
    text = word.text
    lower = text.lower()
    if word.kind in ("number", "id") or not text[:1].isalpha() or len(text) == 1:
        return None, 0.0  # "option a or b", "a to z", "plan B"
    if word.kind == "acronym" or (len(text) <= 4 and text.isupper()):
        # Letter by letter ("an FBI agent") unless said as a word ("a NATO base").
        return lower[0] in VOWEL_SOUND_LETTERS, 0.6
    if lower in FUNCTION_WORDS or lower.replace("’", "'").split("'")[0] in FUNCTION_WORDS:
        return None, 0.0  # "a the", "a I'm": something else is wrong there
    if lower.startswith(AN_BEFORE_PREFIXES):
        return True, 0.85
    if lower.startswith(A_BEFORE_PREFIXES):
        return False, 0.8
    if lower[0] in "aeio":
        return True, 0.9
    if lower[0] == "u":
        # "an umbrella", "an update" but "a user", "a unit": u + consonant + vowel is often "you".
        if len(lower) > 2 and lower[1] not in "aeiou" and lower[2] in "aeiouy" and lower[1] not in "mnpgdls":
            return None, 0.0
        return True, 0.8
    if lower[0] == "h":
        return False, 0.75
    return False, 0.9


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
