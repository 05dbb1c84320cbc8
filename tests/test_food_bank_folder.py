"""A food bank's folder: meeting notes whose headings sit right above a line starting with a name, and
a donations log keyed by date. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in
the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

MINUTES = """# Trustee meeting, 12 November 2026

Present: Orla Nwachukwu-Berg (chair), Giedre Paulauskaite, Fintan McAleese

## Grant
Giedre will submit the Lottery Community Fund application by 30 November.

## Van
Fintan got a quote from Kerrow Motors.
"""

DONATIONS = """date,donor,type,amount
2026-11-02,St Brannock's Church,cash,"£650"
2026-11-09,Harlow Street Co-op,food,"£1,200"
2026-11-16,Anonymous,cash,"£250"
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "foodbank", {
        "trustee-meeting-2026-11-12.md": MINUTES, "donations-nov.csv": DONATIONS})
    yield engine
    engine.close()


def test_a_heading_does_not_run_on_into_the_name_below_it(engine):
    names = {e.name for e in engine.kb.registry.all_entities()}
    assert "Grant Giedre" not in names and "Van Fintan" not in names
    assert "Giedre Paulauskaite" in names


def test_a_log_keyed_by_date_names_each_record_by_its_party(engine):
    church = only_entity(engine, "St Brannock's Church")
    assert church.attributes["amount"] == "£650" and church.attributes["date"] == "2026-11-02"
    assert not [e for e in engine.kb.registry.all_entities() if e.name.startswith("2026-")]


def test_an_amount_read_off_another_records_row_is_corrected_to_this_ones(engine):
    wrong = checked(engine, "How much did St Brannock's Church give?", "St Brannock's Church gave £250 in cash.")
    assert wrong.delivered == "St Brannock's Church gave £650 [corrected] in cash."
    assert checked(engine, "How much did St Brannock's Church give?",
                   "St Brannock's Church gave £650 in cash.").hallucination_flags == []
