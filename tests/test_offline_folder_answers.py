"""The offline responder on a small firm's folder: a price in a Markdown table, a day a mail
gives as "next Tuesday", a label of the user's records ("rego") that is not a typo, who approved
something a page records only the amount of, a "when" over a line that changed an amount, and a
short sentence that says "it" for what the sentence before it named."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from tests.conftest import engine_learnt_from

# A week after the mail below: "next Tuesday" counted from today would be the wrong day.
NOW = datetime(2026, 12, 4, 9, 0, tzinfo=timezone.utc)

PRICES = """# Harrowgate Window Cleaning — prices 2026

Prices include VAT. Call-out within the ring road is free.

| Code | Service | Unit | Price |
|---|---|---|---|
| WC-01 | Terraced house, outside only | per visit | £18.00 |
| WC-04 | Conservatory roof clean | each | £65.00 |
| GT-02 | Gutter vacuum clearing | per metre | £4.50 |
"""

MAIL = """From: Mirela Constantinescu <mirela@harrowgatewindows.example>
To: Crew <crew@harrowgatewindows.example>
Date: Thu, 26 Nov 2026 16:42:10 +0000
Subject: Cherry picker inspection

Hi all,

The hire firm is sending their engineer to inspect the cherry picker next Tuesday at
8:30 am, at the yard. Nobody takes it out before he has signed it off.

Mirela
"""

VANS = {"vans": [
    {"fleet_no": "HW-1", "type": "Ford Transit Custom", "rego": "YK71 QZP", "driver": "Mirela Constantinescu"},
    {"fleet_no": "HW-2", "type": "Vauxhall Vivaro", "rego": "YD19 LMX", "driver": "Idris Pennock"},
]}


REFIT_MAIL = """From: Mirela Constantinescu <mirela@harrowgatewindows.example>
To: Crew <crew@harrowgatewindows.example>
Date: Mon, 2 Nov 2026 08:00:00 +0000
Subject: Oakmere House

The conservatory at Oakmere House was measured on 30 October. The Oakmere House
conservatory job starts on Monday 7 December. Oakmere House conservatory glass
arrives on 4 December.
"""

REFIT_NOTES = """# Crew meeting — 1 December 2026

- Start moved to Wednesday 9 December; the frames are late.
"""


# A mail saved as a .txt file, headers and all.
SAVED_MAIL = """From: Idris Pennock <idris@harrowgatewindows.example>
To: Mirela Constantinescu <mirela@harrowgatewindows.example>
Date: Wed, 2 Dec 2026 11:30:00 +0000
Subject: Ladder certificate renewal

Mirela, the ladder certificates expire on 18 December; I have booked the renewal.
"""


YARD_PAGE = """---
title: Yard extension
status: Approved
budget: £12,400
lead: Idris Pennock
---
# Yard extension

A covered bay at the yard for both vans, with a lockable ladder rack.
"""

YARD_MAIL = """From: Mirela Constantinescu <mirela@harrowgatewindows.example>
To: Idris Pennock <idris@harrowgatewindows.example>
Cc: Oskar Lindqvist <oskar@harrowgatewindows.example>
Date: Mon, 30 Nov 2026 09:10:00 +0000
Subject: Re: Yard extension - revised budget

Idris,

Oskar and I signed off on the revised budget this morning: the yard extension is now £13,150.
The extra covers the ladder rack's second bay.

Mirela
"""

OFFICE_NOTES = """# Office notes — 2 December 2026

- Office refit: budget now £2,300 (see Mirela's email of 1 December).
- The phones divert to Idris's mobile while the office is shut.
- Idris sets up the new phones before the office reopens.
"""

CREW_MEETING = """# Crew meeting — 16 November 2026

- New ladder rack for the yard approved at £640, fitted in January. Oskar Lindqvist leads it.
- The Vivaro goes in for its service on 8 December.
"""

OFFICE_MAIL = """From: Mirela Constantinescu <mirela@harrowgatewindows.example>
To: Crew <crew@harrowgatewindows.example>
Date: Tue, 1 Dec 2026 17:00:00 +0000
Subject: Office refit

The office closes on 14 December for the refit and reopens on Monday 4 January 2027.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "harrowgate", {
        "prices-2026.md": PRICES, "2026-11-26-cherry-picker.eml": MAIL, "vans.json": json.dumps(VANS),
        "2026-11-02-oakmere.eml": REFIT_MAIL, "crew-meeting-2026-12-01.md": REFIT_NOTES,
        "ladder-certificates.txt": SAVED_MAIL, "yard-extension.md": YARD_PAGE,
        "2026-11-30-re-yard-extension.eml": YARD_MAIL, "office-notes-2026-12-02.md": OFFICE_NOTES,
        "2026-12-01-office-refit.eml": OFFICE_MAIL, "crew-meeting-2026-11-16.md": CREW_MEETING})
    yield engine
    engine.close()


def test_a_price_in_a_table_row_is_quoted_with_its_header(engine):
    result = engine.ask("How much is a conservatory roof clean?", session="prices", model="offline", now=NOW)
    assert "Service: Conservatory roof clean; Unit: each; Price: £65.00" in result.response.delivered


def test_next_tuesday_in_a_mail_is_given_as_the_day_it_meant(engine):
    result = engine.ask("When is the cherry picker inspection?", session="picker", model="offline", now=NOW)
    # The mail is of Thursday 26 November: its "next Tuesday" is 1 December, not the 8th.
    assert "cherry picker Tuesday 1 December 2026 at 8:30 am" in result.response.delivered
    assert result.response.hallucination_flags == [], result.response.delivered


def test_an_answer_giving_the_day_a_mail_called_next_tuesday_is_held_to_that_day(engine):
    question = "When is the cherry picker inspection?"
    pre = engine.turns.preprocess(question)
    right = engine.turns.postprocess("The engineer inspects the cherry picker on 1 December 2026.",
                                     question=pre.corrected_input, preprocessed=pre)
    assert right.delivered == "The engineer inspects the cherry picker on 1 December 2026."
    wrong = engine.turns.postprocess("The engineer inspects the cherry picker on 3 December 2026.",
                                     question=pre.corrected_input, preprocessed=pre)
    # Corrected to the day the mail meant, never to the words "next Tuesday".
    assert wrong.delivered == "The engineer inspects the cherry picker on 1 December 2026 [corrected]."


def test_a_label_of_the_users_records_is_not_corrected(engine):
    result = engine.ask("What is the rego of the Vauxhall Vivaro?", session="vans", model="offline", now=NOW)
    assert result.preprocessed.corrected_input == "What is the rego of the Vauxhall Vivaro?"
    # Each van of the file's list is a record of its own, quoted as one.
    assert "type: Vauxhall Vivaro; rego: YD19 LMX" in result.response.delivered


def test_a_sentence_saying_a_date_moved_is_quoted_beside_the_old_date(engine):
    result = engine.ask("When does the Oakmere House conservatory job start?", session="oakmere", model="offline",
                        now=NOW)
    assert "Start moved to Wednesday 9 December" in result.response.delivered


def test_a_mail_saved_as_text_is_read_as_a_mail(engine):
    # Its subject is its title and its sender a person with an address, as for a .eml file.
    titles = {c.title for c in engine.kb.search("ladder certificates expire", k=3)}
    assert "Ladder certificate renewal" in titles
    idris = engine.kb.registry.find_by_alias("Idris Pennock")
    assert [e.attributes.get("email") for e in idris] == ["idris@harrowgatewindows.example"]


def test_who_approved_is_answered_by_the_sentence_about_the_approval_not_the_amount(engine):
    result = engine.ask("Who approved the revised yard extension budget?", session="yard", model="offline", now=NOW)
    delivered = result.response.delivered
    # The page records the budget, not who approved it: "who" asks for someone, which the mail gives.
    assert "Oskar and I signed off on the revised budget" in delivered
    assert "budget is" not in delivered


def test_when_prefers_the_sentence_with_the_day_over_a_line_that_changed_an_amount(engine):
    result = engine.ask("When does the office reopen?", session="office", model="offline", now=NOW)
    passages = [line for line in result.response.delivered.splitlines() if line.startswith("- ")]
    # "budget now £2,300 (see … 1 December)" changed an amount: no answer to "when", however new.
    assert "reopens on Monday 4 January 2027" in passages[0]


def test_a_short_sentence_saying_it_is_quoted_with_the_sentence_it_points_back_to(engine):
    result = engine.ask("Who leads the ladder rack?", session="rack", model="offline", now=NOW)
    # "Oskar Lindqvist leads it." says nothing of the rack alone: the sentence before says what "it" is.
    assert ("New ladder rack for the yard approved at £640, fitted in January. Oskar Lindqvist leads it."
            in result.response.delivered), result.response.delivered
