"""Dates without a year: the anchor (a document's date or the turn's time), the
sentence's tense and the years the conversation named decide which one is meant."""

from __future__ import annotations

from datetime import date, datetime

import pytest

import chatapp  # noqa: F401  (offline environment first)
from chatapp.dates.expressions import find_temporal_expressions, resolve_in_document
from chatapp.nlp import load_pipeline
from chatapp.preprocess.context import EntityDescriber
from chatapp.preprocess.dialogue import DialogueState
from chatapp.preprocess.entities.resolver import EntityResolver

MAIL_DATE = date(2026, 11, 24)
Q1_2026 = (date(2026, 1, 1), date(2026, 3, 31))
Q1_2027 = (date(2027, 1, 1), date(2027, 3, 31))
MARCH_2026 = (date(2026, 3, 1), date(2026, 3, 31))
MARCH_2027 = (date(2027, 3, 1), date(2027, 3, 31))
JUNE_TURN = datetime(2026, 6, 10, 9, 30)  # March 2026 is nearer than March 2027


def by_text(expressions, surface):
    matches = [e for e in expressions if e.text.lower() == surface.lower()]
    assert matches, f"{surface!r} not found in {[e.text for e in expressions]}"
    return matches[0]


def period(expression):
    return expression.start, expression.end


# --- documents: read from their own date ------------------------------------------------

def test_q1_in_a_november_mail_about_next_years_launch_is_next_q1():
    mail = ("Hi all,\n\nThe Q1 campaign for the Lumen Lite launch will open with a teaser video. "
            "Please send your drafts before the break.")
    q1 = by_text(resolve_in_document(mail, MAIL_DATE), "Q1")
    assert period(q1) == Q1_2027
    assert Q1_2026 in q1.alternatives  # the other reading is kept


def test_q1_in_a_sentence_about_the_past_is_the_last_q1():
    mail = "The Q1 campaign was our best quarter for sign-ups."
    assert period(by_text(resolve_in_document(mail, MAIL_DATE), "Q1")) == Q1_2026


def test_each_sentence_of_a_mail_points_its_own_way():
    mail = ("Date: 24 Nov 2026\n"
            "We meet on 7 December to sign off the copy. In March we will launch the new tiers. "
            "In March we hired two designers for it.")
    found = resolve_in_document(mail, MAIL_DATE)
    december = by_text(found, "7 December")
    assert (december.start, december.end) == (date(2026, 12, 7), date(2026, 12, 7))
    will_launch, hired = [e for e in found if e.text == "March"]
    assert period(will_launch) == MARCH_2027
    assert period(hired) == MARCH_2026


def test_a_year_the_document_names_wins_when_the_tense_allows():
    note = "Planning notes for the 2027 budget. The March review sets the hiring targets."
    march = by_text(resolve_in_document(note, JUNE_TURN.date()), "March")
    assert period(march) == MARCH_2027
    assert MARCH_2026 in march.alternatives
    # Without the named year the nearest March is the one three months back.
    alone = by_text(resolve_in_document("The March review sets the hiring targets.", JUNE_TURN.date()), "March")
    assert period(alone) == MARCH_2026


def test_the_year_of_a_mail_header_date_is_not_a_year_the_mail_is_about():
    # "24 November 2026" dates the message; the Q1 it mentions is still the coming one.
    mail = "Sent: Tuesday, 24 November 2026 09:12\nSubject: budget\n\nThe Q1 campaign needs a budget line."
    assert period(by_text(resolve_in_document(mail, MAIL_DATE), "Q1")) == Q1_2027


def test_relative_days_in_a_document_count_from_its_date():
    found = resolve_in_document("As discussed yesterday, the draft is due next Friday.", "2026-11-24")
    assert by_text(found, "yesterday").start == date(2026, 11, 23)
    assert by_text(found, "next Friday").start == date(2026, 11, 27)


def test_a_document_date_that_is_not_a_date_says_so():
    with pytest.raises(ValueError, match="not an ISO date"):
        resolve_in_document("The Q1 campaign.", "last Tuesday-ish")


# --- close calls ---------------------------------------------------------------------------

def test_a_close_call_keeps_both_readings_and_is_less_sure():
    # Mid-April: last October and next October are almost equally far away.
    april = date(2026, 4, 15)
    unsure = by_text(find_temporal_expressions("the October offsite", april), "October")
    pointed = by_text(find_temporal_expressions("the October offsite will be in Lisbon", april), "October")
    october_2025, october_2026 = (date(2025, 10, 1), date(2025, 10, 31)), (date(2026, 10, 1), date(2026, 10, 31))
    assert {period(unsure), *unsure.alternatives} == {october_2025, october_2026}
    assert period(pointed) == october_2026
    assert unsure.confidence < pointed.confidence
    assert unsure.attributes()["alternatives"] == ["2026-10-01..2026-10-31"]
    assert "alternatives" not in pointed.attributes()


def test_next_and_last_month_names_skip_the_current_month():
    found = find_temporal_expressions("next March we expand; last March we moved", date(2026, 3, 10))
    assert period(by_text(found, "next March")) == MARCH_2027
    assert period(by_text(found, "last March")) == (date(2025, 3, 1), date(2025, 3, 31))


# --- the conversation: years named in earlier turns ---------------------------------------------

@pytest.fixture(scope="module")
def resolver(registry_engine) -> EntityResolver:
    return EntityResolver(registry_engine.kb.registry, nlp=load_pipeline()[0])


def ask(resolver, state: DialogueState, text: str, now: datetime = JUNE_TURN):
    """Resolve one user turn and add it to the conversation, as the engine does."""
    results = resolver.resolve(text, state, now)
    state.add_user_turn(text, now.isoformat(), [r.entity_id for r in results if r.entity_id],
                        is_question=text.endswith("?"))
    return results


def date_of(results, surface):
    matches = [r for r in results if r.surface.lower() == surface.lower() and r.entity_type == "DATE"]
    assert matches, f"{surface!r} not a date in {[(r.surface, r.entity_type) for r in results]}"
    return matches[0]


def test_a_year_the_conversation_named_places_the_march_review(resolver):
    state = DialogueState()
    ask(resolver, state, "what is in the 2027 budget for the design team?")
    march = date_of(ask(resolver, state, "who runs the March review?"), "March")
    assert march.attributes["start"] == "2027-03-01"
    assert march.attributes["alternatives"] == ["2026-03-01..2026-03-31"]
    # The same question in a fresh conversation: the nearer March.
    assert date_of(resolver.resolve("who runs the March review?", DialogueState(), JUNE_TURN),
                   "March").attributes["start"] == "2026-03-01"


def test_an_earlier_answered_quarter_carries_its_year_forward(resolver):
    state = DialogueState()
    q1 = date_of(ask(resolver, state, "what is planned for Q1?"), "Q1")
    assert q1.canonical_name == "2027-01-01..2027-03-31"  # planned: the next Q1
    march = date_of(ask(resolver, state, "and who runs the March review?"), "March")
    assert march.attributes["start"] == "2027-03-01"


def test_a_day_in_the_conversation_does_not_pin_the_year(resolver):
    # "yesterday" dates the question, not its subject: the nearer March stays.
    state = DialogueState()
    ask(resolver, state, "what did Dana send yesterday?")
    assert date_of(ask(resolver, state, "who runs the March review?"), "March").attributes["start"] == "2026-03-01"


def test_a_past_question_ignores_a_future_year(resolver):
    state = DialogueState()
    ask(resolver, state, "what is in the 2027 budget?")
    march = date_of(ask(resolver, state, "how did the March review go last spring, who was there?"), "March")
    assert march.attributes["start"] == "2026-03-01"


def test_the_model_sees_both_readings_of_a_close_call(resolver, registry_engine):
    results = resolver.resolve("who organises the October offsite?", DialogueState(), datetime(2026, 4, 15, 9))
    october = date_of(results, "October")
    line = EntityDescriber(registry_engine.kb.registry).describe_resolved(october)
    assert line == "October (date): 2025-10-01 to 2025-10-31 (or 2026-10-01 to 2026-10-31)"
    # …and the entity view lists it as the weaker candidate, as for an ambiguous name.
    assert [candidate for candidate, _ in october.candidates] == ["date:2025-10-01..2025-10-31",
                                                                  "date:2026-10-01..2026-10-31"]
