"""A vector index damaged on disk (not deleted) outside `kb rebuild`: every command that reads it
says in one line to run `chatapp kb rebuild`, with no traceback, and the rebuild brings search back.

The damage is real: Chroma's own SQLite file overwritten or cut short in a copy of a data dir that
a real ingest filled."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.conftest import run_cli

QUESTION = "when does the keeper ring the bell"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    root = tmp_path_factory.mktemp("chroma-damage")
    docs = root / "docs"
    docs.mkdir()
    (docs / "lighthouse.md").write_text("# Lighthouse\n\nThe Fennick lighthouse keeper rings the brass bell at noon.\n")
    (docs / "orchard.txt").write_text("The Quarrel orchard harvest starts in late September with the pear rows.\n")
    ingest = run_cli("ingest", str(docs), data_dir=root / "data")
    assert ingest.returncode == 0
    # A folder of ordinary documents has no registry files: the summary does not count their nothing.
    assert "2 ingested" in ingest.stdout and "registry files" not in ingest.stdout and "0 entities" not in ingest.stdout
    return root / "data"


def _overwritten(path):
    path.write_bytes(b"not chroma's sqlite any more " * 400)


def _cut_short(path):
    os.truncate(path, 8192)


@pytest.mark.parametrize("damage", [_overwritten, _cut_short], ids=["overwritten", "cut-short"])
def test_a_damaged_vector_index_is_one_line_naming_kb_rebuild_and_the_rebuild_restores_search(
        indexed, tmp_path, damage):
    data = tmp_path / "data"
    shutil.copytree(indexed, data)
    damage(data / "chroma" / "chroma.sqlite3")

    for command in (["kb", "search", QUESTION], ["kb", "search", QUESTION, "--json"],
                    ["ask", QUESTION, "--model", "offline"]):
        result = run_cli(*command, data_dir=data)
        assert result.returncode == 1, (command, result.stdout, result.stderr)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert "Traceback" not in result.stderr and len(lines) == 1, (command, result.stderr)
        assert "vector index" in lines[0] and "chatapp kb rebuild" in lines[0], lines[0]

    rebuilt = run_cli("kb", "rebuild", "--json", data_dir=data)
    assert rebuilt.returncode == 0, rebuilt.stderr
    report = json.loads(rebuilt.stdout)
    assert report["documents_rebuilt"] == 2 and report["moved_aside"]  # kept for the user to look at
    search = run_cli("kb", "search", QUESTION, "--mode", "dense", "--json", data_dir=data)
    assert json.loads(search.stdout)["results"][0]["source"].endswith("lighthouse.md")
