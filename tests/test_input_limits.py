"""A pasted megabyte: read closely in its opening (input_limits.READ_CHARS), kept whole, with a note.

Every path that takes the user's text is driven with one: a whole turn with the offline model, the
live correction run on every keystroke, a search, a check whose question and evidence are pastes,
and the CLI commands (whose arguments the OS caps near 128 KiB, so those use 100,000 characters)."""

from __future__ import annotations

import json
import random

import pytest

import chatapp  # noqa: F401 - offline environment first
from chatapp.input_limits import READ_CHARS, read_part, remembered_part, unread_note
from chatapp.engine import ChatEngine
from tests.conftest import run_cli

WORDS = ("the budget review for project atlas was moved to next week by sarah chen and john smith "
         "because teh vendor invoice had not arrived").split()


def paste(size: int, seed: int = 7) -> str:
    """`size` characters of plausible prose, with a distinct ending to find later."""
    rng = random.Random(seed)
    ending = " THE-VERY-END-OF-THE-PASTE"
    words, length = [], 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[: size - len(ending)] + ending


MEGABYTE = paste(1_000_000)


def test_read_part_ends_on_a_word_and_never_splits_a_character():
    head = read_part(MEGABYTE)
    assert len(head) <= READ_CHARS and MEGABYTE.startswith(head) and MEGABYTE[len(head)] == " "
    no_space = "x" * (READ_CHARS - 1) + "😀" * 3  # no space near the limit: cut at it
    assert read_part(no_space) == "x" * (READ_CHARS - 1) + "😀"
    surrogate_half = "y" * (READ_CHARS - 1) + "\ud83d\ude00"  # two halves, as a stream can deliver them
    assert read_part(surrogate_half) == "y" * (READ_CHARS - 1)
    assert read_part("short") == "short" and unread_note("short") == ""
    assert remembered_part(MEGABYTE).endswith(" […]") and remembered_part("short") == "short"


def test_a_megabyte_turn_is_read_in_its_opening_stored_whole_and_says_so(sample_engine):
    result = sample_engine.ask(MEGABYTE, session="megabyte-paste", model="offline")
    assert result.status == "complete" and result.response is not None
    pre = result.preprocessed
    assert pre.notes == [unread_note(MEGABYTE)]
    assert "1,000,000 characters" in pre.notes[0] and "the rest is kept as typed" in pre.notes[0]
    # Corrected in its opening ("teh" fixed there), the rest passed on exactly as typed.
    assert all(c.span[1] <= READ_CHARS for c in pre.corrections) and pre.corrections
    assert pre.corrected_input.endswith(MEGABYTE[READ_CHARS:])
    assert all(e.span[1] <= READ_CHARS for e in pre.resolved_entities)

    session = sample_engine.sessions.get("megabyte-paste")
    stored = sample_engine.sessions.turns(session)
    assert stored[0]["content"] == MEGABYTE  # nothing lost
    # The conversation's memory, re-read and re-written every turn, holds the opening only.
    memory = session.meta["dialogue_state"]["turns"][0]["content"]
    assert len(memory) <= READ_CHARS + 4 and memory.endswith("[…]")
    follow_up = sample_engine.ask("who leads it?", session="megabyte-paste", model="offline")
    assert follow_up.status == "complete"


def test_the_live_correction_of_a_megabyte_reads_its_opening_and_returns_it_all(sample_engine):
    live = sample_engine.live_correct(MEGABYTE)
    assert live.corrected_input.endswith(MEGABYTE[READ_CHARS:]) and len(live.corrected_input) > 990_000
    assert live.corrections and all(c.span[1] <= READ_CHARS for c in live.corrections)


def test_a_megabyte_search_query_and_check_question_are_read_in_their_opening(sample_engine):
    assert sample_engine.search(MEGABYTE)  # found by its opening
    checked = sample_engine.postprocess("Sarah Chen moved the budget review.", question=MEGABYTE,
                                        evidence=[MEGABYTE])
    assert checked.delivered.startswith("Sarah Chen moved the budget review.")


def test_cli_commands_note_a_long_paste_on_stderr_and_keep_json_whole(tmp_path):
    text = paste(100_000)
    pre = run_cli("preprocess", text, "--json", data_dir=tmp_path)
    assert pre.returncode == 0, pre.stderr
    payload = json.loads(pre.stdout)
    assert payload["original_input"] == text and payload["notes"] == [unread_note(text)]

    ask = run_cli("ask", text, "--model", "offline", "--session", "paste", data_dir=tmp_path)
    assert ask.returncode == 0, ask.stderr
    assert "Your message is 100,000 characters" in ask.stderr and "Traceback" not in ask.stderr

    search = run_cli("kb", "search", text, "--json", data_dir=tmp_path)
    assert search.returncode == 0 and "The query is 100,000 characters" in search.stderr
    assert json.loads(search.stdout)["results"] == []  # an empty knowledge base: nothing, and no error

    evidence = tmp_path / "evidence.txt"
    evidence.write_text(paste(1_000_000, seed=3) + "\nSarah Chen leads Project Atlas.\n")
    check = run_cli("check", "--response", "Sarah Chen leads Project Atlas.", "--question", text,
                    "--evidence", str(evidence), "--json", data_dir=tmp_path)
    assert check.returncode == 0, check.stderr
    assert "The question is 100,000 characters" in check.stderr
    # The whole evidence file is read: the one line that supports the answer is its last.
    assert json.loads(check.stdout)["response"]["hallucination_flags"] == []

    export = run_cli("export", "paste", "--format", "json", data_dir=tmp_path)
    assert export.returncode == 0 and json.loads(export.stdout)["turns"][0]["content"] == text


@pytest.mark.parametrize("size", [READ_CHARS - 1, READ_CHARS, READ_CHARS + 1])
def test_at_the_limit_nothing_is_lost_or_doubled(registry_engine, size):
    sentence = "Sarah Chen reviewed the budget for Project Atlas on Monday. "
    text = (sentence * (size // len(sentence) + 1))[: size - 1] + "."  # clean text: nothing to correct
    pre = registry_engine.preprocess(text)
    assert pre.corrected_input == text and bool(pre.notes) == (size > READ_CHARS)
