"""The answer checks, each a named component (chatapp/components.py) that
reads fields of a CheckContext and returns findings about the answer.

They run in the order registered here; the `disabled_checks` setting switches
a named one off, and precedence.py settles what they find between them.

    fact_validation     values, names and sentences against the registry and the sources
    evidence_grounding  denials of supplied evidence, a "no" it answers yes, an "only" it lists more for
    comparisons         the wrong pick in "which came first, A or B?" where the sources date both
    temporal            impossible dates, relative dates and tenses the clock or the records rule out
    consistency         contradictions inside the answer and with earlier answers
    answer_support      an answer the evidence bears out too little as a whole, no claim of it flagged
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from chatapp.components import CHECKS
from chatapp.postprocess.claims import AnswerAnalysis
from chatapp.postprocess.comparisons import comparison_findings
from chatapp.postprocess.facts import FactValidator
from chatapp.postprocess.findings import Finding, Sources
from chatapp.postprocess.grounding import evidence_findings
from chatapp.postprocess.hallucination import consistency_findings, temporal_findings
from chatapp.postprocess.support import AnswerSupport
from chatapp.records import ClaimSupport, DialogueTurn, FactualValidationResult, KnowledgeChunk


@dataclass
class CheckContext:
    """One answer being checked, and what the checks have concluded about it so far."""

    analysis: AnswerAnalysis  # the answer's sentences, values and names
    sources: Sources  # what it can be held to
    question: str
    history: list[DialogueTurn]
    chunks: list[KnowledgeChunk]  # retrieved for this turn (dated documents)
    now: datetime | None
    findings: list[Finding] = field(default_factory=list)  # settled so far (precedence.py)
    # Written by fact_validation; empty (score 1.0) when that check is off.
    validation: FactualValidationResult = field(default_factory=FactualValidationResult)
    support: dict[int, float] = field(default_factory=dict)  # each claim's support score, 0-1, by sentence
    # Each sentence's support by the evidence (support.py), computed before the checks run.
    claim_support: list[ClaimSupport] = field(default_factory=list)
    # The answer's support as a whole (None: no evidence or retrieved chunks to hold it to).
    answer_support: AnswerSupport | None = None


# The fields every check may read before the first one runs.
GIVEN = ("analysis", "sources", "question", "history", "chunks", "now", "findings", "claim_support",
         "answer_support")


class _Check:
    """What every check shares: nothing derived from the knowledge base is kept between answers
    (the postprocessor rebuilds its view of the registry itself), so refresh has nothing to drop."""

    name: str  # set to its registered name when built
    reads: tuple[str, ...]
    writes: tuple[str, ...] = ("findings",)

    def __init__(self, settings) -> None:
        self.settings = settings

    def refresh(self) -> None:
        pass


@CHECKS.register("fact_validation")
class FactValidation(_Check):
    reads, writes = ("analysis", "sources", "claim_support"), ("validation", "support", "findings")

    def __init__(self, settings) -> None:
        super().__init__(settings)
        self.validator = FactValidator(settings.validation)

    def run(self, context: CheckContext) -> list[Finding]:
        context.validation, findings, context.support = self.validator.validate(context.analysis, context.sources,
                                                                                          context.claim_support)
        return findings


@CHECKS.register("evidence_grounding")
class EvidenceGrounding(_Check):
    reads = ("analysis", "sources", "question", "history")

    def run(self, context: CheckContext) -> list[Finding]:
        history_text = "\n".join([*(t.content for t in context.history), context.question])
        return evidence_findings(context.analysis, context.sources, history_text, context.question)


@CHECKS.register("comparisons")
class Comparisons(_Check):
    reads = ("analysis", "sources", "question")

    def run(self, context: CheckContext) -> list[Finding]:
        return comparison_findings(context.analysis, context.question, context.sources.supplied.texts)


@CHECKS.register("temporal")
class Temporal(_Check):
    reads = ("analysis", "sources", "question", "chunks", "now")

    def run(self, context: CheckContext) -> list[Finding]:
        sources = context.sources
        return temporal_findings(context.analysis, sources.view, sources.given, context.question, context.now,
                                 context.chunks, sources.supplied)


@CHECKS.register("consistency")
class Consistency(_Check):
    reads = ("analysis", "sources", "findings")

    def run(self, context: CheckContext) -> list[Finding]:
        return consistency_findings(context.analysis, context.sources.prior, context.findings,
                                    context.sources.supplied, context.sources.view)


@CHECKS.register("answer_support")
class AnswerSupportCheck(_Check):
    """Last, as it speaks only when nothing else does: an answer whose support as a whole is under
    the fitted threshold with no claim of it flagged is reported once, for the whole answer, and marked
    nowhere in it (records.ANSWER_LEVEL)."""

    reads = ("analysis", "answer_support", "findings")

    def run(self, context: CheckContext) -> list[Finding]:
        judged = context.answer_support
        flag_at = self.settings.delivery.flag_at
        if judged is None or not judged.unsupported or any(f.confidence >= flag_at for f in context.findings):
            return []
        text = context.analysis.text
        start, end = len(text) - len(text.lstrip()), len(text.rstrip())
        # Surer the further under the threshold it is.
        depth = min(1.0, max(0.0, (judged.threshold - judged.score) / max(judged.threshold, 1e-6)))
        evidence = [judged.reason] + ([f"not in the evidence: {', '.join(judged.missing)}"] if judged.missing else [])
        return [Finding("UnsupportedAnswer", (start, end), text[start:end], round(0.5 + 0.4 * depth, 3), None, evidence)]
