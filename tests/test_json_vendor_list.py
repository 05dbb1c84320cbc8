"""A JSON file that lists firms under a key saying so ("vendors", "suppliers", "subcontractors") gives
organisations, each with its contact as a person of its own, as a CSV with a "Supplier" column does;
a "clients" list of people's names still gives people. Real ingest of a small folder, offline answers."""

from __future__ import annotations

import pytest

from tests.conftest import engine_learnt_from, offline_answer, only_entity

VENDORS = """{"vendors": [
  {"name": "Quarrymount Aggregates", "contact": "Ferdia Lynch", "email": "ferdia@quarrymount.ie", "terms": "30 days"},
  {"name": "Slaney Scaffolding", "contact": "Aoife Dunne", "email": "aoife.dunne@slaneyscaff.ie", "terms": "45 days"}
],
 "subcontractors": [{"name": "Ballyroan Groundworks", "contact": "Cathal Rooney", "terms": "60 days"}],
 "clients": [{"name": "Siobhan Devlin", "since": "2021"}, {"name": "Eamon Carberry", "since": "2024"}]
}
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "vendors", {"vendors.json": VENDORS})
    yield engine
    engine.close()


def test_a_list_of_vendors_gives_organisations_with_their_contacts(engine):
    for firm in ("Quarrymount Aggregates", "Slaney Scaffolding", "Ballyroan Groundworks"):
        assert only_entity(engine, firm).type == "organization", firm
    assert only_entity(engine, "Aoife Dunne").type == "person"
    answer = offline_answer(engine, "what are the payment terms for quarrymount aggregates", "terms")
    assert "30 days" in answer and "45 days" not in answer
    assert "Quarrymount Aggregates' terms are 30 days." in answer  # a plural name and key read as English
    assert "Aoife Dunne" in offline_answer(engine, "who is the contact at slaney scaffolding", "contact")


def test_a_list_of_clients_that_are_people_stays_people(engine):
    assert only_entity(engine, "Siobhan Devlin").type == "person"
