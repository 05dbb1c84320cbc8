"""A housing co-operative's contact sheet written down the page (a name, the job under it, then an address
and a number, a blank line between people) and its committee list set apart by dashes ("* Chair — Gwilym
Pryce-Jenkins — gwilym@…"). Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import engine_learnt_from, offline_answer, only_entity

CONTACTS = """KESTREL HOUSING CO-OPERATIVE — WHO TO CONTACT
Updated Nov 2026

Aisha Rahman
Co-op Secretary
aisha.rahman@kestrelcoop.org.uk
0161 496 0731

Declan Fairweather
Maintenance Coordinator
repairs@kestrelcoop.org.uk
07700 900 318 (emergencies only)

Priyanka "Pri" Doshi
Treasurer
pri.doshi@kestrelcoop.org.uk
"""

COMMITTEE = """## Committee

* Chair — Gwilym Pryce-Jenkins — gwilym@kestrelcoop.org.uk
* Rent arrears officer — Tunde Bakare — tunde.b@kestrelcoop.org.uk — 0161 496 0799
* Newsletter — Hollie McCarthy <hollie@kestrelcoop.org.uk>
* Secretary — Siobhan O'Rourke — siobhan@kestrelcoop.org.uk
"""

NOTES = """# General meeting notes

Aisha Rahman
Raised the damp in block C again; the surveyor visits on 12 January.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "kestrel-coop", {
        "contacts.txt": CONTACTS, "committee.md": COMMITTEE, "general-meeting.md": NOTES})
    yield engine
    engine.close()


def test_a_contact_sheet_written_down_the_page_gives_each_person_their_job_address_and_number(engine):
    aisha = only_entity(engine, "Aisha Rahman")
    assert (aisha.attributes["role"], aisha.attributes["email"], aisha.attributes["phone"]) == (
        "Co-op Secretary", "aisha.rahman@kestrelcoop.org.uk", "0161 496 0731")
    assert only_entity(engine, "Declan Fairweather").attributes["role"] == "Maintenance Coordinator"
    pri = only_entity(engine, "Pri")  # the nickname inside the name line
    assert (pri.name, pri.attributes["role"]) == ("Priyanka Doshi", "Treasurer")
    assert "pri.doshi@kestrelcoop.org.uk" in offline_answer(engine, "What is Pri's email?", "pri")


def test_a_name_over_a_line_of_meeting_notes_is_no_signature(engine):
    # The notes' "Aisha Rahman / Raised the damp …" gives her no job: only the contact sheet does.
    assert only_entity(engine, "Aisha Rahman").attributes["role"] == "Co-op Secretary"


def test_a_committee_list_set_apart_by_dashes_gives_each_officer_their_job(engine):
    assert only_entity(engine, "Gwilym Pryce-Jenkins").attributes["role"] == "Chair"
    tunde = only_entity(engine, "Tunde Bakare")
    assert (tunde.attributes["role"], tunde.attributes["phone"]) == ("Rent arrears officer", "0161 496 0799")
    assert "role" not in only_entity(engine, "Hollie McCarthy").attributes  # a duty, not a job
    assert "Gwilym Pryce-Jenkins" in offline_answer(engine, "Who is the chair?", "chair").split("\n\n")[1]


def test_a_possessive_of_a_name_with_an_apostrophe_typed_bare_keeps_both(engine):
    result = engine.turns.preprocess("whats siobhan orourkes email")
    assert result.corrected_input == "What's Siobhan O'Rourke's email?"
    assert [r.canonical_name for r in result.resolved_entities] == ["Siobhan O'Rourke"]


def test_a_street_number_in_where_a_job_is_held_keeps_the_job_whole():
    from chatapp.knowledge.extraction.people import read_people

    text = ("**Priya Raman** — Project Manager (PM), 1811 S. Lamar fit-out\n"
            "praman@builds.example · Office: (512) 555-0106\n\n"
            "Rheinsteg Maxau (Vergabenummer VG-2026-0311) — Unterlagen anbei\n")
    found = {(o.subject, o.key): o.value for o in read_people(text, {}, False)}
    assert found[("Priya Raman", "department")] == "1811 S. Lamar fit-out"
    assert not [subject for subject, key in found if subject.startswith("Rheinsteg")]  # a reference number is no job
