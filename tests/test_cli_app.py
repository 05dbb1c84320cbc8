"""The `chatapp` command set as a program importing chatapp.cli sees it: every command of the
README registered on import, and nothing heavy loaded for it."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# Run in a fresh interpreter, so that no other test's imports can register a command for it.
LIST_COMMANDS = """
import json, sys, typer
from chatapp.cli import app
root = typer.main.get_command(app)
names = []
for name, command in root.commands.items():
    subcommands = getattr(command, "commands", None)
    names += [f"{name} {sub}" for sub in subcommands] if subcommands else [name]
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"spacy", "chromadb", "litellm", "textual"})
print(json.dumps({"commands": names, "heavy": heavy}))
"""


@pytest.fixture(scope="module")
def fresh_import() -> dict:
    result = subprocess.run([sys.executable, "-c", LIST_COMMANDS], capture_output=True, text=True, cwd=ROOT,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def readme_commands() -> set[str]:
    """The command names of the README's Commands table: `chatapp sessions list\\|show ID` is
    "sessions list" and "sessions show"; arguments and options end a name."""
    table = (ROOT / "README.md").read_text(encoding="utf-8").split("## Commands", 1)[1].split("\n## ", 1)[0]
    names = set()
    for row in (line for line in table.splitlines() if line.startswith("| `chatapp")):
        first_cell = row.split(" | ")[0]
        for usage in re.findall(r"`chatapp([^`]*)`", first_cell):
            paths = [""]
            for word in usage.split():
                if not re.fullmatch(r"[a-z]+(\\\|[a-z]+)*", word):
                    break
                paths = [f"{path} {choice}".strip() for path in paths for choice in word.split("\\|")]
            names.update(path for path in paths if path)
    return names


def test_importing_the_package_registers_every_command_of_the_readme(fresh_import):
    documented = readme_commands()
    assert {"chat", "ask", "kb search", "sessions show", "export"} <= documented  # the table was read
    assert set(fresh_import["commands"]) == documented


def test_the_command_line_loads_no_model_or_ui_library_until_a_command_runs(fresh_import):
    assert fresh_import["heavy"] == []


# A command run to its end in a fresh interpreter, then what it loaded: the last line of stdout.
RUN_AND_LIST_MODULES = """
import json, runpy, sys
sys.argv = ["chatapp", *sys.argv[1:]]
try:
    runpy.run_module("chatapp", run_name="__main__")
    code = 0
except SystemExit as exc:
    code = exc.code or 0
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {MODELS_AND_UI}
                or m.startswith(("chatapp.turn", "chatapp.preprocess", "chatapp.postprocess", "chatapp.llm",
                                 "chatapp.knowledge.embeddings", "chatapp.knowledge.vector_index")))
print("\\n" + json.dumps({"code": code, "loaded": loaded}))
"""
# numpy too: reading records needs no arrays, and its import alone is a quarter of such a command;
# sqlite_utils (with click, pluggy, dateutil) serves writes only: records are read through sqlite3.
MODELS_AND_UI = {"spacy", "chromadb", "litellm", "onnxruntime", "tokenizers", "wordfreq", "tiktoken", "textual",
                 "bm25s", "rapidfuzz", "dateparser", "numpy", "sqlite_utils"}


@pytest.fixture(scope="module")
def data_dir_with_a_session(tmp_path_factory):
    from chatapp.storage.database import Database
    from chatapp.storage.sessions import SessionStore

    data_dir = tmp_path_factory.mktemp("data")
    database = Database(data_dir / "chatapp.db")
    store = SessionStore(database)
    session = store.open_or_create("harbour-notes")
    store.add_turn(session, "user", "when does the ferry leave")
    store.add_turn(session, "assistant", "At nine, from pier four.")
    database.close()
    return data_dir


@pytest.mark.parametrize("command", [
    ["--help"],
    ["sessions", "list"],
    ["sessions", "show", "harbour-notes"],
    ["export", "harbour-notes", "--format", "json"],
    ["kb", "stats"],
])
def test_commands_that_only_read_records_load_no_model_no_index_and_no_pipeline(command, data_dir_with_a_session):
    probe = RUN_AND_LIST_MODULES.replace("{MODELS_AND_UI}", repr(MODELS_AND_UI))
    args = command if command == ["--help"] else [*command, "--data-dir", str(data_dir_with_a_session)]
    result = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=ROOT,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    output, last_line = result.stdout.rstrip().rsplit("\n", 1)
    report = json.loads(last_line)
    assert report["code"] == 0, result.stderr
    if command[0] in ("sessions", "export"):  # the command did its work: the session is there
        assert "harbour-notes" in output
    assert report["loaded"] == []


# What a cold offline answer does without: no provider library (it calls no model), no scipy
# (bm25s scores with numpy), no dateparser (an answer's "1 September 2026" is read by the patterns).
NOT_FOR_AN_OFFLINE_ANSWER = {"litellm", "openai", "scipy", "dateparser"}
PROJECT_PAGE = """# Project Kestrel

Lead: Imre Salo
Budget: £48,000
Launch: 1 September 2026

The rewrite replaces the nightly invoice batch with a queue.
"""


def test_a_cold_offline_answer_loads_no_provider_library_no_scipy_and_no_dateparser(tmp_path):
    from chatapp.engine import ChatEngine

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "project-kestrel.md").write_text(PROJECT_PAGE, encoding="utf-8")
    data_dir = tmp_path / "data"
    with ChatEngine.open(data_dir, load_sample_kb=False) as engine:
        assert not engine.ingest(tmp_path / "docs").files_failed
    probe = RUN_AND_LIST_MODULES.replace("{MODELS_AND_UI}", repr(NOT_FOR_AN_OFFLINE_ANSWER))
    result = subprocess.run([sys.executable, "-c", probe, "ask", "who leads the project and when is the launch",
                             "--model", "offline", "--data-dir", str(data_dir)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    output, last_line = result.stdout.rstrip().rsplit("\n", 1)
    report = json.loads(last_line)
    assert report["code"] == 0, result.stderr
    assert "Imre Salo" in output and "1 September 2026" in output and "project-kestrel.md" in output
    assert [m for m in report["loaded"] if m.split(".")[0] in NOT_FOR_AN_OFFLINE_ANSWER] == []
