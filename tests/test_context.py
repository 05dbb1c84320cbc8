"""Stage 3: what the model is told besides the question."""

from __future__ import annotations

import pytest

import chatapp  # noqa: F401  (offline environment first)
from chatapp.token_count import count_tokens
from chatapp.preprocess.context import build_context
from chatapp.records import DialogueTurn, ResolvedEntity


@pytest.fixture
def registry(registry_engine):
    """The sample registry only (conftest.py): entities and facts, no documents."""
    return registry_engine.kb.registry


def turn(role: str, content: str) -> DialogueTurn:
    return DialogueTurn(role=role, content=content, timestamp="2026-11-27T10:00:00+00:00")


JOHN = ResolvedEntity("John", (21, 25), "person:john-smith", "John Smith", "person", 0.9)
YESTERDAY = ResolvedEntity("yesterday", (39, 48), None, "2026-11-26", "date", 0.95, {"date": "2026-11-26"})


def context_for(turns=(), resolved=(), salience=None, registry=None, **kwargs):
    return build_context(
        list(turns), list(resolved), salience or {}, registry,
        kwargs.pop("topic", {}), kwargs.pop("preferences", {}), kwargs.pop("instructions", ""), **kwargs,
    )


def test_last_turns_verbatim_and_older_ones_summarised_within_half_the_history_budget():
    older = [
        turn("user", "Thanks!"),
        turn("assistant", "You're welcome."),
        turn("user", "The Atlas migration deadline is 2027-01-15 and Emma Johansson leads it. Ok."),
        turn("assistant", "Noted: Atlas is due on 2027-01-15, led by Emma Johansson, with a budget of $350K."),
    ] * 6
    recent = [turn("user", "What about Helios?"), turn("assistant", "Helios launched on Nov 17.")]
    context = context_for(older + recent, recent_n=2, history_budget_tokens=120)

    assert [t.content for t in context.recent_turns] == [t.content for t in recent]
    assert 0 < count_tokens(context.summary) <= 60
    # The informative sentences survive; the pleasantries do not.
    assert "2027-01-15" in context.summary
    assert "Thanks!" not in context.summary and "You're welcome." not in context.summary


def test_no_summary_when_everything_is_recent():
    turns = [turn("user", "Hello there."), turn("assistant", "Hi, how can I help?")]
    context = context_for(turns, recent_n=4)
    assert context.summary == ""
    assert len(context.recent_turns) == 2


def test_turns_as_plain_dicts_are_accepted():
    context = context_for([{"role": "user", "content": "Who owns Atlas?", "timestamp": ""}], recent_n=4)
    assert context.recent_turns[0].content == "Who owns Atlas?"
    assert context.recent_turns[0].role == "user"


def test_resolved_entity_line_reads_like_a_directory_entry(registry):
    context = context_for(resolved=[JOHN], registry=registry)
    assert context.entity_context[0] == "John Smith (person): Engineering Manager, Engineering, john.smith@company.com"


def test_references_to_other_entities_are_shown_by_name(registry):
    atlas = ResolvedEntity("Atlas", (0, 5), "project:atlas", "Project Atlas", "project", 0.8)
    line = context_for(resolved=[atlas], registry=registry).entity_context[0]
    assert line.startswith("Project Atlas (project): ")
    assert "John Smith" in line and "person:john-smith" not in line


def test_resolved_entities_come_first_then_salient_ones_by_weight(registry):
    salience = {"person:sarah-chen": 0.9, "project:atlas": 0.5, "person:lisa-wong": 0.05, "person:john-smith": 1.0}
    lines = context_for(resolved=[JOHN], salience=salience, registry=registry).entity_context
    assert lines[0].startswith("John Smith (person)")  # resolved, and listed once
    assert [line.split(" (")[0] for line in lines[1:]] == ["Sarah Chen", "Project Atlas"]
    assert not any(line.startswith("Lisa Wong") for line in lines)  # background noise stays out


def test_entity_context_is_cut_to_its_budget(registry):
    salience = {e.id: 0.9 for e in registry.all_entities()}
    lines = context_for(salience=salience, registry=registry, entity_budget_tokens=60).entity_context
    assert 0 < len(lines) < len(salience)
    assert sum(count_tokens(line) + 1 for line in lines) <= 60


def test_dates_are_described_with_their_resolved_value():
    lines = context_for(resolved=[YESTERDAY]).entity_context
    assert lines == ["yesterday (date): 2026-11-26"]


def test_entities_as_stage_two_resolves_them(registry):
    resolved = [
        ResolvedEntity("John", (0, 4), "person:john-smith", "John Smith", "PERSON", 0.53),
        ResolvedEntity("last week", (9, 18), "date:2026-11-16..2026-11-22", "2026-11-16..2026-11-22", "DATE", 0.9,
                       {"start": "2026-11-16", "end": "2026-11-22"}),
        ResolvedEntity("the email", (20, 29), "doc:abc", "Q4 Budget Review Meeting", "DOCUMENT", 0.8,
                       {"document_id": "abc", "source": "/kb/emails/q4.eml", "title": "Q4 Budget Review Meeting",
                        "date": "2026-11-26T09:14:00-08:00"}),
    ]
    lines = context_for(resolved=resolved, registry=registry).entity_context
    assert lines == [
        "last week (date): 2026-11-16 to 2026-11-22",
        "Q4 Budget Review Meeting (document): 2026-11-26T09:14:00-08:00, /kb/emails/q4.eml",
        "John Smith (person): Engineering Manager, Engineering, john.smith@company.com",
    ]


def test_entities_without_a_registry_are_described_from_their_attributes():
    john = ResolvedEntity("John", (0, 4), "person:john-smith", "John Smith", "person", 0.9,
                          {"role": "Engineering Manager", "department": "Engineering", "email": "john.smith@company.com"})
    assert context_for(resolved=[john]).entity_context == [
        "John Smith (person): Engineering Manager, Engineering, john.smith@company.com"
    ]


def test_topic_keeps_ten_keywords_and_preferences_and_instructions_pass_through():
    topic = {"label": "Q4 budget", "keywords": [f"k{i}" for i in range(15)]}
    context = context_for(topic=topic, preferences={"tone": "concise"}, instructions="  Answer in French.  ")
    assert context.topic == {"label": "Q4 budget", "keywords": [f"k{i}" for i in range(10)]}
    assert context.preferences == {"tone": "concise"}
    assert context.system_instructions == "Answer in French."


def test_empty_everything_gives_an_empty_context():
    context = build_context([], [], {}, None, None, None, "")
    assert context.recent_turns == [] and context.summary == "" and context.entity_context == []
    assert context.topic == {"label": "", "keywords": []}
