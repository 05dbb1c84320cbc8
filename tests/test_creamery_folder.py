"""A creamery's work folder: a directory whose entries sit under department headings with the name people
call someone in quotes after their full name, an undated safety page that names who holds a duty besides their
job title ("Site safety lead: …", kept as a role the dated directory's job title supersedes),
a project page whose cost table writes "£27,400", a mail signed with a name alone above the signature
block, and two people called Sorcha. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

DIRECTORY = """# Corrievale Creamery — staff

Updated: 12 November 2026

### Dairy

Bartholomew Quennock ("Barty")
: Head Cheesemaker
: bartholomew.quennock@corrievale.co.uk · 01873 555 201

### Engineering

Orla Penhallow
: Maintenance Engineer
: orla.penhallow@corrievale.co.uk · 07700 900 644

### Packing

Sorcha Venning
: Packing Supervisor
: sorcha.venning@corrievale.co.uk · 01873 555 218

### Shop

Sorcha Maddock
: Shop Manager
: sorcha.maddock@corrievale.co.uk · 01873 555 240
"""

SAFETY = """# Site safety

Site safety lead: Orla Penhallow (07700 900 644). First aiders: Sorcha Venning and Bartholomew Quennock.
Hot work in the make room needs a permit signed by Orla.
"""

CAVE = """---
title: Cave store No. 2
date: 2026-10-16
owner: Bartholomew Quennock
---

# Cave store No. 2

| Item | Cost |
|---|---|
| Humidity control | £27,400 |
| Racking | £8,000 |

The reserve cheddar is matured in Cave store No. 2 at 85% humidity.
"""

MAIL = """From: Elizabeth Tresize <elizabeth.tresize@corrievale.co.uk>
To: Corrievale Staff <staff@corrievale.co.uk>
Subject: Make room closed on Friday
Date: Tue, 24 Nov 2026 09:10:00 +0000

Morning all,

The make room is closed on Friday 27 November 2026 for the vat inspection. Any questions, find me in the dairy.

Libby

Elizabeth Tresize | Dairy Manager | 01873 555 230
Corrievale Creamery
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "corrievale", {
        "staff.md": DIRECTORY, "site-safety.md": SAFETY, "cave-store-2.md": CAVE,
        "make-room-closed.eml": MAIL})
    yield engine
    engine.close()


def test_a_nickname_after_a_name_under_a_department_heading_is_the_persons(engine):
    # "### Dairy", a blank line, then 'Bartholomew Quennock ("Barty")': the heading is not part of the name.
    assert only_entity(engine, "Barty").name == "Bartholomew Quennock"
    pre = engine.turns.preprocess("whats bartys email")
    assert "Bartholomew Quennock" in [e.canonical_name for e in pre.resolved_entities]


def test_a_name_signed_alone_above_the_senders_signature_block_is_a_name_they_go_by(engine):
    # No "Thanks," above "Libby": the signature block under it, "Elizabeth Tresize | Dairy Manager", says whose it is.
    assert only_entity(engine, "Libby").name == "Elizabeth Tresize"


def test_a_duty_the_sources_write_beside_a_persons_name_is_not_flagged_against_their_job_title(engine):
    response = checked(engine, "Who is the site safety lead?", "The site safety lead is Orla Penhallow.")
    assert "[" not in response.delivered, response.delivered
    response = checked(engine, "What does Orla Penhallow do?", "Orla Penhallow is the site safety lead.")
    assert "[" not in response.delivered, response.delivered


def test_the_wrong_person_in_a_duty_is_corrected_and_the_holders_own_number_beside_it_kept(engine):
    response = checked(engine, "Who is the site safety lead?",
                       "The site safety lead is Sorcha Venning, on 07700 900 644.")
    assert "Orla Penhallow [corrected]" in response.delivered, response.delivered
    assert "07700 900 644." in response.delivered and "01873 555 218" not in response.delivered


def test_a_percentage_is_not_borne_out_by_a_piece_of_a_larger_amount(engine):
    # "£27,400" writes no 27: "27% humidity" is not stated by it.
    response = checked(engine, "At what humidity is the reserve cheddar matured?",
                       "The reserve cheddar is matured in Cave store No. 2. It is matured at 27% humidity.")
    assert "27% humidity" not in response.delivered, response.delivered


def test_the_fields_after_a_name_on_one_line_are_that_persons_not_the_namesake_asked_about(engine):
    # "Who is Sorcha?" may resolve to Sorcha Venning; the answer's line is about Sorcha Maddock throughout.
    answer = "Sorcha Maddock: Shop Manager. Email: sorcha.maddock@corrievale.co.uk. Phone: 01873 555 240."
    response = checked(engine, "Who is Sorcha?", answer)
    assert response.delivered == answer, response.delivered


def test_offline_a_first_name_two_people_share_names_both_rather_than_guessing(engine):
    answer = offline_answer(engine, "Who is Sorcha?", "corrievale-sorcha")
    assert "Your documents name more than one person Sorcha:" in answer, answer
    assert "Sorcha Venning: Packing Supervisor" in answer and "Sorcha Maddock: Shop Manager" in answer
    assert "01873 555 240" in answer and "01873 555 218" in answer and "[" not in answer, answer
    # A whole name is no question of which one.
    whole = offline_answer(engine, "What is Sorcha Maddock's email address?", "corrievale-maddock")
    assert "sorcha.maddock@corrievale.co.uk" in whole and "more than one person" not in whole


def test_offline_a_first_name_taken_for_the_more_documented_person_gives_the_others_too(engine):
    # Nothing earlier in the session says which Sorcha: the resolver's pick rests on how often the
    # documents name each, so the answer for the one it took is followed by the same of the other.
    answer = offline_answer(engine, "What is Sorcha's phone number?", "corrievale-sorcha-phone")
    assert "01873 555 240" in answer and "01873 555 218" in answer, answer
    # Once the session has named one in full, her namesake is left out.
    offline_answer(engine, "What is Sorcha Maddock's email address?", "corrievale-maddock-then")
    follow_up = offline_answer(engine, "And what is Sorcha's phone number?", "corrievale-maddock-then")
    assert "01873 555 240" in follow_up and "01873 555 218" not in follow_up, follow_up
