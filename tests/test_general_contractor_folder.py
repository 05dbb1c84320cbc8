"""A general contractor's folder in the US: a team page of name lines with "Office:"/"Cell:" under
them, project pages with front matter and a Role | Name | Contact table, a change order approved in a
reply that quotes the request (wrapped at 72 characters behind ">"), meeting minutes that list who
came from which firm, an architect who signs with her credential. Titles said short ("super", "APM"),
job and permit numbers that are no phone numbers. Real ChatEngine, SQLite, Chroma and spaCy; names
that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

TEAM = """# Redbud Builders — Team

**Harriet Vance** — Superintendent, Eastgate Library
hvance@redbudbuilders.com · Cell: (737) 555-0161

**Osman Tekin** — Assistant Project Manager (APM), Eastgate Library
otekin@redbudbuilders.com · Office: (737) 555-0120 · Cell: (737) 555-0168

**Lucinda Park** — Senior Project Manager (PM), Eastgate Library
lpark@redbudbuilders.com · Office: (737) 555-0121
"""

LIBRARY = """---
title: Eastgate Library Renovation
job_number: 2026-044
status: Active
contract_value: $2,310,000
pm: Lucinda Park
---

# Eastgate Library Renovation (Job 2026-044)

**Owner:** Travis Arbor County — Felix Ambrose, Facilities Director (fambrose@tacounty.gov, (737) 555-0400)
**Superintendent:** Harriet Vance
**Contract:** $2,310,000
**Schedule:** start 10/5/2026 · roof dry-in 12/4/2026 · substantial completion 3/12/2027

Permit BP-2026-207731 issued 10/2/2026.
"""

ANNEX = """---
title: "Eastgate Annex — Suite 210 Fit-Out"
status: Under construction
contract_value: "$318,400"
---

# Eastgate Annex, Suite 210 — tenant fit-out

| Role | Name | Contact |
|---|---|---|
| PM | Wendell Oyelaran | woyelaran@redbudbuilders.com |
| Super | Marisol Quintero | (737) 555-0177 |
| Tenant rep | Greta Lindahl, Office Lead, Fernway Labs | glindahl@fernwaylabs.com |
"""

CHANGE_ORDER = """From: Felix Ambrose <fambrose@tacounty.gov>
To: Lucinda Park <lpark@redbudbuilders.com>
Subject: RE: Eastgate - CO-04 roof drains
Date: Thu, 19 Nov 2026 15:02:00 -0600

Lucinda,

CO-04 is approved. Please show it on the next pay app.

Thanks,
Felix

Felix Ambrose
Facilities Director
Travis Arbor County
Office: (737) 555-0400

On Mon, Nov 16, 2026 at 8:10 AM Lucinda Park <lpark@redbudbuilders.com> wrote:
> Felix,
>
> Attached is CO-04 for the two added roof drains over the reading room.
> The plumber's price is $18,200.00; with our 10% markup the change order is
> $20,020.00. No change to the schedule.
>
> Lucinda
"""

RFI = """From: Imogen Falk <ifalk@cobaltarch.com>
To: Osman Tekin <otekin@redbudbuilders.com>
Subject: RE: RFI-009 stair rail height
Date: Tue, 1 Dec 2026 10:00:00 -0600

Osman,

Keep the rail at 36 inches; ASI-03 follows by Friday 12/4.

Imogen

Imogen Falk, AIA | Project Architect
Cobalt Architecture
"""

MINUTES = """# Eastgate Library — OAC Meeting #5

**Date:** Monday 11/9/2026
**Present:** Felix Ambrose (Travis Arbor County), Imogen Falk (Cobalt Architecture), Lucinda Park (Redbud PM), Harriet Vance (Super)

## Schedule
- Roofing starts 11/30.
"""


@pytest.fixture(scope="module")
def contractor(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "redbud", {
        "team.md": TEAM, "eastgate-library.md": LIBRARY, "eastgate-annex-suite-210.md": ANNEX,
        "RE_ Eastgate CO-04.eml": CHANGE_ORDER, "RE_ RFI-009.eml": RFI, "oac-05.md": MINUTES})
    yield engine
    engine.close()


def test_a_title_said_short_is_the_same_title(contractor):
    # "super" for Superintendent, "APM" for Assistant Project Manager, "PM" as the team page brackets it.
    result = checked(contractor, "Who runs the Eastgate site?",
                     "Harriet Vance is the super. Osman Tekin is the APM. Lucinda Park is the PM.")
    assert not result.hallucination_flags, [f.content for f in result.hallucination_flags]


def test_a_job_or_permit_number_is_no_phone_number(contractor):
    # The owner's phone beside the job number on the page is never "corrected" to the job number.
    result = checked(contractor, "Who is the owner of the Eastgate Library Renovation?",
                     "Eastgate Library Renovation's owner is Travis Arbor County — Felix Ambrose, Facilities "
                     "Director (fambrose@tacounty.gov, (737) 555-0400).")
    assert "2026-044" not in result.delivered and "207731" not in result.delivered
    assert not result.hallucination_flags


def test_a_value_wrapped_onto_the_next_quoted_line_belongs_to_its_sentence(contractor):
    result = checked(contractor, "How much was CO-04?", "CO-04 adds two roof drains. The change order is $20,200.00.")
    assert "$20,020.00 [corrected]" in result.delivered
    assert "$18,200.00" not in result.delivered


def test_offline_who_leads_a_project_is_its_pm_not_its_owner(contractor):
    answer = offline_answer(contractor, "Who leads the Eastgate Library Renovation?", "lead")
    assert "Lucinda Park" in answer and "Felix Ambrose" not in answer


def test_a_team_table_on_a_project_page_gives_the_project_its_people(contractor):
    annex = only_entity(contractor, "Eastgate Annex, Suite 210")
    held = {key: contractor.kb.registry.get(str(annex.attributes.get(key))) for key in ("lead", "super")}
    names = {key: e.name if e else annex.attributes.get(key) for key, e in held.items()}
    assert names == {"lead": "Wendell Oyelaran", "super": "Marisol Quintero"}
    assert only_entity(contractor, "Greta Lindahl").attributes.get("email") == "glindahl@fernwaylabs.com"
    # The rows are people, not records of their own named after them.
    assert all(e.type == "person" for e in contractor.kb.registry.find_by_alias("Wendell Oyelaran"))
    answer = offline_answer(contractor, "Who leads Eastgate Annex, Suite 210?", "annex")
    assert "Wendell Oyelaran" in answer


def test_the_firm_in_brackets_on_an_attendee_list_is_no_role(contractor):
    # "Imogen Falk (Cobalt Architecture)": where she came from; her signature gives her title.
    assert only_entity(contractor, "Imogen Falk").attributes.get("role") == "Project Architect"
    result = checked(contractor, "Who answered RFI-009?", "Imogen Falk, the Project Architect, answered RFI-009.")
    assert not result.hallucination_flags, [f.content for f in result.hallucination_flags]


def test_a_milestone_whose_date_reads_two_ways_is_still_a_milestone(contractor):
    # "12/4/2026" is December 4 in the US and 12 April elsewhere: the page still gives the milestone,
    # kept as written.
    library = only_entity(contractor, "Eastgate Library Renovation")
    assert library.attributes.get("roof_dry_in") == "12/4/2026"


def test_a_yearless_date_in_numbers_is_checked(contractor):
    wrong = checked(contractor, "When does ASI-03 come?", "Imogen Falk says ASI-03 follows by Friday 12/11.")
    assert "12/4 [corrected]" in wrong.delivered
    right = checked(contractor, "When does ASI-03 come?", "Imogen Falk says ASI-03 follows by Friday 12/4.")
    assert not right.hallucination_flags, [f.content for f in right.hallucination_flags]


@pytest.mark.parametrize("attribution", [
    "On Mon, Nov 16, 2026 at 8:10 AM Lucinda Park <lpark@redbudbuilders.com> wrote:",
    "From: Lucinda Park <lpark@redbudbuilders.com>\nSent: Monday, November 16, 2026 8:10 AM",
])
def test_a_signature_over_a_quoted_mail_does_not_take_the_quoted_writers_address(tmp_path_factory, attribution):
    # The title line under the signer's name, then the quoted mail's attribution: that address is the
    # quoted writer's, and the two people stay two.
    mail = ("From: Felix Ambrose <fambrose@tacounty.gov>\nTo: Lucinda Park <lpark@redbudbuilders.com>\n"
            "Subject: RE: CO-04\nDate: Thu, 19 Nov 2026 15:02:00 -0600\n\nLucinda,\n\nCO-04 is approved.\n\n"
            f"Felix Ambrose\nFacilities Director, Travis Arbor County\n\n{attribution}\n> Felix,\n>\n"
            "> Attached is CO-04.\n>\n> Lucinda\n")
    engine, _ = engine_learnt_from(tmp_path_factory, "quoted", {"re-co-04.eml": mail})
    try:
        felix, lucinda = only_entity(engine, "Felix Ambrose"), only_entity(engine, "Lucinda Park")
        assert felix.id != lucinda.id
        assert felix.attributes.get("email") == "fambrose@tacounty.gov"
        assert lucinda.attributes.get("email") == "lpark@redbudbuilders.com"
    finally:
        engine.close()


def test_a_consequence_that_puts_a_milestone_on_a_new_day_replaces_it(tmp_path_factory):
    # "That puts your move-in at Monday 1/25/2027": the page's schedule line gave 1/14/2027.
    page = ('---\ntitle: "Harbor Point — Suite 500 Fit-Out"\nstatus: Under construction\n---\n\n'
            "# Harbor Point, Suite 500 — tenant fit-out\n\n"
            "**Schedule:** start 9/28/2026 · substantial completion 12/18/2026 · tenant move-in 1/14/2027\n")
    mail = ("From: Wendell Oyelaran <woyelaran@redbudbuilders.com>\nTo: Greta Lindahl <glindahl@fernwaylabs.com>\n"
            "Subject: Harbor Point Suite 500 - revised schedule\nDate: Tue, 1 Dec 2026 08:41:50 -0600\n\nGreta,\n\n"
            "Substantial completion for Suite 500 moves from 12/18/2026 to 1/15/2027.\n\n"
            "That puts your move-in at Monday 1/25/2027 at the earliest.\n\nWendell\n")
    engine, _ = engine_learnt_from(tmp_path_factory, "harbor", {"harbor-point.md": page, "re-schedule.eml": mail})
    try:
        suite = only_entity(engine, "Harbor Point, Suite 500")
        assert suite.attributes.get("tenant_move_in") == "1/25/2027"
        assert suite.attributes.get("substantial_completion") == "1/15/2027"
        result = checked(engine, "When can the tenant move in?", "The tenant move-in is now Monday 1/25/2027.")
        assert not result.hallucination_flags, [f.content for f in result.hallucination_flags]
    finally:
        engine.close()
