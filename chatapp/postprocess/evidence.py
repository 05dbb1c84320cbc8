"""Texts an answer may lean on, indexed for the questions the checks ask:
is this word, name, number or date in there, and which sentence says the
most about this claim?

Words are compared by Snowball stem; how much an unsupported word matters is
weighted by how rare it is in English (chatapp.lexicon's word frequencies), so
"actually" and "based" count for little and "Mumbai" for a lot.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from chatapp import lexicon
from chatapp.accents import strip_accents
from chatapp.nlp import ABBREVIATIONS, import_spacy
from chatapp.postprocess import values as V
from chatapp.postprocess.inflections import base_form
from chatapp.postprocess.layout import row_headers

WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# No sentence ends at an abbreviation written before a number ("Phone: ext. 214"). A line break ends
# one, except inside a paragraph before a line that goes on in lower case: a mail wrapped at 72
# characters ("…takes about four hours and the\nwarehouse must be empty…") is one sentence, while
# fields a line each ("Owner: …\nInstall date: …", front matter's "lead: …") stay apart.
# A line that ends on one of these words goes on in the next, even when that starts with a capital:
# "… quotes: Kerrow Motors £3,450 and\nBrightline Vans £3,980."; nor does a line that opens with a
# bracket ("… to £4,650 + VAT\n(from £4,200).").
_LINKS_AT_A_WRAP = ("and", "or", "the", "of", "to", "a", "an", "with", "for", "from", "by", "at", "on", "in",
                    "until", "till", "than", "into", "after", "before", "between", "per", "is", "are", "was",
                    "were", "be",
                    # … and their like in the German and French mails a folder holds: "ab dem\n11. Januar 2027".
                    "dem", "den", "der", "das", "ab", "am", "bis", "vom", "zum", "zur", "und", "mit", "für",
                    "le", "la", "les", "du", "des", "au", "aux", "et", "pour", "avec")
# A title before a name and a month or weekday cut short before a date end no sentence, as North American
# writing puts them: "Dr. Chidi Abara", "Fri. Nov. 27", "on Dec. 18, 2026", "Queen St. E."; nor does the
# German doctorate's subject after "Dr." ("Dr. rer. nat. Jürgen Weiß"): "Lead: Dr. Dana Kim" is one sentence.
_NAME_AND_DATE_ABBREVIATIONS = ("Dr.", "Mr.", "Mrs.", "Ms.", "Mx.", "Prof.", "St.", "rer. nat.", "med.", "phil.",
                                "habil.", "Jan.", "Feb.", "Mar.", "Apr.", "Jun.", "Jul.", "Aug.", "Sep.", "Sept.",
                                "Oct.", "Nov.", "Dec.", "Mon.", "Tue.", "Tues.", "Wed.", "Thu.", "Thur.", "Thurs.",
                                "Fri.", "Sat.", "Sun.", "Ing.", "Dipl.")
# A currency written short before its figure: "Kshs. 45,000/=", "Rs. 1,200" — and "Eng." before a name.
_AMOUNT_ABBREVIATIONS = ("Kshs.", "KShs.", "Ksh.", "KSh.", "Shs.", "Ushs.", "Tshs.", "Rs.", "Eng.", "Engr.")
# A firm's form cut short before "Ltd.": "Rentwise Leasing Pvt. Ltd." (India), "Pte. Ltd." (Singapore), "Pty. Ltd."
_FIRM_ABBREVIATIONS = ("Pvt.", "Pte.", "Pty.")
_MONTH_NAMES = (r"(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember|"
                r"January|February|March|May|June|July|October|December|Jan|Feb|Mär|Apr|Jun|Jul|Aug|Sep|Sept|Okt|"
                r"Oct|Nov|Dez|Dec)")
# Each branch opens on what it needs at the place (a stop just before, a line break) ahead of its
# lookbehinds for abbreviations: every place in a text is tried, and testing some eighty lookbehinds at
# each first had made splitting a page cost 40 times what it does (the same splits).
_SENTENCE_SPLIT_RE = re.compile(
    r"(?<=[.!?])"
    + "".join(rf"(?<!\b{re.escape(a)})" for a in ABBREVIATIONS + _NAME_AND_DATE_ABBREVIATIONS + _AMOUNT_ABBREVIATIONS
              + _FIRM_ABBREVIATIONS if a != "no.")
    # "Invoice no. 4411" is one sentence; "I said no. Then …" is two.
    # "ab dem 11. Januar 2027": a day written with a full stop before its month ends no sentence either.
    + r"(?!(?<=\bno\.)\s+\d)(?!(?<=\d\.)\s+" + _MONTH_NAMES + r"\b)\s+(?=[\"'(\[]?[A-Z0-9])"
    r"|\n\s*\n\s*|\n+(?=[-*•#|>])|(?=\n)" + "".join(rf"(?<!\b{w})" for w in _LINKS_AT_A_WRAP)
    + r"\n+(?=[^a-z(]|[a-z][\w /-]{0,40}:(?:\s|$))")
_WRAPPED = re.compile(r"[ \t]*\n[ \t]*")
_LAYOUT_RE = re.compile(r"\s*(?:\n[\s#*>|`-]*|[*_`|]+)\s*")
NAME_FILLERS = frozenset({"the", "of", "and", "a", "an", "mr", "mrs", "ms", "dr", "jr", "sr", "st", "de", "la", "von", "van"})


@functools.lru_cache(maxsize=1)
def _stemmer():
    import Stemmer  # PyStemmer: also what the keyword index uses

    return Stemmer.Stemmer("english")


# Short forms price lists and tables write for words an answer spells out: "£38,940 (incl. VAT)" is
# "including VAT".
SHORT_FORMS = {"incl": "including", "excl": "excluding", "approx": "approximately"}


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball stem, irregular forms first brought back to their base ("led" and "leads" → lead), and
    without accents: an answer's "cafe" is the documents' "café"."""
    word = strip_accents(word.lower().replace("’", "'"))
    if word.endswith("'s"):
        word = word[:-2]
    return _stemmer().stemWord(base_form(SHORT_FORMS.get(word, word)))


@functools.lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    import_spacy()
    from spacy.lang.en.stop_words import STOP_WORDS

    # "plus" joins as "and" does ("EUR 500 net plus expenses"): a source in another language says it
    # with a sign or its own word ("zzgl."), and its absence is no claim made up.
    return (frozenset(STOP_WORDS) | {"'s", "s", "yes", "no", "also", "actually", "really", "sure", "plus"}
            | _SPANISH_FUNCTION_WORDS)


# Spanish articles, prepositions and the commonest verb forms, as a bilingual team's answers and documents
# write them ("El Proyecto Azotea fue autorizado en la junta del 12 de octubre"): no content of a claim.
# Words English or its names use as words of their own ("son", "sin", "era", "al", "con", "hay", "Como",
# "Les", "Han", "Una") are left out.
_SPANISH_FUNCTION_WORDS = frozenset("""
el la los las del de un unos unas y o u que en es está están fue fueron ha por para
se su sus lo le este esta estos estas ese esa esos esas pero más muy ya ni cuando donde cual
""".split())


# Courtesy and taste: no source states "great" or "you're welcome", and no answer is
# wrong for saying them. Their absence from the sources is not evidence of anything.
SOFT_WORDS = frozenset("""
great good amazing awesome crazy wonderful favorite favourite fun funny interesting beautiful best better love
loved lovely nice cool excellent fantastic terrible bad worse worst boring exciting classic popular famous
brilliant incredible perfect pretty really definitely absolutely probably maybe perhaps actually certainly
sorry thanks thank welcome enjoy enjoyed glad happy hope help sure okay ok yes yeah oh wow hmm well indeed
problem recommend check let know yep yup nope hey hi hello haha lol anytime cheers goodbye bye pleasure
touching moving entertaining underrated overrated hilarious talented enjoyable solid sweet cute scary sad mediocre
interestingly surprisingly honestly frankly unfortunately fortunately basically personally luckily sadly
""".split())


def is_soft(word: str) -> bool:
    return word.lower() in SOFT_WORDS


@functools.lru_cache(maxsize=200_000)  # asked of every word of every claim, evidence text and turn
def is_stop(word: str) -> bool:
    return word.lower() in _stop_words()


# Endings that make a word of the same family once Snowball has stemmed it: "director" and "directs",
# "accompanist" and "accompaniment", "membership" and "members" tell of one thing.
_FAMILY_ENDINGS = ("ship", "ment", "ist", "or", "er", "ian", "ant", "ent")
# What is left must be this long: "later" is no "late", "water" no "wat".
_FAMILY_ROOT = 5


@functools.lru_cache(maxsize=200_000)
def families(word: str) -> frozenset[str]:
    """The stem of a word and the roots it shares with the other words of its family."""
    roots = set(own_roots(word))
    stemmed = stem(word)
    for ending in _FAMILY_ENDINGS:
        if stemmed.endswith(ending) and len(stemmed) - len(ending) >= _FAMILY_ROOT:
            roots.add(stemmed[:-len(ending)].rstrip("i"))
    return frozenset(roots)


@functools.lru_cache(maxsize=200_000)
def own_roots(word: str) -> frozenset[str]:
    """The stem of a word as it is, its ending kept ("accompanies" → accompan, "director" → director).
    A claim's word is looked up by these in the evidence's families: "directs" holds beside "director"
    (who directs is the director), but "historian" does not beside "history", nor "keyboardist" beside
    "keyboard" — a role the evidence names the field of, not the person."""
    stemmed = stem(word)
    if stemmed.endswith("i") and len(stemmed) > _FAMILY_ROOT:  # "accompani(es)", "accompani(ment)"
        return frozenset({stemmed, stemmed.rstrip("i")})
    return frozenset({stemmed})


@functools.lru_cache(maxsize=200_000)
def rarity(word: str) -> float:
    """How much a word carries: ~0.1 for everyday words, up to 1.5 for rare ones."""
    return min(1.5, max(0.1, (6.5 - lexicon.zipf(word)) / 2.5))


def is_typo(word: str) -> bool:
    """Not a word of English at all: a misspelling, not a claim."""
    return lexicon.is_unknown_word(word)


def words(text: str) -> list[str]:
    return WORD_RE.findall(text)


def split_sentences(text: str) -> list[str]:
    text = _unquote_runs(text)
    return [_WRAPPED.sub(" ", s.strip()) for s in _SENTENCE_SPLIT_RE.split(text) if s and s.strip()]


_QUOTE_MARKS = re.compile(r"[ \t]*(?:>[ \t]?)+")


def _unquote_runs(text: str) -> str:
    """A quoted mail wraps its lines as the original did, each behind its ">": the lines after the
    first of a quoted run lose their marks, so "…the change order is\n> $20,020.00." reads as one
    sentence, while the quote still starts apart from the text before it."""
    if "\n>" not in text and "\n >" not in text:
        return text
    lines = text.split("\n")
    out = [lines[0]]
    for before, line in zip(lines, lines[1:]):
        quoted = _QUOTE_MARKS.match(line)
        if quoted and quoted.group(0).strip() and before.lstrip().startswith(">"):
            line = line[quoted.end():]
        out.append(line)
    return "\n".join(out)


def text_index(texts) -> TextIndex:
    """A TextIndex of `texts`, shared with earlier calls over the same texts: a conversation's
    evidence, records and turns come back turn after turn, and indexing them is not free. (Its
    lazily filled parts depend on the texts alone, so sharing it is safe.)"""
    return _shared_index(tuple(texts))


@functools.lru_cache(maxsize=32)  # a turn reads four: supplied, records, given, earlier
def _shared_index(texts: tuple[str, ...]) -> TextIndex:
    return TextIndex(list(texts))


# A sentence whose subject is whoever the sentence before it named.
_OPENS_ON_A_PRONOUN = re.compile(r"\s*(?:[-*•]\s+)?(?:He|She|They)\b")


@dataclass
class TextIndex:
    """One bag of source texts (evidence, retrieved chunks, entity records…)."""

    texts: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # where each text came from

    def __post_init__(self) -> None:
        self.texts = [t for t in self.texts if t and t.strip()]
        joined = "\n".join(self.texts)
        self.lower = joined.lower()
        # The same text with markdown and layout between words flattened: an answer that quotes
        # "SEV-2\n\n## Postmortem" on one line still quotes it.
        self.flat = _LAYOUT_RE.sub(" ", self.lower)
        written = words(joined)
        tokens = [w.lower() for w in written]
        self.tokens = set(tokens)
        # The words in reading order without fillers, for names written a little differently
        # ("Snoop Dog" for "Snoop Dogg", "Healing the World" for "Heal the World").
        self.name_sequence = [t for t in tokens if t not in NAME_FILLERS]
        self._name_starts: dict[str, list[int]] | None = None
        self.stems = {stem(t) for t in tokens}
        # Stems of words written in lower case: "Cooke" (a name) must not vouch for "cooking".
        lowercase = {w for w in written if w.islower()}
        self.common_stems = {stem(w) for w in lowercase}
        self.common_families = {root for w in lowercase for root in families(w)}
        self.sentences: list[tuple[str, set[str], int]] = []
        for index, text in enumerate(self.texts):
            headers = row_headers(text) if "|" in text else {}
            for sentence in split_sentences(text):
                stems = {stem(w) for w in words(sentence) if not is_stop(w)}
                header = headers.get(sentence.strip("| \t"))
                if header:  # a table row says what its columns are called: "| 4 | 150 kW each |" is a rating
                    stems |= {stem(w) for w in words(header) if not is_stop(w)}
                self.sentences.append((sentence, stems, index))
        self._values: list[V.FoundValue] | None = None
        # Abbreviations it writes ("DDI", "PO"): an answer may spell them out ("direct dial").
        self.abbreviations = {w.lower() for w in written if 2 <= len(w) <= 5 and w.isupper() and w.isalpha()}
        self.acronyms = {
            "".join(w[0] for w in run.split()).lower()
            for run in re.findall(r"(?:[A-Z][\w.'-]*\s+){1,4}[A-Z][\w.'-]*", "\n".join(self.texts))
        }

    @property
    def empty(self) -> bool:
        return not self.texts

    @property
    def found_values(self) -> list[V.FoundValue]:
        # Parsed lazily: most answers have no numbers to look for.
        if self._values is None:
            # Filled whole before it is set: a turn's chunk index is filled in a worker (Postprocessor.prepare).
            values = [v for text in self.texts for v in _values_in(text)]
            numbers = {v.parsed for v in values if v.vtype in ("number", "amount")}
            numbers |= {v.parsed[0] for v in values if v.vtype == "quantity"}
            numbers |= {float(v.parsed.year) for v in values if v.vtype in ("year", "date") and v.parsed.year}
            numbers |= {n for text in self.texts for n in V.parse_number_words(text)}
            numbers |= {n for text in self.texts for n in _loose_figures(text)}
            self._numbers = numbers
            self._values = values
        return self._values

    def has_word(self, word: str) -> bool:
        low = word.lower()
        if low in self.tokens:
            return True
        if stem(low) in (self.common_stems if word.islower() else self.stems):
            return True
        # Another word of its family ("directs" for "director"): the same thing said with another ending.
        return word.islower() and not own_roots(low).isdisjoint(self.common_families)

    def abbreviates(self, initials: str) -> bool:
        """Whether it writes an abbreviation of words with these initials: "dd" (direct dial) in "DDI",
        "po" (purchase order) in "PO"; one letter more at the end is the abbreviation's own ("In")."""
        return initials in self.abbreviations or any(
            len(a) == len(initials) + 1 and a.startswith(initials) for a in self.abbreviations)

    def has_phrase(self, phrase: str) -> bool:
        phrase = re.sub(r"\s+", " ", phrase.lower().strip())
        if not phrase:
            return False
        return _whole_words_in(phrase, self.lower) or _whole_words_in(phrase, self.flat)

    def supports_value(self, value: V.FoundValue) -> str | None:
        """The source sentence that states this value, if any."""
        if value.vtype in ("email", "url"):
            # A whole address, not one inside another: "c.pellow@…" is not "cadoc.pellow@…".
            for found in self.found_values:
                if found.vtype == value.vtype and (found.parsed == value.parsed or (
                        value.vtype == "url" and found.parsed.startswith(value.parsed + "/"))):
                    return self._sentence_with(found.text.lower())
            return None
        if value.vtype == "code":
            for found in self.found_values:
                if found.vtype == "code" and found.parsed == value.parsed:
                    return self._sentence_with(found.text.lower())
            return None
        if value.vtype == "phone":
            for found in self.found_values:
                if found.vtype == "phone" and V.same_value("phone", value.parsed, found.parsed):
                    return self._sentence_with(found.text.lower())
            return None
        if value.vtype in ("date", "weekday", "year"):
            # A weekday is stated by the same weekday ("closed Wednesday") as well as by a full date.
            kinds = ("date", "year", "weekday") if value.vtype == "weekday" else ("date", "year")
            for found in self.found_values:
                if found.vtype in kinds and date_covers(value.parsed, found.parsed):
                    return self._sentence_with(found.text.lower())
            if _YEARLESS_FIGURES.fullmatch(value.text):
                # "Priya to visit 11/24", "| SCAR to the supplier | 11/24 |": the sources write the day in
                # the same figures where no word around them makes them a date to the reader of values.
                for sentence, _, _ in self.sentences:
                    if re.search(rf"(?<![\w/.,-]){re.escape(value.text)}(?![\w/]|[.,-]\d)", sentence):
                        return sentence
            return None
        if value.vtype == "decade":
            for found in self.found_values:
                year = getattr(found.parsed, "year", None) if found.vtype in ("date", "year") else (
                    found.parsed if found.vtype == "decade" else None)
                if year is not None and value.parsed <= year <= value.parsed + 9:
                    return self._sentence_with(found.text.lower())
            return None
        if value.vtype == "time":
            for found in self.found_values:
                if found.vtype == "time" and found.parsed == value.parsed:
                    return self._sentence_with(found.text.lower())
            return None
        if value.vtype in ("amount", "number", "quantity"):
            number = value.parsed[0] if value.vtype == "quantity" else value.parsed
            self.found_values  # noqa: B018 - fills _numbers
            # An amount or a measure within rounding; a whole number not ending in 0 exactly (same_value).
            kind = "number" if value.vtype == "number" else "amount"
            if any(V.same_value(kind, number, n) for n in self._numbers):
                return self._sentence_with(_number_text(number)) or "(number stated in the sources)"
            return None
        return None

    def supports_name(self, name: str) -> bool:
        name = re.sub(r"['’]s$", "", name.strip())
        if self.has_phrase(name):
            return True
        tokens = [w.lower() for w in words(name) if w.lower() not in NAME_FILLERS]
        if len(tokens) == 1 and (tokens[0] in self.tokens or stem(tokens[0]) in self.stems):
            return True
        # A name whose words all occur in the sources but never together ("Jim Carrey" from
        # "Jim Broadbent" and "Carrey Lake") needs at least its last two words side by side
        # there ("Robert Downey" in "Robert Downey Jr.").
        if len(tokens) > 1 and all(t in self.tokens or stem(t) in self.stems for t in tokens):
            return self.has_phrase(" ".join(tokens[-2:]))
        compact = re.sub(r"[.\s]", "", name)
        if compact.isupper() and 2 <= len(compact) <= 5 and compact.lower() in self.acronyms:
            return True
        return self.supports_name_loosely(tokens)

    def names_loosely(self, name: str) -> bool:
        """The name written more or less fully, or as an acronym, in one sentence of the sources:
        "Elvis Presley" in "Elvis Aaron Presley (1935–1977) was …", "FDA" for "Food and Drug
        Administration", "US" for "united states". (supports_name wants the words side by side.)"""
        letters = re.sub(r"[.\s]", "", name)
        # In text written all in lower case an acronym is too ("the us", "the nfl"): short ones only.
        if (letters.isupper() and 2 <= len(letters) <= 5) or (letters.isalpha() and letters.islower()
                                                               and 2 <= len(letters) <= 3):
            return letters.lower() in self._initials
        stems = {stem(w) for w in words(name) if w.lower() not in NAME_FILLERS}
        return len(stems) > 1 and any(stems <= sentence_stems for _, sentence_stems, _ in self.sentences)

    @functools.cached_property
    def _initials(self) -> set[str]:
        """The first letters of every run of two to five words, in any case."""
        initials = set()
        for text in self.texts:
            sequence = [w.lower() for w in words(text) if w.lower() not in NAME_FILLERS]
            for size in range(2, 6):
                initials |= {"".join(w[0] for w in sequence[i:i + size]) for i in range(len(sequence) - size + 1)}
        return initials

    def supports_name_loosely(self, tokens: list[str]) -> bool:
        """The name's words, in order and side by side, each the same word or a near spelling of
        one in the sources: a misspelt or inflected name is the same name ("Snoop Dog", "Snoop
        Dogg"), but a different word is a different name ("Chicago Bulls", "Chicago Bears")."""
        if not tokens or not self.name_sequence:
            return False
        size = len(tokens)
        sequence = self.name_sequence
        for start in self._possible_starts(tokens[0]):
            if start + size <= len(sequence) and all(_near_word(t, sequence[start + i]) for i, t in enumerate(tokens)):
                return True
        return False

    def _possible_starts(self, word: str) -> list[int]:
        """The places in name_sequence where a word near `word` (_near_word) may stand, in order: those
        of a word with its first letter (a near spelling keeps it) or its stem. A name is looked for turn
        after turn and claim after claim, and most of a text's words are none of these."""
        if self._name_starts is None:
            starts: dict[str, list[int]] = {}
            for i, known in enumerate(self.name_sequence):
                starts.setdefault(known[0], []).append(i)
                starts.setdefault("stem:" + stem(known), []).append(i)
            self._name_starts = starts
        by_letter = self._name_starts.get(word[0], [])
        by_stem = self._name_starts.get("stem:" + stem(word), [])
        return sorted({*by_letter, *by_stem}) if by_stem else by_letter

    def best_sentence(self, stems: set[str], also_held=None) -> tuple[str, float]:
        """The source sentence sharing the most of `stems`, and the share; `also_held(sentence)`: stems a
        sentence holds besides its words' (a name it writes by its initials)."""
        if not stems or not self.sentences:
            return "", 0.0
        best, best_overlap = "", 0.0
        for sentence, sentence_stems, _ in self.sentences:
            held = sentence_stems | also_held(sentence) if also_held else sentence_stems
            overlap = len(stems & held) / len(stems)
            if overlap > best_overlap:
                best, best_overlap = sentence, overlap
        return best, best_overlap

    def best_sentence_after_its_person(self, stems: set[str], own: int = 2) -> tuple[str, float]:
        """Like best_sentence, for sentences that open on a pronoun ("He has accepted and starts on Monday
        11 January 2027."), counted with the sentence before them in the same text, which names who "he"
        is; a sentence must share `own` of `stems` by itself."""
        best, best_overlap = "", 0.0
        for i, (sentence, sentence_stems, text) in enumerate(self.sentences):
            if i == 0 or self.sentences[i - 1][2] != text or not _OPENS_ON_A_PRONOUN.match(sentence):
                continue
            if len(stems & sentence_stems) < own:
                continue
            overlap = len(stems & (sentence_stems | self.sentences[i - 1][1])) / len(stems)
            if overlap > best_overlap:
                best, best_overlap = sentence, overlap
        return best, best_overlap

    def best_sentences(self, stems: set[str], limit: int = 2) -> list[str]:
        """Up to `limit` source sentences that share the most of `stems`."""
        if not stems:
            return []
        scored = sorted(((len(stems & ss), i) for i, (_, ss, _) in enumerate(self.sentences)), reverse=True)
        return [self.sentences[i][0] for score, i in scored[:limit] if score > 0]

    def passages(self, before: int = 2, after: int = 1):
        """Each source sentence with the stems of the sentences around it in the same text (a list
        item and the line that introduces it; the rest of a line cut at "excl."):
        (sentence, stems of the passage, stems of its whole text). The text's first sentence (a retrieved
        chunk's title, a mail's subject) belongs to every passage of it: it says what they are all about."""
        opening: dict[int, set[str]] = {}
        whole: dict[int, set[str]] = {}
        for _, stems, text_index in self.sentences:
            opening.setdefault(text_index, stems)
            whole.setdefault(text_index, set()).update(stems)
        for i, (sentence, stems, text_index) in enumerate(self.sentences):
            passage = set(stems) | opening[text_index]
            for j in range(max(0, i - before), min(len(self.sentences), i + after + 1)):
                if self.sentences[j][2] == text_index:
                    passage |= self.sentences[j][1]
            yield sentence, passage, whole[text_index]

    def _sentence_with(self, needle: str) -> str | None:
        for sentence, _, _ in self.sentences:
            if needle in sentence.lower():
                return sentence
        return None


# A day and month in figures without a year: "11/24", "3/1".
_YEARLESS_FIGURES = re.compile(r"\d{1,2}/\d{1,2}")


def _whole_words_in(phrase: str, text: str) -> bool:
    """`phrase` in `text` with no word character either side (as the pattern (?<!\\w)phrase(?!\\w) finds
    it), without compiling a pattern for each: a conversation's names are many more than the 512
    patterns Python keeps."""
    start = text.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        if not (start > 0 and _is_word_char(text[start - 1])) and not (end < len(text) and _is_word_char(text[end])):
            return True
        start = text.find(phrase, start + 1)
    return False


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what \w is in a str pattern


@functools.lru_cache(maxsize=200_000)
def _near_word(said: str, known: str) -> bool:
    if said == known or stem(said) == stem(known):
        return True
    if min(len(said), len(known)) < 3 or said.isdigit() or known.isdigit():
        return False
    from rapidfuzz.distance import OSA

    # One slip of the keyboard (a swapped pair counts as one: "Tamsay", "Tamasy"); two in a long word.
    allowed = 1 if max(len(said), len(known)) < 8 else 2
    return said[0] == known[0] and OSA.distance(said, known) <= allowed


# Values whose figures are theirs alone: the 20 of "2023-05-20" or the 555 of a phone number states no amount.
_WHOLE_VALUES = frozenset({"date", "phone", "email", "url", "code", "time", "year"})


def _loose_figures(text: str) -> set[float]:
    """The short whole numbers a text writes outside its dates, phones, addresses and references."""
    taken = [_without_extension(v) for v in _values_in(text) if v.vtype in _WHOLE_VALUES]
    return {float(m.group()) for m in WORD_RE.finditer(text)
            if m.group().isdigit() and len(m.group()) <= 4 and not any(a <= m.start() < b for a, b in taken)
            and not _piece_of_a_figure(text, m.start(), m.end())}


def _piece_of_a_figure(text: str, start: int, end: int) -> bool:
    """Whether digits are one group of a longer figure: the 46 or the 200 of "£46,200", the 53 of "53.8%"
    state no number of their own."""
    return bool(re.match(r"[,.]\d", text[end:end + 2]) or re.search(r"\d[,.]$", text[max(0, start - 2):start]))


_EXTENSION = re.compile(r"(?:ext\.?|extension|x)\s*\d+\s*$", re.IGNORECASE)


def _without_extension(value: V.FoundValue) -> tuple[int, int]:
    """A value's span, a phone's extension ("ext. 214") left out: that is a number of its own."""
    if value.vtype == "phone" and (extension := _EXTENSION.search(value.text)):
        return value.span[0], value.span[0] + extension.start()
    return value.span


@functools.lru_cache(maxsize=4096)
def _values_in(text: str) -> tuple[V.FoundValue, ...]:
    # Entity records and retrieved chunks come back turn after turn: parse each once.
    return (*V.find_values(text), *V.days_in_runs(text))  # "Mon, Wed, Fri": each day stated


def date_covers(claimed: V.DateValue, known: V.DateValue) -> bool:
    """Does the known date state every field the claimed one states, equally? A date written "9/12/2026"
    is read both ways (9 December, September 12)."""
    return any(_covers(c, k) for c in _readings(claimed) for k in _readings(known))


def _readings(value: V.DateValue) -> list[V.DateValue]:
    return [value, V.day_first_reading(value)] if value.either_way else [value]


def _covers(claimed: V.DateValue, known: V.DateValue) -> bool:
    if not known.valid:
        return False
    for name in ("year", "month", "day"):
        want = getattr(claimed, name)
        if want is not None and getattr(known, name) != want:
            return False
    if claimed.weekday is not None:
        full = known.as_date()
        return (full is not None and full.weekday() == claimed.weekday) or known.weekday == claimed.weekday
    return True


def _number_text(number: float) -> str:
    return f"{number:,.0f}" if number == int(number) and number >= 10000 else f"{number:g}"


def merge(*indexes: TextIndex) -> TextIndex:
    texts, labels = [], []
    for index in indexes:
        texts.extend(index.texts)
        labels.extend(index.labels or [""] * len(index.texts))
    return TextIndex(texts, labels)
