"""A two-clinic dental practice's folder in Ontario: a Word phone list whose table writes names surname first
("Okonjo, Adaeze (Dr.)") and two jobs in one Title cell, a plain-text handover with "Surname, Given — job"
lines, a practice-system export of providers, a project page whose price and install date a later mail
changes ("now C$71,200.00 + HST (down from $76,900)", "installation moves to …"), and North American
abbreviations ("Dr.", "Dec. 12"). Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in
the code."""

from __future__ import annotations

import pytest

from chatapp.knowledge.extraction.observations import natural_order_names
from chatapp.postprocess.evidence import split_sentences
from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

STAFF = [
    ("Name", "Title", "Clinic", "Line", "Cell", "Email"),
    ("Okonjo, Adaeze (Dr.)", "Dentist, DDS — Clinical Director", "Beaches", "(416) 555-0190 ext. 11", "647-555-0311",
     "adaeze.okonjo@harbourviewdental.ca"),
    ("Lindgren, Ruth (Dr.)", "Associate Dentist, DDS", "Beaches", "(416) 555-0190 ext. 12", "647-555-0312",
     "ruth.lindgren@harbourviewdental.ca"),
    ("Brar, Harjeet", "Office Manager (both clinics)", "Beaches", "(416) 555-0190 ext. 13", "647-555-0313",
     "harjeet.brar@harbourviewdental.ca"),
    ("Marchand, Elodie", "Treatment Coordinator", "Beaches", "(416) 555-0190 ext. 14", "",
     "emarchand@harbourviewdental.ca"),
    ("Kowalczyk, Elodie", "Registered Dental Hygienist (RDH)", "Oakville", "(905) 555-0160 ext. 24", "",
     "ekowalczyk@harbourviewdental.ca"),
    ("Achterberg, Simone", "Level II Dental Assistant; IPAC Lead", "Oakville", "(905) 555-0160 ext. 23", "",
     "sachterberg@harbourviewdental.ca"),
]

HANDOVER = """HANDOVER - OAKVILLE
For: Dr. Tariq Hamdan (locum)

WHO TO CALL
  Fenwick, Marisol — receptionist, front desk, ext. 20
  Achterberg, Simone — your chairside assistant (Level II), ext. 23
  Brar, Harjeet — office manager, 647-555-0313

Spore test: Mondays, before the first patient.
"""

EXPORT = """{
  "export": {"system": "Practice Manager 9", "schedule_date": "2026-12-07"},
  "providers": [
    {"provider_id": "DDS07", "name": "Hamdan, Tariq", "type": "Locum dentist"},
    {"provider_id": "RDH04", "name": "Kowalczyk, Elodie", "type": "Hygienist"}
  ]
}
"""

PROJECT = """---
title: Intraoral scanner purchase — Beaches
owner: Dr. Ruth Lindgren
status: Approved
budget: C$76,900 + HST
updated: 2026-10-29
---

# Intraoral scanner purchase (Beaches)

**Project lead:** Dr. Ruth Lindgren, DDS

## Unit and price

- Price: $76,900.00 + HST (vendor quote Q-4410)

## Schedule

- Installation and calibration: **January 18, 2027**
- Staff training: January 19, 2027
"""

CHANGE = """From: Ruth Lindgren <ruth.lindgren@harbourviewdental.ca>
To: Harjeet Brar <harjeet.brar@harbourviewdental.ca>
Subject: Re: Scanner - trade-in and install date
Date: Thu, 26 Nov 2026 18:40:03 -0500

Hi Harjeet,

Two changes:

1. Price: the vendor takes the old camera as a trade-in, so the final price for the scanner is now
   C$71,200.00 + HST (down from $76,900).
2. Install date: their crew is booked the week of Jan. 18, so installation moves to Monday, February 1, 2027.

Ruth
"""

LOCUM = """From: Adaeze Okonjo <adaeze.okonjo@harbourviewdental.ca>
To: All Staff <staff@harbourviewdental.ca>
Subject: Welcome Dr. Tariq Hamdan (locum)
Date: Mon, 16 Nov 2026 07:48:19 -0500

Dr. Tariq Hamdan will work at Oakville on Mondays and Thursdays, and every second Saturday (starting Dec. 12).
His cell is 647-555-0366.

Adaeze

Suppliers: Kestrel Dental Supply — Amir Sato, account rep, 905-555-0150.
"""

HOURS = """From: Harjeet Brar <harjeet.brar@harbourviewdental.ca>
To: All Staff <staff@harbourviewdental.ca>
Subject: Holiday hours
Date: Tue, 1 Dec 2026 16:22:57 -0500

Holiday hours are set:

* Beaches: closed from Thursday, December 24, 2026 through Friday, January 1, 2027. Back on
  Monday, January 4th.
* Oakville: closed December 24-28; open December 29 and 30 for emergencies.

Harjeet
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    from docx import Document

    engine, folder = engine_learnt_from(tmp_path_factory, "harbourview", {
        "handover.txt": HANDOVER, "providers-export.json": EXPORT, "intraoral-scanner-purchase.md": PROJECT,
        "email-2026-11-26-re-scanner.eml": CHANGE, "email-2026-11-16-locum.eml": LOCUM,
        "email-2026-12-01-holiday-hours.eml": HOURS})
    document = Document()
    document.add_heading("Harbourview Dental — Staff Phone List", level=1)
    table = document.add_table(rows=len(STAFF), cols=len(STAFF[0]))
    for r, row in enumerate(STAFF):
        for c, cell in enumerate(row):
            table.cell(r, c).text = cell
    document.save(folder / "Staff Phone List.docx")
    assert not engine.ingest(folder).files_failed
    yield engine
    engine.close()


@pytest.mark.parametrize("name, email, role", [
    ("Elodie Marchand", "emarchand@harbourviewdental.ca", "Treatment Coordinator"),
    ("Elodie Kowalczyk", "ekowalczyk@harbourviewdental.ca", "Registered Dental Hygienist (RDH)"),
    ("Adaeze Okonjo", "adaeze.okonjo@harbourviewdental.ca", "Dentist, DDS — Clinical Director"),
])
def test_a_phone_list_written_surname_first_gives_each_person_in_prose_order(engine, name, email, role):
    attributes = only_entity(engine, name).attributes
    assert attributes.get("email") == email
    assert attributes.get("role") == role  # the "Title" column of a table of people
    other = "ekowalczyk" if "marchand" in email else "emarchand"
    answer = offline_answer(engine, f"What is {name}'s email address?", f"email-{name}")
    assert email in answer and other not in answer


def test_a_providers_export_and_a_sorted_handover_list_name_people_in_prose_order(engine):
    assert only_entity(engine, "Tariq Hamdan").attributes.get("provider_id") == "DDS07"
    # Each object of the list is a row of it, never a record of its own kept in the order the cell writes it.
    assert not [e.name for e in engine.kb.registry.all_entities() if "," in e.name]
    assert only_entity(engine, "Marisol Fenwick").attributes.get("role") == "receptionist"
    assert "RDH04" in offline_answer(engine, "What is Elodie Kowalczyk's provider ID?", "provider-id")


def test_one_cell_with_a_comma_is_no_sorted_list():
    assert natural_order_names(["Leeds, Yorkshire", "Room 4"]) == ["Leeds, Yorkshire", "Room 4"]
    assert natural_order_names(["Brar, Harjeet", "Fenwick, Marisol (Ms.)"]) == ["Harjeet Brar", "Ms. Marisol Fenwick"]


def test_a_job_in_a_two_job_title_is_checked_as_that_persons_role(engine):
    wrong = checked(engine, "What is Harjeet Brar's role?", "Harjeet Brar is the Clinical Director of the practice.")
    assert [f.hallucination_type for f in wrong.hallucination_flags] == ["WrongAttribute"]
    assert "Office Manager" in wrong.delivered and "[corrected]" in wrong.delivered
    for answer in ("Dr. Adaeze Okonjo, DDS, is the Clinical Director.", "Simone Achterberg is the IPAC Lead.",
                   "Harjeet Brar is the Office Manager."):
        assert checked(engine, "Who is who?", answer).hallucination_flags == []


def test_a_wrong_cell_number_is_corrected_and_the_listed_one_is_not_flagged(engine):
    wrong = checked(engine, "What is Harjeet's cell?",
                    "Harjeet Brar, the office manager, is on his cell at 647-555-0331.")
    assert [f.content for f in wrong.hallucination_flags] == ["647-555-0331"]
    assert "647-555-0313 [corrected]" in wrong.delivered
    # The handover gives his cell without a label; the mail's signature his desk line: both still hold.
    assert checked(engine, "What is Harjeet's cell?", "Harjeet Brar's cell is 647-555-0313.").hallucination_flags == []


@pytest.mark.parametrize("question, answer, old, new", [
    # "now C$71,200.00 + HST (down from $76,900)": the bracket names the page's price as the old one.
    ("How much does the intraoral scanner cost?", "The intraoral scanner for Beaches costs C$76,900.00 plus HST.",
     "C$76,900.00", "C$71,200.00"),
    # "so installation moves to …": what moved is what the answer dates, however long its sentence.
    ("When will the scanner be installed?", "The intraoral scanner will be installed at the Beaches clinic on "
     "January 18, 2027, with staff training the day after.", "January 18, 2027", "February 1, 2027"),
])
def test_a_value_a_later_mail_changes_is_corrected_to_the_new_one(engine, question, answer, old, new):
    response = checked(engine, question, answer)
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("TemporalError", old)]
    assert f"{new} [corrected]" in response.delivered


def test_a_locum_schedule_with_dr_and_dec_abbreviations_is_not_flagged(engine):
    response = checked(engine, "When does Dr. Hamdan work?",
                       "Dr. Tariq Hamdan works at Oakville on Mondays and Thursdays, and every second Saturday "
                       "starting Dec. 12. His cell is 647-555-0366.")
    assert response.hallucination_flags == []
    assert split_sentences("Dr. Tariq Hamdan starts Fri. Nov. 27 at 9. Then he meets Ms. Brar.") == [
        "Dr. Tariq Hamdan starts Fri. Nov. 27 at 9.", "Then he meets Ms. Brar."]


def test_a_bracketed_site_in_a_project_heading_is_no_name_of_the_project(engine):
    project = only_entity(engine, "Intraoral scanner purchase")
    assert "Beaches" not in project.aliases
    assert project.type == "project"


@pytest.mark.parametrize("typed, corrected", [
    ("when dose tariqs locum contract end", "When does Tariq's locum contract end?"),
    ("how si the oakville clinic doing", "How is the Oakville clinic doing?"),
    ("what dose should i give", "What dose should I give?"),  # "what" takes a noun: a dose is asked for
])
def test_an_auxiliary_typed_with_two_letters_swapped_after_a_question_word_is_mended(engine, typed, corrected):
    assert engine.preprocess(typed).corrected_input == corrected


def test_a_wrong_extension_on_the_shared_practice_line_is_corrected(engine):
    # Everyone's line is "(416) 555-0190 ext. NN": the extension tells two people on it apart.
    wrong = checked(engine, "What is Harjeet's line?", "Harjeet Brar's line is (416) 555-0190 ext. 31.")
    assert [f.content for f in wrong.hallucination_flags] == ["(416) 555-0190 ext. 31"]
    assert "(416) 555-0190 ext. 13 [corrected]" in wrong.delivered
    for answer in ("Harjeet Brar's line is (416) 555-0190 ext. 13.", "Harjeet Brar is on (416) 555-0190."):
        assert checked(engine, "What is Harjeet's line?", answer).hallucination_flags == []


def test_a_dental_supply_firm_before_its_rep_is_no_person(engine):
    assert not [e for e in engine.kb.registry.find_by_alias("Kestrel Dental Supply") if e.type == "person"]


@pytest.mark.parametrize("question, name", [
    ("what's the office manager's email?", "Harjeet Brar"),  # "Office Manager (both clinics)"
    ("whats the office managers email", "Harjeet Brar"),  # the apostrophe left out
    ("what is the clinical director's cell?", "Adaeze Okonjo"),  # "Dentist, DDS — Clinical Director"
])
def test_one_job_of_a_two_job_title_names_its_holder(engine, question, name):
    assert name in [e.canonical_name for e in engine.preprocess(question).resolved_entities]


def test_a_role_one_person_holds_gets_its_possessive_apostrophe(engine):
    result = engine.preprocess("whats the office managers cell")
    assert result.corrected_input == "What's the office manager's cell?"
    record = next(r for r in result.corrections if r.original == "managers")
    assert (record.correction_type, record.span) == ("EntityCorrection", (17, 25))
    # A plural with a verb after it, or a role nobody in the folder holds, keeps its plain "s".
    assert engine.preprocess("the office managers are busy").corrected_input == "The office managers are busy"
    assert "plumber's" not in engine.preprocess("whats the plumbers email").corrected_input


def test_a_closure_answer_that_words_the_reopening_its_own_way_is_not_flagged(engine):
    # The mail says "Back on Monday, January 4th"; the answer says "reopens": every date it gives is the
    # mail's, and only that one verb differs.
    response = checked(engine, "When is Beaches closed over the holidays?",
                       "Beaches is closed from Thursday, December 24, 2026 through Friday, January 1, 2027, "
                       "and reopens on Monday, January 4th.")
    assert response.hallucination_flags == []
    wrong = checked(engine, "When is Beaches closed over the holidays?",
                    "Beaches is closed from Thursday, December 24, 2026 through Friday, January 1, 2027, "
                    "and reopens on Monday, January 11th.")
    assert "January 11th" in [f.content for f in wrong.hallucination_flags]


def test_the_degree_letters_a_title_holds_are_no_other_role(engine):
    # "Dentist, DDS — Clinical Director": "Dr. Adaeze Okonjo, DDS" says the letters her record gives.
    response = checked(engine, "Who is Adaeze Okonjo?", "Dr. Adaeze Okonjo, DDS, is the Clinical Director.")
    assert response.hallucination_flags == []
