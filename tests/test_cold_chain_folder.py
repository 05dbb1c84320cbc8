"""A cold-chain logistics firm's folder in Singapore: a staff table of Chinese names written surname
first ("Tan Wei Ming") with the English or short name each goes by in a "Known as" column, Malay and
Tamil names joined by "bin", "binte" and "s/o", a mail signed with a two-word short name, notes that say
"KW leads;" under a project's heading, and a project named in everyday words whose date a later mail moved.
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

STAFF = """# Merlion Reefer Logistics — staff list

| Name | Known as | Role | Email | Mobile |
|---|---|---|---|---|
| Ong Jun Jie | Marcus | Operations Director | marcus.ong@merlionreefer.sg | +65 9812 3345 |
| Koh Mei Xin | Mei Xin | Finance Manager | meixin.koh@merlionreefer.sg | +65 9823 4456 |
| Hafiz bin Osman | Hafiz | Warehouse Supervisor | hafiz.osman@merlionreefer.sg | +65 9834 5567 |
| Farah binte Jamal | Farah | HR Executive | farah.jamal@merlionreefer.sg | +65 9845 6678 |
| Suresh Pillai s/o Ramasamy | Suresh | Fleet Manager | suresh.pillai@merlionreefer.sg | +65 9856 7789 |
| Teo Kah Wai | KW | IT Manager | kw.teo@merlionreefer.sg | +65 9867 8890 |
"""

PROJECT = """---
title: Chiller room retrofit — Pandan depot
lead: Hafiz bin Osman
budget: S$142,000
handover: 14 December 2026
---

# Chiller room retrofit

Handover is planned for 14 December 2026.
"""

MOVED = """From: Hafiz bin Osman <hafiz.osman@merlionreefer.sg>
To: Ong Jun Jie <marcus.ong@merlionreefer.sg>
Cc: Koh Mei Xin <meixin.koh@merlionreefer.sg>
Date: Wed, 25 Nov 2026 16:05:00 +0800
Subject: Chiller room handover moved

Hi Marcus,

The evaporator coils are late, so the handover moves to 8 January 2027 (was 14 December 2026).

Thanks,
Hafiz
"""

LEASE = """From: Koh Mei Xin <meixin.koh@merlionreefer.sg>
To: Suresh Pillai <suresh.pillai@merlionreefer.sg>
Date: Tue, 01 Dec 2026 10:12:00 +0800
Subject: Re: Reefer truck lease

Suresh, the lease renewal is approved. Please sign with the leasing firm this week.

Mei Xin
"""

NOTES = """# Ops meeting — 30 Nov 2026

Present: Marcus, Mei Xin, Hafiz, Suresh, KW

## Project Lotus (warehouse management system)
- KW leads; go-live target 1 March 2027.
"""


@pytest.fixture(scope="module")
def firm(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "merlion", {
        "staff-list.md": STAFF, "project-chiller-room.md": PROJECT, "2026-11-25-handover-moved.eml": MOVED,
        "2026-12-01-re-lease.eml": LEASE, "ops-meeting-2026-11-30.md": NOTES})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, email", [
    ("Ong Jun Jie", "marcus.ong@merlionreefer.sg"),
    ("Teo Kah Wai", "kw.teo@merlionreefer.sg"),
    ("Hafiz bin Osman", "hafiz.osman@merlionreefer.sg"),
    ("Farah binte Jamal", "farah.jamal@merlionreefer.sg"),
    ("Suresh Pillai s/o Ramasamy", "suresh.pillai@merlionreefer.sg"),
])
def test_names_written_surname_first_or_with_bin_and_s_o_are_people(firm, name, email):
    person = only_entity(firm, name)
    assert person.type == "person" and person.attributes["email"] == email


def test_the_name_a_person_goes_by_in_a_known_as_column_finds_them(firm):
    assert "Marcus" in only_entity(firm, "Ong Jun Jie").aliases
    result = firm.turns.preprocess("whats marcuss mobile")
    assert [e.canonical_name for e in result.resolved_entities] == ["Ong Jun Jie"]


def test_a_mail_signed_with_a_two_word_short_name_is_that_person(firm):
    # "Mei Xin" under Koh Mei Xin's mail is no second person.
    assert [e.name for e in firm.kb.registry.find_by_alias("Mei Xin") if e.type == "person"] == ["Koh Mei Xin"]


def test_notes_naming_the_lead_by_initials_link_the_person(firm):
    assert only_entity(firm, "Project Lotus").attributes["lead"] == only_entity(firm, "Teo Kah Wai").id
    answer = firm.ask("Who leads Project Lotus?", session="lotus", model="offline").response
    assert "Teo Kah Wai" in answer.delivered and "[corrected]" not in answer.delivered
    assert answer.hallucination_flags == []


def test_a_project_named_in_everyday_words_has_its_moved_date_corrected(firm):
    result = checked(firm, "When is the handover?", "The chiller room handover is on 14 December 2026.")
    assert "on 8 January 2027 [corrected]" in result.delivered


def test_the_person_a_mail_speaks_to_is_not_who_did_what_it_says(firm):
    # "Suresh, the lease renewal is approved." was sent by Mei Xin: Suresh is spoken to, not the approver.
    result = checked(firm, "Who approved the lease?", "Mei Xin approved the lease renewal.")
    assert result.hallucination_flags == []
