"""Hostile text through the input path (hypothesis): nothing raises, spans stay inside the text, and
what reaches a terminal after terminal_text.clean drives nothing.

The text is drawn from what arrives in practice: words and names people type, bytes that were not
UTF-8 (Python keeps them as lone surrogates, U+DC80–U+DCFF, under surrogateescape), C0 and C1
controls, whole and broken escape sequences (CSI, OSC 52 clipboard writes, OSC 8 links), right-to-
left marks and overrides, zero-width characters, combining marks, emoji and very long words. Each
is run through correction (live and full), ChatEngine.preprocess, the checking of an answer, and
the terminal sanitiser."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatapp  # noqa: F401 - offline environment first
from chatapp.preprocess.correction.pipeline import LIVE_TIERS, TIERS, CorrectionPipeline
from chatapp.surrogates import repair_surrogates
from chatapp.terminal_text import StreamCleaner, clean

WORDS = ["can", "u", "hlep", "me", "find", "teh", "emial", "from", "john", "sarah", "chen", "atlas", "project",
         "budget", "q4", "yesterdya", "who", "leads", "it", "?", ".", ",", "INV-2093", "john@company.com",
         "https://example.com/a?b=1", "`code`", "@handle", "$1,200", "3pm", "12 May 2027"]
HOSTILE = [
    "\x1b[2J", "\x1b[31m", "\x1b]52;c;aGVsbG8=\x07", "\x1b]8;;https://evil.example\x1b\\", "\x1b]8;;\x1b\\",
    "\x1b", "\x1b[", "\x1b]0;title", "\x9b1m", "\x9d8;;x\x9c", "\x90q\x9c", "\x07", "\x08", "\r", "\x00", "\x7f",
    "\x85", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u200f", "\u202e", "\u202a", "\u2066",
    "\u2069", "\u061c", "e\u0301", "\u0301", "😀", "👍🏽", "\ud83d", "\ude00", "שלום", "مرحبا", "\u00a0", "\t", "\n",
]
SEPARATORS = [" ", " ", " ", "", "\n", ", ", ". "]

# Bytes that were not UTF-8, as a command-line argument or a file name arrives decoded with surrogateescape.
undecodable = st.binary(min_size=1, max_size=12).map(lambda b: b.decode("utf-8", "surrogateescape"))
long_word = st.integers(min_value=60, max_value=3000).flatmap(
    lambda n: st.sampled_from(["a", "teh", "x\u200b", "é", "😀"]).map(lambda unit: (unit * n)[:n]))
piece = st.one_of(st.sampled_from(WORDS), st.sampled_from(HOSTILE), undecodable, long_word,
                  st.text(max_size=12))
hostile_text = st.lists(st.tuples(piece, st.sampled_from(SEPARATORS)), min_size=1, max_size=30).map(
    lambda pairs: "".join(p + s for p, s in pairs))

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
SLOW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
BIDI_CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def assert_printable(text: str) -> None:
    """Nothing in `text` drives a terminal: no control character but newline and tab, no lone
    surrogate, no bidi override or isolate; and it encodes as UTF-8 (a terminal can be sent it)."""
    text.encode("utf-8")
    for char in text:
        category = unicodedata.category(char)
        assert char in "\n\t" or category not in ("Cc", "Cs"), repr(char)
        assert char not in BIDI_CONTROLS, repr(char)


def assert_within(span: tuple[int, int], *texts: str) -> None:
    start, end = span
    assert 0 <= start <= end <= max(len(t) for t in texts), (span, [len(t) for t in texts])


@pytest.fixture(scope="module")
def pipeline(registry_engine):
    return CorrectionPipeline(registry_engine.kb.registry)


@FAST
@given(text=hostile_text)
def test_the_sanitiser_leaves_nothing_that_drives_a_terminal(text):
    cleaned = clean(text)
    assert_printable(cleaned)
    assert clean(cleaned) == cleaned  # cleaning twice changes nothing: no sequence is left to form


@FAST
@given(text=hostile_text, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=6))
def test_a_stream_in_any_pieces_is_shown_as_printable_text(text, cuts):
    cleaner = StreamCleaner()
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    shown = [cleaner.feed(text[a:b]) for a, b in zip(bounds, bounds[1:])] + [cleaner.flush()]
    for part in shown:
        assert_printable(part)


@FAST
@given(text=hostile_text, live=st.booleans())
def test_correction_of_hostile_text_keeps_spans_inside_it(pipeline, text, live):
    result, markers = pipeline.correct(text, "aggressive", LIVE_TIERS if live else TIERS)
    text = repair_surrogates(text)  # a lone half is U+FFFD from the start: it cannot be encoded
    assert result.original_input == text
    for record in [*result.corrections, *result.suggestions]:
        assert_within(record.span, text)
        assert text[record.span[0]:record.span[1]] == record.original
    for marker in markers:
        assert_within(marker["span"], text)
    assert_printable(clean(result.corrected_input))


@SLOW
@given(text=hostile_text)
def test_preprocess_of_hostile_text_keeps_spans_inside_it(sample_engine, text):
    if not text.strip():
        return  # refused as empty input, which test_cli_app covers
    pre = sample_engine.preprocess(text)
    for record in [*pre.corrections, *pre.suggestions]:
        assert_within(record.span, pre.original_input)
    for entity in pre.resolved_entities:
        assert_within(entity.span, pre.original_input, pre.corrected_input)
    for message in pre.prompt.messages:
        assert_printable(clean(message["content"]))
    assert_printable(clean(pre.corrected_input))


@SLOW
@given(answer=hostile_text, question=hostile_text)
def test_checking_a_hostile_answer_keeps_flags_inside_it(sample_engine, answer, question):
    result = sample_engine.postprocess(answer, question=question)
    answer = repair_surrogates(answer)
    assert result.original == answer
    for flag in result.hallucination_flags:
        assert_within(flag.span, answer)
        assert_printable(clean(flag.content))
    assert_printable(clean(result.delivered))
