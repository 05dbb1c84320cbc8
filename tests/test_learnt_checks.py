"""Answers checked against what ingest learnt from a folder of ordinary work documents (no
registry files): a value a later email replaced is corrected to the new one and the flag says
what changed where; a wrong amount or role the documents state is corrected; an answer that
gets it right, or tells the change, gets no flags. Real ChatEngine, real SQLite, Chroma and spaCy."""

from __future__ import annotations

import pytest

from chatapp.engine import ChatEngine
from tests.conftest import checked, engine_learnt_from

DIRECTORY = """# Larchmont Cycles — Team

- **Imogen Vasquez** — Operations Director. Email: imogen@larchmont.example
- **Tariq Oduya** — Workshop Manager. Email: tariq@larchmont.example. Phone: +44 20 7946 0733
- **Bronwen Achebe** — Sales Lead. Email: bronwen@larchmont.example
"""

PROJECT = """---
title: Project Kestrel — e-bike hire fleet
date: 2026-08-03
status: In progress
---

# Project Kestrel

Lead: Tariq Oduya
Sponsor: Imogen Vasquez
Budget: £62,300
Milestones: supplier chosen 14 September 2026; safety review 9 March 2027; launch 9 March 2027

## Notes

Forty hire bikes for the riverside depot.
"""

MAIL_MOVED = """From: Imogen Vasquez <imogen@larchmont.example>
To: Workshop <workshop@larchmont.example>
Subject: Kestrel launch moved
Date: Mon, 2 Nov 2026 09:15:00 +0000

Hi all,

The frames arrive late, so the Kestrel launch has moved to 19 April 2027.

Imogen
"""

MAIL_QUOTE = """From: Tariq Oduya <tariq@larchmont.example>
To: Imogen Vasquez <imogen@larchmont.example>
Subject: Wheelwright quote for the Kestrel frames
Date: Thu, 15 Oct 2026 14:02:00 +0000

Imogen,

Wheelwright's quote for the forty Kestrel frames came in this morning:

- Frames, 40 units, powder-coated: €18,750 excl. VAT
- Delivery: six weeks from order

Tariq
"""


# Meeting notes list who came: a name the census tables do not hold is a colleague all the same.
STANDUP = """# Workshop standup — 30 November

Present: Imogen Vasquez, Tariq Oduya, Saoirse Ngata-Whitlock

- Saoirse will order the brake pads before Friday.
"""

FILES = {"team.md": DIRECTORY, "standup-2026-11-30.md": STANDUP, "project-kestrel.md": PROJECT, "2026-11-02-kestrel-moved.eml": MAIL_MOVED,
         "2026-10-15-wheelwright-quote.eml": MAIL_QUOTE}


@pytest.fixture(scope="module")
def learnt(tmp_path_factory):
    engine, folder = engine_learnt_from(tmp_path_factory, "larchmont", FILES)
    yield engine, folder
    engine.close()


def test_a_superseded_date_is_corrected_to_the_new_one_and_the_flag_says_what_changed(learnt):
    engine, _ = learnt
    result = checked(engine, "When does Project Kestrel launch?", "Project Kestrel launches on 9 March 2027.")
    assert result.delivered == "Project Kestrel launches on 19 April 2027 [corrected]."
    flag, = result.hallucination_flags
    assert flag.hallucination_type == "TemporalError"
    assert flag.content == "9 March 2027" and flag.corrected
    explanation = " ".join(flag.evidence)
    assert "changed from 9 March 2027 (project-kestrel.md" in explanation
    assert "to 19 April 2027 (2026-11-02-kestrel-moved.eml" in explanation


def test_current_values_and_an_answer_telling_the_change_get_no_flags(learnt):
    engine, _ = learnt
    right = checked(engine, "Who leads Project Kestrel and when does it launch?",
                  "Project Kestrel is led by Tariq Oduya. It launches on 19 April 2027, and the budget is £62,300.")
    assert right.hallucination_flags == [] and right.recommendation == "Accept"
    history = checked(engine, "Did the Kestrel launch move?",
                    "Yes: the Kestrel launch moved from 9 March 2027 to 19 April 2027.")
    assert history.hallucination_flags == []
    # The old launch date is still the date of something else that did not move.
    review = checked(engine, "When is the Kestrel safety review?", "The Kestrel safety review is on 9 March 2027.")
    assert review.hallucination_flags == []


def test_a_wrong_amount_said_after_a_sentence_naming_the_project_is_corrected(learnt):
    engine, _ = learnt
    result = checked(engine, "What is the budget for Project Kestrel?",
                   "Imogen Vasquez sponsors Project Kestrel. The approved budget is £58,000.")
    assert result.delivered.endswith("The approved budget is £62,300 [corrected].")
    flag, = result.hallucination_flags
    assert flag.hallucination_type == "ContradictsFact" and flag.content == "£58,000"


def test_an_amount_with_its_digits_swapped_is_corrected_from_the_email_that_states_it(learnt):
    engine, _ = learnt
    result = checked(engine, "How much did Wheelwright quote for the Kestrel frames?",
                   "Wheelwright quoted €17,850 excl. VAT for the 40 Kestrel frames.")
    assert result.delivered == "Wheelwright quoted €18,750 [corrected] excl. VAT for the 40 Kestrel frames."
    flag = next(f for f in result.hallucination_flags if f.content == "€17,850")
    assert flag.hallucination_type == "ContradictsFact"
    # An amount nothing like the quote is not "corrected" to it: it is only doubted.
    other = checked(engine, "How much did Wheelwright quote for the Kestrel frames?",
                  "Wheelwright quoted €42,000 excl. VAT for the 40 Kestrel frames.")
    assert "€18,750" not in other.delivered
    assert all(f.hallucination_type != "ContradictsFact" for f in other.hallucination_flags)
    # Nor is a total the answer worked out, a digit away from the quote it adds to.
    total = checked(engine, "What will the Kestrel frames cost with delivery?",
                  "Wheelwright quoted €18,750 excl. VAT for the 40 Kestrel frames, so with €1,000 delivery "
                  "the total is €19,750.")
    assert "€19,750" in total.delivered
    assert all(f.hallucination_type != "ContradictsFact" for f in total.hallucination_flags)


def test_people_listed_as_present_in_meeting_notes_are_known_and_a_stranger_is_not(learnt):
    engine, _ = learnt
    assert [e.type for e in engine.kb.registry.find_by_alias("Saoirse Ngata-Whitlock")] == ["person"]
    known = checked(engine, "Who was at the workshop standup?",
                  "Imogen Vasquez, Tariq Oduya and Saoirse Ngata-Whitlock were at the standup.")
    assert not any("Saoirse" in f.content for f in known.hallucination_flags)
    stranger = checked(engine, "Who was at the workshop standup?",
                     "Imogen Vasquez, Tariq Oduya and Piotr Lindahl were at the standup.")
    assert any("Piotr Lindahl" in f.content for f in stranger.hallucination_flags)


def test_an_international_phone_number_is_checked_like_any_other(learnt):
    engine, _ = learnt
    wrong = checked(engine, "What is Tariq's phone number?", "Tariq Oduya's phone number is +44 20 7946 0737.")
    assert wrong.delivered == "Tariq Oduya's phone number is +44 20 7946 0733 [corrected]."
    assert [f.hallucination_type for f in wrong.hallucination_flags] == ["WrongAttribute"]
    # The same line written the national way, with its trunk 0, is the same number.
    national = checked(engine, "What is Tariq's phone number?", "Tariq Oduya's phone number is 020 7946 0733.")
    assert national.hallucination_flags == [] and "[corrected]" not in national.delivered


@pytest.mark.parametrize("question, answer, delivered, kind", [
    # "Kestrel" alone names the project; the weekday written before the old date becomes the new date's own.
    ("When is the launch?", "The Kestrel launch is on Tuesday 9 March 2027.",
     "The Kestrel launch is on Monday 19 April 2027 [corrected].", "TemporalError"),
    # "the company's" between a name and a role does not hide the role from the check.
    ("What does Tariq Oduya do?", "Tariq Oduya is the company's Operations Director.",
     "Tariq Oduya is the company's Workshop Manager [corrected].", "WrongAttribute"),
], ids=["old-date-by-a-word-of-the-name", "role-said-as-the-companys"])
def test_corrected_in_place(learnt, question, answer, delivered, kind):
    engine, _ = learnt
    result = checked(engine, question, answer)
    assert result.delivered == delivered
    assert [f.hallucination_type for f in result.hallucination_flags] == [kind]


def test_a_later_change_is_picked_up_without_restarting(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "project-kestrel.md").write_text(PROJECT)
    answer = "Project Kestrel launches on 9 March 2027."
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        assert checked(engine, "When does Project Kestrel launch?", answer).hallucination_flags == []
        # The same engine, no restart: the checks see what the new email changed.
        (folder / "2026-11-02-kestrel-moved.eml").write_text(MAIL_MOVED)
        engine.ingest(folder)
        after = checked(engine, "When does Project Kestrel launch?", answer)
        assert after.delivered == "Project Kestrel launches on 19 April 2027 [corrected]."


MAIL_BUDGET_NOW = """From: Imogen Vasquez <imogen@larchmont.example>
To: Workshop <workshop@larchmont.example>
Subject: Kestrel batteries
Date: Tue, 24 Nov 2026 11:40:00 +0000

Hi all,

The owners agreed to the larger batteries for Kestrel: the budget is now £66,150.

Imogen
"""


def test_a_value_a_later_email_says_is_now_something_else_is_out_of_date(tmp_path_factory):
    """"the budget is now £66,150" replaces the project page's £62,300 as "moved to" would."""
    engine, _ = engine_learnt_from(tmp_path_factory, "larchmont-now", {
        "project-kestrel.md": PROJECT, "2026-11-24-kestrel-batteries.eml": MAIL_BUDGET_NOW})
    with engine:
        old = checked(engine, "What is the budget for Project Kestrel?", "Project Kestrel has a budget of £62,300.")
        assert old.delivered == "Project Kestrel has a budget of £66,150 [corrected]."
        assert [f.hallucination_type for f in old.hallucination_flags] == ["TemporalError"]
        new = checked(engine, "What is the budget for Project Kestrel?", "Project Kestrel has a budget of £66,150.")
        assert new.hallucination_flags == []
