"""A small practice's folder: a team list whose roles are written in lower case with no way to reach
most people, meeting notes with dates of several things in one paragraph, a manager's email, a
project's status page. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)

ROSTER = """# Fennimore Veterinary Practice — who's who

Updated 2 November 2026.

- **Dr Anouk Vasquez-Tremayne** — clinical director. Signs off all surgical rotas. anouk.vt@fennimorevets.co.uk, ext 214.
- **Dr Rufus Okonjo** — equine vet, covers the Thursday farm round. rufus.okonjo@fennimorevets.co.uk
- **Bettina Kowalczyk** — head nurse; owns the controlled-drugs register.
- **Lorcan Abernethy** — practice manager. Handles supplier contracts and the rota. Phone 01632 960 455.
- **Priya Halvorsen** — receptionist (Mon–Wed).
"""

MEETING = """# Clinical meeting, 18 November 2026

Present: Anouk, Rufus, Bettina, Lorcan.

1. The new anaesthetic monitor (Mindray ePM 10) arrives on 7 December. Bettina will run the training session on 9 December.
2. Rufus reported the Thursday farm round is now too long; from January the round moves to Wednesdays and Dr Okonjo will take a student with him.

Actions:
- Lorcan Abernethy: thanks, agreed to chase the landlord
- Bettina: monitor training (9 Dec)
"""

MAIL = """From: Lorcan Abernethy <lorcan.abernethy@fennimorevets.co.uk>
To: Anouk Vasquez-Tremayne <anouk.vt@fennimorevets.co.uk>
Subject: Nightpaw contract - fee change
Date: Mon, 23 Nov 2026 09:14:00 +0000

Hi Anouk,

Nightpaw have written to say their monthly retainer goes up from £1,150 to £1,320 from 1 January. The contract lets them raise it once a year with 30 days' notice, so this is within terms.

I'd suggest we accept but ask them to include the weekend telephone triage, which they currently bill separately at £95 a weekend.

Lorcan
"""

KENNELS = """Kennel refit project — status page

Owner: Lorcan Abernethy
Budget: £18,400 (approved by Anouk on 12 October 2026)
Contractor: Pellworth & Daughters Joinery

Risks: the isolation kennel needs a drain connection that the landlord, Mrs Imelda Stroud, must approve.
Lorcan wrote to her on 25 November; no reply yet.
"""


REVISED = """From: Lorcan Abernethy <lorcan.abernethy@fennimorevets.co.uk>
To: Bettina Kowalczyk <bettina.kowalczyk@fennimorevets.co.uk>
Subject: Re: Kennel refit - revised budget
Date: Fri, 27 Nov 2026 16:05:00 +0000

Bettina,

Anouk signed off on the revised kennel budget this morning: the refit is now £19,050, drain connection included.

Lorcan
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "fennimore", {
        "team-roster.md": ROSTER, "2026-11-18-clinical-meeting.md": MEETING, "email-nightpaw.eml": MAIL,
        "kennel-refit.txt": KENNELS})
    yield engine
    engine.close()


def test_a_team_lists_people_are_known_with_roles_written_in_lower_case(engine):
    # No email or phone beside them: the list's layout (a bold name, a dash, a job) makes them entries.
    assert only_entity(engine, "Bettina Kowalczyk").attributes["role"] == "head nurse"
    assert only_entity(engine, "Priya Halvorsen").attributes["role"] == "receptionist"
    assert only_entity(engine, "Lorcan Abernethy").attributes["role"] == "practice manager"
    assert only_entity(engine, "Anouk Vasquez-Tremayne").attributes["role"] == "clinical director"


def test_an_action_line_in_meeting_notes_gives_no_role(engine):
    # "- Lorcan Abernethy: thanks, agreed to chase the landlord" is what he said, not his job.
    assert only_entity(engine, "Lorcan Abernethy").attributes["role"] == "practice manager"


def test_a_role_given_to_the_wrong_person_is_corrected(engine):
    response = checked(engine, "who is the practice manager?", "Bettina Kowalczyk is the practice manager.")
    assert [f.hallucination_type for f in response.hallucination_flags] == ["WrongAttribute"]
    assert "head nurse" in response.delivered


def test_a_date_the_notes_give_another_thing_is_corrected_to_the_one_they_give_this_thing(engine):
    # 9 December is in the notes, but as the training's day: the monitor arrives on the 7th.
    response = checked(engine, "when does the new monitor arrive?", "The new Mindray monitor arrives on 9 December.")
    assert [f.hallucination_type for f in response.hallucination_flags] == ["ContradictsFact"]
    assert response.delivered == "The new Mindray monitor arrives on 7 December [corrected]."


def test_a_weekday_is_held_to_the_sentence_about_the_same_thing(engine):
    # Any date in the folder that fell on a Friday once made "Fridays" look stated.
    response = checked(engine, "when is the farm round from January?",
                       "From January the farm round moves to Fridays.")
    assert [f.hallucination_type for f in response.hallucination_flags] == ["ContradictsFact"]
    assert "Wednesdays [corrected]" in response.delivered


def test_both_dates_said_of_their_own_things_are_accepted(engine):
    answer = "The new Mindray monitor arrives on 7 December, and Bettina runs the training session on 9 December."
    response = checked(engine, "when does the new monitor arrive?", answer)
    assert response.hallucination_flags == []
    assert response.delivered == answer


def test_what_the_writer_of_a_mail_suggested_is_found_by_their_name(engine):
    # The mail names its writer only in its headers and sign-off; his address spells his name in lower
    # case, which once hid that the name is one the passage uses.
    result = engine.ask("what did lorcan suggest about the nightpaw contract?", session="nightpaw",
                        model="offline", now=NOW)
    assert "I'd suggest we accept but ask them to include the weekend telephone triage" in result.response.delivered


def test_the_wrong_person_in_a_sentence_of_the_sources_is_corrected_to_the_one_they_name(engine):
    # Every word but the name is the status page's: the page says Anouk approved it.
    response = checked(engine, "who approved the kennel budget?",
                       "The £18,400 budget was approved by Lorcan Abernethy on 12 October 2026.")
    assert [(f.hallucination_type, f.suggestion) for f in response.hallucination_flags] == [
        ("ContradictsFact", "Anouk Vasquez-Tremayne")]
    response = checked(engine, "who wrote to the landlord?", "Bettina wrote to the landlord on 25 November.")
    assert [(f.hallucination_type, f.suggestion) for f in response.hallucination_flags] == [
        ("ContradictsFact", "Lorcan Abernethy")]
    # A short claim that is mostly an amount: "£18,400" is matched as the page writes it.
    response = checked(engine, "who approved the £18,400?", "Rufus approved the £18,400.")
    assert [(f.hallucination_type, f.suggestion) for f in response.hallucination_flags] == [
        ("ContradictsFact", "Anouk Vasquez-Tremayne")]


@pytest.fixture(scope="module")
def revised(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "fennimore-revised", {
        "team-roster.md": ROSTER, "email-kennel-revised.eml": REVISED})
    yield engine
    engine.close()


def test_the_wrong_person_is_corrected_when_the_answer_adds_the_day_the_mail_was_sent(revised):
    engine = revised
    # The mail says "this morning"; the answer gives its day. When it was done says nothing of who did it.
    response = checked(engine, "who approved the revised kennel budget?",
                       "Rufus Okonjo approved the revised kennel budget of £19,050 on 27 November 2026.")
    assert [(f.hallucination_type, f.suggestion) for f in response.hallucination_flags] == [
        ("ContradictsFact", "Anouk Vasquez-Tremayne")]
    response = checked(engine, "who approved the revised kennel budget?",
                       "Anouk approved the revised kennel budget of £19,050 on 27 November 2026.")
    assert response.hallucination_flags == [], response.delivered


def test_the_person_the_sources_name_is_accepted_by_first_name_or_in_full(engine):
    for question, answer in (
            ("who approved the kennel budget?", "The £18,400 budget was approved by Anouk Vasquez-Tremayne on 12 October 2026."),
            ("who wrote to the landlord?", "Lorcan wrote to the landlord on 25 November."),
            ("who owns the kennel refit?", "Lorcan Abernethy owns the kennel refit project."),
            ("who runs the monitor training?", "Bettina will run the training session on 9 December.")):
        response = checked(engine, question, answer)
        assert response.hallucination_flags == [], answer


def test_a_contact_column_of_numbers_or_addresses_is_their_phone_or_email():
    from chatapp.knowledge.extraction.people import reach_key

    assert reach_key("contact", "07700 912 448") == "phone"
    assert reach_key("contact", "ysolde.prentiss@orchard.example") == "email"
    assert reach_key("contact", "ring 07700 912 448 after six") == "contact"  # more than a number: kept whole
    assert reach_key("role", "07700 912 448") == "role"
