"""What an ordinary work folder says in passing, learnt and held against answers: a nickname in a
note beside a title, a promotion announced in a mail, a budget change asked for in a reply, and a
firm named with its legal form only in a signature."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

DIRECTORY = """# Quirewell Books — staff

Last updated: 1 September 2026

## Eulalie Brackwater
Events Manager (everyone calls her Lally)
Email: eulalie.b@quirewellbooks.co.uk
Mobile: 07700 900118

## Barnaby Felgate
Café Supervisor
Email: barnaby@quirewellbooks.co.uk
Phone: 01632 960 214

## Ottoline Hesketh-Dray
Owner
Email: ottoline@quirewellbooks.co.uk
Phone: 01632 960 200
"""

FESTIVAL = """---
title: Winter Reading Festival 2026
date: 2026-09-10
---

# Winter Reading Festival

Lead: Eulalie Brackwater
Sponsor: Ottoline Hesketh-Dray
Budget: £9,600 (authors' fees, venue and print)
Milestones: programme to print 2 November 2026 · opening night 20 November 2026
"""

PROMOTION = """From: Ottoline Hesketh-Dray <ottoline@quirewellbooks.co.uk>
To: All Staff <staff@quirewellbooks.co.uk>
Subject: Barnaby's new role
Date: Mon, 19 Oct 2026 09:00:00 +0100

Hello all,

Barnaby Felgate becomes our Café Manager from Monday 2 November 2026. He has been Café
Supervisor since the café opened.

Ottoline
"""

BUDGET_REPLY = """From: Ottoline Hesketh-Dray <ottoline@quirewellbooks.co.uk>
To: Eulalie Brackwater <eulalie.b@quirewellbooks.co.uk>
Subject: Re: festival costs
Date: Thu, 22 Oct 2026 17:20:00 +0100

Lally,

Yes - please move the festival budget to £11,350. The extra author is worth it.

Ottoline
"""

PRINT_QUOTE = """From: Hal Dunmore <hal@pemburyprint.co.uk>
To: Eulalie Brackwater <eulalie.b@quirewellbooks.co.uk>
Subject: Festival programmes - quote
Date: Tue, 13 Oct 2026 11:05:00 +0100

Hi Lally,

Our price for the 2,000 festival programmes is £1,840 + VAT, ready five working days after
you approve the proof.

Best wishes,
Hal

Hal Dunmore
Print Manager, Pembury Print Works Ltd
"""

STORYTELLERS = """name,role,day_rate,email
Wystan Coldrey,Storyteller,£140,wystan@coldrey-tales.co.uk
"""

EVENTS_MEETING = """# Events meeting — 6 October 2026

**Attendees:** Eulalie Brackwater (chair), Barnaby Felgate, Ottoline Hesketh-Dray

- Lally: posters from 12 October; author signing on 14 November at 18:00 in the café.
- Barnaby: the café stays open until 20:00 on festival nights.
"""

FILES = {"storytellers.csv": STORYTELLERS, "events-meeting-2026-10-06.md": EVENTS_MEETING, "staff.md": DIRECTORY, "winter-reading-festival.md": FESTIVAL, "2026-10-19-barnaby.eml": PROMOTION,
         "2026-10-22-re-festival-costs.eml": BUDGET_REPLY, "2026-10-13-programme-quote.eml": PRINT_QUOTE}


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    opened, _ = engine_learnt_from(tmp_path_factory, "quirewell", FILES)
    with opened:
        yield opened


def test_a_name_people_use_noted_beside_a_title_is_an_alias_not_part_of_the_title(engine):
    lally = only_entity(engine, "Lally")
    assert lally.name == "Eulalie Brackwater"
    assert lally.attributes["role"] == "Events Manager"
    pre = engine.turns.preprocess("wat is lallys mobile numbr")
    assert "Lally's" in pre.corrected_input
    assert "Eulalie Brackwater" in [e.canonical_name for e in pre.resolved_entities]


def test_a_promotion_announced_in_a_later_mail_replaces_the_directorys_title(engine):
    assert only_entity(engine, "Barnaby Felgate").attributes["role"] == "Café Manager"
    result = checked(engine, "What is Barnaby Felgate's job?", "Barnaby Felgate is the shop's Café Supervisor.")
    assert "Café Manager [corrected]" in result.delivered
    assert any("Café Supervisor" in f.content for f in result.hallucination_flags)
    right = checked(engine, "What is Barnaby Felgate's job?", "Barnaby Felgate is now the Café Manager.")
    assert right.hallucination_flags == []


def test_a_budget_a_reply_asks_to_move_supersedes_the_project_pages(engine):
    result = checked(engine, "What is the Winter Reading Festival budget?",
                     "The Winter Reading Festival has a budget of £9,600.")
    assert "£11,350 [corrected]" in result.delivered
    flag, = result.hallucination_flags
    assert flag.content == "£9,600"


def test_a_firm_named_with_its_legal_form_in_a_signature_is_known_and_its_quote_is_held(engine):
    assert only_entity(engine, "Pembury Print Works").name == "Pembury Print Works Ltd"
    result = checked(engine, "How much did Pembury quote for the festival programmes?",
                     "Pembury Print Works quoted £1,480 + VAT for the 2,000 festival programmes.")
    assert "£1,840 [corrected]" in result.delivered
    assert all(f.hallucination_type != "NonexistentEntity" for f in result.hallucination_flags)


def test_a_rate_said_with_part_of_its_name_is_held_to_the_persons_one_rate(engine):
    result = checked(engine, "What does Wystan Coldrey charge?", "Wystan Coldrey is paid £175 a day.")
    assert "£140 [corrected]" in result.delivered
    # A fee the records do not hold is no slip of the rate they do.
    other = checked(engine, "What does Wystan Coldrey charge?", "Wystan Coldrey gets £60 per school visit.")
    assert "£140" not in other.delivered


def test_a_wrong_date_is_corrected_from_its_own_clause_of_a_two_date_note(engine):
    result = checked(engine, "When is the author signing?",
                     "The author signing is on 15 November at 18:00 in the café.")
    assert "14 November [corrected]" in result.delivered
    assert "12 October" not in result.delivered
