"""A software-services startup's folder in Bengaluru: a who's-who with one heading per person, names
written with initials the South Indian way ("K. R. Lalitha", "T. Geetha", "Subramaniam R"), a finance
mail signed "Kavitha N", a client project page whose heading is the project's name with the client's
contacts under it, amounts in lakhs and in Indian digit groups ("₹24.5 lakh", "Rs. 24,50,000"), dates
written day first with slashes, and a vendor list of "Pvt. Ltd." firms.
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from chatapp.knowledge.extraction.observations import looks_like_person
from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

WHO = """# Kalpataru Labs — Who's who

Last updated 02/11/2026 by HR.

### Subramaniam R ("Subbu")
Co-founder & CEO
subbu@kalpatarulabs.in · +91 98441 20731

### K. R. Lalitha ("Lalli")
Co-founder & CTO
lalitha@kalpatarulabs.in · +91 99452 88014

### T. Geetha
UX Designer
geetha.t@kalpatarulabs.in

### Kavitha Natarajan
Finance Manager
kavitha.n@kalpatarulabs.in · 080-4290 1180
"""

PAGE = """---
title: Project Garuda – Field app for Tungabhadra Grameena Bank
project_manager: Naveen Kamath
budget: "₹24.5 lakh (fixed bid, excl. GST)"
go_live: 16/01/2027
---

# Project Garuda

Field app for the bank's loan officers.

**Client side:** Manjunath Hiremath (Chief Manager – IT), manjunath.h@tgbank.co.in,
+91 94480 33172. Day-to-day: Rekha Pai (Officer, Loans), rekha.pai@tgbank.co.in.

AMC after go-live: Rs. 38,000/- per month.
"""

REVISED = """From: "R. Subramaniam" <subbu@kalpatarulabs.in>
To: Manjunath Hiremath <manjunath.h@tgbank.co.in>
Cc: Naveen Kamath <naveen.k@kalpatarulabs.in>
Subject: Re: Garuda - CR-02 and revised timeline
Date: Tue, 24 Nov 2026 17:40:02 +0530

Dear Manjunath-ji,

Confirming what we agreed today:

1. Revised contract value: ₹27.25 lakh + GST (was ₹24.5 lakh).
2. Revised go-live: 09/03/2027 (was 16/01/2027).

Regards,
Subbu

On Mon, 23 Nov 2026 at 11:02, Manjunath Hiremath <manjunath.h@tgbank.co.in> wrote:
> Dear Subramaniam Sir,
>
> Our Board approved CR-02. Please confirm the revised cost and go-live date.
>
> Regards,
> Manjunath Hiremath
> Chief Manager - IT, Tungabhadra Grameena Bank
> Ph: 08392-266 140
"""

YEAR_END = """From: Kavitha Natarajan <kavitha.n@kalpatarulabs.in>
To: All <all@kalpatarulabs.in>
Subject: Reimbursements before year end
Date: Wed, 02 Dec 2026 10:11:45 +0530

Hi all,

Please file reimbursements on the expense tool by 17-12-2026.

Thanks,
Kavitha N
Finance Manager
"""

VENDORS = """{
  "list": "Approved vendors FY 2026-27",
  "vendors": [
    {"name": "Dhruva Office Leasing Pvt. Ltd.", "service": "Laptop leasing (30 laptops)",
     "contact": "Asha Kulkarni", "monthly_estimate": "Rs. 1,48,000", "payment_terms": "Quarterly in advance"},
    {"name": "Sri Ganesha Facility Services", "service": "Housekeeping",
     "contact": "Ramesh Gowda", "monthly_estimate": "Rs. 42,000", "payment_terms": "Monthly"}
  ]
}
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "kalpataru", {
        "whos-who.md": WHO, "garuda-project.md": PAGE, "email-2026-11-24-re-garuda-cr.eml": REVISED,
        "email-2026-12-02-reimbursements.eml": YEAR_END, "vendors.json": VENDORS})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, person", [
    ("K. R. Lalitha", True), ("T. Geetha", True), ("Subramaniam R", True), ("K.R. Lalitha", True),
    ("A. Smith", True), ("Plan B", False), ("Block C", False), ("Grade A", False), ("Room B", False),
    ("Q. Results", False), ("Project Falcon", False), ("Programme Kestrel", False),
])
def test_a_name_with_initials_reads_as_a_person_a_thing_with_a_letter_does_not(name, person):
    assert looks_like_person(name) is person


@pytest.mark.parametrize("name, alias, email", [
    ("K. R. Lalitha", "Lalli", "lalitha@kalpatarulabs.in"),
    ("T. Geetha", "Geetha", "geetha.t@kalpatarulabs.in"),
    ("Subramaniam R", "Subbu", "subbu@kalpatarulabs.in"),
])
def test_a_person_written_with_initials_is_found_by_the_name_they_go_by(engine, name, alias, email):
    person = only_entity(engine, alias)
    assert person.name == name
    assert person.attributes.get("email") == email
    assert not [a for a in person.aliases if len(a.strip(".")) == 1]  # "K.", "T.", "R" name nobody
    assert email in offline_answer(engine, f"What is {alias}'s email address?", f"email-{alias}")


def test_the_header_with_the_initial_first_is_the_same_person(engine):
    # The mail's "R. Subramaniam" and the who's-who's "Subramaniam R" share one address: one person.
    assert only_entity(engine, "R. Subramaniam").name == "Subramaniam R"


def test_a_signature_with_the_surnames_initial_is_the_sender(engine):
    assert only_entity(engine, "Kavitha N").name == "Kavitha Natarajan"


def test_a_project_pages_heading_is_no_person_and_its_client_contacts_stay_apart(engine):
    assert only_entity(engine, "Manjunath Hiremath").attributes.get("email") == "manjunath.h@tgbank.co.in"
    assert only_entity(engine, "Rekha Pai").name == "Rekha Pai"
    assert all(e.type != "person" for e in engine.kb.registry.find_by_alias("Project Garuda"))


@pytest.mark.parametrize("answer, wrong", [
    ("Project Garuda is a fixed bid of ₹24.5 lakh plus GST.", "₹24.5 lakh"),
    ("The contract value of Project Garuda is Rs. 24,50,000 plus GST.", "Rs. 24,50,000"),
])
def test_a_contract_value_in_lakhs_a_later_mail_revised_is_corrected(engine, answer, wrong):
    response = checked(engine, "What is the contract value of Project Garuda?", answer)
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("TemporalError", wrong)]
    assert "[corrected]" in response.delivered and wrong not in response.delivered


def test_a_day_first_date_is_corrected_with_the_documents_figures(engine):
    # The mail's "09/03/2027" reads two ways; the answer's "16/01/2027" is day first, as the folder writes.
    response = checked(engine, "When does Garuda go live?", "Project Garuda goes live on 16/01/2027.")
    assert "09/03/2027 [corrected]" in response.delivered


def test_a_slipped_amount_of_a_pvt_ltd_vendor_is_corrected(engine):
    response = checked(engine, "How much is the monthly laptop lease?",
                       "Dhruva Office Leasing charges Rs. 1,84,000 a month for the 30 laptops.")
    assert "Rs. 1,48,000 [corrected]" in response.delivered


@pytest.mark.parametrize("question, answer", [
    ("What is the contract value of Project Garuda?", "Project Garuda's revised contract value is ₹27.25 lakh plus GST."),
    ("What is the AMC for Garuda?", "After go-live the AMC is Rs. 38,000/- per month."),
    ("By when should reimbursements be filed?", "Reimbursements must be filed on the expense tool by 17-12-2026."),
])
def test_right_answers_in_lakhs_rupees_and_day_first_dates_are_not_flagged(engine, question, answer):
    assert checked(engine, question, answer).hallucination_flags == []


def test_a_number_wrapped_onto_the_next_line_is_its_writers_not_the_next_persons(engine):
    # "…, manjunath.h@…," then "+91 94480 33172. Day-to-day: Rekha Pai …, rekha.pai@…": the number ends
    # Manjunath's sentence; Rekha has none.
    rekha = only_entity(engine, "Rekha Pai").attributes
    assert "phone" not in rekha and "mobile" not in rekha


def test_a_mobile_and_a_later_landline_are_two_lines(engine):
    # The page's Indian mobile and the quoted signature's landline with its area code: neither replaces the other.
    attributes = only_entity(engine, "Manjunath Hiremath").attributes
    assert attributes.get("mobile") == "+91 94480 33172"
    assert attributes.get("phone") == "08392-266 140"
    assert "+91 94480 33172" in offline_answer(engine, "What is Manjunath Hiremath's mobile number?", "mob-mh")


def test_a_vendor_typed_by_its_first_word_is_capitalised_and_resolved(engine):
    # The vendor list's firms are things to the registry; "dhruva" is Dhruva Office Leasing Pvt. Ltd.
    pre = engine.turns.preprocess("whats the monthly estimate for dhruva")
    assert "Dhruva" in pre.corrected_input
    assert "Dhruva Office Leasing Pvt. Ltd" in [e.canonical_name for e in pre.resolved_entities]
