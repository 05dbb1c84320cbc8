"""The side panel's preview of the next turn while a message is typed, and the note under a long
paste (Textual's Pilot, the real engine and its SQLite file)."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Static

from chatapp.input_limits import READ_CHARS
from chatapp.tui.app import ChatApp
from chatapp.tui.prompt_input import PromptInput
from chatapp.tui.widgets import BudgetPanel, EntityPanel, UserMessage
from tests.test_tui import settle, tui_engine  # noqa: F401 - the fixture
from tests.test_tui_chat import stored_turns, wait_until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
SIZE = (140, 40)


def title(app, which: str) -> str:
    return str(app.query_one(f"#{which}-title", Static).render())


def test_the_draft_shows_its_entities_and_budget_before_it_is_sent_and_stores_nothing(tui_engine, tmp_path):
    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert title(app, "entities") == "Entities"
            assert "none yet" in str(app.query_one(EntityPanel).render())
            app.query_one("#prompt", PromptInput).value = "who leads project atlas"
            await wait_until(pilot, lambda: title(app, "entities") == "Entities (next turn)", timeout=60)
            await settle(pilot)
            assert "Project Atlas" in str(app.query_one(EntityPanel).render())
            # Said three times, listed once and counted.
            app.query_one("#prompt", PromptInput).value = ("who leads project atlas? is project atlas late? "
                                                           "what does project atlas cost?")
            await wait_until(pilot, lambda: "×3" in str(app.query_one(EntityPanel).render()), timeout=60)
            lines = str(app.query_one(EntityPanel).render()).splitlines()
            assert len([line for line in lines if line.casefold().startswith("project atlas →")]) == 1
            assert title(app, "budget") == "Token budget (next turn)"
            assert "no prompt yet" not in str(app.query_one(BudgetPanel).render())
            assert stored_turns(tmp_path / "data") == []  # nothing sent, nothing kept

            app.query_one("#prompt", PromptInput).value = ""
            await pilot.pause()
            assert title(app, "entities") == "Entities"
            assert "none yet" in str(app.query_one(EntityPanel).render())
            assert "no prompt yet" in str(app.query_one(BudgetPanel).render())

            # A command is not a question: no preview of it.
            app.query_one("#prompt", PromptInput).value = "/level off"
            await pilot.pause(0.6)
            await settle(pilot)
            assert title(app, "entities") == "Entities"

    asyncio.run(scenario())


def test_the_sent_turn_replaces_the_preview_and_a_draft_in_a_session_is_not_stored(tui_engine, tmp_path):
    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            prompt = app.query_one("#prompt", PromptInput)
            prompt.value = "who leads project atlas"
            await wait_until(pilot, lambda: title(app, "entities") == "Entities (next turn)", timeout=60)
            await pilot.press("enter")
            await settle(pilot)
            assert title(app, "entities") == "Entities"
            assert "Project Atlas" in str(app.query_one(EntityPanel).render())
            # Said three times, listed once and counted.
            app.query_one("#prompt", PromptInput).value = ("who leads project atlas? is project atlas late? "
                                                           "what does project atlas cost?")
            await wait_until(pilot, lambda: "×3" in str(app.query_one(EntityPanel).render()), timeout=60)
            lines = str(app.query_one(EntityPanel).render()).splitlines()
            assert len([line for line in lines if line.casefold().startswith("project atlas →")]) == 1
            # Clearing the (now empty) box again keeps what the turn used.
            prompt.value = "x"
            prompt.value = ""
            await pilot.pause()
            assert "Project Atlas" in str(app.query_one(EntityPanel).render())
            # Said three times, listed once and counted.
            app.query_one("#prompt", PromptInput).value = ("who leads project atlas? is project atlas late? "
                                                           "what does project atlas cost?")
            await wait_until(pilot, lambda: "×3" in str(app.query_one(EntityPanel).render()), timeout=60)
            lines = str(app.query_one(EntityPanel).render()).splitlines()
            assert len([line for line in lines if line.casefold().startswith("project atlas →")]) == 1

            # Now in a session (whose dialogue state the preview reads): the draft still adds no turn.
            stored = stored_turns(tmp_path / "data")
            assert [turn["role"] for turn in stored] == ["user", "assistant"]
            prompt.value = "what is his email"
            await wait_until(pilot, lambda: title(app, "entities") == "Entities (next turn)", timeout=60)
            await settle(pilot)
            assert stored_turns(tmp_path / "data") == stored

    asyncio.run(scenario())


def test_a_long_paste_says_only_its_opening_was_read(tui_engine):
    long_message = ("the quarterly numbers look fine " * 400)[:12_000]
    assert len(long_message) > READ_CHARS

    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.query_one("#prompt", PromptInput).value = long_message
            await pilot.press("enter")
            await settle(pilot)
            shown = str(app.query_one(UserMessage).render())
            assert "Your message is 12,000 characters: the first 9,99" in shown
            assert "the rest is kept as typed" in shown
            app.query_one("#prompt", PromptInput).value = "a short one"
            await pilot.press("enter")
            await settle(pilot)
            assert "characters: the first" not in str(app.query(UserMessage).last().render())

    asyncio.run(scenario())
