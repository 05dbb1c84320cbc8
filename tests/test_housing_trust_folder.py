"""A housing trust's estates folder: a project page whose lead is its "Project manager:" and whose actions
table names an owner the rest of the folder never mentions, and a mail saying when completion "is now
expected". Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

PAGE = """# Boiler replacement — Quarry Lane depot

Project manager: Sipho Mbatha
Budget: £184,500
Contractor: Hearthstone Heating Ltd
Target completion: 19 February 2027

## Actions

| Action | Owner | Due |
|---|---|---|
| Confirm asbestos survey | Tamsin Quennell | 11 December 2026 |
| Order flue liner | Sipho Mbatha | 18 December 2026 |
"""

UPDATE = """From: Sipho Mbatha <s.mbatha@quarrytown.example>
To: Odalys Ferreira-Hall <o.ferreirahall@quarrytown.example>
Subject: Boiler replacement - contractor price
Date: Thu, 3 Dec 2026 09:14:00 +0000

Odalys,

Hearthstone have come back with their final figure: £191,200, because the flue run is longer than
surveyed. Completion is now expected on 5 March 2027.

The scaffold hire follows the same plan: erection now starts on 11 January 2027 and the strike moves to
19 March 2027.

Sipho
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "quarrytown-estates", {
        "boiler-replacement.md": PAGE, "2026-12-03-boiler-update.eml": UPDATE})
    yield engine
    engine.close()


def test_a_date_a_mail_says_is_now_expected_replaces_the_pages(engine):
    assert "5 March 2027" in offline_answer(engine, "When is the boiler replacement due to finish?", "completion")
    old = checked(engine, "When is the boiler replacement due to finish?",
                  "The boiler replacement is due to be completed on 19 February 2027.")
    assert "5 March 2027 [corrected]" in old.delivered


def test_a_project_manager_is_who_leads_the_work(engine):
    assert "Sipho Mbatha" in offline_answer(engine, "Who leads the boiler replacement?", "lead")
    wrong = checked(engine, "Who leads the boiler replacement?", "The boiler replacement is led by Tamsin Quennell.")
    assert [(f.hallucination_type, f.content) for f in wrong.hallucination_flags] == [("WrongAttribute", "Tamsin Quennell")]
    assert "Sipho Mbatha [corrected]" in wrong.delivered
    right = checked(engine, "Who leads the boiler replacement?", "Sipho Mbatha leads the boiler replacement.")
    assert right.hallucination_flags == []


def test_an_owner_in_a_pages_actions_table_is_a_person(engine):
    assert only_entity(engine, "Tamsin Quennell").type == "person"


def test_one_of_two_new_dates_a_sentence_gives_is_not_replaced_by_the_other(engine):
    right = checked(engine, "When is the scaffold struck?", "The scaffold strike has moved to 19 March 2027.")
    assert right.hallucination_flags == []
