"""The five seed stages of preprocessing as registered components.

Each stage reads fields of a PreprocessWork that earlier stages wrote and
writes its own; chatapp.turn runs them in the order registered here:

    correction → entities → context → retrieval → assembly

A stage builds what it needs (the correction dictionary, the alias index) on
first use and drops what it derived from the knowledge base on `refresh()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from chatapp.components import STAGES
from chatapp.records import (
    AssembledPrompt,
    ContextInjection,
    CorrectionResult,
    KnowledgeChunk,
    ResolvedEntity,
)

# The fields a turn fills before the first stage runs.
GIVEN = ("text", "now", "level", "profile", "state", "previous_question")


@dataclass
class PreprocessWork:
    """What one turn's stages read and write, filled in stage order."""

    text: str
    now: datetime
    level: float
    profile: str
    state: Any  # DialogueState
    previous_question: str | None = None
    correction: CorrectionResult | None = None
    markers: list = field(default_factory=list)  # entity and date markers for the resolver
    # The part of the corrected text read for names (a long paste's opening, input_limits.READ_CHARS) and
    # its spaCy parse, which correction made already and entity resolution reuses.
    head: str = ""
    parse: Any = None
    resolved: list[ResolvedEntity] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    context: ContextInjection | None = None
    chunks: list[KnowledgeChunk] = field(default_factory=list)
    prompt: AssembledPrompt | None = None


@dataclass
class StageServices:
    """What stages share: the knowledge base, the settings, and the spaCy pipeline (loaded on first use)."""

    kb: Any
    settings: Any
    nlp: Callable[[], Any]


class _StageBase:
    name = ""  # set to its registered name when built
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()

    def __init__(self, services: StageServices):
        self.services = services

    def refresh(self) -> None:
        """Nothing derived from the knowledge base to drop."""

    def event(self, work: PreprocessWork) -> dict | None:
        """What the TUI is told when the stage has run (None: nothing)."""
        return None


class _BuiltOnFirstUse(_StageBase):
    """A stage whose worker (the correction pipeline, the resolver) is built on first use: building
    one loads dictionaries and the registry's names, which a command that never runs a turn skips."""

    def __init__(self, services: StageServices):
        super().__init__(services)
        self._worker = None

    def build(self):
        raise NotImplementedError

    def forget_knowledge(self, worker) -> None:
        raise NotImplementedError

    @property
    def worker(self):
        if self._worker is None:
            self._worker = self.build()
        return self._worker

    def refresh(self) -> None:
        if self._worker is not None:
            self.forget_knowledge(self._worker)


@STAGES.register("correction")
class CorrectionStage(_BuiltOnFirstUse):
    """Stage 1: the three correction tiers at the turn's level."""

    reads = ("text", "level", "previous_question")
    writes = ("correction", "markers", "head", "parse")

    def build(self):
        from chatapp.preprocess.correction.pipeline import CorrectionPipeline

        # spaCy on first full-path use: the live diff (tiers 1–2) works without it.
        return CorrectionPipeline(registry=self.services.kb.registry, load_nlp=self.services.nlp)

    def forget_knowledge(self, pipeline) -> None:
        pipeline.refresh_vocabulary()

    def run(self, work: PreprocessWork) -> None:
        from chatapp.input_limits import read_part

        work.correction, work.markers = self.worker.correct(work.text, level=work.level,
                                                              previous_question=work.previous_question)
        # A long paste is read for names in its first part only, as it is corrected: parsing
        # 100,000 characters takes seconds for names the prompt has no room for anyway.
        work.head = read_part(work.correction.corrected_input)
        work.parse = self.worker.parse(work.head)  # cached: correction parsed this text already

    def event(self, work: PreprocessWork) -> dict:
        return {"result": work.correction}


@STAGES.register("entities")
class EntityStage(_BuiltOnFirstUse):
    """Stage 2: names, pronouns, dates and descriptions linked to the registry and the dialogue."""

    reads = ("head", "parse", "markers", "state", "now")
    writes = ("resolved",)

    def build(self):
        from chatapp.preprocess.entities.resolver import EntityResolver

        return EntityResolver(self.services.kb.registry, nlp=self.services.nlp())

    def forget_knowledge(self, resolver) -> None:
        resolver.refresh()

    def run(self, work: PreprocessWork) -> None:
        # The resolver maps the markers' original spans itself.
        work.resolved = self.worker.resolve(work.head, state=work.state, now=work.now, markers=work.markers,
                                              doc=work.parse)

    def event(self, work: PreprocessWork) -> dict:
        return {"resolved": work.resolved}


@STAGES.register("context")
class ContextStage(_StageBase):
    """Stage 3: recent turns, older ones summarised, active entities, topic and preferences."""

    reads = ("correction", "resolved", "state", "profile")
    writes = ("channels", "context")

    def run(self, work: PreprocessWork) -> None:
        from chatapp.intents import triage_channels
        from chatapp.preprocess.assembly.budgets import get_profile
        from chatapp.preprocess.context import build_context

        settings = self.services.settings
        state = work.state
        work.channels = triage_channels(work.head)
        work.context = build_context(
            state.turns, work.resolved, state.salience, self.services.kb.registry, state.topic,
            preferences=settings.preferences, system_instructions=settings.system_prompt,
            history_budget_tokens=get_profile(work.profile).sections.get("dialogue", 1000), earlier=state.earlier,
        )


@STAGES.register("retrieval")
class RetrievalStage(_StageBase):
    """Stage 4: hybrid search of the user's documents, boosted by entities and recency."""

    reads = ("correction", "resolved", "channels", "now")
    writes = ("chunks",)

    def run(self, work: PreprocessWork) -> None:
        from chatapp.preprocess.retrieval import retrieve

        kb = self.services.kb
        if "rag" in work.channels and not kb.is_empty():
            # No cut here: assembly fits whole chunks and may lend retrieval what other sections leave.
            work.chunks = retrieve(kb, work.correction.corrected_input, work.resolved, work.now)

    def event(self, work: PreprocessWork) -> dict:
        return {"chunks": work.chunks}


@STAGES.register("assembly")
class AssemblyStage(_StageBase):
    """Stage 5: the prompt under the profile's per-section token budgets."""

    reads = ("correction", "context", "chunks", "resolved", "profile", "channels")
    writes = ("prompt",)

    def run(self, work: PreprocessWork) -> None:
        from chatapp.preprocess.assembly.prompt import assemble

        work.prompt = assemble(work.correction.corrected_input, work.context, work.chunks, work.resolved,
                               profile=work.profile, model=self.services.settings.model, channels=work.channels)

    def event(self, work: PreprocessWork) -> dict:
        return {"prompt": work.prompt}
