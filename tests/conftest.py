"""Shared fixtures: real data dirs, a real knowledge base from sample_kb."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

import chatapp  # noqa: F401 - offline environment for every test

# One cache of word tables and the embedder's graph for the whole run (and the next): each test's
# data dir would otherwise build its own, at seconds and 90 MB a time. test_table_cache.py tests the
# data dir's own cache with this unset.
os.environ.setdefault("CHATAPP_CACHE_DIR", str(Path(tempfile.gettempdir()) / f"chatapp-test-cache-{os.getuid()}"))
from chatapp.engine import ChatEngine, sample_kb_path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_KB = ROOT / "sample_kb"

# Property tests draw the same examples on every run, so a submission's CI passes or fails on its
# code, not on the luck of the draw. HYPOTHESIS_PROFILE=explore draws fresh ones to hunt for bugs
# (that is how the chunker's overlap swallowing a whole one-sentence chunk was found).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(scope="session")
def sample_engine(tmp_path_factory) -> ChatEngine:
    """One engine with all of sample_kb ingested, shared read-only by tests."""
    engine = ChatEngine.open(tmp_path_factory.mktemp("sample-data"), load_sample_kb=False)
    report = engine.ingest(sample_kb_path())
    assert not report.files_failed, report.files_failed
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def open_post(tmp_path_factory):
    """A Postprocessor over an empty knowledge base: the evidence given to each check is all there is."""
    from chatapp.postprocess import Postprocessor

    engine = ChatEngine.open(tmp_path_factory.mktemp("empty"))
    yield Postprocessor(engine.kb.registry)
    engine.close()


@pytest.fixture(scope="session")
def registry_engine(tmp_path_factory) -> ChatEngine:
    """An engine with only sample_kb's entities and facts (no documents): fast."""
    engine = ChatEngine.open(tmp_path_factory.mktemp("registry-data"), load_sample_kb=False)
    engine.ingest(SAMPLE_KB / "entities.jsonl", SAMPLE_KB / "facts.jsonl")
    yield engine
    engine.close()


def engine_learnt_from(tmp_path_factory, folder_name: str, files: dict[str, str]) -> tuple[ChatEngine, Path]:
    """A fresh engine (no sample) that ingested a folder of `files` (file name -> text), and the folder.
    The caller closes the engine."""
    folder = tmp_path_factory.mktemp(folder_name)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    engine = ChatEngine.open(tmp_path_factory.mktemp("data"), load_sample_kb=False)
    assert not engine.ingest(folder).files_failed
    return engine, folder


def checked(engine: ChatEngine, question: str, answer: str):
    """`answer` to `question` as `chatapp ask` would deliver it: retrieval for the question, then the checks."""
    pre = engine.turns.preprocess(question)
    return engine.turns.postprocess(answer, question=pre.corrected_input, preprocessed=pre)


def offline_answer(engine: ChatEngine, question: str, session: str) -> str:
    """What `chatapp ask QUESTION --model offline --session SESSION` delivers."""
    return engine.ask(question, session=session, model="offline").response.delivered


def only_entity(engine: ChatEngine, name: str):
    """The one registry entity `name` is an alias of (the test fails when there are none or several)."""
    found = engine.kb.registry.find_by_alias(name)
    assert len(found) == 1, [e.name for e in found]
    return found[0]


# The start of a probe run with `python -c`: chatapp's command line with the probe's own arguments, as a user
# runs it, then whatever the probe appends reads the process it ran in (sys.modules, …).
RUN_CHATAPP = (
    "import runpy, sys\n"
    "sys.argv = ['chatapp', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('chatapp', run_name='__main__')\n"
    "except SystemExit as exc:\n"
    "    assert not exc.code, exc.code\n"
)


def run_cli(*args: str, data_dir: Path | None = None, env: dict | None = None, timeout: float = 300,
            input_text: str | None = None) -> subprocess.CompletedProcess:
    """Run `python -m chatapp ARGS` as a user would, in a separate process."""
    full_env = {**os.environ, "CHATAPP_LOAD_SAMPLE_KB": "false", **(env or {})}
    command = [sys.executable, "-m", "chatapp", *args]
    if data_dir is not None:
        command += ["--data-dir", str(data_dir)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=full_env,
                          input=input_text, cwd=ROOT)


from tests.openai_server import closed_port_url, openai_server  # noqa: E402,F401 - shared fixtures
