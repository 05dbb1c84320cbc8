"""A contractor's project page and one later mail changing its budget, said each of the ways people write
it: "bump the budget up to", "agreed on … instead of …", a "New budget:" line, an "Agreed new budget:" item, "increased by … to …". The
registry learns the new budget (offline answers give it, with the old one as before), and an answer with
the page's old budget is corrected. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere
in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

PAGE = """---
title: Larkspur Clinic Fit-out
lead: Dana Whitlock
budget: $240,000
handover: March 12, 2027
---

# Larkspur Clinic Fit-out

Interior fit-out of the new Larkspur outpatient clinic, suite 300.
"""

MAIL = """From: Marcy Oduya <marcy.oduya@trellisbuild.com>
To: Dana Whitlock <dana.whitlock@trellisbuild.com>
Date: Fri, 20 Nov 2026 14:03:00 -0500
Subject: Larkspur Clinic Fit-out - budget

Dana,

{change}

Marcy
"""

CHANGES = [
    "The client has agreed to bump the budget up to $265,000.",
    "Quick note: we've agreed on $265,000 for the budget instead of $240,000.",
    "New budget: $265,000 (approved by the board on Nov 20).",
    "- Agreed new budget: $265,000 (signed off by the client today).",
    "The budget for Larkspur was increased by $25,000 to $265,000.",
]


@pytest.fixture(scope="module", params=CHANGES)
def engine(request, tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "trellis", {
        "project-larkspur.md": PAGE, "2026-11-20-larkspur-budget.eml": MAIL.format(change=request.param)})
    yield engine
    engine.close()


def test_offline_the_budget_is_the_mails_and_the_pages_is_the_one_before(engine):
    answer = offline_answer(engine, "What is the budget for Larkspur Clinic Fit-out?", "budget")
    assert "budget is $265,000" in answer and "It was $240,000 before" in answer


def test_an_answer_with_the_pages_old_budget_is_corrected(engine):
    response = checked(engine, "What is the budget for the Larkspur Clinic Fit-out?",
                       "The Larkspur Clinic Fit-out has a budget of $240,000.")
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("TemporalError", "$240,000")]
    assert "$265,000 [corrected]" in response.delivered


REGISTER = """Project,Project manager,Budget,Deadline
Harrow Yard Offices,Colm Varley,"$1,250,000",2027-05-28
Quayside Dental,Ines Marchetti,"$410,000",2027-02-12
"""


STAFF = """Name,Role,Email
Colm Varley,Senior Project Manager,colm.varley@trellisbuild.com
Ines Marchetti,Quantity Surveyor,ines.marchetti@trellisbuild.com
"""


@pytest.fixture(scope="module")
def register(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "trellis-register", {"projects.csv": REGISTER, "staff.csv": STAFF})
    yield engine
    engine.close()


def test_the_wrong_project_manager_of_a_registers_work_is_corrected(register):
    # The register's "Project manager" column is who leads each piece of work.
    wrong = checked(register, "Who is the project manager for Harrow Yard Offices?",
                    "Ines Marchetti is the project manager for Harrow Yard Offices.")
    assert [(f.hallucination_type, f.content) for f in wrong.hallucination_flags] == [("WrongAttribute", "Ines Marchetti")]
    assert "Colm Varley [corrected]" in wrong.delivered
    right = checked(register, "Who is the project manager for Harrow Yard Offices?",
                    "Colm Varley is the project manager for Harrow Yard Offices.")
    assert right.hallucination_flags == []


def test_asked_what_someone_does_the_answer_is_not_rewritten_to_the_works_manager(register):
    # The question is about Ines, so she is not swapped for the work's manager: the claim about her is
    # flagged as the register's line on the work contradicts it, and left for her to be asked about.
    response = checked(register, "What does Ines Marchetti do?",
                       "Ines Marchetti is the Project Manager for Harrow Yard Offices.")
    assert "Colm Varley [corrected]" not in response.delivered
    assert [f.content for f in response.hallucination_flags] == ["Ines Marchetti"]


FIT_OUT = """---
title: "402 Calder Ave — Suite 210 Fit-Out (Quillon Health)"
job: 2026-031
tenant: Quillon Health
status: Under construction
contract_value: "$312,400"
substantial_completion: 2/19/2027
---

# 402 Calder Ave, Suite 210 — Quillon Health fit-out

| Role | Name | Contact |
|---|---|---|
| PM | Orrin Castellano | ocastellano@trellisbuild.com |
| Tenant rep | Bea Lindqvist, Quillon Health | bea@quillonhealth.com |

**Schedule:** start 10/5/2026 · substantial completion 2/19/2027 · tenant move-in 3/1/2027
"""

SCHOOL = """---
title: Fernhill Library Roof
job: 2026-019
status: Pre-construction
contract_value: "$148,900"
---

# Fernhill Library Roof

- Lead: Orrin Castellano
- Crane day: 2/19/2027
"""

DELAY = """From: Orrin Castellano <ocastellano@trellisbuild.com>
To: Bea Lindqvist <bea@quillonhealth.com>
Date: Tue, 1 Dec 2026 08:41:50 -0600
Subject: RE: 402 Calder Ave - chiller delay

Bea,

Substantial completion for Suite 210 moves from 2/19/2027 to 3/5/2027. That puts your move-in at Monday 3/22/2027 at the earliest.

Orrin
"""


@pytest.fixture(scope="module")
def fit_out(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "calder", {
        "402-calder-suite-210.md": FIT_OUT, "fernhill-library-roof.md": SCHOOL, "RE_ 402 Calder chiller.eml": DELAY})
    yield engine
    engine.close()


def test_a_day_two_works_share_changes_for_the_one_the_change_names(fit_out):
    # 2/19/2027 is the fit-out's completion and the library's crane day: "completion for Suite 210" says which.
    response = checked(fit_out, "When is substantial completion for the Calder job?",
                       "Substantial completion for Suite 210 is 2/19/2027.")
    assert [(f.hallucination_type, f.suggestion) for f in response.hallucination_flags] == [("TemporalError", "3/5/2027")]
    assert only_entity(fit_out, "402 Calder Ave, Suite 210").attributes["substantial_completion"] == "3/5/2027"
    assert only_entity(fit_out, "Fernhill Library Roof").attributes["crane_day"] == "2/19/2027"


def test_a_move_in_said_by_its_tenant_is_held_to_the_mails_new_day(fit_out):
    # The page writes "1/4/2027"-style days that read either way round; the mail moves the move-in without
    # saying from what, and the answer names the tenant, not the suite.
    response = checked(fit_out, "When can Quillon move in?", "Quillon Health can move in on 3/1/2027.")
    assert [(f.hallucination_type, f.suggestion) for f in response.hallucination_flags] == [("TemporalError", "3/22/2027")]
    assert not checked(fit_out, "When can Quillon move in?",
                       "Quillon Health can move in on Monday 3/22/2027 at the earliest.").hallucination_flags
