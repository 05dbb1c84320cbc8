"""An allotment association's folder: a waiting list numbered by its first column ("Position") with the
applicants in a column no header calls a name, and the AGM minutes. Real ChatEngine, SQLite, Chroma and
spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

WAITING_LIST = """Position,Applicant,Email,Plot size wanted,Applied
1,Hollis Teague,hollis.teague@mailbox.example,Half,2025-11-02
2,Marisol Quennevais,m.quennevais@mailbox.example,Full,2026-01-19
3,Dov Abernethy-Kaur,dov.ak@mailbox.example,Half,2026-03-08
"""

MINUTES = """Westbrook Allotment Association
Annual General Meeting - Minutes, 9 November 2026

Chair: Ferdinand Oyelowo-Blake
Treasurer: Priscilla Vantongeren

1. Plot rents will rise to £62 per year from 1 April 2027.
2. The water budget for the site is £1,400 for the year.
3. The new polytunnel project is led by Eamon Duggleby, with a budget of GBP 3,150.
"""

MAIL = """From: Eamon Duggleby <secretary@westbrookallotments.example>
To: Priscilla Vantongeren <treasurer@westbrookallotments.example>
Subject: Polytunnel - supplier price
Date: Tue, 1 Dec 2026 19:02:00 +0000

Priscilla,

Greenframe have confirmed the polytunnel at GBP 3,480 delivered, so the budget needs to go up from
the GBP 3,150 agreed at the AGM. The committee agreed by email yesterday.

Also: the water company says water for the site goes up to £2.40 per cubic metre from January.

Eamon
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "westbrook-allotments", {
        "plot-waiting-list.csv": WAITING_LIST, "agm-minutes-2026.txt": MINUTES,
        "2026-12-01-polytunnel.eml": MAIL})
    yield engine
    engine.close()


def test_a_list_numbered_by_its_first_column_is_a_list_of_the_people_in_it(engine):
    entities = engine.kb.registry.all_entities()
    assert not [e.name for e in entities if e.name in ("1", "2", "3")]  # the places are no records
    marisol = only_entity(engine, "Marisol Quennevais")
    assert marisol.type == "person"
    assert marisol.attributes.get("email") == "m.quennevais@mailbox.example"
    assert "role" not in marisol.attributes  # "Position: 2" is her place in the list, no job
    assert marisol.attributes.get("position") == "2"


def test_a_column_named_by_what_the_question_asks_in_another_form_answers_it(engine):
    answer = offline_answer(engine, "when did Marisol apply?", "applied")
    assert "Marisol Quennevais applied on 2026-01-19." in answer
    wrong = checked(engine, "When did Marisol apply?", "Marisol Quennevais applied on 19 March 2026.")
    assert "applied on 19 January 2026 [corrected]" in wrong.delivered  # in the answer's own date format


def test_a_sum_of_money_two_documents_give_is_no_organisation(engine):
    names = [e.name for e in engine.kb.registry.all_entities()]
    assert not [n for n in names if "3,150" in n or "3,480" in n], names  # "GBP 3,150" was a firm


def test_a_new_price_per_unit_is_no_new_value_for_a_total(engine):
    total = checked(engine, "What is the water budget for the site?", "The water budget for the site is £1,400 for the year.")
    assert total.hallucination_flags == []  # not "corrected" to the new £2.40 per cubic metre
