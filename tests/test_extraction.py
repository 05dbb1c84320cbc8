"""Knowledge learnt from a folder of ordinary work documents with no registry files: people and
their addresses, projects and their leads, records, aliases, superseded values, and what
happens when a file changes, is deleted, or a user's own entities.jsonl says otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatapp.engine import ChatEngine
from tests.conftest import only_entity

DIRECTORY = """# Fernhill Studio — Team

- **Dana Kim** — Finance Lead, Operations. Email: dana.kim@fernhill.example. Phone: 020 7946 0311
- **Tobias Wren** — Senior Designer. Email: tobias.wren@fernhill.example
- **Dana Whitcombe** — Office Manager. Email: dana.w@fernhill.example. Phone: 020 7946 0312
- Mireille Anand — Bookkeeper — mireille@fernhill.example

| Name | Role | Email | Phone |
|------|------|-------|-------|
| Priyanka Osei | Studio Director | priyanka@fernhill.example | 020 7946 0300 |
"""

PROJECT = """---
title: Project Heron — client portal rebuild
date: 2026-09-01
status: In progress
---

# Project Heron

Lead: Tobias Wren
Sponsor: Priyanka Osei
Budget: £95,000 (approved in August)
Milestones: design sign-off 2 October 2026; launch 4 May 2027

## Notes

The portal replaces the old extranet.
"""

MAIL_OLD = """From: Priyanka Osei <priyanka@fernhill.example>
To: Dana Kim <dana.kim@fernhill.example>
Subject: Heron
Date: Mon, 7 Sep 2026 09:00:00 +0100

Dana, the Heron launch stays on 4 May 2027 for now.

Thanks,
Priyanka
"""

MAIL_NEW = """From: Robert Achterberg <robert.achterberg@fernhill.example>
To: All Staff <everyone@fernhill.example>
Cc: Tobias Wren <tobias.wren@fernhill.example>
Subject: Heron launch moved
Date: Tue, 10 Nov 2026 08:30:00 +0000

Hi all,

After the security review the Heron launch has moved to 11 May.

Cheers,
Bob

Robert Achterberg | Head of Delivery | 020 7946 0320
Fernhill Studio Ltd
"""

PEOPLE_CSV = "full name,job title,e-mail\nMarta Lindgren,Account Manager,marta@fernhill.example\n"
ROTA_JSON = json.dumps({"rota": [{"name": "Olu Bankole", "duty": "Fire warden", "floor": "2"}]})


@pytest.fixture(scope="module")
def learnt(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fernhill")
    (folder / "team.md").write_text(DIRECTORY)
    (folder / "project-heron.md").write_text(PROJECT)
    (folder / "2026-09-07-heron.eml").write_text(MAIL_OLD)
    (folder / "2026-11-10-heron-moved.eml").write_text(MAIL_NEW)
    (folder / "people.csv").write_text(PEOPLE_CSV)
    (folder / "rota.json").write_text(ROTA_JSON)
    engine = ChatEngine.open(tmp_path_factory.mktemp("data"), load_sample_kb=False)
    report = engine.ingest(folder)
    assert not report.files_failed
    yield engine, folder, report
    engine.close()


def test_directory_lines_and_tables_give_people_with_role_email_and_phone(learnt):
    engine, _, report = learnt
    assert report.entities_learnt >= 6
    dana = only_entity(engine, "Dana Kim")
    assert dana.origin == "extracted"
    assert dana.attributes["email"] == "dana.kim@fernhill.example"
    assert dana.attributes["role"] == "Finance Lead"
    assert dana.attributes["department"] == "Operations"
    assert dana.attributes["phone"] == "020 7946 0311"
    assert only_entity(engine, "Priyanka Osei").attributes["role"] == "Studio Director"
    # Fields set apart by spaced dashes, no labels.
    mireille = only_entity(engine, "Mireille Anand").attributes
    assert (mireille["role"], mireille["email"]) == ("Bookkeeper", "mireille@fernhill.example")


def test_mail_headers_and_signatures_give_addresses_roles_and_the_name_signed(learnt):
    engine, _, _ = learnt
    robert = only_entity(engine, "Robert Achterberg")
    assert robert.attributes["email"] == "robert.achterberg@fernhill.example"
    assert robert.attributes["role"] == "Head of Delivery"
    assert robert.attributes["phone"] == "020 7946 0320"
    # He signs "Bob": the sign-off under his own mail is a name he goes by.
    assert only_entity(engine, "Bob").id == robert.id
    # "All Staff" is a list, not a person.
    assert not engine.kb.registry.find_by_alias("All Staff")


def test_a_shared_first_name_stays_ambiguous(learnt):
    engine, _, _ = learnt
    assert {e.name for e in engine.kb.registry.find_by_alias("Dana")} == {"Dana Kim", "Dana Whitcombe"}


def test_a_project_page_gives_its_lead_budget_and_milestones(learnt):
    engine, _, _ = learnt
    heron = only_entity(engine, "Project Heron")
    assert heron.type == "project"
    tobias = only_entity(engine, "Tobias Wren")
    assert heron.attributes["lead"] == tobias.id
    assert heron.attributes["budget"] == "£95,000"
    assert heron.attributes["design_sign_off"] == "2 October 2026"
    assert only_entity(engine, "Heron").id == heron.id


def test_a_newer_document_supersedes_an_older_value_and_both_are_kept(learnt):
    # The mail of November 2026 says only "moved to 11 May": its year is the next May, 2027.
    engine, folder, _ = learnt
    heron = only_entity(engine, "Project Heron")
    assert heron.attributes["launch"] == "11 May 2027"
    history = [h for h in engine.kb.registry.attribute_history(heron.id) if h["key"] == "launch"]
    current = [h for h in history if h["status"] == "current"]
    superseded = [h for h in history if h["status"] == "superseded"]
    assert current[0]["source"].endswith("2026-11-10-heron-moved.eml")
    assert superseded and superseded[0]["value"] == "4 May 2027"
    assert superseded[0]["source"].endswith("project-heron.md")


def test_csv_and_json_rows_are_records(learnt):
    engine, _, _ = learnt
    marta = only_entity(engine, "Marta Lindgren")
    assert marta.attributes["role"] == "Account Manager"
    assert marta.attributes["email"] == "marta@fernhill.example"
    assert only_entity(engine, "Olu Bankole").attributes["duty"] == "Fire warden"


def test_the_learnt_names_become_correction_vocabulary(learnt):
    engine, _, _ = learnt
    vocabulary = engine.kb.registry.vocabulary()
    assert {"Achterberg", "Whitcombe", "Bankole"} <= vocabulary


def _folder(tmp_path, files: dict[str, str]):
    """A folder of the given documents (name -> text) under tmp_path."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_an_edited_file_is_read_again_and_a_deleted_one_takes_its_knowledge_with_it(tmp_path):
    folder = _folder(tmp_path, {"team.md": DIRECTORY})
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        assert only_entity(engine, "Tobias Wren").attributes["role"] == "Senior Designer"
        (folder / "team.md").write_text(DIRECTORY.replace("Senior Designer", "Design Director"))
        engine.ingest(folder)
        assert only_entity(engine, "Tobias Wren").attributes["role"] == "Design Director"
        (folder / "team.md").unlink()
        engine.ingest(folder, prune=True)
        assert not engine.kb.registry.find_by_alias("Tobias Wren")
        assert not engine.database.query("SELECT * FROM observations")


def test_the_users_own_registry_wins_over_what_documents_say(tmp_path):
    own = {"id": "person:dana", "type": "person", "name": "Dana Kim",
           "attributes": {"email": "dana@home.example", "role": "CFO"}}
    folder = _folder(tmp_path, {"team.md": DIRECTORY, "entities.jsonl": json.dumps(own) + "\n"})
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        dana = only_entity(engine, "Dana Kim")
        assert dana.origin == "user"
        assert dana.attributes == {"email": "dana@home.example", "role": "CFO"}
        assert only_entity(engine, "Tobias Wren").origin == "extracted"


def test_learning_can_be_switched_off(tmp_path):
    folder = _folder(tmp_path, {"team.md": DIRECTORY})
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False, learn_from_documents=False) as engine:
        engine.ingest(folder)
        assert not engine.kb.registry.find_by_alias("Dana Kim")


@pytest.mark.parametrize(
    ("question", "expected", "absent"),
    [
        ("What is Dana Kim's email address?", "dana.kim@fernhill.example", "dana.w@fernhill.example"),
        ("Who leads Project Heron?", "Tobias Wren", "Priyanka Osei"),
        ("Who is the fire warden?", "Olu Bankole", "Dana Kim"),
        ("who is the head of delivery?", "Robert Achterberg", "Tobias Wren"),
        # A role named as whose value is asked for: the person it describes, then the value.
        ("What is the studio director's email?", "priyanka@fernhill.example", "dana.kim@fernhill.example"),
        ("what's the office manager's phone number?", "020 7946 0312", "020 7946 0311"),
        ("email of the bookkeeper?", "mireille@fernhill.example", "dana.kim@fernhill.example"),
    ],
)
def test_the_offline_answer_comes_from_what_documents_taught_with_its_source(learnt, question, expected, absent):
    engine, _, _ = learnt
    result = engine.ask(question, model="offline")
    delivered = result.response.delivered
    assert expected in delivered and absent not in delivered
    assert "Sources:" in delivered
    assert not result.response.hallucination_flags


def test_asked_who_someone_is_the_offline_answer_describes_them_not_what_lists_them(tmp_path):
    rooms = "room,wing,assigned to\nR-12,North,Tobias Wren\nR-14,North,Tobias Wren\n"
    desk = "| Name | Role | Email | Phone |\n|---|---|---|---|\n| Ilse Marten | Receptionist | ilse@fernhill.example | ext. 214 |\n"
    folder = _folder(tmp_path, {"team.md": DIRECTORY, "rooms.csv": rooms, "desk.md": desk})
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        response = engine.ask("Who is Tobias Wren?", model="offline").response
        assert "Senior Designer" in response.delivered and "tobias.wren@fernhill.example" in response.delivered
        assert "R-12's" not in response.delivered
        assert response.recommendation == "Accept", response.delivered
        # "ext. 214" is one value, not a sentence ending at "ext.": stated by the directory, not flagged.
        response = engine.ask("Who is Ilse Marten?", model="offline").response
        assert "ext. 214" in response.delivered and not response.hallucination_flags, response.delivered


def test_the_offline_answer_says_a_value_changed_and_where_it_was_before(learnt):
    engine, _, _ = learnt
    response = engine.ask("When is the Heron launch?", model="offline").response
    assert "11 May 2027" in response.delivered
    assert "It was 4 May 2027 before (project-heron.md)" in response.delivered
    assert not response.hallucination_flags  # telling the history is no stale claim


def test_a_change_in_dated_notes_beats_an_undated_page_and_names_with_apostrophes_count(tmp_path):
    folder = _folder(tmp_path, {
        "falcon.md": "# Falcon\n\nOwner: Ines Varga\nStatus: build\nRelease: 9 December 2026\n",
        # The date is in the middle of the file name; the page above has none.
        "notes-2026-11-02.md": "# Weekly sync\n\n- Siobhan O'Neill (Head of Support) said the backlog is down to 41.\n"
                               "- The Falcon release has moved to 14 January 2027.\n",
    })
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        falcon = only_entity(engine, "Falcon")
        assert falcon.attributes["release"] == "14 January 2027"
        assert only_entity(engine, "Siobhan O'Neill").attributes["role"] == "Head of Support"
        response = engine.ask("when is the falcon release?", model="offline").response
        assert "14 January 2027" in response.delivered and "before (falcon.md)" in response.delivered
        assert not response.hallucination_flags  # the file named after "before" is a citation


def test_a_column_of_suppliers_gives_firms_not_people_however_their_names_read(tmp_path):
    suppliers = ("supplier,category,account_manager\nHarrow Vet Supplies,Drugs,Dominik Sauer\n"
                 "Pelham Imaging,Scanners,Fenella Roarke\n")
    folder = _folder(tmp_path, {"suppliers.csv": suppliers})
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        assert {only_entity(engine, name).type for name in ("Harrow Vet Supplies", "Pelham Imaging")} == {"organization"}
        # The account manager is a person of their own, whom the firm's record points to.
        manager = only_entity(engine, "Dominik Sauer")
        assert manager.type == "person"
        assert only_entity(engine, "Harrow Vet Supplies").attributes["account_manager"] == manager.id
        # A firm has no first name: "which vet" is no mention of it.
        resolved = engine.preprocess("which vet is on call this weekend?").resolved_entities
        assert not any(r.entity_id and "harrow" in r.entity_id for r in resolved)
