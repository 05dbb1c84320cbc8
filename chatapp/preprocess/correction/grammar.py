"""Tier 2's grammar rules: frequent slips ("could of", "alot"), doubled words,
"a"/"an", and the word order of a short question ("where it is?").

Each rule takes the shared token view and an edit collector with
`set(index, text, correction_type, confidence)` (syntactic.py's), so records
keep exact spans in the original input.
"""

from __future__ import annotations

from chatapp.preprocess.correction.text_helpers import FUNCTION_WORDS, is_editable_word, match_case, next_word, previous_word
from chatapp.preprocess.correction.tokens import Token, TokenizedInput
from chatapp.records import CorrectionRecord

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
QUESTION_WORDS = ("what", "when", "where", "who", "why", "how", "which", "whose")
# Question words that take a noun before the auxiliary: "which route is", "whose car was".
DETERMINER_QUESTION_WORDS = frozenset({"which", "what", "whose"})
# Question words an auxiliary follows at once: "when does …", where "what dose …" may ask for a dose.
ADVERB_QUESTION_WORDS = frozenset({"when", "where", "why", "how"})
QUESTION_AUXILIARIES = frozenset("is are was were do does did can could will would should has have".split())
HAVE_SLIP_VERBS = frozenset("could should would must might".split())
COMPARATIVES = frozenset(
    "more less better worse rather other greater fewer larger smaller higher lower bigger faster "
    "slower longer shorter cheaper older newer easier harder".split()
)
ITS_BEFORE = frozenset("a an the not been going ok okay fine all just really so very".split())
# Letter names that start with a vowel sound: "an FBI agent", "an SQL query".
VOWEL_SOUND_LETTERS = frozenset("aefhilmnorsx")
# Vowel letters sounding like a consonant, and silent h's.
A_BEFORE_PREFIXES = ("uni", "use", "usu", "uti", "ute", "eu", "one", "once", "ubiq", "ufo", "uk")
AN_BEFORE_PREFIXES = ("hour", "honest", "honor", "honour", "heir")


def fix_slips(doc: TokenizedInput, edits) -> None:
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
        elif (previous is None and token.text.islower() and (wh := _question_word_slip(lower))
              and (next_lower in QUESTION_AUXILIARIES  # typed capitalised, "Wen" may be a name
                   or (wh in DETERMINER_QUESTION_WORDS and _word_after(doc, following) in QUESTION_AUXILIARIES))):
            # "wich route is …", "wat time does …": the question word and its noun, then the auxiliary.
            edits.set(index, match_case(wh, token.text), "Grammar", 0.85)
        elif (previous is None and token.text.islower() and next_lower and next_lower not in QUESTION_AUXILIARIES
              and (wh := _contracted_question_slip(lower))):
            # "wats the budget", "wheres the file": a slip of "what's", "where's" opening the message.
            edits.set(index, match_case(wh, token.text), "Grammar", 0.85)
        elif (prev_lower in ADVERB_QUESTION_WORDS and previous_word(doc, previous) is None and following is not None
              and (auxiliary := _transposed_auxiliary(lower))):
            # "when dose the clinic open": after a question word that takes no noun, the slot is the
            # auxiliary's, and "dose" is "does" with two letters swapped.
            edits.set(index, match_case(auxiliary, token.text), "Grammar", 0.85)


def _transposed_auxiliary(word: str) -> str | None:
    """The question auxiliary `word` is with two neighbouring letters swapped ("dose" -> "does")."""
    if word in QUESTION_AUXILIARIES:
        return None
    swaps = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}
    found = swaps & QUESTION_AUXILIARIES
    return next(iter(found)) if len(found) == 1 else None


def _word_after(doc: TokenizedInput, index: int | None) -> str:
    after = next_word(doc, index) if index is not None else None
    return doc.tokens[after].text.lower() if after is not None else ""


def _question_word_slip(word: str) -> str | None:
    """The question word a message's first word was meant to be when an auxiliary follows it: "wen
    is" and "wat is" are "when is" and "what is", though "wen" and "wat" are words of their own.
    Only one question word may be a single edit away; "wher" (where? when?) is left to tier 1."""
    from chatapp.lexicon import is_common

    if word in QUESTION_WORDS or len(word) < 2 or is_common(word, 4.0):
        return None  # "there is", "were is": an everyday word is meant as typed
    from rapidfuzz.distance import DamerauLevenshtein

    near = [wh for wh in QUESTION_WORDS if DamerauLevenshtein.distance(word, wh) == 1]
    return near[0] if len(near) == 1 else None


def _contracted_question_slip(word: str) -> str | None:
    """ "wats" → "what's", "wheres" → "where's", "hows" → "how's": a question word and "'s" typed
    without the apostrophe and one letter off, when what was typed is no everyday word itself."""
    from chatapp.lexicon import is_common

    if not word.endswith("s") or is_common(word, 3.0):
        return None
    wh = word[:-1] if word[:-1] in QUESTION_WORDS else _question_word_slip(word[:-1])
    return f"{wh}'s" if wh in ("what", "where", "who", "how", "when") else None


def remove_doubled_words(doc: TokenizedInput, edits) -> None:
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


def fix_articles(doc: TokenizedInput, edits) -> None:
    for index, token in enumerate(doc.tokens):
        if not is_editable_word(token) or token.text.lower() not in ("a", "an"):
            continue
        following = next_word(doc, index, allow_kinds=("word", "acronym", "number", "id"))
        if following is None:
            continue
        word = doc.tokens[following]
        takes_an, confidence = wants_an(word)
        if takes_an is None:
            continue
        article = "an" if takes_an else "a"
        if token.text.lower() != article:
            edits.set(index, match_case(article, token.text), "Grammar", confidence)


def wants_an(word: Token) -> tuple[bool | None, float]:
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


# A question whose subject came before its verb: "where it is?" -> "where is it?".
# Only subject pronouns with the forms of "be" that agree with them, so the swap
# never makes a new slip.
BE_AFTER_PRONOUN = {
    "i": ("am", "was"), "it": ("is", "was"), "this": ("is", "was"), "that": ("is", "was"),
    "he": ("is", "was"), "she": ("is", "was"), "you": ("are", "were"), "we": ("are", "were"),
    "they": ("are", "were"), "these": ("are", "were"), "those": ("are", "were"),
}
OPEN_QUESTION_WORDS = frozenset("what where when who why how which".split())


def fix_question_order(doc: TokenizedInput, tier: str) -> list[CorrectionRecord]:
    """Swap subject and "be" in a short question that starts a sentence and
    ends right after them: "what time it is?", "how old she is", "where it is".

    Embedded questions keep their order ("do you know where it is?", "I
    wonder what it is"): the question word must start the sentence. With a
    "?" typed the swap is near-certain; without one the words may be a
    fragment, so it is a standard-level fix only.
    """
    records = []
    words = [i for i, t in enumerate(doc.tokens) if t.text]
    for position, index in enumerate(words):
        token = doc.tokens[index]
        if not is_editable_word(token) or token.text.lower() not in OPEN_QUESTION_WORDS:
            continue
        if position > 0:
            before = doc.tokens[words[position - 1]]
            if before.text not in (".", "!", "?") and "\n" not in doc.original[before.end : token.start]:
                continue  # not the start of a sentence
        following = [doc.tokens[i] for i in words[position + 1 : position + 5]]
        for subject_at in (0, 1):  # "where it is", "what time it is"
            if len(following) < subject_at + 2:
                break
            if subject_at and not _question_filler(following[0]):
                break
            subject, verb = following[subject_at], following[subject_at + 1]
            if not (is_editable_word(subject) and is_editable_word(verb)):
                continue
            if verb.text.lower() not in BE_AFTER_PRONOUN.get(subject.text.lower(), ()):
                continue
            ending = following[subject_at + 2].text if len(following) > subject_at + 2 else ""
            if ending not in ("", "?"):
                break
            confidence = 0.85 if ending == "?" else 0.7
            span = (subject.start, verb.end)
            gap = doc.original[subject.end : verb.start]
            subject.text, verb.text = verb.text, subject.text
            corrected = subject.text + gap + verb.text
            records.append(CorrectionRecord(
                tier=tier, span=span, original=doc.original[span[0] : span[1]], corrected=corrected,
                correction_type="WordOrder", confidence=confidence,
                alternatives=[(corrected, confidence), (verb.text + gap + subject.text, round(1 - confidence, 3))]))
            break
    return records


def _question_filler(token: Token) -> bool:
    """The one word allowed between the question word and the subject: "time", "old", "much"."""
    lower = token.text.lower()
    return is_editable_word(token) and lower not in FUNCTION_WORDS and lower not in BE_AFTER_PRONOUN
