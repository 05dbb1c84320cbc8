"""People learnt from layouts a small business's folder uses: a directory with one heading per
person, an actions table that names people by first name, and meeting notes that call someone
by their nickname and surname. Asked offline, the answers come from what was learnt."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from chatapp.engine import ChatEngine
from tests.conftest import only_entity

NOW = datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc)

DIRECTORY = """# Copperbeck Veterinary Surgery — staff

_Updated 3 November 2026. Tell Oksana if your number changes._

## Oksana Trevithick
Practice Manager — rotas, suppliers, client complaints.
Mobile: 07700 918 442
Email: oksana@copperbeckvets.example

## Theodora Penhallow
Director. Signs off any spend over £2,000. Everyone calls her Teddy.
Direct line: 01632 960 118
Email: teddy@copperbeckvets.example

## Thandeka Ellery-Moss
Veterinary Nurse (RVN), night cover — works with Theodora on Tuesdays. (Ask her about the new autoclave.)
Mobile: 07700 918 551
Email: thandeka@copperbeckvets.example

## Suppliers we call

| Name | Organisation | Role | Phone |
|---|---|---|---|
| Garrick Oyelaran | Fenwold Medical Supplies | Account Manager | 01632 960 771 |

## Opening hours
Monday to Friday 8:00 to 19:00.
"""

NOTES = """# Practice meeting — 16 November 2026

Present: Teddy Penhallow, Oksana Trevithick, Thandeka Ellery-Moss

## Actions
| Who | What | By when |
|---|---|---|
| Oksana | Renew the controlled drugs register | 27 November |
| Thandeka | Book the autoclave service | 4 December |
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("copperbeck")
    (folder / "staff.md").write_text(DIRECTORY)
    (folder / "practice-meeting-2026-11-16.md").write_text(NOTES)
    engine = ChatEngine.open(tmp_path_factory.mktemp("data"), load_sample_kb=False)
    assert not engine.ingest(folder).files_failed
    yield engine
    engine.close()


def test_a_heading_per_person_gives_their_role_phone_and_email(engine):
    oksana = only_entity(engine, "Oksana Trevithick").attributes
    assert (oksana["role"], oksana["mobile"], oksana["email"]) == (
        "Practice Manager", "07700 918 442", "oksana@copperbeckvets.example")
    assert only_entity(engine, "Theodora Penhallow").attributes["phone"] == "01632 960 118"
    assert only_entity(engine, "Theodora Penhallow").attributes["role"] == "Director"
    # A title followed by a note after a comma is the title.
    assert only_entity(engine, "Thandeka Ellery-Moss").attributes["role"] == "Veterinary Nurse (RVN)"
    # A heading that is not a person's name is not a person.
    assert not engine.kb.registry.find_by_alias("Opening hours")


def test_a_contact_at_another_firm_is_described_with_their_firm(engine):
    assert only_entity(engine, "Garrick Oyelaran").description == "Account Manager, Fenwold Medical Supplies"


def test_first_names_in_an_actions_table_are_the_people_not_things(engine):
    # "Oksana" is the Oksana of the directory: no entity of its own, no "by when" on her record.
    assert only_entity(engine, "Oksana").name == "Oksana Trevithick"
    assert only_entity(engine, "Thandeka").name == "Thandeka Ellery-Moss"
    assert all(e.type == "person" for e in engine.kb.registry.find_by_alias("Oksana"))
    assert "by_when" not in only_entity(engine, "Oksana Trevithick").attributes


def test_a_nickname_with_the_surname_is_the_same_person(engine):
    # "teddy@" makes Teddy a name Theodora goes by, so the notes' "Teddy Penhallow" is her.
    assert only_entity(engine, "Teddy Penhallow").name == "Theodora Penhallow"


@pytest.mark.parametrize("question, expected", [
    ("Who is the Practice Manager?", "Oksana Trevithick"),
    ("What is Thandeka Ellery-Moss's mobile number?", "07700 918 551"),
])
def test_offline_answers_come_from_the_heading_directory(engine, question, expected):
    result = engine.ask(question, session="layouts", model="offline", now=NOW)
    assert expected in result.response.delivered


PROJECT = """# Project Wren

Lead: Oksana Trevithick
Go-live: 7 December 2026
Budget: £12,400
"""

MAIL = """From: Oksana Trevithick <oksana@copperbeckvets.example>
To: Theodora Penhallow <teddy@copperbeckvets.example>
Date: Mon, 23 Nov 2026 09:00:00 +0000
Subject: Wren slipping

Teddy, the supplier is late, so the go-live moves from 7 December to 11 January.

Oksana
"""


def test_a_change_from_one_value_to_another_supersedes_the_old_value(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "project-wren.md").write_text(PROJECT)
    (folder / "2026-11-23-wren.eml").write_text(MAIL)
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        wren = only_entity(engine, "Project Wren")
        assert wren.attributes["go_live"] == "11 January 2027"
        history = {h["value"]: h["status"] for h in engine.kb.registry.attribute_history(wren.id)
                   if h["key"] == "go_live"}
        assert history["7 December 2026"] == "superseded"
        # A check of an answer repeating the old date now has the newer one to point to.
        pre = engine.turns.preprocess("When does Project Wren go live?")
        checked = engine.turns.postprocess("Project Wren goes live on 7 December 2026.",
                                           question=pre.corrected_input, preprocessed=pre)
        assert "11 January 2027" in checked.delivered
