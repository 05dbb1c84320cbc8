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
