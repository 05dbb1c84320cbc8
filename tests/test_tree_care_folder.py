"""A tree surgery firm's folder in Ireland: a staff page of cards, each a name line with the job and a
contact line under it, Irish names with their particles ("Cathal Ó Dúill", "Siobhán Ní Bhriain"), a quote
mail signed over the firm's name, a start date moved by the client, a jobs sheet. Real ChatEngine,
SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

STAFF = """# Crann Óg Tree Care — who's who

**Siobhán Ní Bhriain** – owner, quotes and invoicing
siobhan@crannog.ie · 087 415 2290

**Cathal Ó Dúill** – head climber / crew leader
cathal@crannog.ie · 086 733 0148

**Marguerite Keogh-Byrne** – office & bookings (Mon/Wed/Fri)
bookings@crannog.ie · 01 842 6671

**Darragh Fennessy** – groundsman, chipper and stump grinder
087 219 5503
"""

QUOTE = """From: Siobhán Ní Bhriain <siobhan@crannog.ie>
To: Rhoswen Gwatkin <rhoswen.gwatkin@glenasmolegolf.ie>
Date: Mon, 23 Nov 2026 08:50:00 +0000
Subject: Quote - storm damaged beech, 14th fairway

Hi Rhoswen,

Thanks for walking the course with me on Friday. For the two storm-damaged beech trees beside the 14th
fairway our price is €3,850 + VAT, which covers felling, removing all timber and grinding both stumps.

We could start on Tues 8th Dec if that suits; Cathal's crew would need two days.

Kind regards,
Siobhán
Crann Óg Tree Care | 087 415 2290
"""

REPLY = """From: Rhoswen Gwatkin <rhoswen.gwatkin@glenasmolegolf.ie>
To: Siobhán Ní Bhriain <siobhan@crannog.ie>
Date: Fri, 27 Nov 2026 14:15:00 +0000
Subject: RE: Quote - storm damaged beech, 14th fairway

Siobhán,

The committee approved the quote last night. Could you start on the 10th instead of the 8th? We have a
society outing on the 8th and 9th.

Rhoswen Gwatkin
Course Manager, Glenasmole Golf Club
01 458 2031
"""

CREW_MEETING = """# Crew meeting – 30th November 2026

Present: Siobhán, Cathal, Darragh, Marguerite

## Glenasmole Golf Club
- Start moved to Thursday 10th December (club outing on the 8th/9th).
- Cathal leads; Darragh on the chipper.

## Kit
- Stump grinder back from service on 4th Dec. Service cost €612.
- New climbing helmets ordered from Arborwear Direct – €89 each, 4 ordered.

## Actions
- Marguerite to confirm the Glenasmole start date with Rhoswen by Wed 2nd Dec.
- Darragh to book the chipper trailer MOT/CVRT before 18th Dec.
"""

JOBS = """Job no.,Client,Site,Work,Crew,Start,Price (EUR ex VAT)
CO-2611,Glenasmole Golf Club,14th fairway,Fell 2 beech + stumps,Cathal / Darragh,2026-12-10,3850
CO-2612,Ballyboden Tidy Towns,Whitechurch Road,Crown lift 6 limes,Cathal,2026-12-14,1420
CO-2613,Mrs Agnieszka Wróbel,12 Orwell Park,Hedge reduction,Darragh,2026-12-16,380
"""

VEHICLES = """{"vehicles": [
  {"reg": "191-D-40772", "type": "Isuzu tipper", "driver": "Darragh", "cvrt_due": "2027-03-02"},
  {"reg": "222-D-11895", "type": "Ford Ranger", "driver": "Cathal", "nct_due": "2027-06-19"}
]}
"""

@pytest.fixture(scope="module")
def firm(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "crannog", {
        "staff.md": STAFF, "2026-11-23-glenasmole-quote.eml": QUOTE, "2026-11-27-re-quote.eml": REPLY,
        "crew-meeting-2026-11-30.md": CREW_MEETING, "jobs.csv": JOBS, "vehicles.json": VEHICLES})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, role, email, phone", [
    ("Cathal Ó Dúill", "head climber / crew leader", "cathal@crannog.ie", "086 733 0148"),
    ("Darragh Fennessy", "groundsman", None, "087 219 5503"),
    ("Marguerite Keogh-Byrne", None, "bookings@crannog.ie", "01 842 6671"),
])
def test_a_card_with_its_contact_line_under_the_name_line_is_one_entry(firm, name, role, email, phone):
    attributes = only_entity(firm, name).attributes
    assert (attributes.get("email"), attributes.get("phone")) == (email, phone)
    if role:
        assert attributes["role"] == role


def test_the_firms_name_under_a_signature_is_neither_a_person_nor_a_job(firm):
    assert not firm.kb.registry.find_by_alias("Crann Óg Tree Care") or all(
        e.type != "person" for e in firm.kb.registry.find_by_alias("Crann Óg Tree Care"))
    assert only_entity(firm, "Siobhán Ní Bhriain").attributes.get("role") != "Crann Óg Tree Care"


def test_an_amount_with_its_digits_swapped_is_corrected_from_the_quote(firm):
    result = checked(firm, "How much is the Glenasmole quote?", "The quote for the two beech trees is €3,580 + VAT.")
    assert "€3,850 [corrected] + VAT" in result.delivered


def test_a_wrong_date_is_corrected_with_its_weekday(firm):
    result = checked(firm, "When does the Glenasmole job start?",
                     "The Glenasmole Golf Club job starts on Tuesday 8 December.")
    assert "starts on Thursday 10 December [corrected]." in result.delivered
    assert "Tuesday" not in result.delivered


def test_a_name_typed_without_its_accent_and_a_has_question(firm):
    corrected = firm.turns.preprocess("has siobhan sent the quote to rhoswen").corrected_input
    assert corrected == "Has Siobhán sent the quote to Rhoswen?"


def test_offline_who_is_on_a_job_gives_its_crew(firm):
    answer = firm.ask("Who is on the CO-2612 job?", session="jobs", model="offline").response.delivered
    assert "CO-2612's crew is Cathal." in answer


def test_offline_a_job_named_by_its_clients_first_word(firm):
    answer = firm.ask("When does the Glenasmole job start?", session="glen", model="offline").response.delivered
    assert "CO-2611's start is 2026-12-10." in answer
    price = firm.ask("What's the price for the Ballyboden job?", session="bally", model="offline").response.delivered
    assert "CO-2612's price (EUR ex VAT) is 1420." in price


def test_a_signatures_employer_is_no_holder_of_its_title(firm):
    # "Course Manager, Glenasmole Golf Club" under Rhoswen's name gives the club as her employer, not as
    # the course manager: an answer naming someone else for the role is never "corrected" to the club.
    result = checked(firm, "Who is the course manager at Glenasmole?",
                     "The course manager at Glenasmole Golf Club is Siobhán Ní Bhriain.")
    assert "is Glenasmole Golf Club" not in result.delivered


def test_a_farm_or_a_station_in_a_visit_list_is_no_person(tmp_path_factory):
    visits = ('{"visits": [{"date": "2026-12-09", "farm": "Ōrongo Flats Dairy", "vet": "Hēmi Tāwhiri"},'
              ' {"date": "2026-12-16", "farm": "Manuka Ridge Station", "vet": "Hēmi Tāwhiri"}]}')
    engine, _ = engine_learnt_from(tmp_path_factory, "farm-visits", {"visits.json": visits})
    try:
        for farm in ("Ōrongo Flats Dairy", "Manuka Ridge Station"):
            assert all(e.type != "person" for e in engine.kb.registry.find_by_alias(farm)), farm
    finally:
        engine.close()


def test_offline_who_is_working_on_a_job_is_its_crew_not_its_work_column(firm):
    answer = firm.ask("Who's working on CO-2613?", session="work", model="offline").response.delivered
    assert "CO-2613's crew is Darragh." in answer and "Hedge reduction" not in answer
