"""A New Zealand regional council's infrastructure team folder: mails hard-wrapped at the client's line
width (a date and a project's name split over two lines), a capital projects register in JSON whose budgets
are bare figures, a project page that gives one date under two labels, a contractor's lead handed over
"From Monday … will be <firm>'s project lead for …" while the page keeps the old name, and a "contract sum".
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

REGISTER = """{
  "register": "Capital projects",
  "exported": "2026-11-16",
  "currency": "NZD excl. GST",
  "projects": [
    {"project_id": "PRJ-TR-2210", "name": "Tōtara Park Cycleway – Stage 3", "project_manager": "Ānaru Kereama",
     "contract_no": "C-2026-077", "contractor": "Pōhutukawa Paths Ltd", "approved_budget": 940000,
     "status": "In construction"},
    {"project_id": "PRJ-SW-3105", "name": "Wharf Lane Stormwater Renewal", "project_manager": "Ngaire Whitcombe",
     "contract_no": "C-2027-031", "contractor": "Mātai Drainage Ltd", "approved_budget": 1875000,
     "contract_sum": 1764520.00, "status": "Contract awarded"}
  ]
}
"""

PAGE = """---
title: Wharf Lane Stormwater Renewal
project_manager: Ngaire Whitcombe
contract: C-2027-031
contractor: Mātai Drainage Ltd
prestart_meeting: "Thursday 14 January 2027, 9am on site"
---

# Wharf Lane Stormwater Renewal

**Project manager:** Ngaire Whitcombe

## Key dates
- Pre-start site meeting: Thursday 14 January 2027, 9am on site
- Construction start: 1/02/27
"""

BRIDGE = """---
title: Harbour Road Bridge 7 Renewal
project_lead: Ngaire Whitcombe
contractor: Rewarewa Structures Ltd
contractor_project_lead: Colin Fairbairn
---

# Harbour Road Bridge 7 Renewal

Council lead Ngaire Whitcombe; Rewarewa Structures Ltd's project lead is Colin Fairbairn.
"""

PRESTART = """From: Ngaire Whitcombe <ngaire.whitcombe@kererubay.govt.nz>
To: Hone Rapana <hone@mataidrainage.co.nz>
Subject: RE: Wharf Lane pre-start meeting
Date: Mon, 30 Nov 2026 10:15:00 +1300

Kia ora Hone,

All good. The pre-start site meeting for C-2027-031 is now Thursday
21 January 2027 at 10am, at the corner of Wharf Lane and Quay Street (the
site container will be in place by then). The earlier slot is cancelled.

Ngā mihi,
Ngaire
"""

VARIATION = """From: Ruihi Tamatea <ruihi.tamatea@kererubay.govt.nz>
To: Ānaru Kereama <anaru.kereama@kererubay.govt.nz>
Subject: Tōtara Park Cycleway Stage 3 - VO-04 approved
Date: Wed, 2 Dec 2026 16:05:00 +1300

Kia ora Ānaru,

I've approved variation VO-04 (timber boardwalk over the swampy section)
on C-2026-077. That takes the approved budget for Tōtara Park Cycleway
Stage 3 from $940,000 to $1,010,000 excl. GST. The extra comes from the
walking and cycling underspend, so no committee paper is needed.

Ngā mihi,
Ruihi
"""

HANDOVER = """From: Colin Fairbairn <colin@rewarewastructures.co.nz>
To: Ngaire Whitcombe <ngaire.whitcombe@kererubay.govt.nz>
Cc: Tia Marsden-Hōhepa <tia@rewarewastructures.co.nz>
Subject: Harbour Rd Bridge 7 - change of project lead
Date: Wed, 25 Nov 2026 15:30:00 +1300

Hi Ngaire,

I'm moving to our Napier job at the end of the month. From Monday 30 November 2026 Tia Marsden-Hōhepa
will be Rewarewa Structures' project lead for Harbour Road Bridge 7 (C-2026-095).

Cheers,
Colin
"""

AWARD = """From: Ruihi Tamatea <ruihi.tamatea@kererubay.govt.nz>
To: Hone Rapana <hone@mataidrainage.co.nz>
Subject: Wharf Lane stormwater - notice of award C-2027-031
Date: Tue, 13 Oct 2026 14:00:00 +1300

Kia ora Hone,

Mātai Drainage Ltd has been awarded contract C-2027-031 Wharf Lane Stormwater Renewal.

Contract details:
  Contract sum: $1,764,520.00 excl. GST
  Engineer to Contract: Ngaire Whitcombe

Ngā mihi,
Ruihi
"""


PANEL = """Supplier,Category,Contact person,Contact role,Phone,Email
Mātai Drainage Ltd,Civil – drainage,Hone Rapana,Contract Manager,027 555 0188,hone@mataidrainage.co.nz
Rewarewa Structures Ltd,Structures,Tia Marsden-Hōhepa,Project Lead,021 555 0931,tia@rewarewastructures.co.nz
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "kererubay", {
        "capital-projects-register.json": REGISTER, "wharf-lane-stormwater.md": PAGE,
        "harbour-rd-bridge-7.md": BRIDGE, "RE_ Wharf Lane pre-start meeting.eml": PRESTART,
        "VO-04 approved.eml": VARIATION, "Bridge 7 - change of project lead.eml": HANDOVER,
        "notice of award C-2027-031.eml": AWARD, "contractor-panel.csv": PANEL})
    yield engine
    engine.close()


def test_a_date_wrapped_onto_the_next_line_is_the_changes_new_date_under_both_of_the_pages_labels(engine):
    # "is now Thursday\n21 January 2027": the wrap put the date at the start of a line; the page gives the old
    # day as "prestart_meeting" in its front matter and "Pre-start site meeting" in its key dates.
    entity = only_entity(engine, "Wharf Lane Stormwater Renewal")
    said = {key: value for key, value in entity.attributes.items() if "meeting" in key}
    assert said and all(value == "Thursday 21 January 2027" for value in said.values()), said
    response = checked(engine, "When is the Wharf Lane pre-start site meeting?",
                       "The pre-start site meeting for C-2027-031 is on Thursday 14 January 2027 at 9am on site.")
    assert "21 January 2027 [corrected]" in response.delivered


def test_a_budget_taken_from_one_sum_to_another_in_a_wrapped_mail_replaces_the_registers_bare_figure(engine):
    # "That takes the approved budget for Tōtara Park Cycleway\nStage 3 from $940,000 to $1,010,000".
    entity = only_entity(engine, "Tōtara Park Cycleway – Stage 3")
    assert entity.attributes.get("approved_budget") == "$1,010,000"
    response = checked(engine, "What is the approved budget for Tōtara Park Cycleway Stage 3?",
                       "The approved budget for Tōtara Park Cycleway Stage 3 is $940,000 excl. GST.")
    assert "$1,010,000 [corrected]" in response.delivered


def test_a_firms_new_project_lead_from_a_day_replaces_the_firms_lead_not_the_councils(engine):
    entity = only_entity(engine, "Harbour Road Bridge 7 Renewal")
    assert "tia-marsden-hohepa" in entity.attributes.get("contractor_project_lead", "")
    assert "ngaire-whitcombe" in entity.attributes.get("lead", "")  # the council's own lead stays
    response = checked(engine, "Who is Rewarewa Structures' project lead on Harbour Road Bridge 7?",
                       "Colin Fairbairn is Rewarewa Structures' project lead for Harbour Road Bridge 7.")
    assert [f.content for f in response.hallucination_flags] == ["Colin Fairbairn"]
    assert "Tia Marsden-Hōhepa [corrected]" in response.delivered
    right = checked(engine, "Who is Rewarewa Structures' project lead on Harbour Road Bridge 7 now?",
                    "Tia Marsden-Hōhepa is Rewarewa Structures' project lead for Harbour Road Bridge 7.")
    assert not right.hallucination_flags


def test_a_contract_sum_one_slip_away_is_corrected_not_taken_for_a_total(engine):
    response = checked(engine, "What was the Wharf Lane contract awarded for?",
                       "Mātai Drainage Ltd was awarded C-2027-031 on a contract sum of $1,746,520.00 excl. GST.")
    assert "$1,764,520.00 [corrected]" in response.delivered


def test_who_is_a_firms_project_lead_for_a_work_named_without_its_kind_asks_for_the_firms_lead(engine):
    # "Harbour Road Bridge 7" names "Harbour Road Bridge 7 Renewal"; naming the contractor asks for its lead.
    answer = offline_answer(engine, "who is the rewarewa structures project lead for harbour road bridge 7?",
                            "bridge-7-lead")
    assert "Tia Marsden-Hōhepa" in answer
    assert "Ngaire" not in answer


def test_a_surname_the_recogniser_left_off_an_invented_person_is_flagged_with_the_name(engine):
    response = checked(engine, "Who walked the Harbour Road Bridge 7 site?",
                       "Ngaire Whitcombe and Hone Rapana walked the site with Colin Fairbairn from Rewarewa Structures"
                       " and Dr Ana Kōhatu from Tui Ecology. Piripi Pōtae from NZTA Waka Kotahi also attended.")
    assert "Piripi Pōtae" in [f.content for f in response.hallucination_flags]


def test_a_firms_contact_person_has_the_role_its_row_gives(engine):
    # "Contact person: Hone Rapana; Contact role: Contract Manager" is Hone's own role, though the row is the firm's.
    assert only_entity(engine, "Hone Rapana").attributes.get("role") == "Contract Manager"


def test_a_budget_one_slip_from_the_registers_bare_figure_is_corrected_as_the_answer_writes_sums(engine):
    response = checked(engine, "What is the Wharf Lane Stormwater Renewal budget?",
                       "The Wharf Lane Stormwater Renewal has an approved budget of $1,857,000.")
    assert "$1,875,000 [corrected]" in response.delivered


def test_a_sum_in_millions_is_corrected_with_the_answers_own_scale_letter():
    from chatapp.postprocess.values import render_like

    assert render_like("$3.69m", "amount", "3960000", 3_960_000.0) == "$3.96m"
    assert render_like("$3.69M", "amount", "3960000", 3_960_000.0) == "$3.96M"


def test_only_a_hard_wrapped_paragraph_is_joined_not_a_signature_or_columns():
    from chatapp.knowledge.parsers.mail import unwrapped_paragraph

    wrapped = "That takes the approved budget for the Tōtara Park Cycleway\nStage 3 from $940,000 to $1,010,000."
    assert unwrapped_paragraph(wrapped) == wrapped.replace("\n", " ")
    for kept in ("Ngā mihi,\nRuihi Tamatea\nSenior Project Manager, Infrastructure Delivery Team",
                 "Wharf Lane trunk main            $1,742,300.00 excl GST\nQuay St laterals    $576,340.00 excl GST",
                 "Ruihi Tamatea | Contracts Administrator | Kererū Bay District Council\nDDI 07 555 0199"):
        assert unwrapped_paragraph(kept) == kept
