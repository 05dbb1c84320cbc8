"""A group of three veterinary clinics in Toronto: one clinic is called after its neighbourhood, "Don Mills",
whose first word is also a given name. The clinics table names it as a clinic; a mail opens a sentence with it
("Don Mills has two RVTs …") and signs "Head RVT, Don Mills", where the name recogniser reads a person.
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

CLINICS = """clinic,address,phone,exam_rooms,lead_vet,weekday_hours
Riverdale,1180 Queen Street East,+1 416 555 0120,6,Dr. Peregrine Fairweather,8:00-20:00
Junction,2947 Dundas Street West,+1 416 555 0130,4,Dr. Solveig Halvorsen,8:00-19:00
Don Mills,1655 Lawrence Avenue East,+1 416 555 0140,7,Dr. Temitope Ogunbanjo,7:30-21:00
"""

COVERAGE = """From: Ottilie Tremblay-Okoro <ottilie.tremblayokoro@maplecrestvet.ca>
To: Temitope Ogunbanjo <temitope.ogunbanjo@maplecrestvet.ca>
Subject: RVT coverage over the holidays
Date: Tue, 1 Dec 2026 13:27:50 -0500
Content-Type: text/plain; charset=utf-8

Hi Temitope,

Don Mills has two RVTs on every day except December 25 and January 1, when the clinic is closed.
I'm on December 24 and December 31 myself.

Thanks,
Ottilie

Ottilie Tremblay-Okoro, RVT | Head RVT, Don Mills | +1 416 555 0140 ext. 412
"""


@pytest.fixture(scope="module")
def clinics(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "vet-clinics-group",
                                   {"clinics.csv": CLINICS, "email-2026-12-01-rvt-coverage.eml": COVERAGE})
    yield engine
    engine.close()


def test_a_clinic_named_like_a_person_is_no_person(clinics):
    people = {e.name for e in clinics.kb.registry.all_entities() if e.type == "person"}
    assert "Don Mills" not in people
    assert {"Ottilie Tremblay-Okoro", "Temitope Ogunbanjo"} <= people
    assert "person" not in {e.type for e in clinics.kb.registry.find_by_alias("Don Mills")}


def test_the_clinics_hours_are_answered_from_its_row(clinics):
    answer = offline_answer(clinics, "What are the Don Mills weekday hours?", session="dm-hours")
    assert "7:30-21:00" in answer


DIRECTORY = """# Maplecrest Veterinary Group — Who's Who

_Maintained by Teddy Vanderkamp._

## Group leadership

- **Dr. Ishbel Ramaswamy** — Medical Director — ishbel.ramaswamy@maplecrestvet.ca — +1 416 555 0171

## Riverdale clinic (1180 Queen Street East)

- **Dr. Peregrine Fairweather** — Clinic Lead Veterinarian — peregrine.fairweather@maplecrestvet.ca — ext. 210
- **Ottilie Quintero** — Practice Manager — ottilie.quintero@maplecrestvet.ca — ext. 201

## Don Mills clinic (1655 Lawrence Avenue East)

- **Dr. Temitope Ogunbanjo** — Clinic Lead Veterinarian — temitope.ogunbanjo@maplecrestvet.ca — ext. 410
- **Ottilie Tremblay-Okoro** — Head Registered Veterinary Technician (RVT) — ottilie.tremblayokoro@maplecrestvet.ca — ext. 412
"""


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "vet-clinics-directory", {"staff-directory.md": DIRECTORY})
    yield engine
    engine.close()


def test_the_directory_section_says_which_clinic_each_person_works_at(directory):
    assert only_entity(directory, "Ottilie Quintero").attributes.get("department") == "Riverdale clinic"
    assert only_entity(directory, "Temitope Ogunbanjo").attributes.get("department") == "Don Mills clinic"
    # "## Group leadership" names no team of its own.
    assert "department" not in only_entity(directory, "Ishbel Ramaswamy").attributes
    answer = offline_answer(directory, "Which clinic does Ottilie Quintero work at?", session="oq-clinic")
    assert "Riverdale clinic" in answer


def test_the_wrong_clinic_after_a_persons_job_is_corrected(directory):
    response = checked(directory, "Where does Ottilie Quintero work?",
                       "Ottilie Quintero is the Practice Manager at the Don Mills clinic.")
    assert [f.hallucination_type for f in response.hallucination_flags] == ["WrongAttribute"]
    assert "at the Riverdale clinic [corrected]" in response.delivered
    assert "clinic clinic" not in response.delivered
    right = checked(directory, "Where does Ottilie Quintero work?",
                    "Ottilie Quintero is the Practice Manager at the Riverdale clinic.")
    assert not right.hallucination_flags


def test_the_right_job_and_clinic_stand(directory):
    response = checked(directory, "Who is Temitope Ogunbanjo?",
                       "Dr. Temitope Ogunbanjo is the Clinic Lead Veterinarian at the Don Mills clinic. "
                       "His extension is 410.")
    assert not response.hallucination_flags


XRAY_PAGE = """---
title: Junction Digital X-ray Upgrade
date: 2026-10-08
status: Approved
---

# Junction Digital X-ray Upgrade

Lead: Dr. Solveig Halvorsen
Budget: $86,500

## During the install

Patients needing radiographs from December 14 to December 18, 2026 are sent to the Riverdale clinic.
"""


@pytest.fixture(scope="module")
def clinics_and_xray(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "vet-clinics-xray",
                                   {"clinics.csv": CLINICS, "project-junction-digital-xray.md": XRAY_PAGE})
    yield engine
    engine.close()


def test_a_when_question_about_something_else_is_not_answered_with_the_clinics_hours(clinics_and_xray):
    answer = offline_answer(clinics_and_xray,
                            "When are Junction patients needing radiographs sent to the Riverdale clinic?",
                            session="xray-reroute")
    assert "December 14 to December 18, 2026" in answer
    assert "weekday hours" not in answer
    # A question about the clinic's own hours still gets its row.
    hours = offline_answer(clinics_and_xray, "When is the Riverdale clinic open on weekdays?", session="rd-hours")
    assert "8:00-20:00" in hours
