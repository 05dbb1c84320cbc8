"""A small brewery's folder: a team page that gives a desk phone and a mobile for one person, a mail
signed with a first name over "Title | Company" and "Tel … | Mob …" lines. Real ChatEngine, SQLite,
Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

TEAM = """# Ridgeway Brewing — team

- **Devika Okonjo**, Head Brewer. Office 01632 960 410, mobile 07700 900 877. devika@ridgewaybrew.co.uk
- **Lorcan Whitty** (Taproom Manager) lorcan@ridgewaybrew.co.uk, M: 07700 900 312
"""

CASKS = """From: Lorcan Whitty <lorcan@ridgewaybrew.co.uk>
To: Devika Okonjo <devika@ridgewaybrew.co.uk>
Date: Mon, 09 Nov 2026 10:00:00 +0000
Subject: Cask returns

Devika, the cask returns are sorted. Call me on my mobile if anything comes up.

Lorcan
Taproom Manager | Ridgeway Brewing
Tel 01632 960 415 | Mob 07700 900 312
"""

PRICES = """# Trade price list — winter 2026

| Beer | Style | ABV | Firkin (72 pints) | 30L keg |
|---|---|---|---|---|
| Chalk Path | Best bitter | 4.1% | £98 | £112 |
| Hillfort | Porter | 5.2% | £112 | £128 |
| Whitehorse IPA | IPA | 6.0% | £126 | £140 |

Prices exclude VAT and duty is included. Delivery free over 4 firkins within 20 miles.
"""

MEETING = """# Brew team meeting — 1 December 2026

Attendees: Devika Okonjo, Lorcan Whitty, Pavla Horáková

## Actions
- Pavla to order 25 kg of Maris Otter and 5 kg of crystal malt by Friday 4 December.
- Lorcan to update the taproom board with the festival date.
- Devika to chase the duty return (due 15 December).

## Notes
Pavla Horáková started on 23 November as assistant brewer (pavla@ridgewaybrew.co.uk).
Fermenter FV3 is out of action until the new valve arrives.
"""


@pytest.fixture(scope="module")
def brewery(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "ridgeway", {"team.md": TEAM, "casks.eml": CASKS,
                                                                  "price-list-2026.md": PRICES,
                                                                  "brew-meeting-2026-12-01.md": MEETING})
    yield engine
    engine.close()


def test_a_desk_phone_and_a_mobile_are_both_kept(brewery):
    devika = only_entity(brewery, "Devika Okonjo").attributes
    assert (devika["phone"], devika["mobile"]) == ("01632 960 410", "07700 900 877")


def test_a_first_name_sign_off_gives_the_sender_the_numbers_under_it(brewery):
    lorcan = only_entity(brewery, "Lorcan Whitty").attributes
    assert (lorcan["phone"], lorcan["mobile"]) == ("01632 960 415", "07700 900 312")
    # The title line of that signature is a job, not a person called "Taproom Manager".
    assert not brewery.kb.registry.find_by_alias("Taproom Manager")


def test_the_desk_phone_given_as_the_mobile_is_corrected(brewery):
    result = checked(brewery, "What's Devika's mobile number?", "Devika's mobile is 01632 960 410.")
    assert "07700 900 877 [corrected]" in result.delivered
    assert [f.hallucination_type for f in result.hallucination_flags] == ["WrongAttribute"]


def test_a_mobile_called_her_phone_is_no_slip(brewery):
    result = checked(brewery, "How do I phone Devika?", "You can call Devika on 07700 900 877.")
    assert not result.hallucination_flags, result.delivered


def test_offline_answers_say_which_number_is_which(brewery):
    mobile = brewery_answer(brewery, "What's Devika's mobile number?")
    assert "07700 900 877" in mobile and "01632 960 410" not in mobile
    reach = brewery_answer(brewery, "How do I reach Lorcan?")
    assert "Phone: 01632 960 415" in reach and "Mobile: 07700 900 312" in reach
    assert "[unverified]" not in reach and "[corrected]" not in reach  # two numbers of his are no contradiction


def brewery_answer(engine, question: str) -> str:
    """What `chatapp ask --model offline` delivers."""
    return engine.ask(question, session="brewery", model="offline").response.delivered


def test_someone_who_started_as_a_job_holds_it(brewery):
    assert only_entity(brewery, "Pavla Horáková").attributes["role"] == "assistant brewer"
    result = checked(brewery, "Who is Pavla?", "Pavla Horáková is the head brewer; she joined on 23 November.")
    assert "the assistant brewer [corrected]" in result.delivered


def test_offline_a_column_named_with_its_measure_is_asked_for_by_its_name(brewery):
    assert "Hillfort's firkin (72 pints) is £112." in brewery_answer(brewery, "How much is a firkin of Hillfort?")
    assert "Chalk Path's 30l keg is £112." in brewery_answer(brewery, "What's a 30L keg of Chalk Path?")
