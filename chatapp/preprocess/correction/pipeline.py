"""The correction pipeline: tier 1 (lexical), tier 2 (syntactic), tier 3
(semantic) over one shared token view, with a correction level.

Each tier proposes corrections by setting token texts and returning records.
After every tier the level decides: a record whose confidence reaches the
level's threshold is applied; the rest become suggestions (applied=False) and
their tokens go back to what they were before that tier, so later tiers only
ever build on applied corrections.

Two paths:
- the live path, `tiers=("lexical", "syntactic")`, runs on every keystroke in
  the TUI for the diff preview: no spaCy, rules and dictionaries only;
- the full path adds the semantic tier, parses the corrected text once (for
  name hints from spaCy's NER; `parse()` hands the same parse to stage 2) and
  returns entity and date markers for stage 2.

Every applied correction comes from rules, dictionaries and the registry, not
from the parse of the whole sentence: a parse shifts with the words around a
word, and correcting the corrected text again must change nothing more.

Pastes longer than input_limits.READ_CHARS are corrected in their opening
only (tokenised too: the live diff runs on every keystroke); the rest passes
through unchanged.
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from statistics import fmean
from typing import Callable, Iterable

from chatapp.input_limits import read_part
from chatapp.knowledge.word_forms import consistent_forms, used_words
from chatapp.preprocess.correction.levels import DEFAULT_LEVEL, is_applied, parse_level
from chatapp.preprocess.correction.semantic import KnownNames, SemanticCorrector
from chatapp.preprocess.correction.syntactic import ParsedText, SyntacticCorrector
from chatapp.preprocess.correction.tokens import Token, TokenizedInput, tokenize
from chatapp.records import CorrectionRecord, CorrectionResult
from chatapp.surrogates import repair_surrogates

TIERS = ("lexical", "syntactic", "semantic")
LIVE_TIERS = ("lexical", "syntactic")
# Longer inputs (pastes) skip the parse: past this, spaCy costs more than
# the names it would help with are worth.
PARSE_LIMIT_CHARS = 5_000
PARSE_CACHE_SIZE = 8
TAG_CACHE_SIZE = 4096
LEXICAL_ROUNDS = 3
TIER_ROUNDS = 3


class CorrectionPipeline:
    def __init__(self, registry=None, nlp=None, lexical=None, load_nlp=None):
        """`registry`: chatapp.knowledge.registry.Registry or None. `nlp`: a
        spaCy pipeline, or None to load one on first full-path use, with
        `load_nlp()` when given, else chatapp.nlp's (the live path, tiers 1–2,
        never needs it: the diff works while spaCy is still loading).
        `lexical`: a LexicalCorrector, or None to build one from the registry's
        vocabulary on first use."""
        self.registry = registry
        self._nlp = nlp
        self._load_nlp = load_nlp
        self._lexical = lexical
        self._names: KnownNames | None = None
        self._forms: tuple[dict[str, str], set[str]] | None = None
        self._parses: OrderedDict[str, object] = OrderedDict()
        self._tags: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self._lock = threading.Lock()

    # --- lazily built parts --------------------------------------------------------

    @property
    def names(self) -> KnownNames:
        with self._lock:
            if self._names is None:
                self._names = KnownNames.from_registry(self.registry)
            return self._names

    @property
    def lexical(self):
        with self._lock:
            if self._lexical is None:
                from chatapp.preprocess.correction.lexical import LexicalCorrector

                self._lexical = LexicalCorrector()
                self._teach(self._lexical)
            return self._lexical

    @property
    def document_forms(self) -> dict[str, str]:
        """{lower-case word: form} for the words the ingested documents always capitalise."""
        with self._lock:
            return self._document_words()[0]

    def _document_words(self) -> tuple[dict[str, str], set[str]]:
        """The documents' capitalised words' forms and the words they use, from one read of their counts."""
        if self._forms is None:
            uses = self.registry.document_word_uses() if self.registry is not None else []
            self._forms = (consistent_forms(uses), used_words(uses))
        return self._forms

    def _teach(self, lexical) -> None:
        """Give the spelling tier the knowledge base's words: the registry's vocabulary and the documents'
        capitalised words (never corrected away, and offered for a misspelling of one: "Abujaa"), and the
        documents' other words (never corrected away)."""
        if self.registry is None:
            return
        forms, used = self._document_words()
        lexical.add_vocabulary(self.registry.vocabulary() | set(forms.values()))
        lexical.add_document_words(used)

    @property
    def nlp(self):
        with self._lock:
            if self._nlp is None:
                if self._load_nlp is not None:
                    self._nlp = self._load_nlp()
                else:
                    from chatapp.nlp import load_pipeline

                    self._nlp = load_pipeline()[0]
            return self._nlp

    def parse(self, text: str):
        """spaCy's parse of `text`, cached: the full path parses the
        corrected text once, and entity resolution reuses that parse."""
        with self._lock:
            cached = self._parses.get(text)
            if cached is not None:
                self._parses.move_to_end(text)
                return cached
        parsed = self.nlp(text)
        with self._lock:
            self._parses[text] = parsed
            while len(self._parses) > PARSE_CACHE_SIZE:
                self._parses.popitem(last=False)
        return parsed

    def tag_words(self, words: tuple[str, ...]) -> tuple[str, ...]:
        """spaCy's POS tags of `words` taken alone, cached (tier 3 asks
        about the same few word pairs again and again)."""
        return self._tagged(words)[0]

    def fine_tag_words(self, words: tuple[str, ...]) -> tuple[str, ...]:
        """spaCy's fine (Penn) tags of `words` taken alone: "VBG" tells "going" from "meeting"."""
        return self._tagged(words)[1]

    def _tagged(self, words: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        tags = self._tags.get(words)
        if tags is None:
            from spacy.tokens import Doc

            nlp = self.nlp
            parsed = nlp(Doc(nlp.vocab, words=list(words)))
            tags = (tuple(t.pos_ for t in parsed), tuple(t.tag_ for t in parsed))
            if len(self._tags) >= TAG_CACHE_SIZE:
                self._tags.clear()
            self._tags[words] = tags
        return tags

    def _has_tagger(self) -> bool:
        return self.nlp.has_pipe("tagger") or self.nlp.has_pipe("morphologizer")

    def refresh_vocabulary(self) -> None:
        """Pick up names and words that an ingest added to the registry."""
        with self._lock:
            self._names = None
            self._forms = None
            if self._lexical is not None:
                self._teach(self._lexical)

    # --- correcting ----------------------------------------------------------------------

    def correct(
        self,
        text: str,
        level: float | str = DEFAULT_LEVEL,
        tiers: Iterable[str] = TIERS,
        previous_question: str | None = None,
    ) -> tuple[CorrectionResult, list[dict]]:
        """(result, markers). Markers (entities and dates, spans in `text`)
        come from the semantic tier; the live path returns none.
        `previous_question`: the user's last turn, so tier 3 can complete a
        follow-up ("and sarah?")."""
        # Lone surrogate halves (bytes that were not UTF-8, decoded with surrogateescape) cannot be
        # encoded, so spaCy and SQLite refuse them: each is U+FFFD from here on.
        text = repair_surrogates(text)
        level = parse_level(level)
        tiers = tuple(tiers)
        unknown = [t for t in tiers if t not in TIERS]
        if unknown:
            raise ValueError(f"unknown correction tier {unknown[0]!r}: choose from {', '.join(TIERS)}")
        if not text or not text.strip():
            return CorrectionResult(original_input=text, corrected_input=text, level=level), []

        # The tiers' view: the whole input, or the opening of a paste with the rest after its
        # last token, untouched (rendering keeps what follows the last token as it is).
        head = read_part(text)
        doc = TokenizedInput(text, tokenize(head).tokens)
        whole = len(head) == len(text)
        applied: list[CorrectionRecord] = []
        suggestions: list[CorrectionRecord] = []

        made: list[CorrectionRecord] = []  # every record, in the order the tiers made them

        def run(tier: Callable[[], list[CorrectionRecord]]) -> None:
            self._run_tier(doc, tier, level, applied, suggestions, made)

        names = self.names
        full_path = "semantic" in tiers
        tagging = full_path and self._has_tagger()
        syntactic = SyntacticCorrector(names, self.fine_tag_words if tagging else None)
        semantic = SemanticCorrector(names, self.tag_words if tagging else None,
                                     previous_question=previous_question,
                                     vocabulary_form=self.lexical.vocabulary_form,
                                     acronym_form=self.lexical.acronym_form,
                                     document_form=self.document_forms.get)
        lexical = self.lexical if "lexical" in tiers else None

        def run_lexical() -> bool:
            """Tier 1 until nothing new is applied: it ranks a word by its
            neighbours, so once "hlep" became "help" (or "a" became "an"),
            "teh" may clear the threshold too."""
            count = len(applied)
            for _ in range(LEXICAL_ROUNDS):
                before = len(applied)
                run(lambda: lexical.correct(doc))
                if len(applied) == before:
                    break
            return len(applied) > count

        # Rounds until the text settles, so correcting the output once more changes nothing.
        for round_number in range(TIER_ROUNDS):
            if lexical is not None and not run_lexical() and round_number > 0:
                break
            if "syntactic" in tiers:
                run(lambda: syntactic.correct(doc))
                run(lambda: syntactic.words_in_context(doc))
                run(lambda: syntactic.reorder(doc))
            if full_path:
                run(lambda: semantic.correct(doc))
            if lexical is None:
                break
        if "syntactic" in tiers and whole:
            # Last, so the mark follows whatever word really ends the text now.
            run(lambda: [r for r in [syntactic.punctuate(doc)] if r is not None])
        if "syntactic" in tiers and full_path and len(text) <= PARSE_LIMIT_CHARS:
            # One parse of the corrected text: NER hints here, and stage 2
            # gets the same parse from self.parse() without paying again.
            run(lambda: syntactic.entity_hints(doc, ParsedText(doc, self.parse)))
        markers = semantic.markers(doc) if full_path else []
        suggestions = _latest_suggestions(suggestions, applied, made)

        result = CorrectionResult(
            original_input=text,
            corrected_input=doc.render(),
            corrections=applied,
            suggestions=suggestions,
            confidence=round(fmean(r.confidence for r in applied), 3) if applied else 1.0,
            level=level,
        )
        return result, markers

    @staticmethod
    def _run_tier(
        doc: TokenizedInput,
        tier: Callable[[], list[CorrectionRecord]],
        level: float,
        applied: list[CorrectionRecord],
        suggestions: list[CorrectionRecord],
        made: list[CorrectionRecord],
    ) -> None:
        before = {id(token): token.text for token in doc.tokens}
        records = tier()
        made.extend(records)
        starts = [token.start for token in doc.tokens]  # in order, inserted tokens included
        for record in records:
            record.applied = is_applied(record.confidence, level)
            if record.applied:
                applied.append(record)
                continue
            suggestions.append(record)
            # Tokens from just before the span (a zero-width insertion sits at
            # a token's end) to its end.
            first = max(bisect_left(starts, record.span[0]) - 1, 0)
            for token in doc.tokens[first : bisect_right(starts, record.span[1]) + 1]:
                if _touches(token, record.span):
                    # Tokens this tier inserted (a terminal "?") had no text before.
                    token.text = before.get(id(token), "")


def _latest_suggestions(suggestions: list[CorrectionRecord], applied: list[CorrectionRecord],
                        made: list[CorrectionRecord]) -> list[CorrectionRecord]:
    """Suggestions that still stand: one per tier and span (the last round's),
    and none where a later step of the same or a later tier applied a fix to
    the same text ("johns" -> "Johns" is dropped once tier 3 made it
    "John's"). A fix made before the suggestion leaves it standing: "your" ->
    "Your" at the sentence start, then "you're" offered."""
    latest: dict[tuple[str, tuple[int, int]], CorrectionRecord] = {}
    for suggestion in suggestions:
        latest.pop((suggestion.tier, suggestion.span), None)
        latest[(suggestion.tier, suggestion.span)] = suggestion
    order = {tier: position for position, tier in enumerate(TIERS)}
    made_at = {id(record): position for position, record in enumerate(made)}
    return [
        s
        for s in latest.values()
        if not any(
            order[a.tier] >= order[s.tier] and made_at[id(a)] > made_at[id(s)]
            and a.span[0] < s.span[1] and s.span[0] < a.span[1]
            for a in applied
        )
    ]


def _touches(token: Token, span: tuple[int, int]) -> bool:
    start, end = span
    if start == end:  # an insertion: the zero-width token at that point
        return token.start == token.end == start
    return token.start < end and start < token.end
