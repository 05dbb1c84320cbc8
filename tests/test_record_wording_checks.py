"""Checking answers against a folder of a user's own documents (`chatapp check --evidence`): a terse record
— a labelled line of minutes, a directory entry — said in a sentence is the record, not an invention,
while a detail the record lacks is still flagged; and a fact wrapped in how the assistant feels or stands
("I'm sure …", "Are you aware that …") is held to the documents like any other."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli

MINUTES = """# Rowing club committee, 9 October 2026

- Boathouse lettings April–September 2026: £7,360 against a budget of £6,900.
- **Decision:** sell the old coaching launch to Haverleigh Sea Scouts for £1,150.
- Captain: Ysolde Brackenridge
"""
HISTORY = """The Tidewell Rowing Club was founded in 1893 by a group of ferrymen.
Its boathouse stands on the east bank of the river and holds four racing eights.
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("rowing-club")
    (root / "committee-2026-10-09.md").write_text(MINUTES, encoding="utf-8")
    (root / "history.txt").write_text(HISTORY, encoding="utf-8")
    return root


def check(folder, answer: str, question: str) -> dict:
    done = run_cli("check", "--response", answer, "--question", question, "--evidence",
                   str(folder / "committee-2026-10-09.md"), "--evidence", str(folder / "history.txt"), "--json",
                   data_dir=folder / "data")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["response"]


@pytest.mark.parametrize("question, answer", [
    ("How did the boathouse lettings do?",
     "Between April and September 2026 the boathouse lettings brought in £7,360, beating the £6,900 budget."),
    ("What happened to the old coaching launch?",
     "The committee decided to sell the old coaching launch to Haverleigh Sea Scouts for £1,150."),
])
def test_a_record_said_in_a_sentence_is_not_flagged(folder, question, answer):
    response = check(folder, answer, question)
    assert response["hallucination_flags"] == [], response["hallucination_flags"]
    assert response["recommendation"] == "Accept"


@pytest.mark.parametrize("question, answer", [
    # a thing the record does not have, beside its values
    ("How did the boathouse lettings do?",
     "Between April and September 2026 the boathouse lettings brought in £7,360, with a new pontoon paid for."),
    # a name the record does not have
    ("What happened to the old coaching launch?",
     "The committee decided to sell the old coaching launch to Haverleigh Sea Scouts, with Corwen Astley as broker."),
])
def test_a_record_said_with_something_it_lacks_is_still_flagged(folder, question, answer):
    assert check(folder, answer, question)["hallucination_flags"]


@pytest.mark.parametrize("answer", [
    "I'm sure the boathouse holds six racing eights.",
    "Are you aware that the club was founded by a group of fishermen?",
    "I was surprised to find out that the club owns a second boathouse upriver.",
])
def test_a_fact_wrapped_in_a_feeling_is_held_to_the_documents(folder, answer):
    assert check(folder, answer, "Tell me about the rowing club.")["hallucination_flags"]


@pytest.mark.parametrize("answer", [
    "I'm glad that the club was founded in 1893 by a group of ferrymen.",
    "I'm not sure how many members the club has.",
    "I'm glad you asked!",
])
def test_a_frame_around_what_the_documents_say_or_around_nothing_is_not_flagged(folder, answer):
    assert check(folder, answer, "Tell me about the rowing club.")["hallucination_flags"] == []
