"""Who does what in a small practice's folder, held against answers: a colleague's phone or email
given for someone else, a role given to the wrong person ("The office manager is …"), people the
documents introduce only in passing, by what they do ("the conservation officer, Ifor Penhaligon"),
and a reference number mistyped."""

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
Fee: £48,500 (stages 2–4)
Planning reference: 26/01873/LBC
Next milestone: tender pack issued 1 February 2027.

The existing building is listed, so all drawings go to the conservation officer, Ifor Penhaligon, before
submission. Our former surveyor, Dilwyn Marchbank, drew the first survey.
"""


KILN_LANE = """From: Thessaly Orrin <t.orrin@brackwater-arch.co.uk>
To: Studio <studio@brackwater-arch.co.uk>
Date: Thu, 26 Nov 2026 09:12:00 +0000
Subject: Kiln Lane houses

Morning all,

The budget for Kiln Lane is still £1.2m build cost, fee 9%. The site visit is on 8 December; I will
run it with Casimir. The groundworks contractor (Fennick Civils) starts on 11 January, and the new
plotter comes from Gannet Imaging.

Thessaly
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "practice", {"team.md": TEAM, "saltmarsh.md": PROJECT,
                                                                      "2026-11-26-kiln-lane.eml": KILN_LANE})
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


def test_an_answer_that_says_it_of_what_was_asked_has_not_drifted(engine):
    result = checked(engine, "when is the kiln lane site visit?", "It's on 8 December, run by Thessaly and Casimir.")
    assert result.coherence.issues == []
    off = checked(engine, "when is the kiln lane site visit?",
                  "It is a lovely building with timber cladding and big windows everywhere.")
    assert "the answer drifts from the question's topic" in off.coherence.issues


def test_offline_the_asked_projects_own_fee_comes_first(engine):
    # The Saltmarsh page's "Fee:" line does not say "Saltmarsh"; its page does. The Kiln Lane mail's fee
    # sentence says "fee" too, and comes second.
    answer = engine.ask("what's the fee for saltmarsh", session="fees", model="offline").response.delivered
    quoted = [line for line in answer.splitlines() if line.startswith("- ")]
    assert quoted[0].startswith("- Fee: £48,500"), answer


def test_a_role_the_documents_give_to_one_firm_given_to_another_is_corrected(engine):
    # Neither firm is in the registry: the mail names the contractor beside its role, in brackets.
    question = "who is the groundworks contractor for Kiln Lane?"
    wrong = checked(engine, question, "Gannet Imaging is the groundworks contractor.")
    assert ("ContradictsFact", "Gannet Imaging", "Fennick Civils") in _flags(wrong)
    assert wrong.delivered.startswith("Fennick Civils [corrected] is the groundworks contractor")
    for right in ("Fennick Civils is the groundworks contractor.", "The groundworks contractor is Fennick Civils."):
        assert checked(engine, question, right).hallucination_flags == [], right


@pytest.mark.parametrize("answer, delivered", [
    # Two figures swapped: the reference mistyped, corrected.
    ("The planning reference is 26/01837/LBC.", "The planning reference is 26/01873/LBC [corrected]."),
    # Another reference altogether: flagged with the documented one, not rewritten.
    ("The planning reference is 26/05521/LBC.", "The planning reference is 26/05521/LBC [unverified]."),
    ("The planning reference is 26/01873/LBC.", "The planning reference is 26/01873/LBC."),
])
def test_a_reference_number_is_held_to_the_documents(engine, answer, delivered):
    result = checked(engine, "what is the Saltmarsh planning reference?", answer)
    assert result.delivered == delivered
    if "[" in delivered:
        assert ("ContradictsFact", answer.split()[-1].rstrip("."), "26/01873/LBC") in _flags(result)


def test_the_role_only_one_person_holds_names_them_in_a_question(engine):
    resolved = engine.turns.preprocess("what did the conservation officer ask for?").resolved_entities
    assert [(r.surface, r.entity_id) for r in resolved] == [
        ("the conservation officer", only_entity(engine, "Ifor Penhaligon").id)]
    answer = engine.ask("what's the office manager's phone number?", session="roles", model="offline")
    assert "0161 496 0700" in answer.response.delivered
    # Said once, though both the question's description and the offline reading found him.
    assert answer.response.delivered.count("desk phone is 0161 496 0700") == 1
