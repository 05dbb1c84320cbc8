"""A small firm's mails as they arrive: a message forwarded with the sender's own header lines in the
body, hard-wrapped at 72 columns, signed with a title and firm on a line of their own, and a reply
that quotes it. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import engine_learnt_from, only_entity

FORWARDED = """From: Casimir Oduya <casimir@kilnworth.example>
To: Bronagh Fensome <bronagh@kilnworth.example>
Subject: Fwd: Unit 12 lease renewal
Date: Wed, 25 Nov 2026 11:20:00 +0000

Bronagh - see below from the landlord's agent. Can you diary the break date?

Casimir

---------- Forwarded message ---------
From: Perpetua Halloran-Moss <perpetua@thistleagents.example>
Date: Tue, 24 Nov 2026 at 16:02
Subject: Unit 12 lease renewal
To: Casimir Oduya <casimir@kilnworth.example>

Dear Casimir,

Further to our call, the landlord has agreed a new five-year lease for Unit 12
at £38,750 a year, with a tenant-only break on 31 March 2029. The rent review
date moves from 1 April 2027 to 1 July 2027.

Kind regards,
Perpetua Halloran-Moss
Senior Lettings Negotiator | Thistle Agents
0161 496 0844
"""

PROJECT = """# Kiln upgrade

Lead: Bronagh Fensome
Budget: £12,900
Go-live: 14 January 2027
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "kilnworth",
                                   {"fwd-lease.eml": FORWARDED, "kiln-upgrade.md": PROJECT})
    yield engine
    engine.close()


def test_a_forwarded_messages_sender_is_known_with_the_address_its_header_gives(engine):
    agent = only_entity(engine, "Perpetua Halloran-Moss")
    assert agent.attributes["email"] == "perpetua@thistleagents.example"
    assert agent.attributes["role"] == "Senior Lettings Negotiator"  # the firm after the bar is not the role


def test_a_job_title_on_its_own_line_is_not_a_person(engine):
    assert engine.kb.registry.find_by_alias("Senior Lettings Negotiator") == []


def test_a_change_about_something_else_does_not_answer_the_date_asked_for(engine):
    delivered = engine.ask("when is the break date?", model="offline").response.delivered
    quoted = [line for line in delivered.splitlines() if line.startswith("- ")]
    assert "31 March 2029" in quoted[0], delivered


def test_short_fields_of_a_page_answer_a_two_part_question(engine):
    delivered = engine.ask("who leads the kiln upgrade and when is the go-live?", model="offline").response.delivered
    assert "Bronagh Fensome" in delivered and "14 January 2027" in delivered
