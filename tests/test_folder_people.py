"""A volunteer group's folder, as its members keep one: a who's-who table with a nickname written
inside a name and UK numbers, two people who share a first name, a project page of field lines.
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

TEAM = """# Millbeck Repair Café — who's who

| Name | Role | Email | Phone |
|---|---|---|---|
| Adaeze "Dez" Okonkwo-Lund | Workshop Lead | dez@millbeck.example | 07700 900318 |
| Ruairi Castellanos | Treasurer | ruairi.c@millbeck.example | 07700 900744 |
| Ruairi Vandermolen | Van Driver | r.vandermolen@millbeck.example | 07700 900562 |
| Ottilie Brannagh | Chair | ottilie@millbeck.example | |
"""

VAN_MAIL = """From: Dez Okonkwo-Lund <dez@millbeck.example>
To: Ottilie Brannagh <ottilie@millbeck.example>
Subject: Van service
Date: Tue, 24 Nov 2026 10:05:00 +0000

Hi Ottilie,

The van service is booked for Thursday 3 December. Ruairi Vandermolen will take it in.

Dez
"""

MINUTES = """# Committee — 20 November 2026

- Ruairi C to pay the van service invoice by 15 December.
"""

SOLDER = """# Soldering station upgrade

Owner: Ruairi Castellanos
Supplier: Hotwire Tools (contact: Perpetua Vasey, 01632 960227)
Install date: 9 December 2026

The old stations overheat. Perpetua says fitting takes a morning.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "millbeck", {
        "team.md": TEAM, "van-service.eml": VAN_MAIL, "2026-11-20-committee.md": MINUTES, "soldering.md": SOLDER})
    yield engine
    engine.close()


def test_a_nickname_inside_a_name_is_an_alias_not_part_of_the_name(engine):
    person = only_entity(engine, "Dez")
    assert person.name == "Adaeze Okonkwo-Lund"
    assert "Dez Okonkwo-Lund" in person.aliases
    assert person.attributes["email"] == "dez@millbeck.example"


def test_a_first_name_typed_in_lower_case_is_capitalised_even_when_an_address_spells_it_so(engine):
    # "ottilie@…" gave the alias "ottilie"; the name is still written "Ottilie".
    assert engine.preprocess("did ottilie aprove the upgrade").corrected_input == "Did Ottilie approve the upgrade?"


def test_a_phone_in_five_and_six_digit_groups_is_read_as_one_number(engine):
    answer = engine.ask("whats dezs phone number", model="offline")
    assert "07700 900318" in answer.response.delivered
    assert not any("phone" in note for note in answer.response.coherence.issues)


def test_a_wrong_phone_in_that_layout_is_corrected(engine):
    result = engine.postprocess("Adaeze Okonkwo-Lund's phone is 07700 900381.",
                                question="What is Dez's phone number?")
    assert "07700 900318" in result.delivered


def test_a_field_line_of_a_page_is_quoted_on_its_own(engine):
    delivered = engine.ask("when is the soldering station being installed?", model="offline").response.delivered
    # "the soldering station" names *Soldering station upgrade* (the word before its "upgrade"), so the
    # page's own install date answers; quoted or said, the field is never run together with the next.
    assert "Install date: 9 December 2026" in delivered or "install date is 9 December 2026" in delivered
    assert "Owner: Ruairi Castellanos Supplier" not in delivered


def test_a_pronoun_after_an_answer_goes_to_the_person_named_in_full_not_a_shared_first_name(engine):
    session = "van"
    engine.ask("who takes the van to its service?", model="offline", session=session)
    follow = engine.preprocess("what is his email?", session=session)
    assert [e.canonical_name for e in follow.resolved_entities] == ["Ruairi Vandermolen"]



def test_a_thing_named_by_one_distinctive_word_is_held_to_its_page(engine):
    # "the soldering stations" names Soldering station upgrade without its whole name; "installed"
    # says which of its values the date is.
    result = engine.postprocess("The new soldering stations will be installed on 19 December 2026.",
                                question="When are the soldering stations being installed?")
    assert [(f.hallucination_type, f.suggestion) for f in result.hallucination_flags] == [
        ("ContradictsFact", "9 December 2026")]
    assert "9 December 2026 [corrected]" in result.delivered


def test_a_common_word_of_a_name_ties_nothing(engine):
    # "upgrade" is an everyday word: the sentence is about some other upgrade.
    result = engine.postprocess("The laptop upgrade will be installed on 19 December 2026.",
                                question="When is the laptop upgrade?")
    assert all(f.suggestion != "9 December 2026" for f in result.hallucination_flags)


# An HR export and a page's table that split each name over a given-name and a family-name column.
PAYROLL_EXPORT = """Last Name,First Name,Job Title,Email
Mbatha,Sipho,Site Supervisor,s.mbatha@quarrytown.example
Ferreira-Hall,Odalys,Finance Director,o.ferreirahall@quarrytown.example
"""

ESTATES_PAGE = """# Estates team

| Surname | Forename | Position | Ext. |
|---|---|---|---|
| Quennell | Tamsin | Estates Manager | 2230 |
| Arkwright | Benedek | Caretaker | 2231 |
"""


def test_a_name_split_over_given_and_family_name_columns_is_one_person(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "quarrytown", {
        "payroll-export.csv": PAYROLL_EXPORT, "estates.md": ESTATES_PAGE})
    try:
        assert only_entity(engine, "Sipho Mbatha").attributes.get("email") == "s.mbatha@quarrytown.example"
        assert only_entity(engine, "Tamsin Quennell").attributes.get("role") == "Estates Manager"
        assert not engine.kb.registry.find_by_alias("Mbatha") or only_entity(engine, "Mbatha").name == "Sipho Mbatha"
        assert "2231" in offline_answer(engine, "What is Benedek Arkwright's extension?", "ext")
        wrong = checked(engine, "What is Odalys Ferreira-Hall's email?",
                        "Odalys Ferreira-Hall's email is odalys.ferreira@quarrytown.example.")
        assert "o.ferreirahall@quarrytown.example [corrected]" in wrong.delivered
        # A made-up person the small spaCy model tags as an organisation is still checked as a person.
        invented = checked(engine, "Who covers the estates desk at night?",
                           "The night caretaker is Rufus Pettifer, extension 2232.")
        # Extension 2232 is in no document either (2231 is Benedek's: a whole number not ending in 0 is no
        # rounding of another), so it may be flagged too.
        flags = [(f.hallucination_type, f.content) for f in invented.hallucination_flags]
        assert ("NonexistentEntity", "Rufus Pettifer") in flags
        assert all(flag == ("NonexistentEntity", "Rufus Pettifer") or flag[1] == "2232" for flag in flags), flags
    finally:
        engine.close()
