"""Bad input never aborts an ingest, a lost vector index can be rebuilt, and a data dir that cannot be
used (damaged database, read-only folder, full disk) is one line with what to do."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

import chatapp.knowledge.ingest as ingest_module
from chatapp.engine import ChatEngine
from chatapp.storage.problems import describe
from tests.conftest import run_cli


def _reasons(rows) -> dict[str, str]:
    return {Path(f.path).name: f.reason for f in rows}


def _one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# --- one bad file is one failure line ------------------------------------------


def _write_pathologies(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "loop.txt").symlink_to("loop.txt")
    (folder / "deep.json").write_text("[" * 5000 + "]" * 5000)
    (folder / "deep-object.json").write_text('{"a": ' * 100 + "1" + "}" * 100)
    (folder / "huge-number.json").write_text('{"balance": ' + "7" * 5000 + "}")
    (folder / "entities.jsonl").write_text('{"id": "x", "name": "Y", "type": "person", "n": ' + "[" * 5000
                                           + "]" * 5000 + "}\n")
    (folder / "harbour.md").write_text("# Harbour\n\nThe Quillon ferry leaves the harbour at seven each morning.\n")


def test_each_bad_file_is_one_failure_line_and_the_batch_goes_on_every_run(tmp_path):
    _write_pathologies(tmp_path / "docs")
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    for _ in range(2):  # the rerun meets the same files and still finishes
        report = engine.ingest(tmp_path / "docs")
        failed = _reasons(report.files_failed)
        assert set(failed) == {"loop.txt", "deep.json", "deep-object.json", "huge-number.json", "entities.jsonl"}
        assert failed["loop.txt"] == "symlink loop"
        assert "nested deeper than 64" in failed["deep.json"] and "nested deeper" in failed["deep-object.json"]
        assert "4,300 digits" in failed["huge-number.json"]
        assert "line 1" in failed["entities.jsonl"] and "nested too deeply" in failed["entities.jsonl"]
    assert engine.search("when does the ferry leave", k=1)[0].source.endswith("harbour.md")
    engine.close()


def test_a_symlink_leading_outside_the_folder_is_skipped_unless_follow_links(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "vault.txt").write_text("The Morrow vault combination is kept by the night porter.\n")
    (outside / "more").mkdir()
    (outside / "more" / "cellar.txt").write_text("The Morrow cellar holds the winter apples.\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("The garden gate squeaks in the rain.\n")
    (docs / "vault-link.txt").symlink_to(outside / "vault.txt")
    (docs / "more-link").symlink_to(outside / "more")
    (docs / "inside-link.txt").symlink_to(docs / "notes.txt")  # inside: read once, by its real path

    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    report = engine.ingest(docs)
    skipped = _reasons(report.files_skipped)
    assert set(skipped) == {"vault-link.txt", "more-link"}
    assert all("--follow-links" in reason for reason in skipped.values())
    assert not report.files_failed and report.files_ingested == 1
    sources = {r["path"] for r in engine.database.query("SELECT path FROM documents")}
    assert sources == {str((docs / "notes.txt").resolve())}

    followed = engine.ingest(docs, follow_links=True)
    assert not followed.files_skipped and followed.files_ingested == 2
    assert engine.search("who keeps the vault combination", k=1)[0].source.endswith("vault.txt")
    engine.close()


# --- big tables ------------------------------------------------------------------


def _write_ledger(path: Path, rows: int) -> None:
    lines = ["entry,depot,note"]
    lines += [f"{n},depot-{n % 7},crate {n} of lanterns packed with straw marker zq{n}x for the spring fair"
              for n in range(1, rows + 1)]
    path.write_text("\n".join(lines) + "\n")


def test_a_table_over_max_table_rows_is_indexed_with_its_first_rows_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(ingest_module, "EMBED_SLICE", 8)  # a small slice, so a small file shows the progress
    (tmp_path / "docs").mkdir()
    _write_ledger(tmp_path / "docs" / "ledger.csv", rows=300)
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False, max_table_rows=120)
    events = []
    report = engine.ingest(tmp_path / "docs", on_event=lambda event, **data: events.append((event, data)))
    assert not report.files_failed and report.files_ingested == 1
    assert _reasons(report.files_noted) == {"ledger.csv": "indexed its first 120 of 300 rows (max_table_rows in the config)"}
    embedding = [data for event, data in events if event == "embedding"]
    assert len(embedding) >= 2 and embedding[-1]["done"] == embedding[-1]["total"]  # progress inside the one file
    kept = engine.search("zq100x", k=1, mode="keyword")
    assert kept and "zq100x" in kept[0].content
    assert not engine.search("zq250x", k=1, mode="keyword")  # beyond the limit: not indexed

    engine.close()
    raised = ChatEngine.open(tmp_path / "data", load_sample_kb=False, max_table_rows=1000)
    again = raised.ingest(tmp_path / "docs")  # the same file, read again now that more rows are allowed
    assert again.files_ingested == 1 and not again.files_noted
    assert raised.search("zq250x", k=1, mode="keyword")
    assert raised.ingest(tmp_path / "docs").files_unchanged == 1
    raised.close()


# --- a lost vector index -----------------------------------------------------------


def test_a_deleted_vector_index_is_noticed_and_kb_rebuild_restores_search(tmp_path):
    docs, data = tmp_path / "docs", tmp_path / "data"
    docs.mkdir()
    (docs / "lighthouse.md").write_text("# Lighthouse\n\nThe Fennick lighthouse keeper rings the brass bell at noon.\n")
    (docs / "orchard.txt").write_text("The Quarrel orchard harvest starts in late September with the pear rows.\n")
    (docs / "bridge.txt").write_text("The Wobbly footbridge is closed for repairs until spring.\n")
    assert run_cli("ingest", str(docs), data_dir=data).returncode == 0
    shutil.rmtree(data / "chroma")
    (docs / "bridge.txt").unlink()

    ingest = run_cli("ingest", str(docs), "--json", data_dir=data)
    assert ingest.returncode == 1, ingest.stderr  # was "unchanged", exit 0
    assert "chatapp kb rebuild" in json.loads(ingest.stdout)["index_warning"]
    doctor = run_cli("doctor", "--json", data_dir=data)
    vector = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "vector index")
    assert vector["status"] == "fail" and "chatapp kb rebuild" in vector["detail"]
    assert doctor.returncode == 1

    (docs / "orchard.txt").write_text("The Quarrel orchard harvest moved to early October this year.\n")
    rebuilt = run_cli("kb", "rebuild", "--json", data_dir=data)
    report = json.loads(rebuilt.stdout)
    assert rebuilt.returncode == 1  # one document could not be rebuilt, and the exit code says so
    assert report["documents_missing"] == [str((docs / "bridge.txt").resolve())]
    assert report["documents_rebuilt"] == 2
    assert report["documents_reindexed"] == [str((docs / "orchard.txt").resolve())]  # indexed as it is now
    readable = run_cli("kb", "rebuild", data_dir=data)
    assert "bridge.txt" in readable.stdout and "chatapp kb remove" in readable.stdout

    search = run_cli("kb", "search", "when does the keeper ring the bell", "--mode", "dense", "--json", data_dir=data)
    assert json.loads(search.stdout)["results"][0]["source"].endswith("lighthouse.md")
    search = run_cli("kb", "search", "when is the orchard harvest", "--mode", "dense", "--json", data_dir=data)
    assert "October" in json.loads(search.stdout)["results"][0]["content"]

    assert run_cli("kb", "remove", str(docs / "bridge.txt"), data_dir=data).returncode == 0
    doctor = run_cli("doctor", "--json", data_dir=data)
    vector = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "vector index")
    assert vector["status"] == "ok"


# --- a data dir that cannot be used -------------------------------------------------


def test_a_corrupt_database_is_one_line_for_every_command_doctor_included(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "chatapp.db").write_bytes(b"these bytes were a database once " * 500)
    for command in (["doctor"], ["kb", "stats"], ["ingest", str(tmp_path)], ["sessions", "list"]):
        line = _one_error_line(run_cli(*command, data_dir=data))
        assert "chatapp.db is not a database" in line and "move it aside" in line


@pytest.fixture
def read_only_data_dir(tmp_path):
    """A data dir that exists but cannot be written. Root ignores permission bits, so as root the
    folder is made immutable instead (chattr +i), and undone afterwards so it can be cleaned up."""
    data = tmp_path / "data"
    ChatEngine.open(data, load_sample_kb=False).close()
    if os.geteuid() == 0:
        if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(data)]).returncode != 0:
            pytest.skip("running as root on a file system without chattr +i: cannot make a read-only folder")
        try:
            yield data
        finally:
            subprocess.run(["chattr", "-i", str(data)])
    else:
        data.chmod(0o555)
        for path in data.iterdir():
            path.chmod(0o444)
        try:
            yield data
        finally:
            data.chmod(0o755)


def test_a_read_only_data_dir_is_one_line(read_only_data_dir, tmp_path):
    for command in (["kb", "stats"], ["doctor"], ["ingest", str(tmp_path)]):
        line = _one_error_line(run_cli(*command, data_dir=read_only_data_dir))
        assert f"the data dir {read_only_data_dir} is read-only" in line and "--data-dir" in line


def test_a_data_dir_that_cannot_be_made_is_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    line = _one_error_line(run_cli("kb", "stats", data_dir=blocker / "data"))
    assert str(blocker / "data") in line


def test_a_full_disk_is_told_as_such_and_a_users_unreadable_file_is_not_blamed_on_the_data_dir(tmp_path):
    data = tmp_path / "data"
    full = OSError(errno.ENOSPC, "No space left on device", str(data / "bm25" / "chatapp-texts.bin"))
    assert describe(full, data).startswith(f"no space left on device for the data dir {data}")
    wrapped = RuntimeError("chroma failed")
    wrapped.__cause__ = sqlite3.OperationalError("database or disk is full")
    assert "no space left" in describe(wrapped, data)
    users_file = PermissionError(errno.EACCES, "Permission denied", str(tmp_path / "notes.txt"))
    assert describe(users_file, data) is None  # the file's own failure, not the data dir's
    assert "read-only" in describe(PermissionError(errno.EACCES, "Permission denied", str(data)), data)
