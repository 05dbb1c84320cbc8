"""The knowledge base's own commands as a user meets them: the sample making way for the user's
documents, `kb remove`, and `kb entities` / `kb entity` showing where the registry's knowledge
came from."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatapp.cli import app
from chatapp.engine import ChatEngine
from chatapp.records import Entity
from tests.conftest import SAMPLE_KB

SAMPLE_FILES = (SAMPLE_KB / "entities.jsonl", SAMPLE_KB / "facts.jsonl",
                SAMPLE_KB / "emails" / "2026-11-26-q4-budget-review.eml")
# Invented people and projects: nothing here is keyed to the sample's names.
OWN_NOTES = {
    "garden/compost.md": "# Compost rota\n\nThe wormery behind the greenhouse is turned every Sunday by Ilse Marwick.\n",
    "garden/seeds.md": "# Seed order\n\nHeirloom tomato seeds arrive from the Quillfeather nursery in March.\n",
    "boat/mooring.txt": "The dinghy Petrel is moored at pontoon C; the harbour fee is paid each April.\n",
}


def cli(*args: str, data_dir, env: dict | None = None):
    """Run a chatapp command in this process, as a user would type it."""
    environment = {"CHATAPP_LOAD_SAMPLE_KB": "false", "COLUMNS": "200", **(env or {})}
    return CliRunner().invoke(app, [*args, "--data-dir", str(data_dir)], env=environment)


def write_notes(folder, notes: dict[str, str]):
    for name, text in notes.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def counts(engine: ChatEngine) -> dict[str, int]:
    tables = ("documents", "chunks", "entities", "facts", "registry_files", "observations")
    return {t: engine.database.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


def chroma_ids(engine: ChatEngine) -> set[str]:
    return set(engine.kb.vector.collection.get(include=[])["ids"])


def sqlite_ids(engine: ChatEngine) -> set[str]:
    return {r["id"] for r in engine.database.query("SELECT id FROM chunks")}


def sample_data_dir(tmp_path):
    """A data dir holding a slice of the sample, as the first chat would have loaded it."""
    data_dir = tmp_path / "data"
    with ChatEngine.open(data_dir, load_sample_kb=False) as engine:
        report = engine.ingest(*SAMPLE_FILES)
        assert report.files_ingested == 3 and not report.files_failed
        origins = {table: {r["origin"] for r in engine.database.query(f"SELECT DISTINCT origin FROM {table}")}
                   for table in ("documents", "entities", "facts")}
        assert origins == {"documents": {"sample"}, "entities": {"sample"}, "facts": {"sample"}}
    return data_dir


# --- the sample makes way for the user's own documents -------------------------------------


def test_the_first_ingest_of_your_own_files_removes_the_sample_and_says_so(tmp_path):
    data_dir = sample_data_dir(tmp_path)
    own = write_notes(tmp_path / "own", OWN_NOTES)

    missing = cli("ingest", str(tmp_path / "no-such-folder"), data_dir=data_dir)
    assert missing.exit_code == 2 and "Removed the sample" not in missing.output  # a typo costs nothing

    result = cli("ingest", str(own), data_dir=data_dir)
    assert result.exit_code == 0, result.output
    assert "Removed the sample knowledge base (3 files)" in result.output
    with ChatEngine.open(data_dir) as engine:
        assert own_only(engine)
        assert chroma_ids(engine) == sqlite_ids(engine)
        assert engine.search("Q4 budget review meeting", k=5, mode="keyword") == []
        assert engine.search("who turns the wormery", k=1)[0].source.endswith("compost.md")
        assert engine.kb.registry.find_by_alias("John Smith") == []

    again = cli("ingest", str(own), "--json", data_dir=data_dir)
    assert json.loads(again.stdout)["sample_removed"] == 0


def test_keep_sample_kb_keeps_it_and_a_later_ingest_does_not_remove_it_either(tmp_path):
    data_dir = sample_data_dir(tmp_path)
    own = write_notes(tmp_path / "own", OWN_NOTES)

    kept = cli("ingest", str(own / "garden"), "--json", data_dir=data_dir, env={"CHATAPP_KEEP_SAMPLE_KB": "true"})
    assert kept.exit_code == 0, kept.output
    assert json.loads(kept.stdout)["sample_removed"] == 0
    # The data dir no longer holds only the sample: adding more of your files leaves it be.
    later = cli("ingest", str(own / "boat"), "--json", data_dir=data_dir)
    assert json.loads(later.stdout)["sample_removed"] == 0
    with ChatEngine.open(data_dir) as engine:
        assert counts(engine)["documents"] == 4 and engine.kb.registry.find_by_alias("John Smith")
        rows = engine.database.query("SELECT origin, count(*) AS n FROM documents GROUP BY origin")
        origins = {r["origin"]: r["n"] for r in rows}
        assert origins == {"sample": 1, "user": 3}


# --- kb remove ------------------------------------------------------------------------------


def own_only(engine) -> bool:
    """Only the user's three notes are left, and only what was learnt from them (none of the sample's
    people, projects or facts)."""
    counted = counts(engine)
    entities = engine.kb.registry.all_entities()
    return (
        counted["documents"] == 3 and counted["chunks"] == 3 and counted["facts"] == 0
        and counted["registry_files"] == 0 and {e.origin for e in entities} <= {"extracted"}
    )


@pytest.fixture()
def own_data_dir(tmp_path):
    own = write_notes(tmp_path / "own", OWN_NOTES)
    data_dir = tmp_path / "data"
    with ChatEngine.open(data_dir, load_sample_kb=False) as engine:
        engine.ingest(own)
        # What extraction at ingest learns from a document, in the rows it keeps per document.
        compost = engine.database.query("SELECT id FROM documents WHERE path LIKE '%compost.md'")[0]["id"]
        with engine.database.transaction() as db:
            db["observations"].insert({"document_id": compost, "subject": "Ilse Marwick", "subject_type": "person",
                                       "key": "chore", "value": "turns the wormery", "confidence": 0.7,
                                       "method": "sentence", "position": 14})
    return data_dir, own


def test_kb_remove_takes_a_file_or_a_folder_out_with_what_was_learnt_from_it(own_data_dir):
    data_dir, own = own_data_dir
    (own / "garden" / "compost.md").unlink()  # a file that is gone can still be removed

    one = cli("kb", "remove", str(own / "garden" / "compost.md"), "--json", data_dir=data_dir)
    assert one.exit_code == 0, one.output
    report = json.loads(one.stdout)
    assert [p.rsplit("/", 1)[-1] for p in report["documents"]] == ["compost.md"]
    assert report["chunks"] == 1 and report["observations"] >= 2  # the recogniser's and the one added above
    with ChatEngine.open(data_dir) as engine:
        assert counts(engine)["documents"] == 2
        assert not engine.database.query("SELECT * FROM observations WHERE subject = 'Ilse Marwick'")
        assert not engine.kb.registry.find_by_alias("Ilse Marwick")  # learnt again without the file
        assert chroma_ids(engine) == sqlite_ids(engine)
        assert all(not hit.source.endswith("compost.md") for hit in engine.search("wormery Sunday", k=3))

    folder = cli("kb", "remove", str(own / "garden"), data_dir=data_dir)
    assert folder.exit_code == 0 and "Removed 1 documents (1 chunks)" in folder.output
    assert "seeds.md" in folder.output
    with ChatEngine.open(data_dir) as engine:
        assert [r["path"].rsplit("/", 1)[-1] for r in engine.database.query("SELECT path FROM documents")] == [
            "mooring.txt"]
        assert engine.search("heirloom tomato seeds", k=3, mode="keyword") == []


def test_kb_remove_says_when_nothing_matched(own_data_dir, tmp_path):
    data_dir, own = own_data_dir
    nothing = cli("kb", "remove", str(tmp_path / "elsewhere"), data_dir=data_dir)
    assert nothing.exit_code == 1
    assert nothing.output.strip().startswith("Nothing to remove") and len(nothing.output.strip().splitlines()) == 1
    empty = cli("kb", "remove", data_dir=data_dir)
    assert empty.exit_code == 2 and "--sample" in empty.output and "Traceback" not in empty.output
    with ChatEngine.open(data_dir) as engine:
        assert counts(engine)["documents"] == 3


def test_kb_remove_sample_leaves_your_own_documents(tmp_path):
    data_dir = sample_data_dir(tmp_path)
    own = write_notes(tmp_path / "own", OWN_NOTES)
    cli("ingest", str(own), data_dir=data_dir, env={"CHATAPP_KEEP_SAMPLE_KB": "true"})

    removed = cli("kb", "remove", "--sample", "--json", data_dir=data_dir)
    assert removed.exit_code == 0, removed.output
    report = json.loads(removed.stdout)
    assert len(report["documents"]) == 1 and len(report["registry_files"]) == 2
    assert report["entities"] >= 25 and report["facts"] >= 100
    with ChatEngine.open(data_dir) as engine:
        assert own_only(engine)
        assert chroma_ids(engine) == sqlite_ids(engine)

    again = cli("kb", "remove", "--sample", data_dir=data_dir)
    assert again.exit_code == 1 and "Nothing to remove" in again.output


# --- kb entities and kb entity --------------------------------------------------------------


MARKUP_NAME = "[bold]Orla Brennick[/]"


@pytest.fixture()
def registry_data_dir(tmp_path):
    """A user entity from an entities.jsonl the user wrote, and an extracted one as extraction at
    ingest stores it: the entity, its current attributes, and the history of every value."""
    people = tmp_path / "mine" / "entities.jsonl"
    people.parent.mkdir()
    rows = [
        {"id": "person:ilse", "type": "person", "name": "Ilse Marwick", "aliases": ["Ilse"],
         "attributes": {"email": "ilse@wormery.example", "role": "compost keeper"}},
        {"id": "project:petrel", "type": "project", "name": "Petrel refit", "aliases": ["Petrel"]},
        {"id": "person:markup", "type": "person", "name": MARKUP_NAME, "attributes": {"note": "[red]x[/]"}},
        {"id": "person:ilse-other", "type": "person", "name": "Ilse Tannhauser", "aliases": ["Ilse T"]},
    ]
    people.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    data_dir = tmp_path / "data"
    with ChatEngine.open(data_dir, load_sample_kb=False) as engine:
        engine.ingest(people)
        learnt = Entity(id="person:bram", type="person", name="Bram Oosterveld", aliases=["Bram"],
                        attributes={"phone": "+31 20 555 0199"}, source="", origin="extracted")
        history = [
            ("phone", "+31 20 555 0199", "current", "/docs/mail/2026-03-02-boat.eml", 0.9, "signature", "2026-03-02"),
            ("phone", "+31 20 555 0199", "current", "/docs/notes/crew.md", 0.6, "key_value", "2026-01-10"),
            ("phone", "+31 20 555 0123", "superseded", "/docs/mail/2025-06-01-[b]old[/b].eml", 0.8, "signature",
             "2025-06-01"),
            ("phone", "+31 20 555 0777", "disputed", "/docs/mail/2026-04-01-signoff.eml", 0.4, "signoff",
             "2026-04-01"),
        ]
        with engine.database.transaction() as db:
            engine.kb.registry.store_entities(db, [learnt])
            db["attribute_history"].insert_all(
                {"entity_id": "person:bram", "key": k, "value": v, "status": s, "source": src, "position": 10,
                 "confidence": c, "method": m, "doc_date": d}
                for k, v, s, src, c, m, d in history)
    return data_dir, people


def test_kb_entities_lists_origin_sources_and_confidence(registry_data_dir):
    data_dir, people = registry_data_dir
    result = cli("kb", "entities", "--json", data_dir=data_dir)
    assert result.exit_code == 0, result.output
    listed = {e["id"]: e for e in json.loads(result.stdout)["entities"]}
    assert listed["person:ilse"]["origin"] == "user" and listed["person:ilse"]["confidence"] == 1.0
    assert listed["person:ilse"]["sources"] == [str(people.resolve())]
    bram = listed["person:bram"]
    assert bram["origin"] == "extracted" and bram["confidence"] == 0.9
    assert bram["sources"] == ["/docs/mail/2026-03-02-boat.eml", "/docs/notes/crew.md",
                               "/docs/mail/2025-06-01-[b]old[/b].eml", "/docs/mail/2026-04-01-signoff.eml"]

    projects = json.loads(cli("kb", "entities", "--type", "Project", "--json", data_dir=data_dir).stdout)
    assert [e["name"] for e in projects["entities"]] == ["Petrel refit"]

    table = cli("kb", "entities", data_dir=data_dir).output
    assert MARKUP_NAME in table  # printed as written, not as bold text
    assert "extracted" in table and "2026-03-02-boat.eml" in table

    none = cli("kb", "entities", "--type", "spaceship", data_dir=data_dir)
    assert none.exit_code == 0 and "No entities of type 'spaceship'" in none.output and "person" in none.output


def test_kb_entity_shows_each_value_with_its_sources_and_what_it_replaced(registry_data_dir):
    data_dir, people = registry_data_dir
    shown = cli("kb", "entity", "bram", data_dir=data_dir)
    assert shown.exit_code == 0, shown.output
    assert "+31 20 555 0199" in shown.output and "2026-03-02-boat.eml" in shown.output and "crew.md" in shown.output
    assert "+31 20 555 0123" in shown.output and "superseded" in shown.output
    assert "2025-06-01-[b]old[/b].eml" in shown.output  # a path with markup in it, printed as it is
    # A newer reading that lost to surer sources is shown as such, not as the value.
    assert "+31 20 555 0777" in shown.output and "disputed, not used" in shown.output

    found = json.loads(cli("kb", "entity", "BRAM OOSTERVELD", "--json", data_dir=data_dir).stdout)["entity"]
    phone = next(a for a in found["attributes"] if a["key"] == "phone")
    assert phone["value"] == "+31 20 555 0199" and phone["confidence"] == 0.9
    assert [s["method"] for s in phone["sources"]] == ["signature", "key_value"]
    assert [old["value"] for old in phone["superseded"]] == ["+31 20 555 0123"]
    assert [(d["value"], d["sources"][0]["method"]) for d in phone["disputed"]] == [("+31 20 555 0777", "signoff")]

    user = json.loads(cli("kb", "entity", "Ilse Marwick", "--json", data_dir=data_dir).stdout)["entity"]
    email = next(a for a in user["attributes"] if a["key"] == "email")
    assert email["value"] == "ilse@wormery.example" and email["sources"][0]["source"] == str(people.resolve())

    marked = cli("kb", "entity", "person:markup", data_dir=data_dir)
    assert marked.exit_code == 0 and MARKUP_NAME in marked.output and "[red]x[/]" in marked.output


def test_kb_entity_lists_the_candidates_of_an_ambiguous_name_and_offers_close_ones_for_an_unknown(
        registry_data_dir, tmp_path):
    data_dir, _ = registry_data_dir
    # A second Ilse, from another file of the user's, shares the alias.
    more = tmp_path / "more" / "entities.jsonl"
    more.parent.mkdir()
    more.write_text(json.dumps({"id": "person:ilse-b", "type": "person", "name": "Ilse Brandt",
                                "aliases": ["Ilse"]}) + "\n", encoding="utf-8")
    with ChatEngine.open(data_dir) as engine:
        engine.ingest(more)

    ambiguous = cli("kb", "entity", "ilse", data_dir=data_dir)
    assert ambiguous.exit_code == 1
    assert "2 entities are called 'ilse'" in ambiguous.output
    assert "person:ilse " in ambiguous.output and "person:ilse-b" in ambiguous.output
    candidates = json.loads(cli("kb", "entity", "ilse", "--json", data_dir=data_dir).stdout)["candidates"]
    assert {c["id"] for c in candidates} == {"person:ilse", "person:ilse-b"}

    unknown = cli("kb", "entity", "Ilse Marwik", data_dir=data_dir)
    assert unknown.exit_code == 1
    assert "No entity is called 'Ilse Marwik'" in unknown.output and "Ilse Marwick" in unknown.output
    nothing = cli("kb", "entity", "zzqx", "--json", data_dir=data_dir)
    assert json.loads(nothing.stdout) == {"entity": None, "candidates": [], "close_matches": []}
