"""Stage 2: which John, which day, who is "he", which email is "the email"."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatapp.preprocess.dialogue import DialogueState
from chatapp.engine import ChatEngine
from chatapp.preprocess.entities.resolver import EntityResolver, ResolutionSettings
from chatapp.nlp import load_pipeline
from chatapp.records import KnowledgeChunk

NOW = datetime(2026, 12, 2, 10, 0)  # a Wednesday
STAMP = NOW.isoformat()


@pytest.fixture(scope="module")
def resolver(registry_engine) -> EntityResolver:
    return EntityResolver(registry_engine.kb.registry, nlp=load_pipeline()[0])


def by_surface(results, surface):
    matches = [r for r in results if r.surface == surface]
    assert matches, f"{surface!r} not resolved in {[(r.surface, r.entity_id) for r in results]}"
    return matches[0]


def state_after(*user_turns: tuple[str, list[str]]) -> DialogueState:
    state = DialogueState()
    for text, entity_ids in user_turns:
        state.add_user_turn(text, STAMP, entity_ids, is_question=text.endswith("?"))
    return state


# --- the seed example ---------------------------------------------------------------


def test_john_is_john_smith_with_the_other_johns_as_weaker_candidates(resolver):
    text = "can you help me find John's email from yesterday?"
    john = by_surface(resolver.resolve(text, now=NOW), "John")
    assert john.entity_id == "person:john-smith"
    assert john.canonical_name == "John Smith"
    assert john.entity_type == "PERSON"
    assert text[john.span[0]:john.span[1]] == "John"
    assert john.attributes["email"] == "john.smith@company.com"
    ids = [entity_id for entity_id, _ in john.candidates]
    scores = [score for _, score in john.candidates]
    assert ids == ["person:john-smith", "person:john-doe", "person:johnny-walker"]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[1] > scores[2]
    assert scores[0] >= ResolutionSettings().min_confidence
    # Sure of the link only as far as the other Johns leave room (its share of the candidates' scores).
    assert 0.35 < john.confidence <= scores[0] / sum(scores)
    full = by_surface(resolver.resolve("can you help me find John Smith's email?", now=NOW), "John Smith")
    assert full.entity_id == "person:john-smith" and full.confidence >= 0.9 > john.confidence


def test_yesterday_is_the_day_before_the_turn(resolver):
    results = resolver.resolve("can you help me find John's email from yesterday?", now=NOW)
    yesterday = by_surface(results, "yesterday")
    assert yesterday.entity_type == "DATE"
    assert yesterday.entity_id in (None, "date:2026-12-01")
    assert yesterday.canonical_name == "2026-12-01"
    assert yesterday.attributes == {"date": "2026-12-01"}


@pytest.mark.parametrize(
    "text, surface, attributes",
    [
        ("what did Sarah say last Monday?", "last Monday", {"date": "2026-11-30"}),
        ("what is planned for next week?", "next week", {"start": "2026-12-07", "end": "2026-12-13"}),
        ("what is due on Friday?", "Friday", {"date": "2026-12-04"}),
        ("the note from 2 days ago", "2 days ago", {"date": "2026-11-30"}),
        ("the notes of 2026-11-30", "2026-11-30", {"date": "2026-11-30"}),
        ("the meeting on Nov 30", "Nov 30", {"date": "2026-11-30"}),
        ("anything on December 10th?", "December 10th", {"date": "2026-12-10"}),
        ("what happened last month", "last month", {"start": "2026-11-01", "end": "2026-11-30"}),
    ],
)
def test_dates_resolve_relative_to_the_turn(resolver, text, surface, attributes):
    date = by_surface(resolver.resolve(text, now=NOW), surface)
    assert date.entity_type == "DATE"
    assert date.attributes == attributes


@pytest.mark.parametrize("text", ["who signs off invoices over 2000?", "did we spend more than 2000 on flour?"])
def test_a_number_after_over_or_more_than_is_an_amount_not_a_year(resolver, text):
    assert [r for r in resolver.resolve(text, now=NOW) if r.entity_type == "DATE"] == []


@pytest.mark.parametrize("text", ["what happened in 2025?", "what has to be done by 2027?"])
def test_a_year_on_its_own_is_the_whole_year(resolver, text):
    year = next(r for r in resolver.resolve(text, now=NOW) if r.entity_type == "DATE")
    assert year.entity_id == f"date:{year.surface}-01-01..{year.surface}-12-31"


def test_a_just_discussed_john_doe_wins_over_john_smith(resolver):
    state = state_after(("tell me about John Doe and the Q4 sales pipeline", ["person:john-doe"]))
    assert state.salience["person:john-doe"] == 1.0
    john = by_surface(resolver.resolve("can you help me find John's email from yesterday?", state, NOW), "John")
    assert john.entity_id == "person:john-doe"
    assert [e for e, _ in john.candidates][:2] == ["person:john-doe", "person:john-smith"]


# --- references back into the conversation ----------------------------------------------


def test_pronoun_goes_to_the_person_just_discussed(resolver):
    state = state_after(("who is John Smith?", ["person:john-smith"]))
    state.add_assistant_turn("John Smith is the Engineering Manager.", STAMP, ["person:john-smith"])
    his = by_surface(resolver.resolve("what is his phone number?", state, NOW), "his")
    assert his.entity_id == "person:john-smith"
    assert his.attributes["phone"] == "+1 555 0142"


def test_she_after_an_answer_is_the_woman_it_is_about_not_the_last_it_lists(resolver):
    state = state_after(("who runs the Q4 budget review?", []))
    # Quoted from the documents (as an offline answer's lines are): each named as present as the others.
    state.add_assistant_turn("- Priya Patel runs the Q4 budget review. (notes.md)\n"
                             "- Present: John Smith, Emma Johansson (notes.md)", STAMP,
                             quoted_entity_ids=["person:priya-patel", "person:john-smith", "person:emma-johansson"])
    her = by_surface(resolver.resolve("what is her email?", state, NOW), "her")
    assert her.entity_id == "person:priya-patel"


def test_pronoun_prefers_an_antecedent_in_the_same_sentence(resolver):
    state = state_after(("who is Sarah Chen?", ["person:sarah-chen"]))
    results = resolver.resolve("Did Emma say when she will finish?", state, NOW)
    assert by_surface(results, "she").entity_id == "person:emma-johansson"


def test_pronoun_without_anyone_salient_links_nothing(resolver):
    assert not [r for r in resolver.resolve("what is his phone number?", DialogueState(), NOW) if r.surface == "his"]
    # "it" goes to things, never to a person.
    state = state_after(("who is John Smith?", ["person:john-smith"]))
    assert not [r for r in resolver.resolve("can you send it?", state, NOW) if r.surface == "it"]


def test_it_goes_to_the_salient_project(resolver):
    state = state_after(("how is Project Atlas going?", ["project:atlas"]))
    it = by_surface(resolver.resolve("when is it due?", state, NOW), "it")
    assert it.entity_id == "project:atlas"


def test_the_email_is_the_document_just_discussed(resolver):
    state = state_after(("find the Q4 budget review follow-up", ["event:q4-budget-review"]))
    state.note_documents([
        KnowledgeChunk("c1", "emails/2026-12-01-q4-budget-review-followup.eml", 0.9, "…",
                       title="Q4 budget review follow-up", document_id="doc-email-1", date="2026-12-01"),
        KnowledgeChunk("c2", "data/q4-budget-summary.csv", 0.7, "…", title="Q4 budget summary",
                       document_id="doc-csv-1", date="2026-11-28"),
    ])
    state.add_assistant_turn("Here is the follow-up email.", STAMP, [])
    email = by_surface(resolver.resolve("who else got the email?", state, NOW), "the email")
    assert email.entity_type == "DOCUMENT"
    assert email.entity_id == "doc:doc-email-1"
    assert email.attributes["source"].endswith(".eml")
    sheet = by_surface(resolver.resolve("open that spreadsheet", state, NOW), "that spreadsheet")
    assert sheet.entity_id == "doc:doc-csv-1"


def test_the_email_about_something_is_the_discussed_email_whose_subject_says_so(resolver):
    state = state_after(("what changed at the bakehouse?", []))
    state.note_documents([
        KnowledgeChunk("c1", "mail/2026-12-02-night-shift.eml", 0.9, "…", title="Re: Christmas night shift",
                       document_id="doc-shift", date="2026-12-02"),
        KnowledgeChunk("c2", "mail/2026-11-25-opening-moved.eml", 0.8, "…",
                       title="Bakehouse opening moved to 8 March", document_id="doc-opening", date="2026-11-25"),
    ])
    state.add_assistant_turn("Two emails mention it.", STAMP, [])
    about = by_surface(resolver.resolve("what did the email about the opening say?", state, NOW), "the email")
    assert about.entity_id == "doc:doc-opening"  # not the latest email, which is about something else
    # About something no discussed email's subject names: no link rather than the wrong email.
    results = resolver.resolve("what did the email about the oven service say?", state, NOW)
    assert not [r for r in results if r.entity_type == "DOCUMENT"]
    # From someone: the sender is not in the subject, so the latest email still stands.
    sender = by_surface(resolver.resolve("what did the email from Priyanka say?", state, NOW), "the email")
    assert sender.entity_id == "doc:doc-shift"


def test_the_email_without_a_discussed_document_links_nothing(resolver):
    results = resolver.resolve("who else got the email?", DialogueState(), NOW)
    assert not [r for r in results if r.entity_type == "DOCUMENT"]


def test_the_meeting_is_the_salient_event(resolver):
    state = state_after(("when is the Q4 budget review?", ["event:q4-budget-review"]))
    meeting = by_surface(resolver.resolve("who organized the meeting?", state, NOW), "the meeting")
    assert meeting.entity_id == "event:q4-budget-review"


# --- what must not be linked --------------------------------------------------------------


def test_unknown_name_is_not_linked_to_a_wrong_entity(resolver):
    assert resolver.resolve("Bartholomew sent the report", now=NOW) == []
    state = state_after(("who is John Smith?", ["person:john-smith"]))
    assert [r.entity_id for r in resolver.resolve("did Bartholomew reply?", state, NOW)] == []


def test_ordinary_words_are_not_read_as_entity_names(resolver):
    results = resolver.resolve("let's meet in the office at 3 PM about the product", now=NOW)
    assert [r.entity_id for r in results if r.entity_id and not r.entity_id.startswith("date:")] == []
    assert by_surface(results, "3 PM").entity_type == "TIME"


def test_names_and_addresses_are_linked_whatever_the_case(resolver):
    results = resolver.resolve("did sarah reply to john.doe@company.com about Helios?", now=NOW)
    assert [r.entity_id for r in results] == ["person:sarah-chen", "person:john-doe", "project:helios"]


def test_misspelled_name_from_ner_is_matched_fuzzily(resolver):
    results = resolver.resolve("What did Jon Smth say?", now=NOW)
    assert [r.entity_id for r in results] == ["person:john-smith"]


def test_correction_markers_are_used(resolver):
    # The correction stage fixed "Jon Smth" and says so, with a span in the original input.
    marker = {"kind": "entity", "span": (8, 16), "text": "John Smith", "entity_id": "person:john-smith"}
    results = resolver.resolve("what is John Smith's role?", now=NOW, markers=[marker])
    smith = by_surface(results, "John Smith")
    assert smith.entity_id == "person:john-smith" and smith.span == (8, 18)


def test_new_entities_are_found_after_refresh(tmp_path):
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "entities.jsonl").write_text(json.dumps({"id": "person:ada", "type": "person", "name": "Ada Lovelace"}) + "\n")
    engine.ingest(kb / "entities.jsonl")
    resolver = EntityResolver(engine.kb.registry, nlp=load_pipeline()[0])
    assert resolver.resolve("ask Bartholomew Quill", now=NOW) == []
    (kb / "entities.jsonl").write_text(
        (kb / "entities.jsonl").read_text()
        + json.dumps({"id": "person:bq", "type": "person", "name": "Bartholomew Quill"}) + "\n"
    )
    engine.ingest(kb / "entities.jsonl")
    resolver.refresh()
    assert [r.entity_id for r in resolver.resolve("ask Bartholomew Quill", now=NOW)] == ["person:bq"]
    engine.close()


def _resolver_over(tmp_path, *entities: dict) -> tuple[ChatEngine, EntityResolver]:
    """A resolver over a registry holding only `entities`, ingested by a real engine."""
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    path = tmp_path / "kb" / "entities.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(entity) + "\n" for entity in entities))
    engine.ingest(path)
    return engine, EntityResolver(engine.kb.registry, nlp=load_pipeline()[0])


def test_the_attribute_asked_for_picks_the_namesake_who_has_it_whatever_the_key_is_called(tmp_path):
    # Keys no code knows: "mobile" and "email" in the question are matched to each person's own keys.
    engine, resolver = _resolver_over(
        tmp_path,
        {"id": "person:dana-reyes", "type": "person", "name": "Dana Reyes", "aliases": ["Dana"],
         "attributes": {"mobile_number": "+1 555 0199", "job_function": "Analyst"}},
        {"id": "person:dana-whitfield", "type": "person", "name": "Dana Whitfield", "aliases": ["Dana"],
         "attributes": {"work_email_addr": "dana.w@example.org", "job_function": "Analyst", "pager": "4471"}},
    )
    mobile = by_surface(resolver.resolve("what is dana's mobile?", now=NOW), "dana")
    assert mobile.entity_id == "person:dana-reyes"
    assert mobile.attributes["mobile_number"] == "+1 555 0199"
    assert [c for c, _ in mobile.candidates] == ["person:dana-reyes", "person:dana-whitfield"]  # the other kept, weaker
    email = by_surface(resolver.resolve("what is Dana's email?", now=NOW), "Dana")
    assert email.entity_id == "person:dana-whitfield"
    # A key no general word list knows is asked for by its own name.
    assert by_surface(resolver.resolve("what is Dana's pager?", now=NOW), "Dana").entity_id == "person:dana-whitfield"
    engine.close()


def test_who_leads_picks_the_project_with_a_lead_under_its_own_key(tmp_path):
    engine, resolver = _resolver_over(
        tmp_path,
        {"id": "project:orion-app", "type": "project", "name": "Orion Mobile App", "aliases": ["Orion"],
         "attributes": {"project_lead": "Kim Ode"}},
        {"id": "project:orion-pipeline", "type": "project", "name": "Orion Data Pipeline", "aliases": ["Orion"],
         "attributes": {"launch_window": "2027-03"}},
    )
    assert by_surface(resolver.resolve("who leads Orion?", now=NOW), "Orion").entity_id == "project:orion-app"
    assert by_surface(resolver.resolve("when does Orion launch?", now=NOW), "Orion").entity_id == "project:orion-pipeline"
    engine.close()


# --- robustness and speed -----------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=120))
def test_any_text_resolves_without_crashing_and_spans_are_exact(resolver, text):
    state = state_after(("who is John Smith?", ["person:john-smith"]))
    for resolved in resolver.resolve(text, state, NOW):
        assert text[resolved.span[0]:resolved.span[1]] == resolved.surface
        assert 0.0 <= resolved.confidence <= 1.0


def test_resolution_reuses_the_parse_it_is_given(resolver, monkeypatch):
    # The turn parses the input once (correction) and hands the parse on; resolving must not parse
    # again. (How long resolution takes is measured in tests/bench/bench_preprocess_latency.py.)
    text = ("can you help me find John's email from yesterday? I think he mentioned the Q4 budget review "
            "with Sarah from marketing last Monday, and Emma wants the Atlas numbers before next week")
    state = state_after(("who is John Smith?", ["person:john-smith"]))
    doc = resolver._parse(text)
    monkeypatch.setattr(resolver, "_parse", lambda *args, **kwargs: pytest.fail("the text was parsed again"))
    results = resolver.resolve(text, state, NOW, doc=doc)
    assert by_surface(results, "John").entity_id == "person:john-smith"
    assert by_surface(results, "yesterday").canonical_name == "2026-12-01"


def test_he_and_she_go_to_a_person_whose_name_fits(resolver):
    # Sarah was named last, but "his" is John's.
    state = state_after(("who is John Smith?", ["person:john-smith"]), ("and Sarah Chen?", ["person:sarah-chen"]))
    his = by_surface(resolver.resolve("what is his phone number?", state, NOW), "his")
    assert his.entity_id == "person:john-smith" and his.attributes["phone"] == "+1 555 0142"
    assert [c for c, _ in his.candidates] == ["person:john-smith", "person:sarah-chen"]  # kept, weaker
    her = by_surface(resolver.resolve("what is her phone number?", state, NOW), "her")
    assert her.entity_id == "person:sarah-chen"


def test_a_persons_own_pronouns_outrank_their_first_name():
    from chatapp.preprocess.entities.name_gender import first_name_gender, person_gender

    assert person_gender("Sam Lee", {"pronouns": "she/her"}) == ("f", True)
    assert person_gender("John Smith", {"pronouns": "they/them"}) == (None, True)
    assert person_gender("John Smith", {}) == ("m", False)
    # A name the census tables do not tell apart, or do not have, rules nothing out.
    assert first_name_gender("Kenji") is None and first_name_gender("Sarah") == "f"


def test_a_pronoun_with_a_rival_nearly_as_salient_is_less_sure(resolver):
    alone = state_after(("who is John Smith?", ["person:john-smith"]))
    sure = by_surface(resolver.resolve("what is his phone number?", alone, NOW), "his")
    two = state_after(("who is Sarah Chen?", ["person:sarah-chen"]), ("and Emma?", ["person:emma-johansson"]))
    unsure = by_surface(resolver.resolve("when will she finish?", two, NOW), "she")
    assert unsure.entity_id == "person:emma-johansson" and len(unsure.candidates) == 2
    assert unsure.confidence < 0.6 < 0.8 <= sure.confidence


def test_it_after_a_thing_named_earlier_in_the_sentence_is_that_thing_not_the_salient_project(resolver):
    state = state_after(("how is Project Atlas going?", ["project:atlas"]))
    results = resolver.resolve("how much was the shed quote and who sent it?", state, NOW)
    assert not [r for r in results if r.surface == "it"]
    # What is asked of "it" in its own clause ("the status of it") is no antecedent.
    it = by_surface(resolver.resolve("what is the status of it?", state, NOW), "it")
    assert it.entity_id == "project:atlas"
