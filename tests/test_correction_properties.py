"""Properties of correction that must hold for any input (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatapp  # noqa: F401  (offline environment first)
from chatapp.preprocess.correction.levels import LEVELS
from chatapp.preprocess.correction.pipeline import LIVE_TIERS, TIERS, CorrectionPipeline
from chatapp.preprocess.correction.tokens import tokenize

# Words that exercise every rule: typos, chat-speak, names, slips, questions.
WORDS = [
    "can", "u", "hlep", "me", "find", "the", "emial", "from", "john", "johns", "yesterdya", "i", "im",
    "a", "an", "email", "hour", "user", "could", "of", "alot", "then", "more", "their", "is", "what",
    "sarah", "okafor", "atlas", "project", "northwind", "analytics", "jon", "smth", "people", "office",
    "monday", "last", "week", "did", "e.g.", "i.e.", "Okafor", "Atlas", "NASA", "teh", "recieve",
]
PROTECTED = [
    "https://example.com/teh?q=1", "john.smith@company.com", "INV-20931", "`teh code`", "./src/teh.py",
    "@jsmith", "#teh", "42", "3.5%", "C:\\temp\\teh.txt",
]
SEPARATORS = [" ", " ", " ", "  ", ", ", ". ", "? ", "\n", "\n\n", "! ", " - ", "'s "]
LEVEL_VALUES = [LEVELS["minimal"], LEVELS["standard"], LEVELS["aggressive"], 1.0]

chat_text = st.lists(
    st.tuples(st.sampled_from(WORDS + PROTECTED + ["😀", "שלום", "e\u0301", "\x00"]), st.sampled_from(SEPARATORS)),
    min_size=1,
    max_size=25,
).map(lambda pairs: "".join(word + sep for word, sep in pairs).strip(" "))
any_text = st.one_of(chat_text, st.text(max_size=200))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def pipeline(registry_engine):
    return CorrectionPipeline(registry_engine.kb.registry)


@SETTINGS
@given(text=any_text, level=st.sampled_from(LEVEL_VALUES), live=st.booleans())
def test_every_span_maps_to_the_original(pipeline, text, level, live):
    result, markers = pipeline.correct(text, level, LIVE_TIERS if live else TIERS)
    assert result.original_input == text
    for record in result.corrections + result.suggestions:
        start, end = record.span
        assert 0 <= start <= end <= len(text)
        assert text[start:end] == record.original
    for marker in markers:
        start, end = marker["span"]
        assert text[start:end] == marker["original"]


@SETTINGS
@given(text=any_text, level=st.sampled_from(LEVEL_VALUES))
def test_protected_tokens_come_through_unchanged(pipeline, text, level):
    result, _ = pipeline.correct(text, level)
    protected = [t for t in tokenize(text).tokens if t.protected]
    position = 0
    for token in protected:  # each one, in order, exactly as typed
        found = result.corrected_input.find(token.original, position)
        assert found >= 0, (token.original, result.corrected_input)
        position = found + len(token.original)
    for record in result.corrections:
        assert not any(t.start < record.span[1] and record.span[0] < t.end for t in protected), record


@SETTINGS
@given(text=any_text, level=st.sampled_from(LEVEL_VALUES), live=st.booleans())
def test_correcting_twice_changes_nothing_more(pipeline, text, level, live):
    tiers = LIVE_TIERS if live else TIERS
    once = pipeline.correct(text, level, tiers)[0].corrected_input
    twice = pipeline.correct(once, level, tiers)[0]
    assert twice.corrected_input == once, twice.corrections


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(), level=st.floats(min_value=0.0, max_value=1.0))
def test_no_crash_on_arbitrary_text(pipeline, text, level):
    result, markers = pipeline.correct(text, level)
    assert isinstance(result.corrected_input, str) and isinstance(markers, list)
    if not text.strip():
        assert result.corrected_input == text
