"""A community theatre's folder in the United States: a board roster whose "Office" column gives each
officer's job and whose names carry a generation ("Hank Oyelaran III", 'Robert "Bobby" Castellano Jr.'),
a production page whose front-matter title ends in a year and a quoted show name, a forwarded grant mail
that says the award is "$7,500, not the $9,000 we asked for", minutes, and ticket sales in JSON with one
show on two nights. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import json

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

ROSTER = """# Riverbend Community Players — Board of Directors 2026–27

| Office | Name | Email | Phone |
|---|---|---|---|
| President | Robert "Bobby" Castellano Jr. | bobby.castellano@riverbendplayers.org | (608) 555-0142 |
| Vice President | Dr. Lakeisha Moore-Watkins | lakeisha@riverbendplayers.org | (608) 555-0177 |
| Treasurer | Hank Oyelaran III | treasurer@riverbendplayers.org | (608) 555-0109 |
| Secretary | Mary Beth Sorensen | marybeth@riverbendplayers.org | (608) 555-0163 |

Staff: Jolene Whitcombe, Managing Director (jolene@riverbendplayers.org, ext. 12)
"""

PRODUCTION = """---
title: Spring Youth Production 2027 — "The Phantom Tollbooth"
director: Mary Beth Sorensen
producer: Tomás Ibarra-Quint
pi: Dr. Özge Kılıç
budget: $14,200
grant requested: $9,000 (Dane County Arts)
opening night: 2027-04-16
---

## Summary
Auditions on Saturday, January 9. Rehearsals Tue/Thu 6–8 pm.
"""

MAIL = """From: Jolene Whitcombe <jolene@riverbendplayers.org>
To: Board <board@riverbendplayers.org>
Date: Mon, 30 Nov 2026 09:05:44 -0600
Subject: Fwd: Dane County Arts grant - award letter

Hi all - good news below. Note the award is $7,500, not the $9,000 we asked for, so Hank will
revise the Spring budget.

Jolene

---------- Forwarded message ---------
From: Priya Venkatesh <pvenkatesh@danecountyarts.example>
Date: Wed, Nov 25, 2026 at 3:12 PM
Subject: Dane County Arts grant - award letter

Dear Ms. Whitcombe,

The panel awarded Riverbend Community Players $7,500 for the 2027 Spring Youth Production.
"""

SALES = [
    {"show": "Holiday Cabaret", "date": "2026-12-18", "capacity": 120, "sold": 87, "box_office_lead": "Mary Beth Sorensen"},
    {"show": "Holiday Cabaret", "date": "2026-12-19", "capacity": 120, "sold": 104, "box_office_lead": "Tomás Ibarra-Quint"},
]

FRONT_OF_HOUSE = """Date,House manager,Ushers
2026-12-18,Dr. Lakeisha Moore-Watkins,4
2026-12-19,Dr. Anneliese Vogt,5
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "riverbend-players", {
        "board-roster.md": ROSTER, "spring-youth-production.md": PRODUCTION, "2026-11-30-fwd-grant.eml": MAIL,
        "ticket-sales.json": json.dumps(SALES), "front-of-house.csv": FRONT_OF_HOUSE})
    yield engine
    engine.close()


def answer_line(engine, question: str) -> str:
    return offline_answer(engine, question, "q").split("\n\n")[1]


def test_a_boards_office_column_is_each_officers_role_and_a_generation_is_no_part_of_a_name(engine):
    treasurer = only_entity(engine, "Hank Oyelaran")
    assert treasurer.attributes["role"] == "Treasurer"
    assert only_entity(engine, "Bobby Castellano").name == "Robert Castellano"
    assert "Hank Oyelaran" in answer_line(engine, "Who is the treasurer?")
    assert "Vice President" in answer_line(engine, "What is Lakeisha's role on the board?")
    # "Staff: Jolene Whitcombe, Managing Director (…)": the label names a group, the title after the name her job.
    assert only_entity(engine, "Jolene Whitcombe").attributes["role"] == "Managing Director"
    assert "ext. 12" in answer_line(engine, "whats jolenes extension")  # her only number is an extension


def test_a_piece_of_work_is_named_without_the_year_its_name_ends_in(engine):
    assert only_entity(engine, "Spring Youth Production 2027").name == "Spring Youth Production 2027"
    assert "Mary Beth Sorensen" in answer_line(engine, "Who directs the Spring Youth Production?")
    # A key the question names that holds a titled name answers "who" ("Dr." is no part of the name).
    assert "Anneliese Vogt" in answer_line(engine, "Who is the house manager on 2026-12-19?")
    assert "Özge Kılıç" in answer_line(engine, "Who is the PI of the Spring Youth Production?")


def test_of_one_shows_two_nights_a_question_naming_a_night_is_answered_from_its_row(engine):
    assert "104" in answer_line(engine, "How many tickets were sold for the Holiday Cabaret on 12/19?")
    assert "87" in answer_line(engine, "How many tickets were sold for the Holiday Cabaret on December 18?")


def test_the_figure_asked_for_is_out_of_date_only_as_the_award(engine):
    awarded = checked(engine, "How much did Dane County Arts award for the spring production?",
                      "Dane County Arts awarded $9,000 for the Spring Youth Production.")
    assert [(f.hallucination_type, f.suggestion) for f in awarded.hallucination_flags] == [("TemporalError", "$7,500")]
    requested = checked(engine, "How much did we ask Dane County Arts for?",
                        "Riverbend requested $9,000 from Dane County Arts for the Spring Youth Production.")
    assert requested.hallucination_flags == []
