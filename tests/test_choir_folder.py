"""A community choir's folder: a people list in "Name — Role — address" lines with names in Polish,
Vietnamese and Irish spellings, a venue list whose contact column names people, and an email whose
Cc carries a nickname as an address. Questions typed as users type them: lower case, no accents, no
apostrophes, first names that are everyday words. Real ChatEngine, SQLite, Chroma and spaCy; names
that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import engine_learnt_from, only_entity

PEOPLE = """WILLOWMERE COMMUNITY CHOIR — WHO'S WHO (updated 3 Oct 2026)

Łucja Kamińska — Musical Director — lucja.kaminska@willowmere.example — 0161 555 0301
Đoàn Văn Khoa — Accompanist — khoa.doan@willowmere.example — 0161 555 0302
Cillian Ó Súilleabháin — Chair of the Committee — cillian@willowmere.example — 0161 555 0303
Grace Ibekwe — Librarian — grace.ibekwe@willowmere.example — 0161 555 0304
Ifeanyichukwu Eze-Lindqvist — Concert Manager — ifeanyi@willowmere.example — 0161 555 0305
Bartosz Wrzesiński — Treasurer — treasurer@willowmere.example — 0161 555 0306
"""

VENUES = """venue,contact,capacity,deposit
St Anselm's Hall,Sakari Heikkilä,220,£150
Brookfold Arts Centre,Maeve Ní Fhlannagáin,340,£400
"""

SUPPLIERS = """supplier,service,phone
Quillfeather Music Hire Ltd,Sheet music hire,0161 555 0420
"""

MAIL = """From: Łucja Kamińska <lucja.kaminska@willowmere.example>
To: Grace Ibekwe <grace.ibekwe@willowmere.example>
Cc: Ifeanyichukwu Eze-Lindqvist <ifeanyi@willowmere.example>, Bartosz Wrzesiński <treasurer@willowmere.example>
Date: Tue, 10 Nov 2026 18:20:00 +0000
Subject: Winter concert scores

Grace,

Could you hand out the Rutter scores at Thursday's rehearsal? Ifeanyi is bringing the risers to
St Anselm's Hall on the 12th, and the first full rehearsal there is on Saturday 5 December.

Łucja
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "willowmere", {
        "whos-who.txt": PEOPLE, "venues.csv": VENUES, "suppliers.csv": SUPPLIERS, "2026-11-10-winter-concert.eml": MAIL})
    yield engine
    engine.close()


def resolved(engine, text: str) -> list[str]:
    return [r.canonical_name for r in engine.preprocess(text).resolved_entities]


def test_names_with_letters_beyond_latin_1_and_the_irish_o_are_people(engine):
    assert only_entity(engine, "Łucja Kamińska").attributes["role"] == "Musical Director"
    assert only_entity(engine, "Đoàn Văn Khoa").attributes["role"] == "Accompanist"
    assert only_entity(engine, "Cillian Ó Súilleabháin").attributes["role"] == "Chair of the Committee"
    assert only_entity(engine, "Bartosz Wrzesiński").type == "person"


def test_a_name_typed_without_its_accents_or_strokes_finds_the_person(engine):
    assert "Đoàn Văn Khoa" in resolved(engine, "what does doan van khoa do")
    pre = engine.preprocess("whats lucjas phone numbr")
    assert pre.corrected_input == "What's Łucja's phone number?"
    assert "Łucja Kamińska" in [r.canonical_name for r in pre.resolved_entities]


def test_the_person_in_a_contact_column_is_someone_to_ask_about(engine):
    assert only_entity(engine, "Sakari Heikkilä").type == "person"
    assert "Maeve Ní Fhlannagáin" in resolved(engine, "whats maeve ni fhlannagains number")
    # The venue is still the record, and its contact points at the person.
    hall = only_entity(engine, "St Anselm's Hall")
    assert hall.attributes["contact"] == only_entity(engine, "Sakari Heikkilä").id


def test_an_address_nickname_the_text_writes_as_a_name_keeps_its_capital(engine):
    pre = engine.preprocess("when is ifeanyis van booked")
    assert pre.corrected_input == "When is Ifeanyi's van booked?"
    assert "Ifeanyichukwu Eze-Lindqvist" in [r.canonical_name for r in pre.resolved_entities]
    # A post's mailbox ("treasurer@") is no name the person goes by.
    assert not engine.kb.registry.find_by_alias("treasurer")


def test_a_first_name_that_is_an_everyday_word_is_the_person_where_only_a_person_fits(engine):
    pre = engine.preprocess("what did grace say about the scores")
    assert pre.corrected_input == "What did Grace say about the scores?"
    assert "Grace Ibekwe" in [r.canonical_name for r in pre.resolved_entities]
    assert engine.preprocess("ask grace to bring the folders").corrected_input.startswith("Ask Grace to")
    pre = engine.preprocess("hows graces library list")
    assert pre.corrected_input == "How's Grace's library list?"
    # The word meant as itself names nobody and keeps its case.
    pre = engine.preprocess("is there a grace period for the deposit")
    assert "Grace Ibekwe" not in [r.canonical_name for r in pre.resolved_entities]
    assert "grace period" in pre.corrected_input


def test_a_possessive_before_an_adjective_and_its_noun(engine):
    pre = engine.preprocess("is cillians next committee meeting on monday")
    assert pre.corrected_input.startswith("Is Cillian's next committee meeting")
    assert "Cillian Ó Súilleabháin" in [r.canonical_name for r in pre.resolved_entities]


def test_a_day_of_the_month_alone_is_a_date(engine):
    dates = [r for r in engine.preprocess("who is bringing the risers on the 11th").resolved_entities
             if r.entity_type == "DATE"]
    assert [r.canonical_name[-3:] for r in dates] == ["-11"]
    # A floor or a place in a list is counted, not dated.
    assert not [r for r in engine.preprocess("is the library on the 2nd floor").resolved_entities
                if r.entity_type == "DATE"]


def test_question_words_typed_without_their_apostrophe(engine):
    assert engine.preprocess("whens the winter concert").corrected_input == "When's the winter concert?"
    assert engine.preprocess("hows the scores list going").corrected_input == "How's the scores list going?"


def test_a_firm_is_called_by_the_first_word_of_its_name(engine):
    pre = engine.preprocess("who do we call at quillfeather about the scores")
    assert pre.corrected_input == "Who do we call at Quillfeather about the scores?"
    assert "Quillfeather Music Hire Ltd" in [r.canonical_name for r in pre.resolved_entities]
