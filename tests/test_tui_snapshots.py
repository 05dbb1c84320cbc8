"""Pictures of the chat screen at 80×24 and 200×60 in both themes (pytest-textual-snapshot), compared with the
SVGs under tests/__snapshots__/; `pytest --snapshot-update` redraws them after a deliberate change.
Skipped where the plugin is not installed (it is in the dev extra)."""

from __future__ import annotations

import dataclasses

import pytest

from chatapp.engine import ChatEngine
from chatapp.tui.app import ChatApp
from tests.conftest import SAMPLE_KB
from tests.test_tui import settle

pytest.importorskip("pytest_textual_snapshot")


@pytest.fixture()
def registry_only_engine(tmp_path):
    """People and facts but no documents: nothing on screen depends on the clock or on scores."""
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    engine.ingest(SAMPLE_KB / "entities.jsonl", SAMPLE_KB / "facts.jsonl")
    yield engine
    engine.close()


async def typed_and_settled(pilot) -> None:
    prompt = pilot.app.query_one("#prompt")
    prompt.cursor_blink = False  # a blinking cursor would be caught on or off by chance
    prompt.value = "can u hlep me find the emial from john"
    await settle(pilot)
    # The side panel previews the draft once typing pauses: pictured once it shows, not by chance.
    for _ in range(600):
        if pilot.app.draft_preview.showing_preview:
            break
        await pilot.pause(0.05)
    await settle(pilot)


@pytest.mark.parametrize("theme", ["chatapp-dark", "chatapp-light"])
@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_the_chat_screen_with_a_typed_message(snap_compare, registry_only_engine, size, theme):
    # The theme as a user's config names it (set here, not saved: the data dir is the test's own).
    registry_only_engine.settings = dataclasses.replace(registry_only_engine.settings, theme=theme)
    assert snap_compare(ChatApp(registry_only_engine), terminal_size=size, run_before=typed_and_settled)
