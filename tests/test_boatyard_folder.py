"""A boatyard's folder: a team page written as a person would write it (a list item wrapped onto the
next line, a job said in prose, a Welsh "ap" name, an address with no label), two quotes in one mail,
a start date moved "instead of" the old one, a bookings log. Real ChatEngine, SQLite, Chroma and spaCy;
names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from chatapp.postprocess.support import EvidencePool, SupportModel, default_weights
from chatapp.records import ClaimSupport
from tests.conftest import checked, engine_learnt_from, only_entity

TEAM = """# Who's who at Lynher Boatyard

- **Morwenna Tregaskis** looks after the yard day to day as Yard Manager. Mobile 07700 900 615,
  morwenna.tregaskis@lynherboats.co.uk
- **Iestyn ap Gwilym** is our Head Rigger and splices everything we sell. iestyn.apgwilym@lynherboats.co.uk,
  01752 840 117
- **Ruairi Cassidy** — slipway supervisor (ruairi.cassidy@lynherboats.co.uk)
- Chandlery: **Bronagh Feeney** (bronagh.f@lynherboats.co.uk). Orders over £500 go through her.
- Apprentice shipwright Kofi Boateng helps on the slip most weeks (kofi.boateng@lynherboats.co.uk).

Moorings and the pontoon: Demelza Penrose (demelza.penrose@lynherboats.co.uk, 07700 900 622).
"""

QUOTES = """From: Morwenna Tregaskis <morwenna.tregaskis@lynherboats.co.uk>
To: Iestyn ap Gwilym <iestyn.apgwilym@lynherboats.co.uk>
Date: Tue, 06 Oct 2026 09:05:00 +0100
Subject: Travel hoist service quotes

Iestyn,

Tamar Lifting sent their figure for servicing the travel hoist. Their quote is £7,240 + VAT for
replacing the worn slings and recertifying the hoist.

The other quote, from Kernow Cranes, was £9,180 and they are booked up until spring.

Morwenna
"""

MOVED = """From: Ruairi Cassidy <ruairi.cassidy@lynherboats.co.uk>
To: Morwenna Tregaskis <morwenna.tregaskis@lynherboats.co.uk>
Date: Wed, 18 Nov 2026 14:20:00 +0000
Subject: Hoist service - new date

Morwenna,

Tamar Lifting phoned: the slings are on back order, so the engineers now come on 19 January instead of
5 January. They still expect two days on site.

Ruairi
"""

FIRST_DATE = """From: Iestyn ap Gwilym <iestyn.apgwilym@lynherboats.co.uk>
To: Morwenna Tregaskis <morwenna.tregaskis@lynherboats.co.uk>
Date: Thu, 08 Oct 2026 11:00:00 +0100
Subject: Re: Travel hoist service quotes

Booked Tamar Lifting. Their engineers come on 5 January and need two days on site.

Iestyn
"""

NOTES = """# Yard meeting — 24 November 2026

Present: Morwenna, Ruairi, Iestyn.

## Hoist
Engineers now come 19 January (sling delay).

## Berths
The Hendra Charters lift-out moves to Berth 5; Ruairi will tell the skipper this week.

## Winter
The staff supper is on Friday 15 January at the Ferry Inn, from 7pm. Iestyn is collecting names.
"""

SLIPS = """[
  {"name": "Top Slip", "cradles": 4, "surface": "concrete"},
  {"name": "Creek Slip", "cradles": 2, "surface": "shingle"},
  {"name": "Sail Loft", "seated": 40, "hire_fee": "£180"}
]
"""

SAFETY = """<html><body><h1>Yard safety</h1>
<p><strong>Fire marshal:</strong> Iestyn ap Gwilym (iestyn.apgwilym@lynherboats.co.uk). Deputy: Ruairi Cassidy.</p>
<p>Hot work on the slip needs a permit from the Yard Manager.</p>
</body></html>
"""

SOLAR = """# Solar panels on the chandlery roof

**Lead:** Demelza Penrose
**Installer:** Kernow Sun Ltd
**Status:** survey done; fitting booked for the week of 8 March 2027

The roof can take 24 panels. Kernow Sun estimate 9,300 kWh a year, about a quarter of the yard's use.
"""

MOORINGS = """mooring_id,boat,owner,paid_until
M-07,Kittiwake Two,Jory Pascoe,2027-03-31
M-11,Sea Pink,Tamsin Rowe,2026-12-31
"""

LOFT_EVENTS = """date,event,organiser,room,guests
2027-02-13,Prize-giving,Saltash Sailing Club,Sail Loft,36
2027-03-06,Safety talk,RNLI crew,Sail Loft,22
"""

BOOKINGS = """date,job,owner,berth,hours
2027-01-12,Antifouling,Pascoe family,Berth 4,6
2027-01-20,Rudder bearing,Saltash Sailing Club,Top Slip,12
2027-02-03,Engine lift-out,Hendra Charters,Berth 7,4
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "lynher", {
        "team.md": TEAM, "email-2026-10-06-hoist-quotes.eml": QUOTES,
        "email-2026-10-08-re-hoist-quotes.eml": FIRST_DATE, "email-2026-11-18-hoist-date.eml": MOVED,
        "bookings-2027.csv": BOOKINGS, "yard-meeting-2026-11-24.md": NOTES,
        "slipways.json": SLIPS, "loft-events.csv": LOFT_EVENTS,
        "yard-safety.html": SAFETY, "moorings.csv": MOORINGS,
        "project-chandlery-solar.md": SOLAR})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, role, email, phone", [
    # A list item wrapped onto the next line is one entry; the job is said in prose.
    ("Morwenna Tregaskis", "Yard Manager", "morwenna.tregaskis@lynherboats.co.uk", "07700 900 615"),
    # "ap" ("son of") inside a Welsh name; "is our Head Rigger".
    ("Iestyn ap Gwilym", "Head Rigger", "iestyn.apgwilym@lynherboats.co.uk", "01752 840 117"),
    # A job in lower case before the bracketed address.
    ("Ruairi Cassidy", "slipway supervisor", "ruairi.cassidy@lynherboats.co.uk", None),
    # The job first, the name in bold, a sentence after the address.
    ("Bronagh Feeney", None, "bronagh.f@lynherboats.co.uk", None),
    # The job right before the name; an address spelt from the name, wherever it sits on the line.
    ("Kofi Boateng", "apprentice shipwright", "kofi.boateng@lynherboats.co.uk", None),
    # What she looks after is no job title, but the address and number are still hers.
    ("Demelza Penrose", None, "demelza.penrose@lynherboats.co.uk", "07700 900 622"),
])
def test_a_team_page_written_in_prose_gives_each_person_their_details(engine, name, role, email, phone):
    attributes = only_entity(engine, name).attributes
    assert attributes.get("email") == email
    if role:
        assert role in _roles(engine, name)
    if phone:  # "Mobile 07700 900 615" is kept as her mobile, an unlabelled number as a phone
        assert phone in (attributes.get("phone"), attributes.get("mobile"))


def test_an_amount_the_mail_gives_the_other_firm_is_corrected_to_this_firms(engine):
    response = checked(engine, "how much was the Tamar Lifting quote for the hoist?",
                       "Tamar Lifting quoted £9,180 + VAT for replacing the worn slings and recertifying the hoist.")
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("ContradictsFact", "£9,180")]
    assert "£7,240 [corrected]" in response.delivered


def test_a_date_a_later_mail_moved_instead_of_the_old_one_is_corrected(engine):
    response = checked(engine, "when do the hoist engineers come?",
                       "Tamar Lifting's engineers come on 5 January and need two days on site.")
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("TemporalError", "5 January")]
    assert "19 January [corrected]" in response.delivered
    right = checked(engine, "when do the hoist engineers come?", "The engineers now come on 19 January, for two days.")
    assert right.hallucination_flags == []


def test_offline_a_record_named_by_one_of_its_values_answers_the_field_asked(engine):
    answer = engine.ask("which berth is the Saltash Sailing Club job on?", session="berth",
                        model="offline").response.delivered
    assert "Top Slip" in answer
    assert "owner is Saltash Sailing Club" not in answer


def test_a_claim_quoting_two_evidence_sentences_as_one_restates_the_evidence():
    # The notes wrap a line after a semicolon, so their sentence is read as two; an answer quoting it
    # joins the halves: the claim's closest evidence sentence is only its first half, yet the claim is
    # the notes' own words.
    notes = "The Hendra Charters lift-out moves to Berth 5;\nRuairi will tell the skipper this week."
    quoted = " ".join(notes.split())
    pool = EvidencePool([(notes, "yard meeting notes", "retrieved")])
    claim = ClaimSupport(quoted, (0, len(quoted)), 0.9, evidence=pool.sentences[0].text)
    assert [s.text for s in pool.sentences] == ["The Hendra Charters lift-out moves to Berth 5;",
                                                "Ruairi will tell the skipper this week."]
    assert SupportModel(default_weights()).restates(claim, pool, embedder=None)


def test_an_address_in_a_sentence_naming_two_people_is_the_one_it_spells(engine):
    # "… when Ruairi is away (kofi.boateng@…)" gives Kofi's address, not a second one of Ruairi's.
    answer = ("Kofi Boateng helps on the slip when Ruairi is away (kofi.boateng@lynherboats.co.uk). "
              "Ruairi Cassidy's email is ruairi.cassidy@lynherboats.co.uk.")
    response = checked(engine, "who helps on the slip?", answer)
    assert response.hallucination_flags == []


def test_a_number_someone_else_holds_is_corrected_even_where_the_line_stating_it_names_nobody(engine):
    # "Mobile 07700 900 615," is read apart from the line naming Morwenna: it is still her number.
    response = checked(engine, "what's Iestyn's phone number?", "You can reach Iestyn ap Gwilym on 07700 900 615.")
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("WrongAttribute", "07700 900 615")]
    assert "01752 840 117 [corrected]" in response.delivered


def test_a_value_a_record_gives_under_another_key_does_not_bear_out_this_one(engine):
    # 36 is an event's guests in the Sail Loft, not how many the loft seats.
    response = checked(engine, "how many does the sail loft seat?", "The Sail Loft seats 36 people.")
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("ContradictsFact", "36")]
    assert "40 [corrected] people" in response.delivered


def test_a_duty_on_another_page_is_held_beside_the_job_title(engine):
    # Neither page is dated, so neither role replaces the other: he is Head Rigger and fire marshal.
    assert _roles(engine, "Iestyn ap Gwilym") == {"Head Rigger", "Fire marshal"}
    response = checked(engine, "who is the fire marshal?", "The fire marshal is Iestyn ap Gwilym, the Head Rigger.")
    assert response.hallucination_flags == []


def _roles(engine, name: str) -> set[str]:
    """The roles the registry holds for `name` now: its current one and any held beside it."""
    entity = only_entity(engine, name)
    return {r["value"] for r in engine.kb.registry.attribute_history(entity.id)
            if r["key"] == "role" and r["status"] in ("current", "also")}


def test_an_amount_one_slip_from_the_quotes_is_corrected_to_it(engine):
    # £7,420 is £7,240 with two digits swapped: surer than the sentence being merely like the claim.
    response = checked(engine, "how much was the Tamar Lifting quote?",
                       "Tamar Lifting quoted £7,420 + VAT for the travel hoist service.")
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("ContradictsFact", "£7,420")]
    assert "£7,240 [corrected]" in response.delivered


def test_offline_a_record_filed_under_its_number_is_found_by_the_name_it_holds(engine):
    # The rows are named "M-07", "M-11"; the question names the boat and asks another field, with no "which".
    answer = engine.ask("when is the kittiwake two mooring paid until?", session="moorings",
                        model="offline").response.delivered
    assert "2027-03-31" in answer
    assert "2026-12-31" not in answer, answer


def test_a_right_figure_from_a_document_the_question_did_not_find_is_not_flagged(engine):
    # The solar page is not what a question about the hoist retrieves: the answer's own words find it
    # before its figure is called made up.
    answer = ("The hoist engineers now come on 19 January. Separately, Kernow Sun estimate 9,300 kWh a year "
              "from the chandlery roof panels.")
    response = checked(engine, "when do the hoist engineers come?", answer)
    assert response.hallucination_flags == []
