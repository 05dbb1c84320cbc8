"""A small festival's folder where values change in the ways mail says so: "will now open on …" in a
later message, "was priced at $X …; the new price is $Y" in one sentence, an amount beside an aside
in brackets ("(we asked for $30,000)"), and venues whose names read like people's ("Marlowe Town")."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from

FIRST = """From: Odile Fairbanks <odile.fairbanks@kestrelfest.org>
To: Crew <crew@kestrelfest.org>
Subject: Lantern parade plans
Date: Tue, 6 Oct 2026 09:00:00 -0400

Hi all,

- The lantern parade through Marlowe Town starts Friday, April 9, 2027 at dusk.
- Volunteers meet at the Quarry Street Library.

Odile
"""

SECOND = """From: Odile Fairbanks <odile.fairbanks@kestrelfest.org>
To: Crew <crew@kestrelfest.org>
Subject: RE: Lantern parade plans
Date: Wed, 2 Dec 2026 10:00:00 -0500

All,

The lantern parade through Marlowe Town will now start on Friday, May 7, 2027, because of the bridge works.
The April 9 date is cancelled.

Odile
"""

STALLS = """From: Teodoro Vance <teodoro.vance@kestrelfest.org>
To: Odile Fairbanks <odile.fairbanks@kestrelfest.org>
Subject: Stall fees and the county grant
Date: Mon, 16 Nov 2026 11:00:00 -0500

Odile,

A double craft stall was priced at $640.00 when we opened bookings; the new double stall fee is $715, from today.

The county arts board is giving us $26,000 toward the lantern parade (we asked for $30,000).

Teodoro
"""


BOOKINGS = """booking_id,event,venue,date
B-101,Lantern making,Quarry Street Library,3/6/2027
B-102,Parade briefing,Marlowe Town,4/30/2027
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "kestrel", {
        "2026-10-06-parade.eml": FIRST, "2026-12-02-parade-moved.eml": SECOND, "2026-11-16-stalls.eml": STALLS,
        "bookings.csv": BOOKINGS})
    yield engine
    engine.close()


def _flagged(result) -> dict[str, str | None]:
    return {f.content: f.suggestion for f in result.hallucination_flags}


def test_a_date_a_later_mail_says_things_will_now_happen_on_instead_is_corrected(engine):
    result = checked(engine, "when does the lantern parade start?",
                     "The lantern parade through Marlowe Town starts on Friday, April 9, 2027 at dusk.")
    assert _flagged(result).get("April 9, 2027") == "May 7, 2027"
    assert "May 7, 2027" in result.delivered and "April 9, 2027" not in result.delivered


def test_the_new_date_itself_is_not_flagged(engine):
    result = checked(engine, "when does the lantern parade start now?",
                     "The lantern parade through Marlowe Town now starts on Friday, May 7, 2027.")
    assert result.hallucination_flags == []


def test_a_value_one_sentence_gives_as_the_old_beside_the_new_is_corrected(engine):
    result = checked(engine, "how much is a double craft stall?", "A double craft stall costs $640.")
    assert _flagged(result).get("$640") == "$715"
    assert "$715" in result.delivered


def test_an_amount_in_an_aside_is_not_the_rival_of_the_sentences_own(engine):
    result = checked(engine, "how much is the county giving for the parade?",
                     "The county arts board is giving $45,000 toward the lantern parade.")
    assert _flagged(result).get("$45,000") == "$26,000"


def test_a_venue_named_like_a_person_is_no_person(engine):
    assert not [e for e in engine.kb.registry.find_by_alias("Marlowe Town") if e.type == "person"]
    assert not [e for e in engine.kb.registry.find_by_alias("Quarry Street Library") if e.type == "person"]
