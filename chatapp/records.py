"""The records that flow between the stages of a turn.

They stand in pipeline order: what the knowledge base holds, then each stage
of preprocessing (correction → entities → context → retrieval → assembly),
the model call, and postprocessing. Field names follow the seed documents and
design.md: they are the JSON that `--json` prints and that scripts rely on, so
rename nothing lightly. Kinds and statuses are Literal types: a type checker
catches a misspelt "Contradictsfact" where a bare string would not.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args


def to_jsonable(record: Any) -> Any:
    """A record (or list/dict of them) as plain JSON-ready data."""
    if hasattr(record, "__dataclass_fields__"):
        return {k: to_jsonable(v) for k, v in asdict(record).items()}
    if isinstance(record, (list, tuple)):
        return [to_jsonable(v) for v in record]
    if isinstance(record, dict):
        return {str(k): to_jsonable(v) for k, v in record.items()}
    return record

# --- kinds and statuses ---------------------------------------------------------

Tier = Literal["lexical", "syntactic", "semantic"]
CorrectionType = Literal[
    "Spelling", "Transposition", "Phonetic", "Abbreviation", "CaseNormalization",  # lexical
    "Grammar", "Capitalization", "Punctuation", "WordOrder",  # syntactic
    "EntityCorrection", "TypeMismatch", "AmbiguityResolution", "PragmaticAdjustment",  # semantic
]
Role = Literal["user", "assistant"]
TurnStatus = Literal["streaming", "complete", "failed", "interrupted"]
ClaimKind = Literal["sentence", "email", "phone", "url", "date", "amount", "number", "name"]
CheckStatus = Literal["verified", "contradicted", "unverifiable"]
HallucinationType = Literal[
    "FabricatedFact", "NonexistentEntity", "WrongAttribute", "ContradictsFact", "ContradictsPrior",
    "UnsupportedClaim", "TemporalError", "LogicalInconsistency", "UnsupportedAnswer",
]
Recommendation = Literal["Accept", "AcceptWithFlags", "CorrectAndDeliver", "Regenerate", "HumanReview"]

HALLUCINATION_TYPES: tuple[str, ...] = get_args(HallucinationType)
# Flags about the answer as a whole (its support is weak, no one claim the trouble): shown in the
# verdict, never marked inside the text.
ANSWER_LEVEL: frozenset[str] = frozenset({"UnsupportedAnswer"})
RECOMMENDATIONS: tuple[str, ...] = get_args(Recommendation)


# --- knowledge --------------------------------------------------------------


@dataclass
class Entity:
    id: str
    type: str
    name: str
    aliases: list[str] = field(default_factory=list)
    description: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    prior: float = 0.5
    source: str = ""
    # "user": written by the user (entities.jsonl), authoritative; "extracted": learnt at ingest
    # from documents, with each value's sources in the registry's attribute history.
    origin: str = "user"


@dataclass
class Fact:
    id: str
    subject: str
    predicate: str
    object: str
    source: str = ""
    confidence: float = 1.0


@dataclass
class KnowledgeChunk:
    chunk_id: str
    source: str
    relevance: float
    content: str
    title: str = ""
    document_id: str = ""
    date: str | None = None
    # How the hybrid search found it: {"dense": rank, "keyword": rank}, 1-based.
    ranks: dict[str, int] = field(default_factory=dict)
    # Cosine similarity of the query and chunk vectors, where the dense side scored it.
    similarity: float | None = None


@dataclass
class FailedFile:
    path: str
    reason: str


@dataclass
class IngestReport:
    files_seen: int = 0
    files_ingested: int = 0
    files_unchanged: int = 0
    files_failed: list[FailedFile] = field(default_factory=list)
    chunks_added: int = 0
    chunks_removed: int = 0
    files_skipped: list[FailedFile] = field(default_factory=list)
    documents_pruned: int = 0
    entities: int = 0
    facts: int = 0
    entities_learnt: int = 0  # entities the registry holds from documents after this run
    sample_removed: int = 0  # sample files (documents and registry files) removed because the user's own arrived
    # Files indexed with something to say: rows beyond max_table_rows left out, nothing learnt from them.
    files_noted: list[FailedFile] = field(default_factory=list)
    # The vector index lacks chunks SQLite lists (chroma/ deleted or damaged): what to run, else "".
    index_warning: str = ""
    seconds: float = 0.0


@dataclass
class RebuildReport:
    """What `KnowledgeBase.rebuild` put back into the vector and keyword indexes."""

    documents_rebuilt: int = 0
    chunks: int = 0
    # Documents whose file changed since it was indexed, or whose chunks came out different: indexed as they are now.
    documents_reindexed: list[str] = field(default_factory=list)
    documents_missing: list[str] = field(default_factory=list)  # files gone: their chunks could not be rebuilt
    files_failed: list[FailedFile] = field(default_factory=list)  # files there but unreadable now
    files_noted: list[FailedFile] = field(default_factory=list)
    moved_aside: str = ""  # where an unreadable vector index was moved before rebuilding
    seconds: float = 0.0


@dataclass
class RemovalReport:
    """What `KnowledgeBase.remove_documents` took out of the knowledge base."""

    documents: list[str] = field(default_factory=list)  # paths of the documents removed
    registry_files: list[str] = field(default_factory=list)  # entities.jsonl / facts.jsonl files forgotten
    chunks: int = 0
    entities: int = 0
    facts: int = 0
    observations: int = 0  # what had been learnt from the removed documents

    @property
    def files(self) -> int:
        return len(self.documents) + len(self.registry_files)


# --- preprocessing: correction, entities, context, retrieval, assembly --------


@dataclass
class CorrectionRecord:
    tier: Tier
    span: tuple[int, int]  # [start, end) in the ORIGINAL input
    original: str
    corrected: str
    correction_type: CorrectionType
    confidence: float
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    applied: bool = True


@dataclass
class CorrectionResult:
    original_input: str
    corrected_input: str
    corrections: list[CorrectionRecord] = field(default_factory=list)
    suggestions: list[CorrectionRecord] = field(default_factory=list)
    confidence: float = 1.0
    level: float = 0.5


@dataclass
class ResolvedEntity:
    surface: str
    span: tuple[int, int]
    entity_id: str | None
    canonical_name: str
    entity_type: str
    confidence: float
    attributes: dict[str, Any] = field(default_factory=dict)
    candidates: list[tuple[str, float]] = field(default_factory=list)


@dataclass
class DialogueTurn:
    role: Role
    content: str
    timestamp: str  # ISO 8601
    entity_ids: list[str] = field(default_factory=list)
    turn_id: int | None = None


@dataclass
class ContextInjection:
    recent_turns: list[DialogueTurn] = field(default_factory=list)
    summary: str = ""  # older turns, extractively summarised
    entity_context: list[str] = field(default_factory=list)  # one line per entity
    topic: dict[str, Any] = field(default_factory=dict)  # {"label": str, "keywords": [str]}
    preferences: dict[str, Any] = field(default_factory=dict)
    system_instructions: str = ""


@dataclass
class PromptSection:
    name: str
    tokens: int
    budget: int
    truncated: bool = False
    text: str = ""


@dataclass
class AssembledPrompt:
    sections: list[PromptSection]
    token_count: int
    budget_profile: str
    warnings: list[str]
    messages: list[dict[str, str]]
    text: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class PreprocessedPrompt:
    original_input: str
    corrected_input: str
    corrections: list[CorrectionRecord]
    suggestions: list[CorrectionRecord]
    correction_confidence: float
    resolved_entities: list[ResolvedEntity]
    context: ContextInjection
    rag_chunks: list[KnowledgeChunk]
    prompt: AssembledPrompt
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Plain-language notes on how the input was read (a paste read in its opening only).
    notes: list[str] = field(default_factory=list)


# --- the model call -----------------------------------------------------------


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency_ms: float = 0.0
    model: str = ""


# --- postprocessing -----------------------------------------------------------


@dataclass
class Claim:
    text: str
    span: tuple[int, int]  # in the model's original answer
    kind: ClaimKind
    entity_id: str | None = None


@dataclass
class ClaimCheck:
    claim: Claim
    status: CheckStatus
    confidence: float
    evidence: list[str] = field(default_factory=list)
    expected: str | None = None  # the known value where a claim contradicts it


@dataclass
class CoherenceResult:
    score: float
    question_type: str = ""
    answer_type: str = ""
    issues: list[str] = field(default_factory=list)


@dataclass
class FactualValidationResult:
    checks: list[ClaimCheck] = field(default_factory=list)
    verified: int = 0
    contradicted: int = 0
    unverifiable: int = 0
    score: float = 1.0


@dataclass
class HallucinationFlag:
    hallucination_type: HallucinationType
    span: tuple[int, int]
    content: str
    confidence: float
    suggestion: str | None = None
    evidence: list[str] = field(default_factory=list)
    corrected: bool = False  # the delivered text carries the suggestion here, marked [corrected]


@dataclass
class ClaimSupport:
    """How well the evidence supports one sentence of the answer (postprocess/support.py)."""

    text: str
    span: tuple[int, int]  # in the model's original answer
    score: float  # 0-1; 1.0 for a sentence that claims nothing
    evidence: str = ""  # the evidence sentence that says the most of it
    source: str = ""  # where that sentence came from: "evidence file notes.md", "document X (retrieved)", …
    flagged: bool = False
    threshold: float = 0.0  # flagged when the score is under this
    reason: str = ""
    claim: bool = True  # False: a question, opinion, courtesy or the question's own words said back
    features: dict[str, float] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)  # content words no evidence has
    # Content words it adds to the question's, and how many of those are in names the evidence states
    # ("Odile Marchetti does." adds two, both in a name).
    added: int = 0
    added_in_names: int = 0
    added_values: int = 0  # values the evidence states that the question did not give
    # Every content word the evidence lacks is a verb or a particle: how it says a thing ("brought in"),
    # not a thing, name or manner the evidence lacks.
    lacks_wording_only: bool = True


@dataclass
class PostprocessedResponse:
    original: str
    delivered: str
    hallucination_flags: list[HallucinationFlag]
    coherence: CoherenceResult
    factual_validation: FactualValidationResult
    recommendation: Recommendation
    confidence: float
    guidance: str = ""  # for Regenerate: what the next attempt must fix
    claim_support: list[ClaimSupport] = field(default_factory=list)  # one per sentence, in order
    support: float = 1.0  # how far the evidence at hand supports the answer as a whole (0-1)
    # The support under which the answer is weak (0: no evidence or retrieved chunks to hold it to), and
    # why it was reported as a whole (UnsupportedAnswer), when it was.
    support_threshold: float = 0.0
    support_reason: str = ""
