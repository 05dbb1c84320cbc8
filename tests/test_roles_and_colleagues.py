"""Who does what in a small practice's folder, held against answers: a colleague's phone or email
given for someone else, a role given to the wrong person ("The office manager is …"), and people the
documents introduce only in passing, by what they do ("the conservation officer, Ifor Penhaligon")."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

TEAM = """# Brackwater Architects — who's who

| Name | Role | Email | Desk phone |
| --- | --- | --- | --- |
| Thessaly Orrin | Managing Partner | t.orrin@brackwater-arch.co.uk | 0161 496 0731 |
| Casimir Vantongeren | Associate | c.vantongeren@brackwater-arch.co.uk | 0161 496 0744 |
| Rafferty Quill | Office Manager | r.quill@brackwater-arch.co.uk | 0161 496 0700 |
"""

PROJECT = """# Saltmarsh Community Library extension

Client: Saltmarsh Parish Council (contact: Ottoline Brierley, parish clerk)
Project lead: Casimir Vantongeren

The existing building is listed, so all drawings go to the conservation officer, Ifor Penhaligon, before
submission. Our former surveyor, Dilwyn Marchbank, drew the first survey.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "practice", {"team.md": TEAM, "saltmarsh.md": PROJECT})
    yield engine
    engine.close()


def _flags(result) -> list[tuple[str, str, str | None]]:
    return [(f.hallucination_type, f.content, f.suggestion) for f in result.hallucination_flags]


def test_a_colleagues_email_given_for_someone_is_corrected_to_theirs(engine):
    result = checked(engine, "what is Rafferty Quill's email?",
                     "Rafferty Quill's email is c.vantongeren@brackwater-arch.co.uk.")
    assert ("WrongAttribute", "c.vantongeren@brackwater-arch.co.uk", "r.quill@brackwater-arch.co.uk") in _flags(result)
    assert "r.quill@brackwater-arch.co.uk" in result.delivered


def test_a_colleagues_phone_given_for_someone_is_corrected_and_their_own_is_not(engine):
    wrong = checked(engine, "what's Rafferty's phone?", "Rafferty's desk phone is 0161 496 0744.")
    assert ("WrongAttribute", "0161 496 0744", "0161 496 0700") in _flags(wrong)
    right = checked(engine, "what's Casimir's phone?", "Casimir's desk phone is 0161 496 0744.")
    assert right.hallucination_flags == []


def test_people_introduced_by_what_they_do_are_known_with_that_role(engine):
    assert only_entity(engine, "Ifor Penhaligon").attributes["role"] == "conservation officer"
    assert only_entity(engine, "Ottoline Brierley").attributes["role"] == "parish clerk"
    # What someone used to do is not what they do.
    assert not engine.kb.registry.find_by_alias("Dilwyn Marchbank") or "role" not in only_entity(
        engine, "Dilwyn Marchbank").attributes


def test_a_role_given_to_the_wrong_person_names_the_one_who_holds_it(engine):
    result = checked(engine, "who is the conservation officer?", "The conservation officer is Ottoline Brierley.")
    assert ("WrongAttribute", "Ottoline Brierley", "Ifor Penhaligon") in _flags(result)
    assert result.delivered.startswith("The conservation officer is Ifor Penhaligon")
    labelled = checked(engine, "who is the office manager?", "Office Manager: Thessaly Orrin.")
    assert ("WrongAttribute", "Thessaly Orrin", "Rafferty Quill") in _flags(labelled)


def test_the_right_holder_of_a_role_is_accepted_without_a_note(engine):
    result = checked(engine, "who is the conservation officer?", "The conservation officer is Ifor Penhaligon.")
    assert result.hallucination_flags == []
    # A name the small model does not label a person still answers "who".
    assert result.coherence.issues == []
