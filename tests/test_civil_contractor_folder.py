"""A Johannesburg building contractor's folder: rand amounts written the South African way ("R3 864 500,00",
"R15,37m", "R 1,2 million"), firms as "(Pty) Ltd" and "CC", a project page whose contract sum a later QS mail
revises ("takes the contract sum from … to …") while a meeting note rounds the new figure, a job lead given
only in a field's note, a title joining two pieces of work with "and", dates written dd/mm/yyyy. Real
ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, offline_answer, only_entity

PAGE = """---
title: Lindfield Day Clinic extension — Erf 2291 Parkhurst
project_no: MK-3105
client: Lindfield Healthcare (Pty) Ltd
status: construction
updated: 2026-10-19
---

# Lindfield Day Clinic extension (MK-3105)

**Contract sum:** R9 460 000,00 excl. VAT (R10 879 000,00 incl. VAT at 15%)
**Site possession:** 05/10/2026 · **Practical completion:** 26/03/2027

## Team

- Contracts Manager: Nomvula Radebe (leads the job for Mthethwa Kruger)
- Site Agent: Thabo Mabuza
- QS: Revathi Govender
- Client's project manager: Warren Abrahams
"""

WAREHOUSE = """---
title: Olifantsfontein depot re-roof and slab repair
project_no: MK-3102
lead: Hendrik van Zyl
site_agent: Lwazi Cele
---

Contract value: R2 718 300,00 excl. VAT
Roofing sub: Soweto Sheeting CC
"""

QS_MAIL = """From: Revathi Govender <revathi.govender@mthethwakruger.co.za>
To: Nomvula Radebe <nomvula.radebe@mthethwakruger.co.za>
Subject: RE: MK-3105 - VO 2 approved
Date: Tue, 24 Nov 2026 08:05:33 +0200

Morning Nomvula

VO 2 is approved at R384 900,00 excl. VAT. That takes the Lindfield contract sum from R9 460 000,00 to
R9 844 900,00 excl. VAT (R11 321 635,00 incl. VAT). Practical completion stays 26/03/2027.

Regards
Revathi
"""

MEETING = """Management meeting — Tue 1 Dec 2026

**Tenders**
- CT 26/044 roads tender: need our CIDB 6CE upgraded? No: tender asks for 7CE or higher, so we go in JV
  with Ukhozi Roadworks (7CE).

**Jobs**
- Lindfield: VO 2 approved. Contract sum now R9,84m.
- Olifantsfontein: slab pour 08/12/2026.
- Hyde Park retail fit-out: lost on price (we were R 1,2 million above the winner).
"""

SHUTDOWN = """From: Office <office@mthethwakruger.co.za>
To: All Staff <staff@mthethwakruger.co.za>
Subject: Year-end shutdown
Date: Wed, 2 Dec 2026 10:11:27 +0200

* Office and all sites close on Wednesday 16 Dec 2026 at 12:00
"""

AGENT_MAIL = """From: Hendrik van Zyl <hendrik.vanzyl@mthethwakruger.co.za>
To: All Staff <staff@mthethwakruger.co.za>
Subject: Olifantsfontein - new site agent from Monday
Date: Fri, 27 Nov 2026 12:48:00 +0200

Hi everyone

Lwazi starts his study leave early, so from Monday 30/11/2026 Palesa Nkosi takes over as site agent on the
Olifantsfontein depot (MK-3102). I remain the lead on the job.

Hendrik
"""

STAFF = """# Staff

### Lwazi Cele
Site Agent
lwazi.cele@mthethwakruger.co.za

### Hendrik van Zyl
Managing Director
Cell: 083 555 0178 · hendrik.vanzyl@mthethwakruger.co.za

### Palesa Nkosi
Assistant Site Agent
palesa.nkosi@mthethwakruger.co.za
"""

SUBBIES = """Company,Trade,CIDB grade,Contact person,Cell,Current job,Approved by,Notes
Ukhozi Roadworks (Pty) Ltd,Roads & stormwater,7CE,Themba Zwane,082 555 0196,JV partner CT 26/044,Hendrik van Zyl,JV 60/40
Soweto Sheeting CC,Roofing,5SK,Bongani Mthembu,073 555 0102,MK-3102 Olifantsfontein,Hendrik van Zyl,
"""

TENDER = """<html><body><nav><a href="/">Home</a></nav>
<table>
<tr><th>Tender number</th><td>CT 26/044</td></tr>
<tr><th>Closing date</th><td>15/01/2027 at 11:00</td></tr>
</table><footer>© 2026</footer></body></html>
"""


@pytest.fixture(scope="module")
def contractor(tmp_path_factory):
    from tests.conftest import engine_learnt_from

    engine, _ = engine_learnt_from(tmp_path_factory, "mthethwa-kruger", {
        "lindfield-clinic.md": PAGE, "olifantsfontein-depot.md": WAREHOUSE, "2026-11-24-re-vo2.eml": QS_MAIL,
        "mgmt-meeting-2026-12-01.md": MEETING, "2026-12-02-shutdown.eml": SHUTDOWN, "ct-26-044.html": TENDER,
        "2026-11-27-new-site-agent.eml": AGENT_MAIL, "staff.md": STAFF, "subcontractors.csv": SUBBIES})
    yield engine
    engine.close()


def test_a_rand_amount_with_space_thousands_and_decimal_comma_is_corrected(contractor):
    result = checked(contractor, "What is the contract value for the Olifantsfontein depot?",
                     "The contract value for the Olifantsfontein depot is R2 781 300,00 excl. VAT.")
    assert "R2 718 300,00 [corrected] excl. VAT" in result.delivered


def test_a_revised_contract_sum_is_corrected_to_the_figure_the_change_gives(contractor):
    # The QS mail names the answer's figure as the old side; the later meeting note only rounds the new one.
    result = checked(contractor, "What is the contract sum for the Lindfield Day Clinic?",
                     "The Lindfield Day Clinic extension has a contract sum of R9 460 000,00 excl. VAT.")
    assert "R9 844 900,00 [corrected]" in result.delivered
    assert any(f.hallucination_type == "TemporalError" for f in result.hallucination_flags)


def test_the_old_sum_counted_with_vat_is_out_of_date_too(contractor):
    result = checked(contractor, "What is the Lindfield contract sum including VAT?",
                     "Including VAT, the Lindfield contract sum is R10 879 000,00.")
    assert "R11 321 635,00 [corrected]" in result.delivered
    right = checked(contractor, "What is the Lindfield contract sum including VAT?",
                    "Including VAT, the Lindfield contract sum is now R11 321 635,00.")
    assert not right.hallucination_flags


def test_a_day_first_date_is_corrected_where_the_time_beside_it_tells_which_line(contractor):
    # "close" alone is in the tender's closing line and in the shutdown mail's "sites close on … at 12:00".
    result = checked(contractor, "When does CT 26/044 close?",
                     "CT 26/044 is a roads tender. It closes on 22/01/2027 at 11:00.")
    assert "15/01/2027 [corrected] at 11:00" in result.delivered


def test_a_field_note_saying_who_leads_makes_the_lead(contractor):
    answer = contractor.ask("Who leads the Lindfield Day Clinic extension?", session="lead",
                            model="offline").response.delivered
    assert "Nomvula Radebe" in answer and "Warren Abrahams" not in answer


def test_the_first_part_of_a_title_joined_with_and_names_the_work(contractor):
    from chatapp.knowledge.short_names import DescribedThings

    project = only_entity(contractor, "Olifantsfontein depot re-roof and slab repair")
    described = DescribedThings(contractor.kb.registry.all_entities())
    assert [i for _, i in described.find("who leads the olifantsfontein depot re-roof?")] == [project.id]
    answer = contractor.ask("Who leads the Olifantsfontein depot re-roof?", session="depot",
                            model="offline").response.delivered
    assert "Hendrik van Zyl" in answer


def test_a_building_job_named_without_its_kind_word(contractor):
    pre = contractor.turns.preprocess("who is the site agent on the lindfield day clinic?")
    assert [e.canonical_name for e in pre.resolved_entities] == ["Lindfield Day Clinic extension"]


def test_pty_ltd_and_cc_firms_are_organisations(contractor):
    assert only_entity(contractor, "Lindfield Healthcare (Pty) Ltd").type == "organization"
    assert only_entity(contractor, "Soweto Sheeting CC").type == "organization"


def test_a_site_agent_taken_over_by_someone_else_is_corrected(contractor):
    result = checked(contractor, "Who is the site agent at Olifantsfontein?",
                     "The site agent on the Olifantsfontein depot is Lwazi Cele.")
    assert "is Palesa Nkosi [corrected]." in result.delivered
    assert [f.hallucination_type for f in result.hallucination_flags] == ["TemporalError"]
    before = checked(contractor, "Who was the site agent at Olifantsfontein?",
                     "Lwazi Cele was the site agent on the Olifantsfontein depot until November.")
    assert not before.hallucination_flags


def test_we_in_an_answer_is_borne_out_by_minutes_that_say_it_in_the_first_person(contractor):
    result = checked(contractor, "What CIDB grade does CT 26/044 need?",
                     "It needs CIDB 7CE or higher, so we are going in with Ukhozi Roadworks.")
    assert not result.hallucination_flags, result.hallucination_flags


def test_a_wrong_amount_in_millions_is_corrected_as_the_document_writes_it(contractor):
    result = checked(contractor, "How far above the winner were we on the Hyde Park fit-out?",
                     "We lost the Hyde Park retail fit-out on price; we were R 2,1 million above the winner.")
    assert "R 1,2 million [corrected]" in result.delivered


def test_a_letters_two_column_terms_table_reads_as_label_value_lines(tmp_path):
    import docx

    from chatapp.knowledge.parsers import parse_file

    letter = docx.Document()
    letter.add_paragraph("We are pleased to appoint you as main contractor.")
    table = letter.add_table(rows=0, cols=2)
    for label, value in [("Contract value", "ZAR 2 718 300,00 excl. VAT"), ("VAT (15%)", "ZAR 407 745,00"),
                         ("Retention", "10% of each certificate, reduced to 5% at practical completion")]:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = label, value
    header = letter.add_table(rows=0, cols=2)
    for row in [("Item", "Amount"), ("Scaffolding", "R45 000")]:
        cells = header.add_row().cells
        cells[0].text, cells[1].text = row
    rates = letter.add_table(rows=0, cols=2)
    for row in [("Fee earner", "Hourly rate (excl. VAT)"), ("Naledi Khumalo, Director", "R2 450"),
                ("Johan Pretorius, Candidate Engineer", "R1 180")]:
        cells = rates.add_row().cells
        cells[0].text, cells[1].text = row
    letter.save(tmp_path / "appointment.docx")
    text = parse_file(tmp_path / "appointment.docx").text
    assert "Retention: 10% of each certificate, reduced to 5% at practical completion" in text
    assert "VAT (15%): ZAR 407 745,00" in text
    assert "| Item | Amount |" in text  # a header row keeps its table
    # A header in words over a column of figures says what each figure is: the rows keep it.
    assert "| Fee earner | Hourly rate (excl. VAT) |" in text
    assert "| Johan Pretorius, Candidate Engineer | R1 180 |" in text


def test_two_bold_fields_on_one_line_are_two_fields(contractor):
    page = only_entity(contractor, "Lindfield Day Clinic extension").attributes
    assert (page["site_possession"], page["practical_completion"]) == ("05/10/2026", "26/03/2027")


def test_a_quoted_record_keeps_its_contacts_number_beside_another_persons_name(contractor):
    # The row names Hendrik (who approved it), whose own cell the registry holds: the contact's number in
    # the quoted row is still the contact's, not a "wrong" number of Hendrik's.
    answer = contractor.ask("What CIDB grading does CT 26/044 need?", session="cidb",
                            model="offline").response
    assert "083 555 0178" not in answer.delivered
    assert not [f for f in answer.hallucination_flags if f.content == "082 555 0196"]


def test_a_possessive_label_reads_as_words_in_an_offline_answer(contractor):
    # "Client's project manager: Warren Abrahams" is the client project manager, not a "client s …".
    answer = offline_answer(contractor, "Who is the client project manager for the Lindfield Day Clinic extension?",
                            "client-pm")
    assert "Warren Abrahams" in answer and "client s " not in answer
