"""The chat screen driven as a person would, through Textual's Pilot."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Input, Static

from chatapp.engine import ChatEngine
from chatapp.tui.app import ChatApp
from chatapp.tui.widgets import AssistantMessage, CorrectionDiff, UserMessage
from tests.conftest import SAMPLE_KB


@pytest.fixture()
def tui_engine(tmp_path):
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    engine.ingest(SAMPLE_KB / "entities.jsonl", SAMPLE_KB / "facts.jsonl",
                  SAMPLE_KB / "emails" / "2026-11-26-q4-budget-review.eml")
    yield engine
    engine.close()


async def _wait_for(pilot, condition, seconds: float = 60.0) -> None:
    for _ in range(int(seconds / 0.1)):
        if condition():
            return
        await pilot.pause(0.1)
    raise AssertionError("the screen never showed what was expected")


def test_typing_shows_the_diff_and_an_answer_streams_in(tui_engine):
    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=(140, 40)) as pilot:
            prompt = app.query_one("#prompt", Input)
            prompt.value = "can u hlep me find the emial from john"
            diff = app.query_one(CorrectionDiff)
            await _wait_for(pilot, lambda: "help" in str(diff.render()))
            await pilot.press("enter")
            await _wait_for(pilot, lambda: app.query(AssistantMessage) and not app.busy)
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
            app.query_one("#prompt", Input).value = "   "
            await pilot.press("enter")
            await pilot.pause(0.2)
            assert not app.query(UserMessage)
            assert any("empty" in str(n.message) for n in app._notifications)

    asyncio.run(scenario())
