"""The correction pipeline: tier 1 (lexical), tier 2 (syntactic), tier 3
(semantic) over one shared token view, with a correction level.

Each tier proposes corrections by setting token texts and returning records.
After every tier the level decides: a record whose confidence reaches the
level's threshold is applied; the rest become suggestions (applied=False) and
their tokens go back to what they were before that tier, so later tiers only
ever build on applied corrections.

Two paths:
- the live path, `tiers=("lexical", "syntactic")`, runs on every keystroke in
  the TUI for the diff preview: no spaCy parse, rules and dictionaries only;
- the full path adds the semantic tier and one spaCy parse (shared by tiers 2
  and 3 for names, tags and possessives), and returns entity and date markers
  for stage 2.
"""

from __future__ import annotations

import threading
from statistics import fmean
from typing import Callable, Iterable

from chatapp.correction.levels import DEFAULT_LEVEL, is_applied, parse_level
from chatapp.correction.semantic import KnownNames, SemanticCorrector
from chatapp.correction.syntactic import ParsedText, SyntacticCorrector
from chatapp.correction.tokens import Token, TokenizedInput, tokenize
from chatapp.records import CorrectionRecord, CorrectionResult

TIERS = ("lexical", "syntactic", "semantic")
LIVE_TIERS = ("lexical", "syntactic")
# Longer inputs (pastes) skip the parse: past this, spaCy costs more than
# the names it would help with are worth.
PARSE_LIMIT_CHARS = 5_000
# Past this, the rest of a paste passes through uncorrected: stage 5 keeps
# only about 6,000 characters of the query anyway, and a 100,000-character
# paste must still be corrected within a second.
CORRECTED_PREFIX_CHARS = 10_000


class CorrectionPipeline:
    def __init__(self, registry=None, nlp=None, lexical=None):
        """`registry`: chatapp.knowledge.registry.Registry or None. `nlp`: a
        spaCy pipeline, or None to load chatapp.nlp's on first full-path use.
        `lexical`: a LexicalCorrector, or None to build one from the registry's
        vocabulary on first use."""
        self.registry = registry
        self._nlp = nlp
        self._lexical = lexical
        self._names: KnownNames | None = None
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
                from chatapp.correction.lexical import LexicalCorrector

                vocabulary = self.registry.vocabulary() if self.registry is not None else ()
                self._lexical = LexicalCorrector(vocabulary)
            return self._lexical

    @property
    def nlp(self):
        with self._lock:
            if self._nlp is None:
                from chatapp.nlp import load_pipeline

                self._nlp = load_pipeline()[0]
            return self._nlp

    def refresh_vocabulary(self) -> None:
        """Pick up names and words that an ingest added to the registry."""
        with self._lock:
            self._names = None
            if self._lexical is not None and self.registry is not None:
                self._lexical.add_vocabulary(self.registry.vocabulary())

    # --- correcting ----------------------------------------------------------------------

    def correct(
        self,
        text: str,
        level: float | str = DEFAULT_LEVEL,
        tiers: Iterable[str] = TIERS,
    ) -> tuple[CorrectionResult, list[dict]]:
        """(result, markers). Markers (entities and dates, spans in `text`)
        come from the semantic tier; the live path returns none."""
        level = parse_level(level)
        tiers = tuple(tiers)
        unknown = [t for t in tiers if t not in TIERS]
        if unknown:
            raise ValueError(f"unknown correction tier {unknown[0]!r}: choose from {', '.join(TIERS)}")
        if not text or not text.strip():
            return CorrectionResult(original_input=text, corrected_input=text, level=level), []

        full = tokenize(text)
        doc = full  # the tiers' view: the whole input, or the first part of a paste
        if len(text) > CORRECTED_PREFIX_CHARS:
            doc = TokenizedInput(text, [t for t in full.tokens if t.end <= CORRECTED_PREFIX_CHARS])
        applied: list[CorrectionRecord] = []
        suggestions: list[CorrectionRecord] = []

        def run(tier: Callable[[], list[CorrectionRecord]]) -> None:
            self._run_tier(doc, tier, level, applied, suggestions)

        if "lexical" in tiers:
            lexical = self.lexical
            run(lambda: lexical.correct(doc))
        names = self.names
        full_path = "semantic" in tiers
        parsed = ParsedText(doc, self.nlp) if full_path and len(text) <= PARSE_LIMIT_CHARS else None
        syntactic = SyntacticCorrector(names)
        semantic = SemanticCorrector(names, self.nlp if full_path else None)
        if "syntactic" in tiers:
            run(lambda: syntactic.correct(doc, parsed))
        if full_path:
            run(lambda: semantic.correct(doc))
        if "syntactic" in tiers and doc is full:
            # Last, so the mark follows whatever word really ends the text now.
            run(lambda: [r for r in [syntactic.punctuate(doc)] if r is not None])
        markers = semantic.markers(doc) if "semantic" in tiers else []
        suggestions = _not_superseded(suggestions, applied)

        result = CorrectionResult(
            original_input=text,
            corrected_input=full.render(),
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
    ) -> None:
        before = {id(token): token.text for token in doc.tokens}
        for record in tier():
            record.applied = is_applied(record.confidence, level)
            if record.applied:
                applied.append(record)
                continue
            suggestions.append(record)
            for token in doc.tokens:
                if _touches(token, record.span):
                    # Tokens this tier inserted (a terminal "?") had no text before.
                    token.text = before.get(id(token), "")


def _not_superseded(suggestions: list[CorrectionRecord], applied: list[CorrectionRecord]) -> list[CorrectionRecord]:
    """Drop a suggestion when a later tier applied a different fix to the same
    text ("johns" -> "Johns" once tier 3 made it "John's")."""
    order = {tier: position for position, tier in enumerate(TIERS)}
    return [
        s
        for s in suggestions
        if not any(
            order[a.tier] > order[s.tier] and a.span[0] < s.span[1] and s.span[0] < a.span[1] for a in applied
        )
    ]


def _touches(token: Token, span: tuple[int, int]) -> bool:
    start, end = span
    if start == end:  # an insertion: the zero-width token at that point
        return token.start == token.end == start
    return token.start < end and start < token.end
