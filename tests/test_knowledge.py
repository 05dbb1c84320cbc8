"""The knowledge base as a user meets it: ingest, re-ingest, edits, prune,
broken files, search, and two processes writing one data dir."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing

import numpy as np
import pytest

from chatapp.engine import ChatEngine
from tests.conftest import ROOT, SAMPLE_KB, run_cli


def _chroma_ids(engine: ChatEngine) -> set[str]:
    return set(engine.kb.vector.collection.get(include=[])["ids"])


def _sqlite_ids(engine: ChatEngine) -> set[str]:
    return {r["id"] for r in engine.database.query("SELECT id FROM chunks")}


def test_sample_kb_ingest_loads_documents_entities_and_facts(sample_engine):
    stats = sample_engine.kb.stats()
    assert stats["documents"] >= 25
    assert stats["chunks"] >= stats["documents"]
    assert stats["entities"] >= 25 and stats["facts"] >= 40
    john = sample_engine.kb.registry.find_by_alias("John Smith")[0]
    assert john.attributes["email"] == "john.smith@company.com"
    assert john.attributes["department"] == "Engineering"
    assert sample_engine.kb.registry.facts_about("person:john-smith")
    # Every chunk SQLite lists is in Chroma and the other way round.
    assert _sqlite_ids(sample_engine) == _chroma_ids(sample_engine)


def test_email_metadata_and_date_are_kept(sample_engine):
    rows = sample_engine.database.query(
        "SELECT title, doc_date, metadata FROM documents WHERE path LIKE '%q4-budget-review.eml'"
    )
    assert rows, "the Q4 budget email was not ingested"
    doc = rows[0]
    meta = json.loads(doc["metadata"])
    assert doc["title"] == "Q4 Budget Review Meeting"
    assert doc["doc_date"].startswith("2026-11-26")
    assert "john.smith@company.com" in meta["from"]
    assert "Q4_Budget_Review.xlsx" in meta["attachments"]


def test_a_page_without_a_date_of_its_own_stays_undated(sample_engine):
    """The file's mtime is when it was copied: taking it would make every undated page the newest."""
    rows = sample_engine.database.query("SELECT doc_date FROM documents WHERE path LIKE '%projects/atlas.md'")
    assert rows and rows[0]["doc_date"] is None
    results = sample_engine.search("Project Atlas data platform migration", k=10)
    atlas = [r for r in results if r.source.endswith("projects/atlas.md")]
    assert atlas and all(r.date is None for r in atlas)


def test_search_finds_the_budget_email(sample_engine):
    results = sample_engine.search("email from John about the Q4 budget")  # default k=5
    assert any(r.source.endswith("2026-11-26-q4-budget-review.eml") for r in results)
    top = results[0]
    assert top.chunk_id and top.title and top.date and 0 < top.relevance <= 1 and top.content


def test_second_run_changes_nothing(sample_engine):
    report = sample_engine.ingest(SAMPLE_KB)
    assert report.files_ingested == 0
    assert report.files_unchanged == report.files_seen > 25
    assert report.chunks_added == report.chunks_removed == 0


@pytest.fixture()
def small_kb(tmp_path):
    docs = tmp_path / "docs"
    (docs / "notes").mkdir(parents=True)
    shutil.copy(SAMPLE_KB / "notes" / "2026-10-20-atlas-kickoff.md", docs / "notes")
    shutil.copy(SAMPLE_KB / "emails" / "2026-11-26-q4-budget-review.eml", docs)
    (docs / ".hidden").mkdir()
    (docs / ".hidden" / "secret.txt").write_text("hidden files are never indexed")
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    engine.ingest(docs)
    yield engine, docs
    engine.close()


def test_hidden_files_are_skipped(small_kb):
    engine, _ = small_kb
    assert not engine.database.query("SELECT * FROM documents WHERE path LIKE '%secret.txt'")
    assert engine.kb.stats()["documents"] == 2


def test_edited_file_replaces_its_chunks(small_kb):
    engine, docs = small_kb
    note = docs / "notes" / "2026-10-20-atlas-kickoff.md"
    before = _sqlite_ids(engine)
    note.write_text("# Atlas kickoff (revised)\n\nThe zebra migration plan replaces everything said before.\n")
    report = engine.ingest(docs)
    assert report.files_ingested == 1 and report.files_unchanged == 1
    assert report.chunks_added >= 1 and report.chunks_removed >= 1
    after = _sqlite_ids(engine)
    assert after != before and after == _chroma_ids(engine)
    hits = engine.search("zebra migration plan", k=1, mode="keyword")
    assert hits and hits[0].source.endswith("2026-10-20-atlas-kickoff.md") and "zebra" in hits[0].content


def test_documents_an_older_chatapp_read_are_read_again_by_the_next_ingest(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tools.json").write_text(json.dumps({"tools": [{"item": "Pillar drill", "location": "Bay 3"}]}))
    (folder / "note.md").write_text("# Note\n\nThe pillar drill needs a new chuck key.\n")
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        # As an earlier version left it: no reader version on the JSON file's record.
        with engine.database.transaction() as db:
            db.execute("UPDATE documents SET metadata = '{}' WHERE path LIKE '%tools.json'")
        report = engine.ingest(folder)
        assert report.files_ingested == 1 and report.files_unchanged == 1
        assert engine.ingest(folder).files_unchanged == 2  # and once read again, it is current


def test_prune_removes_documents_whose_files_are_gone(small_kb):
    engine, docs = small_kb
    (docs / "notes" / "2026-10-20-atlas-kickoff.md").unlink()
    kept = engine.ingest(docs)  # without --prune nothing is removed
    assert kept.documents_pruned == 0 and engine.kb.stats()["documents"] == 2
    report = engine.ingest(docs, prune=True)
    assert report.documents_pruned == 1 and report.chunks_removed >= 1
    assert engine.kb.stats()["documents"] == 1
    assert _sqlite_ids(engine) == _chroma_ids(engine)
    hits = engine.search("Atlas kickoff", k=5)
    assert hits and all(r.source.endswith("q4-budget-review.eml") for r in hits)  # only the file that is left


def _write_broken_files(folder):
    folder.mkdir()
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02\xffbinary\x00" * 50)
    (folder / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (folder / "empty.md").write_text("")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj <<>> garbage without xref")
    (folder / "bad.json").write_text("{not json")
    (folder / "good.md").write_text("# Parking\n\nVisitor parking is on level 2 of the north garage.\n")


def test_broken_files_are_reported_and_nothing_else_is_lost(tmp_path):
    _write_broken_files(tmp_path / "mixed")
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    report = engine.ingest(tmp_path / "mixed")
    failed = {f.path.rsplit("/", 1)[-1]: f.reason for f in report.files_failed}
    assert set(failed) == {"binary.txt", "latin1.txt", "empty.md", "broken.pdf", "bad.json"}
    assert "binary" in failed["binary.txt"]
    assert "UTF-8" in failed["latin1.txt"]
    assert "empty" in failed["empty.md"]
    assert "PDF" in failed["broken.pdf"]
    assert report.files_ingested == 1
    assert engine.search("where do visitors park", k=1)[0].source.endswith("good.md")


def test_cli_ingest_json_summary_and_exit_code(tmp_path):
    _write_broken_files(tmp_path / "mixed")
    result = run_cli("ingest", str(tmp_path / "mixed"), "--json", data_dir=tmp_path / "data")
    assert result.returncode == 1, result.stderr  # something failed, and the exit code says so
    summary = json.loads(result.stdout)
    for key in ("files_seen", "files_ingested", "files_unchanged", "files_failed", "chunks_added",
                "chunks_removed", "entities", "facts", "seconds"):
        assert key in summary
    assert summary["files_seen"] == 6 and summary["files_ingested"] == 1
    assert {"path", "reason"} <= set(summary["files_failed"][0])
    assert "Traceback" not in result.stderr

    clean = run_cli("ingest", str(SAMPLE_KB / "entities.jsonl"), "--json", data_dir=tmp_path / "data")
    assert clean.returncode == 0 and json.loads(clean.stdout)["entities"] >= 25


def test_cli_kb_search_and_stats(sample_engine):
    data_dir = str(sample_engine.settings.data_dir)
    result = run_cli("kb", "search", "email from John about the Q4 budget", "--json",
                     "--data-dir", data_dir)
    assert result.returncode == 0, result.stderr
    results = json.loads(result.stdout)["results"]
    assert any(r["source"].endswith("2026-11-26-q4-budget-review.eml") for r in results)
    assert {"chunk_id", "source", "title", "date", "relevance", "content"} <= set(results[0])

    stats = json.loads(run_cli("kb", "stats", "--json", "--data-dir", data_dir).stdout)
    assert stats["documents"] >= 25 and stats["index_bytes"] > 0


def test_missing_path_and_bad_config_get_one_clear_line(tmp_path):
    result = run_cli("ingest", str(tmp_path / "nope"), data_dir=tmp_path / "data")
    assert result.returncode == 2 and "no such file" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    (tmp_path / "bad.toml").write_text("model = [")
    bad = run_cli("kb", "stats", "--config", str(tmp_path / "bad.toml"), data_dir=tmp_path / "data")
    assert bad.returncode == 2 and "not valid TOML" in bad.stderr and "Traceback" not in bad.stderr


def test_two_processes_ingesting_one_data_dir(tmp_path):
    data_dir = tmp_path / "data"
    command = [sys.executable, "-m", "chatapp", "ingest", str(SAMPLE_KB), "--json", "--data-dir", str(data_dir)]
    env = {**os.environ, "CHATAPP_LOAD_SAMPLE_KB": "false", "PATH": "/usr/bin:/bin"}
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    outputs = [p.communicate(timeout=600) for p in (first, second)]
    for process, (out, err) in zip((first, second), outputs):
        assert process.returncode == 0, err
        assert "locked" not in err.lower()
    reports = [json.loads(out) for out, _ in outputs]
    # One process did the work; the other found everything already there.
    assert sorted(r["files_ingested"] for r in reports)[0] == 0
    engine = ChatEngine.open(data_dir, load_sample_kb=False)
    assert engine.database.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _sqlite_ids(engine) == _chroma_ids(engine)
    assert engine.kb.stats()["documents"] >= 25


# Eight chunk-sized sections a file and sixteen files: two batched writes of 64
# chunks, each several seconds of embedding, so a kill can land between them.
SITE_LOG_FILES = 16
SECTIONS_PER_LOG = 8
# How often, and how many times, the test looks at the data dir of the ingest it is about to kill.
POLL_SECONDS, POLLS = 0.05, 2400


def _log_codename(log: int) -> str:
    """A word only log number `log` contains ("site 8" also matches "week 8" and "audit 8" elsewhere)."""
    return "".join(chr(ord("k") + int(digit)) for digit in f"{log:02d}") + "vortquay"


def _write_site_logs(folder) -> list:
    folder.mkdir()
    files = []
    for log in range(SITE_LOG_FILES):
        sections = []
        for part in range(SECTIONS_PER_LOG):
            site = log * SECTIONS_PER_LOG + part
            sections.append(f"## Site {site} of {_log_codename(log)}\n\n" + " ".join(
                f"The vendor review for site {site} moved to week {part + 1} after audit {n}, "
                f"and the crew logged {site * n} checks." for n in range(1, 9)))
        path = folder / f"site-log-{log:02d}.md"
        path.write_text(f"# Site log {log}\n\n" + "\n\n".join(sections) + "\n")
        files.append(path.resolve())
    return files


def _committed_paths(db_path) -> set[str]:
    """The documents another process has committed so far, read without creating the database."""
    if not db_path.exists():
        return set()
    try:
        with closing(sqlite3.connect(f"{db_path.as_uri()}?mode=rw", uri=True, timeout=5)) as conn:
            return {row[0] for row in conn.execute("SELECT path FROM documents")}
    except sqlite3.Error:  # the schema is not there yet
        return set()


def test_an_ingest_killed_mid_run_keeps_what_it_committed_and_the_next_run_does_the_rest(tmp_path):
    files = _write_site_logs(tmp_path / "logs")
    data_dir = tmp_path / "data"
    with open(tmp_path / "ingest.err", "w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "chatapp", "ingest", str(tmp_path / "logs"), "--data-dir", str(data_dir)],
            stdout=subprocess.DEVNULL, stderr=stderr, env={**os.environ, "CHATAPP_LOAD_SAMPLE_KB": "false"},
            cwd=ROOT,
        )
    # Kill it as soon as the first documents are committed, while the later files wait their turn.
    for _ in range(POLLS):
        if process.poll() is not None or _committed_paths(data_dir / "chatapp.db"):
            break
        time.sleep(POLL_SECONDS)
    process.kill()
    process.wait()
    errors = (tmp_path / "ingest.err").read_text()
    assert process.returncode == -signal.SIGKILL, f"the ingest ended before it was killed: {errors}"

    with ChatEngine.open(data_dir, load_sample_kb=False) as engine:
        committed = {r["path"] for r in engine.database.query("SELECT path FROM documents")}
        assert 0 < len(committed) < len(files), f"{len(committed)} of {len(files)} files were committed"
        assert engine.database.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        # Each committed document has its chunks, and Chroma holds every one of them (it may hold more:
        # the batch being written when the kill came, which search ignores and the next run replaces).
        with_chunks = {r["path"] for r in engine.database.query(
            "SELECT DISTINCT d.path FROM documents d JOIN chunks c ON c.document_id = d.id")}
        assert with_chunks == committed
        assert _sqlite_ids(engine) <= _chroma_ids(engine)

        report = engine.ingest(tmp_path / "logs")
        assert not report.files_failed
        assert report.files_unchanged == len(committed)
        assert report.files_ingested == len(files) - len(committed)
        assert {r["path"] for r in engine.database.query("SELECT path FROM documents")} == {str(f) for f in files}
        assert _sqlite_ids(engine) == _chroma_ids(engine)
        assert engine.kb.stats()["chunks"] == len(files) * SECTIONS_PER_LOG
        finished_later = min(f for f in files if str(f) not in committed)
        codename = _log_codename(int(finished_later.stem.rsplit("-", 1)[1]))
        hits = engine.search(codename, k=1, mode="keyword")
        assert hits and hits[0].source == str(finished_later)


def test_a_changed_fact_value_changes_the_registry_stamp(tmp_path):
    """Readers cache views of the registry by its stamp: a new value must show even when counts stay."""
    facts = tmp_path / "facts.jsonl"
    facts.write_text(json.dumps({"id": "f1", "subject": "project:atlas", "predicate": "deadline",
                                 "object": "2026-12-15"}) + "\n")
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(facts)
        before = engine.kb.registry.stamp()
        time.sleep(0.01)
        facts.write_text(json.dumps({"id": "f1", "subject": "project:atlas", "predicate": "deadline",
                                     "object": "2026-12-22"}) + "\n")
        engine.ingest(facts)
        assert engine.kb.registry.counts()["facts"] == 1
        assert engine.kb.registry.stamp() != before
        assert engine.kb.registry.all_facts()[0].object == "2026-12-22"


def test_a_long_running_process_sees_what_another_process_ingested(tmp_path):
    """The TUI keeps Chroma open while `chatapp ingest` runs in another terminal."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "zebra.md").write_text("The zebra migration plan covers the savanna crossing in spring.\n")
    data = tmp_path / "data"
    with ChatEngine.open(data, load_sample_kb=False) as engine:
        engine.ingest(docs / "zebra.md")
        query = "penguin colony on the antarctic ice"
        assert [r.source for r in engine.search(query, mode="dense")] == [str(docs / "zebra.md")]

        (docs / "penguin.md").write_text("The penguin colony lives on the antarctic ice shelf all winter.\n")
        result = run_cli("ingest", str(docs / "penguin.md"), data_dir=data)
        assert result.returncode == 0, result.stderr

        dense = engine.search(query, mode="dense")
        assert dense[0].source == str(docs / "penguin.md")


def test_a_question_embedded_again_gets_the_same_vector_from_memory():
    from chatapp.knowledge.embeddings import MiniLMEmbedder

    remembering, fresh = MiniLMEmbedder(), MiniLMEmbedder(remember=0)
    first = remembering.embed(["when is the  Q4 budget review?"])
    again = remembering.embed(["when is the Q4 budget review?", "who is Sarah Chen?"])
    computed = fresh.embed(["when is the Q4 budget review?", "who is Sarah Chen?"])
    assert np.allclose(first[0], again[0]) and np.allclose(again, computed, atol=1e-5)
    assert float(again[0] @ again[1]) < 0.9  # two questions, two vectors
    assert len(remembering._recent) == 2 and not fresh._recent


def test_texts_embedded_together_get_their_own_vectors_however_unlike_their_lengths():
    # A document's sentences are embedded in batches of like length (one long line no longer pads twenty
    # short ones): each text still gets its own vector, the one it gets embedded alone.
    from chatapp.knowledge.embeddings import MiniLMEmbedder

    embedder = MiniLMEmbedder(remember=0)
    texts = ["The boiler was serviced on 12 November.", "Plot 17 is rented by Faisal Quarrie.",
             "Attendees: " + ", ".join(f"member {n} of the allotment committee" for n in range(30)),
             "Hosepipes are banned.", "The annual exhibition opens on 14 March 2027 and runs for two weeks."]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([text])[0] for text in texts])
    assert np.allclose(together, alone, atol=1e-6)
    assert float(together[0] @ together[2]) < 0.9 and float(together[1] @ together[3]) < 0.9
