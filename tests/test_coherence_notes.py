"""Coherence notes a user would call false: none for small talk, none for a question that only
mentions an email, a phone call or a time, and still one for an answer that really misses."""

from __future__ import annotations

import pytest

from chatapp.postprocess import Postprocessor


@pytest.fixture(scope="module")
def post(registry_engine):
    # With the shipped embedder, as in a chat turn: topic drift is judged by sentence similarity.
    return Postprocessor(registry_engine.kb.registry, embedder=registry_engine.kb.embedder)


@pytest.mark.parametrize("question, answer", [
    ("thanks!", "You're welcome! Let me know if there is anything else about your projects I can help with."),
    ("hi there", "Hello! What would you like to look up in your documents today?"),
    ("good morning", "Good morning! Ready when you are, just ask about a person, a project or a file."),
    ("ok cool, bye", "Goodbye, and have a pleasant rest of the week with the team."),
])
def test_small_talk_gets_no_notes(post, question, answer):
    result = post.process(answer, question=question)
    assert result.coherence.issues == []
    assert result.coherence.question_type == "small talk"
    assert result.recommendation == "Accept"


@pytest.mark.parametrize("question, answer", [
    ("What did the email from Dana say?", "She wrote that the vendor is late and the launch moves to Friday."),
    ("Did you read his email from Monday?", "Yes, it says the review is postponed by a week."),
    ("Summarise the phone call with Priya", "Priya agreed to share the revised budget with finance."),
    ("What did Bob say when we met?", "He said the design review went well and the team is on track."),
    ("Is there a link between the outage and the deploy?", "Yes, the outage started right after the deploy."),
])
def test_a_question_that_only_mentions_an_email_or_a_time_asks_for_none(post, question, answer):
    result = post.process(answer, question=question)
    assert not any("but the answer gives none" in issue for issue in result.coherence.issues), result.coherence


def test_a_name_the_parser_misses_still_answers_who(post):
    result = post.process("The lead is Dana.", question="Who leads the migration?")
    assert not any("asks for a person" in issue for issue in result.coherence.issues)


@pytest.mark.parametrize("answer", [
    "Beatrix keeps the tool-shed key.",  # a first name in no name list, tagged a common noun
    "The key is held by Okafor.",  # a surname the recogniser misses, as the doer of a passive
    "Greenleaf Supplies keeps a spare key.",  # a firm answers "who" too
    "The spare keys come from Hollowbrook Locks Ltd.",  # … also when it is not the doer
])
def test_whoever_does_it_answers_who_even_when_no_list_knows_the_name(post, answer):
    result = post.process(answer, question="Who keeps the key?")
    assert not any("asks for a person" in issue for issue in result.coherence.issues)


@pytest.mark.parametrize("answer", ["The key is kept in the shed.", "Water keeps it safe."])
def test_an_answer_naming_no_one_to_who_is_still_noted(post, answer):
    result = post.process(answer, question="Who keeps the key?")
    assert any("asks for a person" in issue for issue in result.coherence.issues)


def test_real_misses_are_still_noted(post):
    no_address = post.process("John Smith runs Project Atlas from the San Francisco office.",
                              question="What is John Smith's email address?")
    assert any("asks for an email address but the answer gives none" in i for i in no_address.coherence.issues)
    no_date = post.process("The launch was discussed at length by the team.", question="Remind me when the launch is")
    assert any("asks for a date or time" in i for i in no_date.coherence.issues)
    off_topic = post.process(
        "Cats are small domesticated carnivorous mammals that many people keep as pets around the world.",
        question="What is the budget for the Atlas migration this quarter?")
    assert "the answer drifts from the question's topic" in off_topic.coherence.issues


def test_a_long_answer_saying_the_questions_words_has_not_drifted(post):
    # The line holds the office's other numbers and its address; the switchboard is still what was asked.
    answer = ("(offline — answering from your knowledge base)\n\nFrom your documents:\n"
              "- Office: 9 Bramble Yard, Leeds LS2 7QT · Switchboard: 0113 496 0711 · Out-of-hours duty phone: "
              "07700 900 512 (staff-list.md)\n\nSources: staff-list.md")
    result = post.process(answer, question="What is the switchboard number?")
    assert "the answer drifts from the question's topic" not in result.coherence.issues


@pytest.mark.parametrize("answer", ["Her extension is 207.", "You can reach Mereana on ext. 207.",
                                    "Mereana Pohatu's extension number is 4471."])
def test_an_extension_answers_a_question_for_a_phone_number(post, answer):
    result = post.process(answer, question="What is Mereana Pohatu's phone extension?")
    assert not any("asks for a phone number" in issue for issue in result.coherence.issues), result.coherence


def test_a_bare_count_still_gives_no_phone_number(post):
    result = post.process("She has 207 patients on her list.", question="What is Mereana Pohatu's phone number?")
    assert any("asks for a phone number but the answer gives none" in i for i in result.coherence.issues)
