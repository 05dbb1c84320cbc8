"""A food bank's folder: meeting notes whose headings sit right above a line starting with a name, and
a donations log keyed by date. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in
the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

MINUTES = """# Trustee meeting, 12 November 2026

Present: Orla Nwachukwu-Berg (chair), Giedre Paulauskaite, Fintan McAleese

## Grant
Giedre will submit the Lottery Community Fund application by 30 November. We are asking for £24,500.

## Van
Fintan got two quotes: Kerrow Motors £3,450 and
Brightline Vans £3,980. Trustees agreed to go with Kerrow Motors.
"""

DONATIONS = """date,donor,type,amount
2026-11-02,St Brannock's Church,cash,"£650"
2026-11-09,Harlow Street Co-op,food,"£1,200"
2026-11-16,Anonymous,cash,"£250"
"""


MAIL = """From: Giedre Paulauskaite <giedre@foodbank.example>
To: Orla Nwachukwu-Berg <orla@foodbank.example>
Date: Tue, 24 Nov 2026 18:22:00 +0000
Subject: Grant application

Hi Orla,

The Lottery Community Fund has extended the deadline to 11 December, so I'll submit then. After going
through the budget again I have reduced our ask to £22,800.

Giedre
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "foodbank", {
        "trustee-meeting-2026-11-12.md": MINUTES, "donations-nov.csv": DONATIONS, "2026-11-24-grant.eml": MAIL})
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


@pytest.mark.parametrize("question, answer, delivered", [
    ("When is the grant application due?", "Giedre will submit the Lottery Community Fund application by 30 November.",
     "Giedre will submit the Lottery Community Fund application by 11 December [corrected]."),
    ("How much is the grant for?", "The food bank is asking the Lottery Community Fund for £24,500.",
     "The food bank is asking the Lottery Community Fund for £22,800 [corrected]."),
])
def test_a_value_a_later_email_says_was_changed_to_another_is_out_of_date(engine, question, answer, delivered):
    """"extended the deadline to 11 December" names no old value: the older notes' value is the old one."""
    result = checked(engine, question, answer)
    assert result.delivered == delivered
    assert [f.hallucination_type for f in result.hallucination_flags] == ["TemporalError"]


def test_an_answer_telling_the_change_is_not_flagged(engine):
    result = checked(engine, "What's the latest on the grant?",
                     "The deadline was extended to 11 December, and Giedre reduced the ask to £22,800.")
    assert result.hallucination_flags == []


def test_an_amount_a_list_gives_to_another_name_is_corrected_to_this_names_own(engine):
    # The notes' line is wrapped after "and": the two quotes are still one sentence.
    swapped = checked(engine, "How much did Kerrow Motors quote?", "Kerrow Motors quoted £3,980 for the van.")
    assert swapped.delivered == "Kerrow Motors quoted £3,450 [corrected] for the van."
    assert [f.hallucination_type for f in swapped.hallucination_flags] == ["ContradictsFact"]
    for right in ("Kerrow Motors quoted £3,450 for the van.",
                  "The trustees chose Kerrow Motors, who quoted £3,450, over Brightline Vans at £3,980."):
        assert checked(engine, "Which garage is fixing the van?", right).hallucination_flags == []
