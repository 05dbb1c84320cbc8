"""A strata (body-corporate) manager's folder in Queensland: contact cards in a plain-text file, one
"[Name]" per card with dot-led fields ("known as ..... Baz"), committee minutes listing office-bearers,
a project page whose title names the building it is at, Outlook replies quoting a contractor's mail, a
revised quote given inc and ex GST, and a meeting moved in a mail that writes the new day without a year.
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from chatapp.knowledge.extraction.observations import ALIAS
from chatapp.knowledge.extraction.people import read_people
from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

CARDS = """WATTLEGROVE STRATA - CONTACT CARDS
Office (07) 3555 0400
------------------------------------------------------------------

[Barnaby Quell]
  known as ..... Baz
  title ........ Strata Manager
  mobile ....... 0433 555 019
  office ....... (07) 3555 0417
  email ........ barnaby.quell@wattlegrove.com.au

[Odette Vasquez-Hale]
  known as ..... Dette
  title ........ Assistant Strata Manager (acting Strata Manager 30/11 - 18/12)
  mobile ....... 0422 555 871
  email ........ odette@wattlegrove.com.au

[Florian Achterberg]
  title ........ Estimator
  firm ......... Ironbark Roofing & Waterproofing
  mobile ....... 0455 555 302
  email ........ florian@ironbarkroofing.com.au
"""

QUOTE_REPLY = """From: Baz Quell <barnaby.quell@wattlegrove.com.au>
To: Imogen Falkner <imogen.f@example.net>
Subject: RE: Banksia Court - revised membrane quote
Date: Mon, 16 Nov 2026 09:02:11 +1000

Hi Imogen,

Florian has revised the membrane quote. The Ironbark price is now $52,140 inc GST ($47,400.00 ex GST),
up from $48,950. I suggest we lift the special levy in the AGM motion from $50,000 to $55,000.

Regards,
Baz

-----Original Message-----
From: Florian Achterberg <florian@ironbarkroofing.com.au>
Sent: Friday, 13 November 2026 3:10 PM
To: Baz Quell <barnaby.quell@wattlegrove.com.au>
Subject: Banksia Court - revised membrane quote

Hi Baz,

The drainage outlets need replacing as well, so I have revised the quote.

Revised price: $47,400.00 ex GST, $52,140.00 inc GST. The programme is unchanged.

Cheers,
Flo
"""

MEETING_MOVED = """From: Odette Vasquez-Hale <odette@wattlegrove.com.au>
To: Imogen Falkner <imogen.f@example.net>
Subject: Banksia Court AGM - new date
Date: Tue, 24 Nov 2026 10:15:00 +1000

Hi Imogen,

The hall is double-booked, so the Banksia Court AGM is now Thu 17 Dec, not Wed 9 Dec. Same time, 6pm.

Dette
"""

PLUMBER = """From: Wendell Okoro <wendell@kookaburrahydraulic.com.au>
To: Odette Vasquez-Hale <odette@wattlegrove.com.au>
Subject: Banksia Court - riser leak level 2
Date: Wed, 2 Dec 2026 11:40:00 +1000

Hi Dette,

The leak is the hot water riser in the service cupboard. To replace the corroded section of riser (about
3.5 m of copper) and two isolation valves I'd charge $2,860 inc GST ($2,600.00 ex GST). I can do it Mon 14 Dec.

Wendell Okoro
Kookaburra Hydraulic Plumbing | 0411 555 908
"""

MINUTES = """# Banksia Court Body Corporate — Committee Meeting Minutes

**CTS 5512** · Wednesday 14th October 2026, 6.00pm

**Present:** Imogen Falkner (Chair, Lot 12), Tobias Wren (Treasurer, Lot 4), Kerrin Blaylock (ordinary member, Lot 9)
**In attendance:** Baz Quell (Strata Manager, Wattlegrove Strata)
**Apologies:** Sarah-Jane Barton (Lot 3)

## 1. Roof membrane
Ironbark Roofing & Waterproofing quoted $48,950 inc GST to replace the membrane over Lots 10-12.

**Motion 1.1:** That the committee recommends the Ironbark quote and a special levy of $50,000 at the AGM on Wednesday 9 December 2026.
Moved: Tobias Wren. Seconded: Kerrin Blaylock. Carried.
"""

OTHER_MINUTES = """The Wattle (CTS 6021) — committee meeting
==========================================

Tue 10 Nov 2026, 5.30pm, by Zoom.
Chair: Pia Castellano · Secretary: Ruben Oyelaran · Treasurer: Lachlan Penrose

1. **Lift service.** The Wattle's lift contractor will price a new door operator.
"""

PROJECT = """---
title: Banksia Court - roof membrane replacement
building: Banksia Court (CTS 5512), 8 Tarragindi Road
lead: Barnaby Quell
status: quotes received
agm_date: 9/12/2026
---

# Banksia Court roof membrane replacement

**Project lead:** Barnaby Quell, Strata Manager

Ironbark quote: $48,950 inc GST. Special levy: $50,000.
"""


TICKETS = """{"jobs": [
  {"ticket": "WG-101", "building": "The Wattle", "issue": "Lift door operator", "assigned_to": "Wendell Okoro"},
  {"ticket": "WG-102", "building": "Banksia Court", "issue": "Riser leak level 2", "assigned_to": "Wendell Okoro"}
]}
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "wattlegrove", {
        "contacts.txt": CARDS, "2026-11-16-re-revised-membrane-quote.eml": QUOTE_REPLY,
        "2026-11-24-agm-moved.eml": MEETING_MOVED, "2026-12-02-riser-leak.eml": PLUMBER,
        "banksia-committee-2026-10-14.md": MINUTES, "wattle-committee-2026-11-10.md": OTHER_MINUTES,
        "banksia-roof-membrane.md": PROJECT, "tickets.json": TICKETS})
    yield engine
    engine.close()


def test_a_contact_card_with_dot_leaders_gives_alias_title_desk_phone_and_mobile(engine):
    person = only_entity(engine, "Baz Quell")
    assert person.name == "Barnaby Quell"
    assert person.attributes.get("role") == "Strata Manager"
    assert person.attributes.get("mobile") == "0433 555 019"
    assert person.attributes.get("phone") == "(07) 3555 0417"
    assert "barnaby.quell@wattlegrove.com.au" in offline_answer(engine, "What is Baz's email address?", "card-baz")


def test_a_cards_title_keeps_its_acting_note_out_of_the_role(engine):
    person = only_entity(engine, "Dette")
    assert person.attributes.get("role") == "Assistant Strata Manager"


def test_a_sign_off_under_an_outlook_original_message_is_not_the_senders_alias(engine):
    # Baz quotes Florian's mail signed "Flo": that name is the quoted writer's, not Baz's.
    header = {"from": "Baz Quell <barnaby.quell@wattlegrove.com.au>"}
    read = read_people(QUOTE_REPLY, header, is_email=True)
    assert not [o for o in read if o.key == ALIAS and o.subject == "Baz Quell" and o.value == "Flo"]
    aliases = {a.casefold() for a in engine.kb.registry.get(only_entity(engine, "Barnaby Quell").id).aliases}
    assert "flo" not in aliases


@pytest.mark.parametrize("name", ["The Wattle", "Banksia Court", "Kookaburra Hydraulic Plumbing"])
def test_a_building_or_a_trade_firm_is_no_person(engine, name):
    assert not [e for e in engine.kb.registry.find_by_alias(name) if e.type == "person"]


@pytest.mark.parametrize("name, role", [
    ("Tobias Wren", "Treasurer"), ("Imogen Falkner", "Chair"),  # "Present: Tobias Wren (Treasurer, Lot 4)"
    ("Ruben Oyelaran", "Secretary"), ("Lachlan Penrose", "Treasurer"),  # "Chair: … · Secretary: … · Treasurer: …"
])
def test_minutes_give_office_bearers_their_offices(engine, name, role):
    assert only_entity(engine, name).attributes.get("role") == role


def test_the_building_a_project_is_at_is_no_alias_of_the_project(engine):
    assert not [e for e in engine.kb.registry.find_by_alias("Banksia Court") if e.type == "project"]


def test_a_wrong_office_is_corrected_without_eating_the_committees_name(engine):
    response = checked(engine, "What is Tobias Wren's role on the Banksia Court committee?",
                       "Tobias Wren is the Chair of the Banksia Court committee.")
    assert [f.content for f in response.hallucination_flags] == ["Tobias Wren is the Chair"]
    assert "Treasurer [corrected] of the Banksia Court committee" in response.delivered


def test_a_price_the_mail_says_went_up_from_is_superseded(engine):
    response = checked(engine, "What is Ironbark's price for the Banksia Court membrane?",
                       "Ironbark quoted $48,950 inc GST to replace the Banksia Court membrane.")
    assert "$52,140" in response.delivered and "[corrected]" in response.delivered
    assert "$47,400" not in response.delivered  # the ex-GST figure is no replacement for an inc-GST one


def test_a_levy_lifted_from_one_sum_to_another_is_superseded(engine):
    response = checked(engine, "How big is the special levy for the Banksia Court membrane?",
                       "The special levy in the AGM motion for the membrane is $50,000.")
    assert "$55,000 [corrected]" in response.delivered


def test_a_moved_day_without_a_year_is_corrected_in_the_answers_full_form(engine):
    response = checked(engine, "When is the Banksia Court AGM?",
                       "The Banksia Court AGM is on Wednesday 9 December 2026 at 6pm.")
    assert "Thursday 17 December 2026 [corrected]" in response.delivered


def test_a_wrong_amount_is_corrected_to_the_one_counted_the_same_way(engine):
    response = checked(engine, "How much is Wendell's quote for the riser leak?",
                       "Wendell Okoro can do the work on Mon 14 Dec. He quoted $2,680 inc GST to replace the corroded "
                       "riser section and two isolation valves.")
    assert "$2,860 [corrected]" in response.delivered
    assert "Mon 14 Dec" in response.delivered


def test_a_role_two_people_hold_is_told_apart_by_where_the_question_says(engine):
    # Imogen Falkner chairs Banksia Court's committee, Pia Castellano The Wattle's; the tickets' "building"
    # values name both buildings too, and are no answer to "who".
    for n, (question, holder, other) in enumerate((("Who is the chair of The Wattle committee?", "Pia Castellano", "Imogen Falkner"),
                                    ("Who is the chair of the Banksia Court committee?", "Imogen Falkner",
                                     "Pia Castellano"),
                                    ("Who chairs The Wattle committee?", "Pia Castellano", "Imogen Falkner"))):
        answer = offline_answer(engine, question, f"chair-{n}")
        first = [line for line in answer.splitlines() if line.strip() and not line.startswith("(offline")][0]
        assert holder in first and other not in answer


def test_a_double_first_name_with_a_hyphen_is_a_persons(engine):
    # "Sarah-Jane": each half a first name, so the whole is one too, though both words are everyday ones.
    assert only_entity(engine, "Sarah-Jane Barton").type == "person"
