"""The chat screen driven as a person would, through Textual's Pilot."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Static
from textual.worker import WorkerState

from chatapp.engine import ChatEngine
from chatapp.tui.app import ChatApp
from chatapp.tui.prompt_input import PromptInput
from chatapp.tui.widgets import AssistantMessage, CorrectionDiff, UserMessage
from tests.conftest import SAMPLE_KB


@pytest.fixture()
def tui_engine(tmp_path):
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    engine.ingest(SAMPLE_KB / "entities.jsonl", SAMPLE_KB / "facts.jsonl",
                  SAMPLE_KB / "emails" / "2026-11-26-q4-budget-review.eml")
    yield engine
    engine.close()


# Work starts more work (a submitted line starts a turn, whose answer may start
# nothing further): settling takes a round or two, never this many.
SETTLE_ROUNDS = 10


async def settle(pilot) -> None:
    """Let the app handle every queued message, then wait for the work that
    started (corrections, the turn, history, ingest) until none is left."""
    for _ in range(SETTLE_ROUNDS):
        await pilot.pause()
        working = [w for w in pilot.app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        if not working:
            await pilot.pause()
            return
        # A superseded correction is cancelled rather than finished: that counts as done here.
        await asyncio.gather(*(worker.wait() for worker in working), return_exceptions=True)
    raise AssertionError("the app never stopped starting new work")


def test_typing_shows_the_diff_and_an_answer_streams_in(tui_engine):
    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=(140, 40)) as pilot:
            prompt = app.query_one("#prompt", PromptInput)
            prompt.value = "can u hlep me find the emial from john"
            await settle(pilot)
            assert "help" in str(app.query_one(CorrectionDiff).render())
            await pilot.press("enter")
            await settle(pilot)
            assert not app.busy
            user = app.query_one(UserMessage)
            assert "Can you help me find the email from John" in str(user.render())
            answer = app.query_one(AssistantMessage)
            assert answer.status == "complete" and "offline" in answer.text.lower()
            assert app.session_name is not None

            await pilot.press("ctrl+l")
            assert str(app.query_one("#level", Static).render()) == "aggressive"
            prompt.value = "/level off"
            await pilot.press("enter")
            assert app.level == "off"

    asyncio.run(scenario())


def test_empty_input_is_refused_with_a_message(tui_engine):
    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test() as pilot:
            app.query_one("#prompt", PromptInput).value = "   "
            await pilot.press("enter")
            await settle(pilot)
            assert not app.query(UserMessage)
            assert list(app.notices) == ["Nothing to send: the input is empty."]

    asyncio.run(scenario())


def ingest_in_chat(engine, path) -> list[str]:
    """Type `/ingest PATH` in the chat; the notices the app showed."""
    async def scenario():
        app = ChatApp(engine)
        async with app.run_test() as pilot:
            app.query_one("#prompt", PromptInput).value = f"/ingest {path}"
            await pilot.press("enter")
            await settle(pilot)
            return list(app.notices)

    return asyncio.run(scenario())


def test_ingesting_a_missing_folder_says_why(tui_engine, tmp_path):
    notices = ingest_in_chat(tui_engine, tmp_path / "no-such-folder")
    assert notices[-2] == f"Ingesting {tmp_path / 'no-such-folder'} …"
    assert "0 files" in notices[-1] and "1 failed" in notices[-1]
    assert "no such file or directory" in notices[-1]


def test_ingesting_your_own_folder_into_the_sample_says_the_sample_made_way(tui_engine, tmp_path):
    own = tmp_path / "own"
    own.mkdir()
    (own / "rota.md").write_text("# Rota\n\nThe wormery is turned every Sunday by Ilse Marwick.\n", encoding="utf-8")

    notices = ingest_in_chat(tui_engine, own)
    assert "Ingested 1 files" in notices[-2]
    assert "Removed the sample knowledge base" in notices[-1]
    assert tui_engine.kb.registry.counts() == {"entities": 0, "facts": 0}
