"""A heritage trust's project page with YAML front matter ("owner:", no lead) and a team table. The user
calls the project by a word of its name in lowercase ("the signage project"). Real ChatEngine, SQLite,
Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from chatapp.knowledge.short_names import DescribedThings
from chatapp.records import Entity
from tests.conftest import checked, engine_learnt_from, offline_answer

PAGE = """---
title: Harbour Walk Signage
status: in progress
owner: Talulah Brennock
budget: £14,800
due: 2027-05-21
---

# Harbour Walk Signage

Replacement of the twelve interpretation boards along the harbour walk. Osian Varcoe handles the printer.
The boards will be made of recycled aluminium.
"""

OTHER_PAGE = """# Lifeboat House Roof Repair

Project officer: Osian Varcoe
Budget: £6,200
"""

TEAM = """# Team

| Name | Role | Email |
|---|---|---|
| Talulah Brennock | Project Officer | t.brennock@harbourtrust.example |
| Osian Varcoe | Procurement Lead | osian.varcoe@harbourtrust.example |
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "harbour-trust", {
        "harbour-walk.md": PAGE, "lifeboat-house.md": OTHER_PAGE, "team.md": TEAM})
    yield engine
    engine.close()


def test_a_project_called_by_a_word_of_its_name_is_resolved(engine):
    resolved = engine.turns.preprocess("what is the status of the signage project").resolved_entities
    assert [(r.surface, r.canonical_name) for r in resolved] == [("signage project", "Harbour Walk Signage")]
    assert "in progress" in offline_answer(engine, "what is the status of the signage project", "status")


def test_the_owner_of_a_project_with_no_lead_is_who_leads_it(engine):
    wrong = checked(engine, "Who leads the signage project?", "Osian Varcoe leads the signage project.")
    assert [(f.hallucination_type, f.content) for f in wrong.hallucination_flags] == [("WrongAttribute", "Osian Varcoe")]
    assert "Talulah Brennock [corrected] leads" in wrong.delivered
    right = checked(engine, "Who leads the harbour walk project?", "Talulah Brennock leads the Harbour Walk Signage project.")
    assert right.hallucination_flags == []


def test_words_several_names_share_or_everyday_words_name_no_project():
    things = DescribedThings([
        Entity(id="project:a", type="project", name="North Quay Signage", aliases=[]),
        Entity(id="project:b", type="project", name="South Quay Signage", aliases=[]),
        Entity(id="project:c", type="project", name="New Clinic Wing", aliases=[]),
        Entity(id="person:d", type="person", name="Perpetua Quay", aliases=[]),
    ])
    assert things.find("who runs the signage project?") == []  # two projects have the word
    assert things.find("how is the new project going?") == []  # "new" tells no name apart
    assert things.find("the north quay project") == [((4, 22), "project:a")]
    assert things.find("the clinic wing job") == [((4, 19), "project:c")]


def test_an_offline_quote_of_front_matter_reads_as_the_pages_fields(engine):
    answer = offline_answer(engine, "who handles the printer for the signage?", "printer")
    assert "Osian Varcoe handles the printer" in answer
    assert "---" not in answer and "title:" not in answer  # before: "--- title: Harbour Walk Signage status: …"
