"""A small consultancy's folder: a team page with one heading per person, a project page whose budget
and report date a later meeting note changes "(was …)", a mail handing an account to another
consultant ("takes over as account lead … from …") and one replacing a project lead ("replaces … as
project lead"), an account lead and a project lead on one piece of work, contract values with a note
after them, hyphenated names. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in
the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

TEAM = """# Fernhollow Advisory — the team

_Kept up to date by Jessamy. Last edit 9 November 2026._

## Blodwen Delacourt-Finch
Managing Director
blodwen@fernhollow.co.uk
Mobile: 07700 900 481

## Sunniva Edevane
Principal Consultant
sunniva.edevane@fernhollow.co.uk
Mobile: 07700 900 492

## Halvard Quintrell
Senior Consultant
halvard@fernhollow.co.uk
Mobile: 07700 900 503

## Cormac O'Brien-Yates
Senior Consultant
cormac.obrienyates@fernhollow.co.uk
Mobile: 07700 900 514

## Mary-Kate Threlkeld
Consultant
marykate@fernhollow.co.uk
Mobile: 07700 900 525

## Lowenna Margetson
Analyst (joined September)
lowenna.margetson@fernhollow.co.uk
"""

BRINDLECOMBE = """---
client: Brindlecombe Housing Association
project: Tenancy Systems Review
account lead: Sunniva Edevane
project lead: Sunniva Edevane
status: in progress
---

# Brindlecombe — Tenancy Systems Review

Brindlecombe want an independent review of how their tenancy, repairs and rent systems fit together.

Contract value: £42,000 (ex VAT), fixed fee, invoiced in three stages.

Final report due 26 February 2027.
"""

HARNWELL = """---
client: Harnwell Foods
project: Warehouse Routing Study
account lead: Blodwen Delacourt-Finch
project lead: Cormac O'Brien-Yates
---

# Harnwell Foods — Warehouse Routing Study

Six-week study of pick routes and slotting at the Avonmouth distribution centre.

- Contract value: £28,750 + VAT
- Travel and expenses: capped at £3,500 + VAT
"""

HANDOVER = """From: Blodwen Delacourt-Finch <blodwen@fernhollow.co.uk>
To: Fernhollow Team <team@fernhollow.co.uk>
Subject: Client accounts - a couple of changes
Date: Thu, 12 Nov 2026 09:03:11 +0000

Morning all,

From 1 December Halvard takes over as account lead for Brindlecombe from Sunniva. Sunniva stays on as
project lead for the Tenancy Systems Review, so day-to-day nothing changes.

Blodwen
"""

LEAD_CHANGE = """From: Blodwen Delacourt-Finch <blodwen@fernhollow.co.uk>
To: Gideon Pendry <gideon.pendry@harnwellfoods.co.uk>
Cc: Cormac O'Brien-Yates <cormac.obrienyates@fernhollow.co.uk>, Mary-Kate Threlkeld <marykate@fernhollow.co.uk>
Subject: Routing study - change of project lead
Date: Thu, 19 Nov 2026 16:40:02 +0000

Dear Gideon,

Cormac is going on paternity leave earlier than planned, so from Monday 23 November Mary-Kate replaces
Cormac as project lead on the routing study. I remain your account lead.

Kind regards,
Blodwen Delacourt-Finch
"""

MEETING = """# Monday team meeting — 30 Nov 2026

Present: Blodwen, Sunniva, Halvard, Mary-Kate, Lowenna.

## Brindlecombe
- Change request signed (adds a stock-condition workstream).
- Budget: £48,000 (was £42,000)
- Final report now 19 March 2027 (was 26 February 2027)
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "fernhollow", {
        "team.md": TEAM, "project-brindlecombe.md": BRINDLECOMBE, "project-harnwell.md": HARNWELL,
        "email-2026-11-12-handover.eml": HANDOVER, "email-2026-11-19-lead-change.eml": LEAD_CHANGE,
        "team-meeting-2026-11-30.md": MEETING})
    yield engine
    engine.close()


def _lead(engine, project: str, key: str) -> str:
    value = only_entity(engine, project).attributes.get(key)
    return engine.kb.registry.get(value).name if engine.kb.registry.get(value) else value


def test_a_role_handed_over_in_a_mail_moves_to_the_new_holder(engine):
    # Named by first names only; the project page still shows the old holders.
    assert _lead(engine, "Brindlecombe", "account_lead") == "Halvard Quintrell"
    assert _lead(engine, "Brindlecombe", "lead") == "Sunniva Edevane"  # only the account changed hands
    assert _lead(engine, "Harnwell Foods", "lead") == "Mary-Kate Threlkeld"
    assert _lead(engine, "Harnwell Foods", "account_lead") == "Blodwen Delacourt-Finch"


def test_an_answer_naming_the_old_holder_is_corrected_to_the_new_one(engine):
    response = checked(engine, "who is the account lead for Brindlecombe?",
                       "Sunniva Edevane is the account lead for Brindlecombe.")
    assert [f.content for f in response.hallucination_flags] == ["Sunniva Edevane"]
    assert "Halvard Quintrell [corrected]" in response.delivered
    response = checked(engine, "who is the project lead for Harnwell Foods?",
                       "Cormac O'Brien-Yates is the project lead for Harnwell Foods.")
    assert [f.content for f in response.hallucination_flags] == ["Cormac O'Brien-Yates"]
    assert "Mary-Kate Threlkeld [corrected]" in response.delivered


@pytest.mark.parametrize("question, answer", [
    ("who is the account lead for Brindlecombe?", "Halvard Quintrell is the account lead for Brindlecombe."),
    ("who is the account lead for Brindlecombe?", "Brindlecombe's account lead is Halvard Quintrell."),
    # The project lead is another role than the account lead: neither is "corrected" to the other.
    ("who is the project lead for Brindlecombe?", "Sunniva Edevane is the project lead for Brindlecombe."),
    ("who leads the Brindlecombe account?", "Halvard Quintrell leads the Brindlecombe account."),
    ("who is the account lead for Harnwell Foods?", "Blodwen Delacourt-Finch is the account lead for Harnwell Foods."),
])
def test_a_right_lead_is_not_corrected_with_the_other_lead(engine, question, answer):
    response = checked(engine, question, answer)
    assert response.hallucination_flags == []
    assert response.delivered.strip() == answer


def test_offline_the_handed_over_role_names_the_new_holder_and_who_held_it(engine):
    answer = engine.ask("who is the account lead for Brindlecombe?", session="account",
                        model="offline").response.delivered
    assert "account lead is Halvard Quintrell" in answer
    assert "It was Sunniva Edevane before" in answer
    assert "person:" not in answer


def test_an_old_figure_a_note_marks_was_is_corrected_whatever_the_answer_calls_it(engine):
    # The notes say "Budget: £48,000 (was £42,000)" of what the page calls the contract value.
    response = checked(engine, "what is the Brindlecombe budget?",
                       "The budget for the Brindlecombe Tenancy Systems Review is £42,000.")
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("TemporalError", "£42,000")]
    assert "£48,000 [corrected]" in response.delivered
    right = checked(engine, "what is the Brindlecombe budget?",
                    "The budget for the Brindlecombe Tenancy Systems Review is now £48,000.")
    assert right.hallucination_flags == []


def test_an_old_date_a_note_marks_was_is_corrected(engine):
    response = checked(engine, "when is the Brindlecombe final report due?",
                       "The final report for Brindlecombe is due on 26 February 2027.")
    assert [f.content for f in response.hallucination_flags] == ["26 February 2027"]
    assert "19 March 2027 [corrected]" in response.delivered


def test_a_piece_of_work_named_by_the_rare_word_of_its_name_is_found(engine):
    # "the Harnwell routing study" is Harnwell Foods' study: "Harnwell" is no other name's word.
    pre = engine.turns.preprocess("who is the project lead on the Harnwell routing study?")
    assert [r.canonical_name for r in pre.resolved_entities] == ["Harnwell Foods"]
    # The page the question finds still names the old lead; the mail that replaced him is newer.
    response = checked(engine, "who is the project lead on the Harnwell routing study?",
                       "Cormac O'Brien-Yates is the project lead on the Harnwell routing study.")
    assert [f.content for f in response.hallucination_flags] == ["Cormac O'Brien-Yates"]
    assert "Mary-Kate Threlkeld [corrected]" in response.delivered
    right = checked(engine, "who is the project lead on the Harnwell routing study?",
                    "Mary-Kate Threlkeld is the project lead on the Harnwell routing study.")
    assert right.hallucination_flags == []


@pytest.mark.parametrize("question, figure", [
    ("What is the contract value of the Harnwell routing study?", "£28,750 + VAT"),
    ("What is the Brindlecombe contract worth?", "£48,000"),
])
def test_offline_what_a_contract_is_worth_is_its_contract_value(engine, question, figure):
    # The note after the amount ("+ VAT") stays with it; the figure a later note changed is the new one.
    answer = engine.ask(question, session="worth", model="offline").response.delivered
    assert f"contract value is {figure}" in answer


@pytest.mark.parametrize("name, role, email, phone", [
    ("Blodwen Delacourt-Finch", "Managing Director", "blodwen@fernhollow.co.uk", "07700 900 481"),
    ("Cormac O'Brien-Yates", "Senior Consultant", "cormac.obrienyates@fernhollow.co.uk", "07700 900 514"),
    ("Mary-Kate Threlkeld", "Consultant", "marykate@fernhollow.co.uk", "07700 900 525"),
    ("Lowenna Margetson", "Analyst", "lowenna.margetson@fernhollow.co.uk", None),
])
def test_a_team_page_with_a_heading_per_person_gives_each_their_details(engine, name, role, email, phone):
    attributes = only_entity(engine, name).attributes
    # Each card's "Mobile:" line is kept as their mobile.
    assert (attributes.get("role"), attributes.get("email"), attributes.get("mobile")) == (role, email, phone)


def test_a_name_only_a_spreadsheet_the_question_did_not_find_gives_is_not_called_unknown(tmp_path_factory):
    # "Stowbridge Council" is a client in the pipeline sheet; the question finds the pricing mail.
    engine, _ = engine_learnt_from(tmp_path_factory, "fernhollow-bid", {
        "pipeline-2026.csv": PIPELINE, "email-2026-12-02-pricing.eml": PRICING})
    try:
        response = checked(engine, "who is Morag Kerr-Dalgleish?",
                           "Morag Kerr-Dalgleish is the procurement lead at Stowbridge Council.")
        assert response.hallucination_flags == []
        made_up = checked(engine, "who is Morag Kerr-Dalgleish?",
                          "Morag Kerr-Dalgleish is the procurement lead at Bramcote Council.")
        assert [(f.hallucination_type, f.content) for f in made_up.hallucination_flags] == [
            ("NonexistentEntity", "Bramcote Council")]
    finally:
        engine.close()


PIPELINE = """opportunity,client,owner,est_value,stage,decision_by
Parking strategy refresh,Stowbridge Council,Halvard Quintrell,"£36,000",bid in progress,2027-01-15
Depot consolidation,Harnwell Foods,Blodwen Delacourt-Finch,"£52,500",early conversation,2027-03-31
"""

PRICING = """From: Halvard Quintrell <halvard@fernhollow.co.uk>
To: Blodwen Delacourt-Finch <blodwen@fernhollow.co.uk>
Subject: Stowbridge parking bid - pricing
Date: Wed, 02 Dec 2026 18:05:44 +0000

Blodwen,

Fee: £34,200 (ex VAT)
Optional public consultation module: £4,800 + VAT

Their procurement lead is Morag Kerr-Dalgleish (morag.kerr-dalgleish@stowbridge.gov.uk). She confirmed the
deadline is still 11 December at noon.

Halvard
"""


def test_offline_the_project_lead_asked_is_the_lead_not_the_project_too(engine):
    # The page's "project lead" is stored as the lead; "project" is another of its fields.
    answer = engine.ask("who is the project lead on the Harnwell routing study?", session="lead",
                        model="offline").response.delivered
    assert "lead is Mary-Kate Threlkeld" in answer
    assert "project is Warehouse Routing Study" not in answer
    assert "account lead" not in answer


def test_a_swapped_fee_is_corrected_from_the_mail_whose_subject_says_what_it_is(tmp_path_factory):
    # The mail's subject ("Stowbridge parking bid - pricing") says what its "Fee:" line is about, and the
    # answer's second clause is about the other amount.
    engine, _ = engine_learnt_from(tmp_path_factory, "fernhollow-fee", {"email-2026-12-02-pricing.eml": PRICING})
    try:
        response = checked(engine, "What fee did Halvard price the Stowbridge bid at?",
                           "Halvard priced the Stowbridge parking bid at £43,200 (ex VAT), with an optional "
                           "consultation module at £4,800 + VAT.")
        assert "at £34,200 [corrected] (ex VAT)" in response.delivered
        assert "£4,800 + VAT." in response.delivered
    finally:
        engine.close()
