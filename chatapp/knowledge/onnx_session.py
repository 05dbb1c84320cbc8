"""An onnxruntime session over a model, optimised once per machine rather than once per process.

onnxruntime rewrites a model's graph as it opens it; for the int8 MiniLM that rewrite folds the
quantised weights back into float ones, which costs most of a second and a transient 70–80 MiB on
top of the session's own memory. The rewritten graph is saved in the data dir's cache folder (the
table cache's) the first time and opened as it is afterwards, with no rewriting: the same graph,
so the same vectors to the last bit. The folder is keyed on the source model, the onnxruntime
version and this machine's processor (onnxruntime warns that a rewritten graph may use its
instructions); one that will not open is removed and the source model opened instead.

The saved graph keeps its weights in a file of their own beside it, which onnxruntime maps into
memory instead of reading: the 47 MB word-embedding table then stays on disk except for the rows
a text uses, and no second copy of the weights is held while the session is built (a cold turn's
peak memory was 50–55 MiB higher with the weights inside the graph file). The folder is synced and
dropped from the page cache once written (table_cache.settle), and its mappings are advised random
access (table_cache.advise_random_reads), so that those rows are all it maps.
"""

from __future__ import annotations

import os
import platform
import shutil
import tempfile
from pathlib import Path

from chatapp import table_cache

PROVIDERS = ["CPUExecutionProvider"]
QUIET = 3  # onnxruntime's log severity "error": its warning about saving a rewritten graph is for developers
GRAPH_FILE = "graph.onnx"
WEIGHTS_FILE = "weights.bin"  # named inside the graph file, relative to its folder


def _processor() -> str:
    """What the rewritten graph may depend on: the processor's model and instruction sets."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            lines = [line.strip() for line in info if line.startswith(("model name", "flags", "Features"))]
        return "\n".join(sorted(set(lines)))
    except OSError:
        return f"{platform.machine()} {platform.processor()}"


def _options(onnxruntime, threads: int | None):
    options = onnxruntime.SessionOptions()
    options.log_severity_level = QUIET
    # Its worker threads wait for work asleep, not spinning: a spinning pool kept a core busy after
    # each call, taking CPU from spaCy and the imports running beside it on 2 cores (a question's
    # embedding cost twice its CPU time, the spaCy parse after it twice its time). The vectors are the
    # same to the last bit.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads:
        options.intra_op_num_threads = threads
    return options


def open_session(source: Path, threads: int | None = None):
    """A session over `source`; `table_cache.outcome("<model stem> graph")` then says how it opened."""
    import onnxruntime

    name = f"{source.stem} graph"
    directory = table_cache.directory()
    if directory is None:
        table_cache.note(name, "built")
        return onnxruntime.InferenceSession(str(source), _options(onnxruntime, threads), providers=PROVIDERS)
    key = table_cache.cache_key([table_cache.file_stamp(source), f"onnxruntime {onnxruntime.__version__}",
                                 _processor()])
    saved = directory / f"{source.stem}-optimized-{key}"
    if (saved / GRAPH_FILE).is_file():
        options = _options(onnxruntime, threads)
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            session = onnxruntime.InferenceSession(str(saved / GRAPH_FILE), options, providers=PROVIDERS)
            table_cache.note(name, "from cache")
            # The weights it still maps once the session is built are the embedding tables, read a few
            # rows a text: each page fault should map those rows' page, not the blocks around it.
            table_cache.advise_random_reads((saved / WEIGHTS_FILE).resolve())
            return session
        except Exception:  # noqa: BLE001 - a damaged folder is replaced below, from the source model
            shutil.rmtree(saved, ignore_errors=True)
    options = _options(onnxruntime, threads)
    staging = None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{saved.name}-", dir=directory))
        options.optimized_model_filepath = str(staging / GRAPH_FILE)
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS_FILE)
        # Every weight but the smallest goes to the weights file (large ones at page-aligned offsets, so
        # onnxruntime can map them).
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    except OSError:
        staging = None  # an unwritable cache folder: open the source model as it is
    session = onnxruntime.InferenceSession(str(source), options, providers=PROVIDERS)
    table_cache.note(name, "built")
    if staging is not None:
        try:
            if (staging / GRAPH_FILE).stat().st_size > 0 and (staging / WEIGHTS_FILE).is_file():
                table_cache.settle(staging)
                # A folder renamed whole: a reader never sees a graph without its weights. Another
                # process that renamed its copy first wins (the same graph); this one is dropped.
                os.rename(staging, saved)
                table_cache.note(name, "built (cached)")
                for old in directory.glob(f"{source.stem}-optimized-*"):
                    if old.is_dir() and old != saved:
                        shutil.rmtree(old, ignore_errors=True)
                    elif old.is_file():  # the single-file graph of earlier versions
                        old.unlink(missing_ok=True)
        except OSError:
            pass
        shutil.rmtree(staging, ignore_errors=True)
    return session
