"""A small trust's folder whose staff page is written in sentences ("Odalys Ferreira is our Head
Gardener"), a colleague whose name is made of ordinary English words ("Ha-na Song"), and answers
that give someone a job nobody in the folder holds."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

STAFF = """# Larchmere Gardens Trust — our people

Bartholomew Ngata (everyone calls him BN) is our Chief Executive. He joined in 2021.

Odalys Ferreira is Head Gardener, in charge of the walled garden and the glasshouses.

Ines Kowalczyk-Reyes works as Volunteer Coordinator and keeps the rota.

Tadhg Okonjo, our Membership Officer, answers the phone on weekdays. ext. 214

Lucinda Mayhew, known as Lucy, is the Treasurer.

Nkechi Balogun looks after the plant collection as Collections Curator and runs the seed bank.
"""

MAIL = """From: Ha-na Song <hana.song@larchmere.org>
To: Odalys Ferreira <odalys.ferreira@larchmere.org>
Subject: Glasshouse heating
Date: Tue, 3 Nov 2026 10:00:00 +0000

Odalys, the boiler engineer comes on Thursday.

Ha-na Song | Estates Manager | ext. 118
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "larchmere", {"our-people.md": STAFF,
                                                                    "2026-11-03-glasshouse.eml": MAIL})
    yield engine
    engine.close()


def _flags(result) -> list[tuple[str, str]]:
    return [(f.hallucination_type, f.content) for f in result.hallucination_flags]


def test_titles_stated_in_sentences_are_the_peoples_roles(engine):
    assert only_entity(engine, "Bartholomew Ngata").attributes["role"] == "Chief Executive"
    assert only_entity(engine, "Odalys Ferreira").attributes["role"] == "Head Gardener"
    assert only_entity(engine, "Ines Kowalczyk-Reyes").attributes["role"] == "Volunteer Coordinator"
    assert only_entity(engine, "Tadhg Okonjo").attributes["role"] == "Membership Officer"
    assert only_entity(engine, "Lucinda Mayhew").attributes["role"] == "Treasurer"
    assert only_entity(engine, "Nkechi Balogun").attributes["role"] == "Collections Curator"


def test_what_people_are_called_in_a_note_beside_the_name_finds_them(engine):
    assert only_entity(engine, "BN").name == "Bartholomew Ngata"
    assert only_entity(engine, "Lucy Mayhew").name == "Lucinda Mayhew"


def test_a_name_of_ordinary_words_is_a_person_when_the_address_spells_it(engine):
    person = only_entity(engine, "Ha-na Song")
    assert person.attributes["email"] == "hana.song@larchmere.org"
    assert person.attributes["role"] == "Estates Manager"


def test_a_job_nobody_holds_given_to_a_known_person_is_corrected_to_theirs(engine):
    result = checked(engine, "what does Odalys Ferreira do?", "Odalys Ferreira is the trust's Finance Director.")
    assert any(t == "WrongAttribute" and "Finance Director" in c for t, c in _flags(result))
    assert "Head Gardener" in result.delivered and "[corrected]" in result.delivered


def test_the_same_job_put_another_way_is_not_flagged(engine):
    assert checked(engine, "what does Odalys do?", "Odalys Ferreira is the Head Gardener.").hallucination_flags == []
    result = checked(engine, "who is Nkechi Balogun?", "Nkechi Balogun is the Curator of Collections.")
    assert result.hallucination_flags == []


def test_a_title_sharing_a_words_stem_with_the_role_is_not_flagged(engine):
    result = checked(engine, "what does Nkechi do?", "Nkechi Balogun is Head of the Curatorial team.")
    assert not [f for f in result.hallucination_flags if f.hallucination_type == "WrongAttribute"]


def test_the_address_and_extension_closing_a_persons_paragraph_are_theirs(engine):
    person = only_entity(engine, "Odalys Ferreira")
    assert person.attributes["email"] == "odalys.ferreira@larchmere.org"
    assert only_entity(engine, "Tadhg Okonjo").attributes["phone"] == "ext. 214"
