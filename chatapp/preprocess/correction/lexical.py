"""Tier 1 of input correction: misspellings, chat-speak and case slips.

A noisy-channel corrector. For a word the dictionary does not know, the
candidates are the dictionary and knowledge-base words within Damerau (OSA)
distance 2 (as in SymSpell, the two-edit search is cut short when a word one
edit away turns up), plus words that sound alike (same Metaphone key) one
edit further away. Each candidate c is scored

    log P(c) + PMI(left, c) + PMI(c, right) - cost(typed | c)

where P(c) comes from word counts, the PMI terms from bigram counts (so
"hlep me" becomes "help me", not "held me"), and cost() is the error model
of error_model.py, which makes the slips people actually make cheap.

The confidence of a correction is its share of the probability mass, where
leaving the word alone competes as one more option (stronger for a
capitalised word mid-sentence, which is probably a name). The caller reverts
corrections whose confidence is below its level's threshold.

`correct()` never changes a word the dictionary, the web word list or the
knowledge base knows (apart from chat-speak and case slips); `suggest()` also
weighs a known word against its near neighbours ("two many" -> "too"), for
the TUI's alternatives and the spelling benchmark.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable

import numpy as np
from rapidfuzz.distance import OSA
from rapidfuzz.process import cdist

from chatapp.preprocess.correction import abbreviations
from chatapp.preprocess.correction.dictionary import Lexicon, SmallIndex, load_lexicon, phonetic_key
from chatapp.preprocess.correction.error_model import ErrorModel, Weights
from chatapp.preprocess.correction.technology_names import castable, technology_index, technology_name
from chatapp.preprocess.correction.text_helpers import FUNCTION_WORDS
from chatapp.preprocess.correction.tokens import CASE_CODES, Token, TokenizedInput
from chatapp.lexicon import is_first_name
from chatapp.records import CorrectionRecord

TIER = "lexical"
CONTRACTION_SUFFIXES = frozenset({"s", "t", "re", "ve", "ll", "d", "m"})
NEGATED = frozenset("don doesn didn isn aren wasn weren haven hasn hadn couldn wouldn shouldn mightn mustn needn "
                    "can won shan ain daren oughtn".split())  # what comes before "'t"
_PLAIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")
_VOCABULARY_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
SENTENCE_ENDS = frozenset(".!?…")
# A technology name typed without its capitals ("graphql") is as sure a fix as a shift slip.
TECHNOLOGY_CASE_CONFIDENCE = 0.9
PLURAL_MIN_STEM = 5  # shorter stems plus "s" are too often typos ("thes", "ands")
# A known word this rare (Zipf scale: 3 is once per million words) may be a slip for a far commoner word one
# edit away that its neighbours expect: "his mobil number" is "mobile". Applied only when the context is
# that sure of the other word, and the other word is this much commoner.
RARE_KNOWN_ZIPF = 4.0
REAL_WORD_SURE = 0.8
# With one neighbour only (the word ends the message: "when is the studio meting"), the context spreads its
# belief over more words, so a slip is taken at a lower share: still the clear favourite.
REAL_WORD_SURE_ONE_SIDE = 0.7
REAL_WORD_COMMONER_ZIPF = 1.0


@dataclass(frozen=True)
class Decision:
    corrected: str
    correction_type: str
    confidence: float
    alternatives: tuple[tuple[str, float], ...] = ()


_UNDECIDED = object()
DECISION_CACHE_SIZE = 20_000  # words in context; the live path re-corrects the same words on every keystroke


@dataclass
class Candidate:
    word: str
    score: float
    correction_type: str
    known_name: bool = False  # from the knowledge base's vocabulary


def apply_case(typed: str, replacement: str) -> str:
    """Give `replacement` the case pattern of `typed` ("Hlep" -> "Help", "HLEP" -> "HELP")."""
    letters = [c for c in typed if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return replacement.upper()
    if letters and letters[0].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def _case_slip(text: str) -> str | None:
    """The intended case of a shift or caps-lock slip ("THe", "HEllo", "hELLO"), or None."""
    if len(text) < 3 or not text.isalpha():
        return None
    if text[:2].isupper() and text[2:].islower() and text[2:] != "s":
        return text[0] + text[1:].lower()
    if text[0].islower() and text[1:].isupper():
        return text.lower()
    return None


class LexicalCorrector:
    """Tier 1. `extra_vocabulary`: the knowledge base's words (names, aliases, terms),
    never corrected away and offered as candidates ("Smtih" -> "Smith").

    Decisions are remembered per word in context, so re-correcting a line as it is
    typed costs only its new words. Safe to share; the lexicon loads on first use.
    """

    def __init__(self, extra_vocabulary: Iterable[str] = (), weights: Weights | None = None):
        self.weights = weights or Weights()
        self.errors = ErrorModel(self.weights)
        self._extra = SmallIndex()
        self._extra_forms: dict[str, str] = {}  # lower-case -> as the knowledge base writes it
        self._names_without_apostrophe: dict[str, str] = {}  # "osullivan" -> "O'Sullivan"
        self._extra_exact: set[str] = set()  # exactly as written ("iPhone" is no case slip)
        self._document_words: set[str] = set()  # the documents' words: known, not offered as candidates
        self._lexicon: Lexicon | None = None
        self._decisions: dict[tuple, Decision | None] = {}
        self.add_vocabulary(extra_vocabulary)

    @property
    def lexicon(self) -> Lexicon:
        if self._lexicon is None:
            self._lexicon = load_lexicon()
        return self._lexicon

    def add_vocabulary(self, words: Iterable[str]) -> None:
        """Knowledge-base words: never corrected away, and offered as candidates."""
        self._decisions.clear()
        for item in words:
            if not item or "@" in item or "://" in item:
                continue  # addresses and links are protected tokens, not words
            for word in _VOCABULARY_WORD.findall(item):
                word = word.replace("’", "'")
                lower = word.lower()
                if len(lower) < 2:
                    continue
                # Keep a capitalised spelling over a lower-case one: names are what matter here.
                if lower not in self._extra_forms or word[:1].isupper():
                    self._extra_forms[lower] = word
                self._extra.add(lower)
                self._extra_exact.add(word)
                if "'" in lower[1:-1] and word[:1].isupper():
                    self._names_without_apostrophe[lower.replace("'", "")] = word

    def add_document_words(self, words: Iterable[str]) -> None:
        """Lower-case words the ingested documents use: never corrected away ("zenlith" is a firm of
        theirs, not "zenith"), though not offered for a misspelling (a folder holds too many for the
        candidate index, and its own slips among them)."""
        self._decisions.clear()
        self._document_words.update(words)

    def vocabulary_form(self, lower: str) -> str | None:
        """A lower-case word as the knowledge base writes it ("atlas" -> "Atlas"), or None."""
        return self._extra_forms.get(lower)

    def acronym_form(self, lower: str) -> str | None:
        """A lower-case word the knowledge base writes only in capitals ("ifc" -> "IFC", "bim" -> "BIM"),
        never in lower case or with one capital; else None."""
        form = self._extra_forms.get(lower)
        if not form or not form.isalpha() or not form.isupper() or not 2 <= len(form) <= 6:
            return None
        return None if lower in self._extra_exact or form.capitalize() in self._extra_exact else form

    def forget_recent(self) -> None:
        """Drop remembered decisions and look-ups, e.g. before a benchmark measures a fresh set."""
        self._decisions.clear()
        self.lexicon.forget_recent()

    # --- knowing a word ----------------------------------------------------------------

    def is_known(self, lower: str) -> bool:
        """Whether a lower-case word is one to leave alone (dictionary, web list, knowledge base, chat)."""
        if (self.lexicon.is_word(lower) or lower in self._extra_forms or lower in abbreviations.CHAT_WORDS
                or lower in self._document_words):
            return True
        if technology_name(lower) is not None:
            return True  # "graphql": a name to case, not a word to respell
        if lower.endswith("s") and lower[:-1] in self._extra_forms:
            return True  # "Okafors": a possessive without its apostrophe is tier 3's to fix
        if len(lower) > PLURAL_MIN_STEM and lower.endswith("s") and not lower.endswith("ss") and self.lexicon.is_word(lower[:-1]):
            return True  # "checksums", "actuals": plurals and verb forms the lists lack
        stem, _, suffix = lower.partition("'")
        if suffix == "t":
            return stem in NEGATED  # "isn't", not "dosen't"
        if suffix in CONTRACTION_SUFFIXES:
            # "Sarah's", "they'll", "GitHub's", and the possessive of any common first name ("Dana's").
            return (self.lexicon.is_word(stem) or stem in self._extra_forms or technology_name(stem) is not None
                    or (suffix == "s" and is_first_name(stem)))
        return False

    # --- ranking -----------------------------------------------------------------------

    def _context_scores(self, ids: np.ndarray, left: str | None, right: str | None) -> np.ndarray:
        return self.lexicon.context_pmi(ids, left, right, self.weights.backoff)

    def _candidates(self, word: str, left: str | None, right: str | None, include_self: bool) -> list[Candidate]:
        """Scored candidates for a lower-case word, best first."""
        w, lex = self.weights, self.lexicon
        if include_self and word in lex and (left or right):
            # A known word its neighbours expect is no slip: skip the search.
            fit = self._context_scores(np.array([lex.word_id[word]]), left, right)[0]
            if fit >= w.real_word_fit:
                return [Candidate(word, float(w.unigram * lex.log_probabilities[lex.word_id[word]] + w.real_word_context * fit), "Spelling")]
        ids, distances = lex.near(word, w.real_word_distance if include_self else 2, w.closest_first)
        sound = phonetic_key(word)
        # Real-word slips ("two many") are near misses; sound-alikes further away are for non-words.
        near_miss = w.phonetic_when_near or not (len(distances) and distances.min() == 1)
        if w.phonetic_distance > 2 and sound and not include_self and near_miss:
            seen = set(ids.tolist())
            alike = [i for i in lex.sounding_like(word, sound) if i not in seen]
            if alike:
                far = cdist([word], [lex.words[i] for i in alike], scorer=OSA.distance, score_cutoff=w.phonetic_distance)[0]
                keep = far <= w.phonetic_distance
                ids = np.concatenate([ids, np.array(alike, dtype=np.int64)[keep]])
                distances = np.concatenate([distances, far[keep]])
        scored: dict[str, Candidate] = {}
        slip = w.real_word_error if include_self else 0.0
        context_weight = w.real_word_context if include_self else w.context
        self_id = lex.word_id.get(word) if include_self else None
        if self_id is not None:  # scored with the others in one pass, as the last entry
            ids, distances = np.append(ids, self_id), np.append(distances, 0)
        if len(ids):
            base = w.unigram * lex.log_probabilities[ids]
            if left or right:
                base += context_weight * self._context_scores(ids, left, right)
            if self_id is not None:
                scored[word] = Candidate(word, float(base[-1]), "Spelling")
                ids, distances, base = ids[:-1], distances[:-1], base[:-1]
        if len(ids):
            # A rough cost per edit picks the shortlist that gets the full error model;
            # candidates far behind the leader on it never win.
            rough = base - w.rough_edit * distances
            order = np.argsort(-rough)[: w.shortlist if not include_self else w.shortlist // 2]
            order = order[rough[order] >= rough[order[0]] - w.rough_margin]
            for word_id, score, distance in zip(ids[order].tolist(), base[order].tolist(), distances[order].tolist()):
                candidate = lex.words[word_id]
                if self._offerable(candidate, word_id):
                    cost, kind = self.errors.channel(word, candidate, sound, lex.sound_of(word_id), distance)
                    scored[candidate] = Candidate(candidate, score - cost + slip, kind)
        extra = ({c for c, _ in self._extra.near(word)} | self._extra.sounding_like(word)) if self._extra.words else set()
        extra |= {c for c, _ in technology_index().near(word)}  # "kubernets" -> "Kubernetes"
        for lower in extra - {word}:
            cost, kind = self.errors.channel(word, lower, sound, phonetic_key(lower), OSA.distance(word, lower))
            count = max(lex.count(lower), w.kb_count)
            context = self._context_scores(np.array([lex.word_id[lower]]), left, right)[0] if lower in lex else 0.0
            score = w.unigram * math.log(count / lex.total) + context_weight * context - cost + slip
            if lower not in scored or scored[lower].score < score:
                written = self._extra_forms.get(lower) or technology_name(lower) or lower
                scored[lower] = Candidate(written, float(score), kind, known_name=True)
        if include_self and self_id is None:  # known from the web list, the knowledge base or chat
            scored[word] = Candidate(word, self._unchanged_score(word), "Spelling")
        return sorted(scored.values(), key=lambda c: -c.score)

    def _offerable(self, candidate: str, word_id: int) -> bool:
        """Not chat-speak (it would be corrected again) nor a web word that is itself a misspelling."""
        if word_id < self.lexicon.core_size:
            return word_id not in self.lexicon.chat_speak_ids
        return abbreviations.lookup(candidate) is None and self.lexicon.is_word(candidate)

    def _unchanged_score(self, word: str) -> float:
        """The score of a known word the lexicon has no bigrams for, meaning just what it says."""
        w, lex = self.weights, self.lexicon
        zipf = lex.web_zipf.get(word)
        count = 10 ** (zipf - 9) * lex.total if zipf is not None else w.kb_count
        return w.unigram * math.log(count / lex.total)

    def _probabilities(self, scores: list[float]) -> list[float]:
        top = max(scores)
        weights = [math.exp((s - top) / self.weights.temperature) for s in scores]
        total = sum(weights)
        return [x / total for x in weights]

    def suggest(self, word: str, left: str | None = None, right: str | None = None, k: int = 5) -> list[tuple[str, float]]:
        """Ranked candidates for one word in context, with probabilities; the word itself competes if it is known."""
        lower = word.replace("’", "'").lower()
        expansion = abbreviations.lookup(lower)
        if expansion and lower not in self._extra_forms:
            form, confidence = self._choose_expansion(expansion, left and left.lower(), right and right.lower(), len(lower) == 1)
            others = [(f, (1 - confidence) / (len(expansion.forms) - 1)) for f in expansion.forms if f != form]
            return [(apply_case(word, f), round(c, 3)) for f, c in [(form, confidence)] + others][:k]
        context_left = left.lower() if left else None
        context_right = right.lower() if right else None
        candidates = self._candidates(lower, context_left, context_right, include_self=self.is_known(lower))
        if not candidates:
            return []
        probabilities = self._probabilities([c.score for c in candidates])
        return [(apply_case(word, c.word), round(p, 4)) for c, p in zip(candidates[:k], probabilities)]

    # --- correcting a tokenised input ------------------------------------------------

    def correct(self, doc: TokenizedInput) -> list[CorrectionRecord]:
        records: list[CorrectionRecord] = []
        for index, token in enumerate(doc.tokens):
            if token.kind != "word" or token.protected:
                continue
            key = (token.text, self._neighbour(doc, index, -1), self._neighbour(doc, index, +1),
                   self._starts_sentence(doc, index), _glued(doc.original, token))
            decision = self._decisions.get(key, _UNDECIDED)
            if decision is _UNDECIDED:
                if len(self._decisions) >= DECISION_CACHE_SIZE:
                    self._decisions.clear()
                decision = self._decisions[key] = self._decide(*key)
            if decision is None or decision.corrected == token.text:
                continue
            records.append(CorrectionRecord(
                tier=TIER, span=(token.start, token.end), original=token.original, corrected=decision.corrected,
                correction_type=decision.correction_type, confidence=decision.confidence,
                alternatives=list(decision.alternatives), applied=True))
            token.text = decision.corrected
        return records

    @staticmethod
    def _starts_sentence(doc: TokenizedInput, index: int) -> bool:
        if index == 0:
            return True
        before = doc.tokens[index - 1]
        gap = doc.original[before.end : doc.tokens[index].start]
        return "\n" in gap or before.text[-1:] in SENTENCE_ENDS

    def _neighbour(self, doc: TokenizedInput, index: int, step: int) -> str | None:
        """The next word left or right (as corrected so far), if nothing but spaces lies between."""
        other = index + step
        if not 0 <= other < len(doc.tokens) or doc.tokens[other].kind not in ("word", "acronym"):
            return None
        start, end = sorted((doc.tokens[index].start, doc.tokens[other].start))
        if "\n" in doc.original[start:end]:
            return None
        words = doc.tokens[other].text.replace("’", "'").lower().split()
        if not words:
            return None
        word = words[-1] if step < 0 else words[0]
        expansion = abbreviations.lookup(word) if step > 0 else None
        if expansion is not None:  # not expanded yet: judge "thx u" as "thx you"
            word = abbreviations.context_words(expansion.forms[0])[0]
        return word if word in self.lexicon else None

    def _decide(self, typed: str, left: str | None, right: str | None, sentence_start: bool,
                glued: bool = False) -> Decision | None:
        """What tier 1 does with one word in its context, or None to leave it.

        `glued`: the word touches a ".", "&", "-" or "/" ("U.S.", "R&D"), so a single
        letter there is an initial, not chat-speak; so is a capital one mid-sentence ("R").
        """
        lower = typed.replace("’", "'").lower()
        if CASE_CODES.fullmatch(lower):
            return Decision(typed.upper(), "CaseNormalization", 0.92) if typed != typed.upper() else None
        name = technology_name(lower)
        written_by_kb = self._extra_forms.get(lower)
        if name is not None and (written_by_kb is None or written_by_kb.islower() or written_by_kb == name):
            # Cased, never respelt; a knowledge base that writes it its own way ("Github") wins.
            return Decision(name, "CaseNormalization", TECHNOLOGY_CASE_CONFIDENCE) if castable(typed, name) else None
        expansion = abbreviations.lookup(lower)
        if (expansion is None and not _PLAIN_WORD.fullmatch(lower)) or lower in self._extra_forms:
            return None  # other scripts have no dictionary here; knowledge-base words stay
        if expansion is not None and len(lower) == 1 and (glued or (typed.isupper() and not sentence_start)):
            return None
        if expansion is not None:
            form, confidence = self._choose_expansion(expansion, left, right, len(lower) == 1)
            others = tuple((apply_case(typed, f), round((1 - confidence) / (len(expansion.forms) - 1), 3))
                           for f in expansion.forms if f != form)
            return Decision(apply_case(typed, form), expansion.correction_type, confidence, others)
        if lower.endswith("s") and (name := self._names_without_apostrophe.get(lower[:-1])):
            return Decision(f"{name}'s", "Spelling", 0.85)  # "osullivans email": O'Sullivan's, typed bare
        if self.is_known(lower):
            fixed = _case_slip(typed)
            if fixed and typed not in self._extra_exact:
                return Decision(fixed, "CaseNormalization", 0.9)
            return self._rare_word_slip(typed, lower, left, right)
        if len(lower) < 2 or any(c.isupper() for c in typed[1:]):
            return None  # capitals inside a word are deliberate: "SLOs", "iOS", "McKenna"
        stem, apostrophe, suffix = lower.partition("'")
        if apostrophe and suffix not in CONTRACTION_SUFFIXES:
            return None
        # A possessive keeps its "'s" and gets its stem corrected ("Smtih's"); other
        # contractions are dictionary words themselves ("dosen't" -> "doesn't").
        target = stem if suffix == "s" else lower
        candidates = self._candidates(target, left, right if target == lower else None, include_self=False)
        if not candidates:
            return None
        w = self.weights
        # A capitalised word mid-sentence is probably a name, unless it is near a name the knowledge base knows.
        looks_like_name = typed[:1].isupper() and not sentence_start and not candidates[0].known_name
        keep = w.keep_score + (w.name_bonus if looks_like_name else 0.0)
        probabilities = self._probabilities([keep] + [c.score for c in candidates[:5]])
        ending = typed[len(stem) :] if target != lower else ""
        best = candidates[0]
        if technology_name(best.word.lower()) is not None:  # "javascrpit" -> "JavaScript"
            corrected = technology_name(best.word.lower())
        elif best.word.islower() or best.word.lower() in self.lexicon:
            corrected = apply_case(typed, best.word.lower())
        else:  # a name only the knowledge base knows keeps its capitals
            corrected = best.word if typed.islower() else apply_case(typed, best.word)
            if (not ending and lower.endswith("s") and not corrected.lower().endswith("s")
                    and right and right.lower() not in FUNCTION_WORDS and (left or "").lower() not in ("the", "a", "an")
                    and OSA.distance(lower[:-1], corrected.lower()) < OSA.distance(lower, corrected.lower())):
                ending = "'s"  # "balantynes phone": Ballantyne's, a possessive typed bare on a misspelt name
        alternatives = tuple((apply_case(typed, c.word) + ending, round(p, 3)) for c, p in zip(candidates[1:4], probabilities[2:]))
        # "the reefer trcuk lease": "truck" and "trucks" split what the context gives the word; that it
        # is one of them is as sure as both together ("truck" is applied, "trucks" offered).
        confidence = probabilities[1] + sum(p for c, p in zip(candidates[1:5], probabilities[2:])
                                            if _other_number(c.word.lower(), best.word.lower()))
        return Decision(corrected + ending, best.correction_type, _clamp(confidence), alternatives)

    def _rare_word_slip(self, typed: str, lower: str, left: str | None, right: str | None) -> Decision | None:
        """A rare dictionary word its neighbours do not expect, typed a letter away from a far commoner
        one they do ("mobil number", "the colum header"), as that word; else None. Capitalised words
        are left alone (a name, a brand), and so is a word with no known neighbour to judge it by (a
        neighbour that is no known word, such as "tomaszs", comes as None)."""
        lex = self.lexicon
        if not (left or right) or typed[:1].isupper() or lower not in lex or "'" in lower:
            return None
        own_zipf = lex.zipf_of(lex.count(lower))
        if own_zipf >= RARE_KNOWN_ZIPF:
            return None
        candidates = self._candidates(lower, left, right, include_self=True)
        probabilities = self._probabilities([c.score for c in candidates])
        best, sure = candidates[0], probabilities[0]
        needed = REAL_WORD_SURE if left and right else REAL_WORD_SURE_ONE_SIDE
        if (best.word == lower or sure < needed or best.known_name
                or lex.zipf_of(lex.count(best.word)) - own_zipf < REAL_WORD_COMMONER_ZIPF):
            return None
        alternatives = tuple((apply_case(typed, c.word), round(p, 3)) for c, p in zip(candidates[1:4], probabilities[1:]))
        return Decision(apply_case(typed, best.word), "Spelling", _clamp(sure), alternatives)

    def _choose_expansion(self, expansion, left: str | None, right: str | None, single_letter: bool) -> tuple[str, float]:
        return abbreviations.choose_expansion(expansion, self.lexicon, left, right, single_letter, self.weights.backoff)


def _glued(text: str, token: Token) -> bool:
    """Whether the token is joined to more letters by punctuation ("U.S.", "R&D", "u-turn");
    a sentence's full stop ("see u.") does not count."""
    before = text[max(token.start - 2, 0) : token.start]
    after = text[token.end : token.end + 2]
    return (
        before[-1:] in _JOINERS and (before[-1:] != "." or before[:1].isalpha())
    ) or (after[:1] in _JOINERS and (after[:1] != "." or after[1:2].isalpha()))


_JOINERS = frozenset(".&-/'’_@")


def _other_number(word: str, other: str) -> bool:
    """ "trucks" for "truck", "boxes" for "box" (and the other way): one noun, singular and plural."""
    short, long = sorted((word, other), key=len)
    return long in (short + "s", short + "es")


def _clamp(confidence: float) -> float:
    return round(float(min(max(confidence, 0.0), 1.0)), 3)
