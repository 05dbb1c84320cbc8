"""A university research group's folder in Germany: a people page written as a Markdown definition list
with German academic titles ("Dr. rer. nat.") and a nickname in brackets, meeting minutes whose action
items end in day-first dotted dates (07.12.2026), a procurement page whose facts sit in a "Key facts"
section, mails stating changes as "NEW (was OLD)", an instrument booking log with two bookings on one day,
and an institute page giving the office's shared mailbox beside the secretary's name.
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

PEOPLE = """# AG Lindqvist — who is who

Sekretariat: Room 0.14 · +49 89 2180-5511 · office.lindqvist@nanolab-muenchen.de

## Group leader

Prof. Dr. Henrike Lindqvist
:   Head of group
:   henrike.lindqvist@nanolab-muenchen.de · +49 89 2180-5510 · Room 0.10

## Postdocs

Dr. rer. nat. Bärbel Krauß
:   Senior postdoc (Akademische Rätin); cryogenics and procurement
:   baerbel.krauss@nanolab-muenchen.de · +49 89 2180-5517 · Room 1.31

## PhD students

Konstantin Vogelsang ("Kosta")
:   PhD student, thin-film growth
:   kosta.vogelsang@nanolab-muenchen.de · +49 89 2180-5521

## Technical staff and administration

Edeltraud Pfisterer
:   Lab manager — bookings, helium, safety
:   edeltraud.pfisterer@nanolab-muenchen.de · +49 89 2180-5525

Rosalind Quaglia
:   Secretary (Sekretariat) — travel, contracts, purchase orders
:   rosalind.quaglia@nanolab-muenchen.de · +49 89 2180-5511
"""

MINUTES = """# Group meeting 18.11.2026

Present: Henrike Lindqvist, Bärbel Krauß, Kosta Vogelsang, Edeltraud Pfisterer

1) Cryostat: Henrike asked Frostline for a better price.

2) Summer party: Thursday 17.06.2027, 18:00, at the Hofbräukeller in Freising.

Action items
- Edeltraud Pfisterer: helium refill and service — 07.12.2026
- Rosalind Quaglia: chase the tender waiver — 27.11.2026
"""

PROJECT = """---
title: Cryostat procurement (CP-2026)
lead: Dr. Bärbel Krauß
status: offer received
updated: 23.10.2026
---

# Cryostat procurement (CP-2026)

We replace the old wet insert with a cryogen-free cryostat for lab B0.12.

## Key facts

- Supplier: Frostline Kryotechnik GmbH, Garching
- Offer price: € 212,400 net, including installation and training
- Approved budget: € 250,000
- Planned delivery: 16.03.2027
"""

PRICE_MAIL = """From: Baerbel Krauss <baerbel.krauss@nanolab-muenchen.de>
To: Henrike Lindqvist <henrike.lindqvist@nanolab-muenchen.de>
Subject: Re: CP-2026 - revised Frostline offer
Date: Tue, 24 Nov 2026 11:05:52 +0100

Hi Henrike,

Frostline sent the revised offer this morning.

New price: € 198,900 net (was € 212,400). Everything else is unchanged.

Summer party: Thursday 17 Jun 2027, 18:00, Hofbräukeller, Freising.

Baerbel
"""

TRIP = """---
title: Synchrotron beamtime at ID-7
lead: Dr. Bärbel Krauß
status: accepted
proposal: ID7-2027-015
travel_budget: "EUR 3,100.00"
beamtime: 09.02.2027 – 13.02.2027
---

# Synchrotron beamtime at ID-7

Fifteen shifts for the thin-film samples of Kosta Vogelsang.
"""

TRIP_MAIL = """From: Baerbel Krauss <baerbel.krauss@nanolab-muenchen.de>
To: Kosta Vogelsang <kosta.vogelsang@nanolab-muenchen.de>
Subject: ID-7 beamtime moves
Date: Fri, 27 Nov 2026 14:22:31 +0100

Hi Kosta,

our beamtime moves by two weeks: it now starts on 23.02.2027 (was 09.02.2027)
and ends on 27.02.2027. Our local contact remains Dr. Ingvar Solheim.

Baerbel
"""

BOOKINGS = """date;instrument;booked_by;sample
01.12.2026;SQUID magnetometer;Kosta Vogelsang;KV-12
02.12.2026;SQUID magnetometer;Kosta Vogelsang;KV-14
10.12.2026;SQUID magnetometer;Edeltraud Pfisterer;reference
10.12.2026;Cryostat insert;Bärbel Krauß;calibration
"""

GRANT = """{
  "grant_id": "DFG-8812/1",
  "title": "Spin transport in layered magnets",
  "pi": "Prof. Dr. Walburga Heindlmeier",
  "funder": "DFG",
  "budget_eur": 386400,
  "end": "2029-09-30"
}
"""

CONTACT = """<html><head><title>AG Lindqvist | Contact</title><script>var x = 1;</script></head>
<body><nav><a href="/">Home</a></nav>
<h1>Contact</h1>
<p><strong>Sekretariat:</strong> Rosalind Quaglia, Room 0.14<br>Phone +49 89 2180-5511<br>office.lindqvist@nanolab-muenchen.de</p>
<footer>Imprint · Privacy</footer>
</body></html>
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "nanolab", {
        "people.md": PEOPLE, "group-meeting-2026-11-18.md": MINUTES,
        "project-cryostat.md": PROJECT, "email-2026-11-24-re-revised-offer.eml": PRICE_MAIL,
        "project-beamtime.md": TRIP, "email-2026-11-27-beamtime-moves.eml": TRIP_MAIL,
        "instrument-bookings.csv": BOOKINGS, "contact.html": CONTACT, "grant.json": GRANT})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, role, email, phone", [
    ("Bärbel Krauß", "Senior postdoc (Akademische Rätin)", "baerbel.krauss@nanolab-muenchen.de", "+49 89 2180-5517"),
    ("Konstantin Vogelsang", "PhD student", "kosta.vogelsang@nanolab-muenchen.de", "+49 89 2180-5521"),
    ("Edeltraud Pfisterer", "Lab manager", "edeltraud.pfisterer@nanolab-muenchen.de", "+49 89 2180-5525"),
])
def test_a_definition_list_is_read_as_a_directory(engine, name, role, email, phone):
    # "Dr. rer. nat." is no part of the name; the action item's "07.12.2026" is a date, not her phone.
    attributes = only_entity(engine, name).attributes
    assert (attributes.get("role"), attributes.get("email"), attributes.get("phone")) == (role, email, phone)


def test_a_nickname_in_brackets_after_the_name_is_an_alias(engine):
    assert only_entity(engine, "Kosta").name == "Konstantin Vogelsang"
    assert only_entity(engine, "Kosta Vogelsang").name == "Konstantin Vogelsang"


def test_a_lead_written_with_a_title_is_the_person(engine):
    answer = engine.ask("Who leads the cryostat procurement?", session="lead", model="offline").response.delivered
    assert "Bärbel Krauß" in answer and "[corrected]" not in answer
    response = checked(engine, "Who leads the cryostat procurement?", "The cryostat procurement is led by Bärbel Krauß.")
    assert response.hallucination_flags == []


def test_a_dotted_date_a_later_mail_marks_was_is_corrected_in_its_own_form(engine):
    response = checked(engine, "When does the ID-7 beamtime start?", "The ID-7 beamtime starts on 09.02.2027.")
    assert [f.content for f in response.hallucination_flags] == ["09.02.2027"]
    assert "23.02.2027 [corrected]" in response.delivered
    right = checked(engine, "When does the ID-7 beamtime start?", "The ID-7 beamtime now starts on 23.02.2027.")
    assert right.hallucination_flags == []


def test_a_key_facts_price_a_later_mail_revised_is_corrected_beside_the_supplier(engine):
    # The page's price sits under "## Key facts"; the answer names the supplier, which holds no price.
    response = checked(engine, "How much does the cryostat cost?",
                       "Frostline Kryotechnik offers the cryostat for € 212,400 net.")
    assert [f.content for f in response.hallucination_flags] == ["€ 212,400"]
    assert "€ 198,900 [corrected]" in response.delivered


@pytest.mark.parametrize("answer", [
    "Edeltraud Pfisterer is the secretary.",
    "Edeltraud Pfisterer is the group secretary.",
])
def test_a_role_given_to_the_wrong_person_is_corrected_to_hers(engine, answer):
    # "Secretary (Sekretariat)": the bracket glosses the title and names nobody who holds it.
    response = checked(engine, "What does Edeltraud do?", answer)
    assert [f.hallucination_type for f in response.hallucination_flags] == ["WrongAttribute"]
    assert "Lab manager [corrected]" in response.delivered


def test_the_offices_mailbox_beside_the_secretarys_name_is_not_flagged(engine):
    person = only_entity(engine, "Rosalind Quaglia")
    assert person.attributes["email"] == "rosalind.quaglia@nanolab-muenchen.de"
    response = checked(engine, "How do I reach the Sekretariat?",
                       "The Sekretariat is Rosalind Quaglia in Room 0.14, email office.lindqvist@nanolab-muenchen.de.")
    assert response.hallucination_flags == []


def test_two_bookings_on_one_day_are_both_kept(engine):
    day = only_entity(engine, "10.12.2026")
    history = engine.kb.registry.attribute_history(day.id)
    assert not [row for row in history if row["status"] == "superseded"]


def test_a_wrong_date_two_sources_give_alike_is_corrected_weekday_and_all(engine):
    # The minutes (17.06.2027) and the mail (17 Jun 2027) are equally like the answer and agree.
    response = checked(engine, "When is the summer party?",
                       "The summer party is on Friday 18 Jun 2027 at 18:00 at the Hofbräukeller in Freising.")
    assert [f.content for f in response.hallucination_flags] == ["18 Jun 2027"]
    assert "Thursday 17 Jun 2027 [corrected]" in response.delivered


def test_who_booked_an_instrument_on_a_day_is_that_days_booking(engine):
    answer = offline_answer(engine, "Who booked the SQUID magnetometer on 02.12.2026?", "booked")
    assert "Kosta" in answer or "Konstantin Vogelsang" in answer
    assert "Edeltraud" not in answer


def test_a_who_question_quoting_a_things_field_is_answered_from_the_passages(engine):
    # The beamtime page holds the proposal number the question quotes, and no contact: saying the number
    # back names nobody, the mail's sentence does.
    answer = offline_answer(engine, "Who is the local contact for proposal ID7-2027-015?", "contact")
    assert "Ingvar Solheim" in answer
    assert "proposal is ID7-2027-015" not in answer


def test_a_records_own_name_asks_for_none_of_its_keys(engine):
    # "Synchrotron beamtime at ID-7" has a `beamtime` field: the question names the page, not that field.
    answer = offline_answer(engine, "Who is the lead of the Synchrotron beamtime at ID-7?", "trip-lead")
    assert "Bärbel Krauß" in answer
    assert "23.02.2027" not in answer


def test_a_quoted_front_matter_value_is_the_text_inside_the_quotes(engine):
    assert only_entity(engine, "Synchrotron beamtime at ID-7").attributes["travel_budget"] == "EUR 3,100.00"


def test_a_json_file_that_is_one_object_is_one_record(engine):
    # No list of records in it: the file itself is the grant's record, and its PI a person.
    grant = only_entity(engine, "Spin transport in layered magnets")
    assert grant.attributes.get("grant_id") == "DFG-8812/1"
    assert only_entity(engine, "Walburga Heindlmeier").type == "person"
    answer = offline_answer(engine, "When does Spin transport in layered magnets end?", "grant-end")
    assert "2029-09-30" in answer or "30 September 2029" in answer
