"""Where a process's start-up time goes: each stage a turn needs before it can answer, run once in
this process in the order a cold `chatapp ask` meets them, with its wall time and the process's
peak memory after it.

A stage's figure is its own cost given the stages before it (an import a previous stage already
paid for costs nothing here), so the rows add up to what a cold turn pays. Used by
`chatapp doctor --timings`; a stage that fails is reported as such and the next one still runs.
"""

from __future__ import annotations

import importlib
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from chatapp import table_cache

# The libraries that dominate a cold start, in the order a turn loads them (litellm only for a
# provider other than an OpenAI-compatible server, which is called over httpx; wordfreq no longer:
# its table comes from the table cache).
HEAVY_LIBRARIES = ("chromadb", "spacy", "litellm", "onnxruntime")
# A question of the ordinary kind, run through preprocessing twice: cold, then warm.
PROBE_QUESTION = "who leads the project"


@dataclass
class StageTiming:
    stage: str
    ms: float
    peak_mib: float  # the process's peak RSS once the stage is done
    status: str  # "ok", "cached" (already done before this stage ran) or "fail"
    detail: str = ""


def _peak_mib() -> float:
    """This process's peak resident memory. Linux's VmHWM first: getrusage's ru_maxrss survives
    exec, so a process started by a big parent (a test runner) would report the parent's peak."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _timed(stage: str, step: Callable[[], str | None]) -> StageTiming:
    started = time.perf_counter()
    try:
        detail = step() or ""
        status = "ok"
    except Exception as exc:  # noqa: BLE001 - a stage that cannot run is itself the finding
        detail, status = f"{type(exc).__name__}: {exc}", "fail"
    ms = (time.perf_counter() - started) * 1000
    return StageTiming(stage, round(ms, 1), round(_peak_mib(), 1), status, detail)


def _import(name: str) -> StageTiming:
    if name in sys.modules:
        return StageTiming(f"import {name}", 0.0, round(_peak_mib(), 1), "cached", "loaded before this stage")
    return _timed(f"import {name}", lambda: _import_as_a_turn_does(name))


def _import_as_a_turn_does(name: str) -> None:
    """spaCy without its command line and chromadb without its OpenTelemetry exporter, as chatapp
    imports them; the others plainly."""
    if name == "spacy":
        from chatapp.nlp import import_spacy

        import_spacy()
    elif name == "chromadb":
        from chatapp.knowledge.vector_index import import_chromadb

        import_chromadb()
    else:
        importlib.import_module(name)


def measure_startup(open_engine: Callable[[], object]) -> tuple[list[StageTiming], object | None]:
    """The stages' timings, and the engine they opened (None when it could not be opened)."""
    timings: list[StageTiming] = []
    opened: list = []

    def open_data_dir() -> str:
        opened.append(open_engine())
        return str(opened[0].settings.data_dir)

    timings.append(_timed("open the data dir (config, database)", open_data_dir))
    timings += [_import(name) for name in HEAVY_LIBRARIES]
    if not opened:
        return timings, None
    engine = opened[0]

    def spacy_pipeline() -> str:
        from chatapp.nlp import load_pipeline

        return load_pipeline()[1]

    def correction_dictionary() -> str:
        from chatapp.preprocess.correction.dictionary import load_lexicon

        return f"{len(load_lexicon().words):,} words, {table_cache.outcome('lexicon')}"

    def word_frequencies() -> str:
        from chatapp.lexicon import zipf

        zipf(PROBE_QUESTION.split()[-1])
        return str(table_cache.outcome("zipf") or "not cached: wordfreq's own reader")

    def embedder() -> str:
        from chatapp.knowledge.embeddings import model_file

        vectors = engine.kb.embedder.embed(["start-up probe"])
        graph = table_cache.outcome(f"{model_file().stem} graph")
        return f"{vectors.shape[1]}-d vectors, graph {graph}" if graph else f"{vectors.shape[1]}-d vectors"

    def knowledge_view() -> str:
        from chatapp.postprocess.knowledge_view import KnowledgeView

        view = KnowledgeView.build(engine.kb.registry)
        return f"{len(view.entities):,} entities"

    def vector_index() -> str:
        return f"{engine.kb.vector.count():,} chunks"

    def preprocess() -> str:
        result = engine.preprocess(PROBE_QUESTION)
        return f"{len(result.rag_chunks)} chunks retrieved"

    stages: list[tuple[str, Callable[[], str | None]]] = [
        ("spaCy pipeline load", spacy_pipeline),
        ("correction dictionary load", correction_dictionary),
        ("word-frequency table load", word_frequencies),
        ("correction pipeline (with learnt names)", lambda: engine.turns.correction and None),
        ("entity resolver (registry names)", lambda: engine.turns.resolver and None),
        ("embedder load (first embedding)", embedder),
        ("knowledge view build (answer checks)", knowledge_view),
        ("dense index open (Chroma)", vector_index),
        ("first preprocess", preprocess),
        ("second preprocess (warm)", preprocess),
    ]
    timings += [_timed(name, step) for name, step in stages]
    return timings, engine
