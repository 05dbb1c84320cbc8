"""A water trust's folder of plant documents, learnt and checked: a budget in Australian dollars, a
pump's power in a table column, a commissioning date a later mail moved, a colleague's new title
announced in a mail wrapped at its margin, and a project whose short form in brackets is no
person's role; a staff list's "known_as" column gives the names people go by. Real ChatEngine, real SQLite, Chroma and spaCy."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.conftest import checked, engine_learnt_from

NOW = datetime(2026, 12, 4, 9, 0, tzinfo=timezone.utc)

STAFF = """staff_no,name,known_as,role,email,mobile
201,Ottilie Brancaster,Tilly,Operations Manager,ottilie@corrievale.example,0412 555 201
207,Ruairi Halloran,Ruairi,Network Engineer,ruairi@corrievale.example,0412 555 207
214,Dimitra Vasilakis,Dimi,Finance Officer,dimitra@corrievale.example,0412 555 214
"""

PROJECT = """---
title: Kettleby Pumping Upgrade
date: 2026-08-20
status: Delivery
---

# Kettleby Pumping Upgrade (KPU)

Lead: Ottilie Brancaster
Budget: A$2,350,000 (pumps, switchboard and civil works)
Funding: co-funded by the Marrick Shire Council
Milestones: pump commissioning 9 March 2027 · network handover 30 June 2027

## Equipment

| Item | Quantity | Rating |
|---|---|---|
| Booster pumps (Ingleby Hydraulics) | 2 | 45 kW each |
| Reservoir inlet valve | 1 | DN300 |
"""

NOTES = """# Plant meeting — 12 November 2026

Present: Ottilie Brancaster, Ruairi Halloran, Dimitra Vasilakis

## 1. Kettleby Pumping Upgrade (KPU)
- Dimitra confirmed the Marrick Shire Council grant has been paid.
- Ingleby Hydraulics delivers the pumps in February.
"""

MAIL_MOVED = """From: Ottilie Brancaster <ottilie@corrievale.example>
To: Plant team <plant@corrievale.example>
Subject: Pump commissioning moves
Date: Tue, 24 Nov 2026 08:10:00 +1000

Hi all,

- Pump commissioning: moved from 9 March 2027 to 20 April 2027
- Network handover: 30 June 2027 stays

Ottilie
"""

# Wrapped at the margin as mail programs write it: the new title is on the next line.
MAIL_ROLE = """From: Ottilie Brancaster <ottilie@corrievale.example>
To: All staff <staff@corrievale.example>
Subject: A new role for Ruairi
Date: Mon, 16 Nov 2026 09:00:00 +1000

Hi all,

Some news: from Monday 30 November 2026, Ruairi Halloran moves from Network Engineer to
the new role of Asset Planning Lead, looking after the renewal programme.

Ottilie
"""

FILES = {"staff.csv": STAFF, "kettleby-pumping-upgrade.md": PROJECT, "plant-meeting-2026-11-12.md": NOTES,
         "2026-11-24-pump-commissioning.eml": MAIL_MOVED, "2026-11-16-ruairi-role.eml": MAIL_ROLE}


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "corrievale", FILES)
    yield engine
    engine.close()


def test_a_project_with_its_short_form_in_brackets_is_not_taken_for_a_person(engine):
    entities = engine.kb.registry.all_entities()
    named = [e.type for e in entities if e.name == "Kettleby Pumping Upgrade"]
    assert named == ["project"]


def test_a_wrong_budget_in_australian_dollars_is_corrected_when_its_refers_to_the_project(engine):
    result = checked(engine, "What is the budget for the Kettleby Pumping Upgrade?",
                   "The Kettleby Pumping Upgrade is co-funded by the Marrick Shire Council. Its budget is A$2,530,000.")
    assert result.delivered.endswith("Its budget is A$2,350,000 [corrected].")
    flag, = result.hallucination_flags
    assert flag.content == "A$2,530,000"


def test_a_wrong_power_rating_is_corrected_from_the_table_column_it_is_under(engine):
    result = checked(engine, "What are the booster pumps rated at?",
                   "Ingleby Hydraulics is supplying two booster pumps. Each pump is rated at 90 kW.")
    assert result.delivered.endswith("Each pump is rated at 45 kW [corrected].")
    assert [f.content for f in result.hallucination_flags] == ["90 kW"]


def test_the_old_commissioning_date_is_corrected_when_the_sentence_says_what_it_is(engine):
    # No project named: "pumps … commissioned" says the slot whole.
    result = checked(engine, "When will the pumps be commissioned?",
                   "The booster pumps will be commissioned on 9 March 2027.")
    assert result.delivered == "The booster pumps will be commissioned on 20 April 2027 [corrected]."
    assert [f.hallucination_type for f in result.hallucination_flags] == ["TemporalError"]


def test_a_new_title_announced_in_a_wrapped_mail_replaces_the_staff_list_one(engine):
    answer = engine.ask("What is Ruairi Halloran's role now?", session="role", model="offline", now=NOW)
    assert "Asset Planning Lead" in answer.response.delivered
    right = checked(engine, "What is Ruairi Halloran's job?", "Ruairi Halloran is the Asset Planning Lead.")
    assert right.hallucination_flags == [] and right.recommendation == "Accept"
    old = checked(engine, "What is Ruairi Halloran's job?", "Ruairi Halloran is the Network Engineer.")
    assert "Asset Planning Lead" in old.delivered and old.hallucination_flags


def test_how_powerful_is_answered_with_a_power_rating(engine):
    answer = engine.ask("How powerful are the booster pumps?", session="pumps", model="offline", now=NOW)
    assert "45 kW" in answer.response.delivered


def test_the_name_a_staff_list_says_someone_goes_by_finds_them(engine):
    answer = engine.ask("What is Tilly's email address?", session="tilly", model="offline", now=NOW)
    assert "ottilie@corrievale.example" in answer.response.delivered
    assert "dimitra@" not in answer.response.delivered and "ruairi@" not in answer.response.delivered
