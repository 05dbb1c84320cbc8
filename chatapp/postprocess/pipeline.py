"""Postprocessor: the model's answer in, a PostprocessedResponse out.

claims → coherence → fact validation → hallucination flags → delivery
(corrections and annotations) → recommendation. Pure over its inputs: the
registry is read, never written, and nothing here calls a model other than
the optional sentence embedder.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime

from chatapp.postprocess.claims import AnswerAnalysis, ClaimExtractor
from chatapp.postprocess.coherence import assess_coherence, question_type
from chatapp.postprocess.comparisons import comparison_findings
from chatapp.postprocess.delivery import DeliverySettings, confidence, deliver, recommend
from chatapp.postprocess.evidence import TextIndex
from chatapp.postprocess.facts import FactValidator, Sources, ValidationSettings
from chatapp.postprocess.grounding import evidence_findings, ignores_evidence
from chatapp.postprocess.hallucination import consistency_findings, temporal_findings, to_flags
from chatapp.postprocess.knowledge_view import KnowledgeView
from chatapp.records import (
    CoherenceResult,
    DialogueTurn,
    FactualValidationResult,
    KnowledgeChunk,
    PostprocessedResponse,
    ResolvedEntity,
)


@dataclass
class PostprocessSettings:
    validation: ValidationSettings = field(default_factory=ValidationSettings)
    delivery: DeliverySettings = field(default_factory=DeliverySettings)
    # Use the embedder (when one is given) for the answer's topical fit to the question.
    use_embeddings: bool = True
    # Earlier assistant answers worth remembering parsed (they are re-read every turn).
    prior_cache_size: int = 64


class Postprocessor:
    def __init__(self, registry, embedder=None, nlp=None, settings: PostprocessSettings | None = None):
        self.registry = registry
        self.embedder = embedder
        self._nlp = nlp
        self.settings = settings or PostprocessSettings()
        self.settings.validation.flag_at = self.settings.delivery.flag_at
        self.validator = FactValidator(self.settings.validation)
        self._view: KnowledgeView | None = None
        self._prior_cache: OrderedDict[str, AnswerAnalysis] = OrderedDict()
        self._lock = threading.Lock()

    # --- shared state, loaded lazily ------------------------------------------

    @property
    def nlp(self):
        if self._nlp is None:
            from chatapp.nlp import load_pipeline

            self._nlp = load_pipeline()[0]
        return self._nlp

    def view(self) -> KnowledgeView:
        with self._lock:
            if self._view is None or not self._view.is_current(self.registry):
                self._view = KnowledgeView.build(self.registry)
            return self._view

    # --- the entry point ---------------------------------------------------------

    def process(
        self,
        response: str,
        question: str = "",
        evidence: list[str] = (),
        rag_chunks: list[KnowledgeChunk] = (),
        resolved_entities: list[ResolvedEntity] = (),
        history: list[DialogueTurn] = (),
        now: datetime | None = None,
    ) -> PostprocessedResponse:
        response = response or ""
        if not response.strip():
            return self._empty(response, question)
        view = self.view()
        extractor = ClaimExtractor(self.nlp, view)
        resolved = list(resolved_entities)
        analysis = extractor.extract(response, resolved)
        prior = [self._prior(extractor, t.content) for t in history if t.role == "assistant" and t.content.strip()]
        sources = Sources(
            view=view,
            supplied=TextIndex([*evidence, *(_chunk_text(c) for c in rag_chunks)]),
            records=TextIndex(_entity_records(view, analysis, resolved)),
            given=TextIndex([question, *(t.content for t in history if t.role == "user")]),
            prior=prior,
            explicit=bool(evidence),
        )
        embedder = self.embedder if self.settings.use_embeddings else None
        coherence = assess_coherence(question, analysis, view, resolved, embedder)
        validation, findings, support = self.validator.validate(analysis, sources)
        history_text = "\n".join([*(t.content for t in history), question])
        grounded = evidence_findings(analysis, sources, self.nlp, history_text, question)
        if grounded:
            # What the evidence contradicts outright needs no second flag saying it is unsupported.
            findings = [f for f in findings if not any(g.span[0] <= f.span[0] and f.span[1] <= g.span[1]
                                                       and f.flag_type in SOFTER for g in grounded)]
            findings += grounded
            _mark_contradicted(validation, grounded)
        compared = comparison_findings(analysis, question, sources.supplied.originals)
        _mark_contradicted(validation, compared)
        findings += compared
        temporal = temporal_findings(analysis, view, sources.given, question, now, list(rag_chunks), sources.supplied)
        _mark_contradicted(validation, temporal)
        findings += temporal
        findings += consistency_findings(analysis, prior, findings)
        findings.sort(key=lambda f: f.span)

        delivery = self.settings.delivery
        # Doubts too faint to show still lower the confidence; only the rest become flags.
        reported = [f for f in findings if f.confidence >= delivery.flag_at]
        delivered, corrected = deliver(response, reported, delivery)
        mean_support = (sum(support.values()) / len(support)) if support and sources.grounded else validation.score
        faint = [f for f in findings if f.confidence < delivery.flag_at]
        unused = ignores_evidence(response, sources)
        if unused:
            # Given evidence that says more than the conversation has, an answer drawing on none of
            # it is less likely grounded in it (a doubt about the whole answer, not a flag on a claim).
            coherence.issues.append(f"uses nothing the evidence adds (such as {unused})")
        overall = confidence(reported + faint, corrected, coherence, validation, mean_support,
                             ignored_evidence=bool(unused))
        recommendation, guidance = recommend(response, reported, corrected, coherence, overall, delivery)
        return PostprocessedResponse(
            original=response,
            delivered=delivered,
            hallucination_flags=to_flags(reported, corrected),
            coherence=coherence,
            factual_validation=validation,
            recommendation=recommendation,
            confidence=overall,
            guidance=guidance,
        )

    # --- pieces ----------------------------------------------------------------------

    def _empty(self, response: str, question: str) -> PostprocessedResponse:
        coherence = CoherenceResult(0.0, question_type(question), "empty", ["the answer is empty"])
        recommendation, guidance = recommend(response, [], set(), coherence, 0.0, self.settings.delivery)
        return PostprocessedResponse(response, response, [], coherence, FactualValidationResult(score=0.0),
                                     recommendation, 0.0, guidance)

    def _prior(self, extractor: ClaimExtractor, text: str) -> AnswerAnalysis:
        with self._lock:
            cached = self._prior_cache.get(text)
            if cached is not None:
                self._prior_cache.move_to_end(text)
                return cached
        analysis = extractor.extract(text, with_ner=False)
        with self._lock:
            self._prior_cache[text] = analysis
            while len(self._prior_cache) > self.settings.prior_cache_size:
                self._prior_cache.popitem(last=False)
        return analysis


SOFTER = frozenset({"UnsupportedClaim", "FabricatedFact", "NonexistentEntity"})


def _mark_contradicted(validation: FactualValidationResult, findings) -> None:
    """A date the clock or the calendar rules out is a contradicted claim, not an unverifiable one."""
    for finding in findings:
        for check in validation.checks:
            if check.claim.kind != "sentence" and check.claim.span == finding.span and check.status != "contradicted":
                setattr(validation, check.status, getattr(validation, check.status) - 1)
                validation.contradicted += 1
                check.status, check.confidence = "contradicted", finding.confidence
                check.evidence, check.expected = list(finding.evidence), finding.suggestion


def _chunk_text(chunk: KnowledgeChunk) -> str:
    return f"{chunk.title}\n{chunk.content}" if chunk.title else chunk.content


def _entity_records(view: KnowledgeView, analysis: AnswerAnalysis, resolved: list[ResolvedEntity]) -> list[str]:
    """What the registry says about the entities in play, as sentences the answer can be held to."""
    ids = list(dict.fromkeys([e for s in analysis.sentences for e in s.entity_ids]
                             + [r.entity_id for r in resolved if r.entity_id in view.entities]))
    texts = []
    for entity_id in ids:
        entity = view.entities[entity_id]
        lines = [f"{entity.name} ({entity.type}). {entity.description}"]
        lines += [f"{entity.name} {k.key.replace('_', ' ')}: {view.display(k)}." for k in view.values_of(entity_id)]
        texts.append("\n".join(lines))
    return texts
