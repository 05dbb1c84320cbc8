"""The chat started as `chatapp chat` starts it, from settings: it paints before the data dir is
open, a message sent meanwhile waits for it (said on screen) and is answered, nothing lost, and a
data dir that cannot be used ends the chat with that problem for the one-line error."""

from __future__ import annotations

import asyncio
import threading

import pytest

from chatapp.config import load_settings
from chatapp.engine import ChatEngine
from chatapp.storage.problems import StorageError
from chatapp.tui.app import ChatApp
from chatapp.tui.prompt_input import PromptInput
from chatapp.tui.widgets import CorrectionDiff, UserMessage
from tests.openai_server import Scripted
from tests.test_tui import settle

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def offline_settings(data_dir):
    return load_settings(data_dir, overrides={"model": "offline", "load_sample_kb": False})


class SlowToOpenChat(ChatApp):
    """The chat on a data dir that takes a while to open (a slow disk, a busy machine): the real
    opening, started when the test says, so what happens before it is certain to be before it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.may_open = threading.Event()

    def _open_engine(self) -> bool:
        self.may_open.wait(60)
        return super()._open_engine()


def test_a_message_sent_as_the_chat_starts_waits_for_the_data_dir_and_is_answered(tmp_path):
    data_dir = tmp_path / "data"
    ChatEngine.open(data_dir, load_sample_kb=False).close()

    async def scenario():
        app = SlowToOpenChat(settings=offline_settings(data_dir), session_key="later")
        async with app.run_test(size=(120, 30)) as pilot:
            # At once, as a person pasting a question the moment the screen appears.
            assert app.engine is None
            app.query_one("#prompt", PromptInput).value = "Who leads Project Atlas?"
            await pilot.press("enter")
            await pilot.pause()
            assert any("sent as soon as it is open" in notice for notice in app.notices)
            app.may_open.set()
            await settle(pilot)
            assert app.engine is not None and not app.busy
            assert app.query("UserMessage") and app.query("AssistantMessage")
            assert app.sub_title == "session later"
        app.engine.close()

    asyncio.run(scenario())
    with ChatEngine.open(data_dir, load_sample_kb=False) as engine:
        turns = engine.sessions.turns(engine.sessions.find("later"))
        assert [row["role"] for row in turns] == ["user", "assistant"]
        assert turns[0]["content"] == "Who leads Project Atlas?"


def test_a_draft_typed_as_the_chat_starts_gets_its_correction_diff_and_then_its_preview(tmp_path):
    data_dir = tmp_path / "data"
    ChatEngine.open(data_dir, load_sample_kb=False).close()

    async def scenario():
        app = SlowToOpenChat(settings=offline_settings(data_dir))
        async with app.run_test(size=(120, 30)) as pilot:
            typed_before_open = app.engine is None
            app.query_one("#prompt", PromptInput).value = "can u hlep me"
            await pilot.pause()
            app.may_open.set()
            for _ in range(600):
                if app.draft_preview.showing_preview:
                    break
                await pilot.pause(0.05)
            shown = typed_before_open, str(app.query_one(CorrectionDiff).render()), app.draft_preview.showing_preview
        app.engine.close()
        return shown

    typed_before_open, diff, previewed = asyncio.run(scenario())
    assert typed_before_open, "the engine was open before the first frame"
    assert "help" in diff  # the correction offered
    assert previewed  # and the draft's entities and budget, after it


def test_a_data_dir_that_cannot_be_used_ends_the_chat_with_its_problem(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")

    async def scenario():
        app = ChatApp(settings=offline_settings(blocker / "data"))
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(100):
                if app.startup_error is not None:
                    break
                await pilot.pause(0.05)
        return app

    app = asyncio.run(scenario())
    assert isinstance(app.startup_error, StorageError) and app.return_code == 1
    assert str(blocker) in str(app.startup_error) and "\n" not in str(app.startup_error)


def test_the_knowledge_progress_counts_the_files_and_chunks_read_so_far(tmp_path):
    """The side panel's progress line as a real ingest reports it: files and chunks grow file by file
    (chunks are written in batches: the count is of chunks read, not only of those written yet)."""
    from textual.app import App

    from chatapp.tui.startup import KnowledgeStatus

    folder = tmp_path / "notes"
    folder.mkdir()
    for n, topic in enumerate(["compost bays", "seed swap", "rainwater butts"]):
        (folder / f"note-{n}.txt").write_text(f"Notes on the {topic}\n\n" + f"The {topic} were checked on day {n}. " * 40)
    events = []
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        report = engine.ingest(folder, on_event=lambda event, **data: events.append((event, data)))
    assert report.files_ingested == 3 and report.chunks_added >= 3

    class Panel(App):
        def compose(self):
            yield KnowledgeStatus()

    async def scenario():
        lines = []
        async with Panel().run_test() as pilot:
            status = pilot.app.query_one(KnowledgeStatus)
            for event, data in events:
                if event == "done":
                    break
                status.ingest_event(event, data)
                if event == "progress":
                    lines.append(str(status.query_one("#kb-text").render()).splitlines()[0])
        return lines

    lines = asyncio.run(scenario())
    counts = [int(line.split("· ")[1].split()[0]) for line in lines]
    assert [line.split(" files")[0] for line in lines] == ["loading: 1/3", "loading: 2/3", "loading: 3/3"]
    assert counts[0] > 0 and counts == sorted(counts) and counts[-1] == report.chunks_added


def test_with_the_side_panel_hidden_the_status_bar_says_how_far_the_knowledge_has_loaded(tmp_path):
    from filelock import FileLock

    from chatapp.tui.status_bar import StatusBar
    from tests.test_tui_chat import send, wait_until

    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(3):
        (folder / f"note-{n}.txt").write_text(f"Note {n}\n\nThe shed key is on hook {n}.\n")
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    # Another writer holds the knowledge base: the ingest has started and waits, so its progress stays on screen.
    other_writer = FileLock(str(engine.settings.write_lock_path))
    other_writer.acquire()

    async def scenario():
        app = ChatApp(engine)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert not app.query_one("#sidebar").display  # 80 columns: the panel is hidden
            bar = app.query_one(StatusBar)
            await send(pilot, f"/ingest {folder}")
            await wait_until(pilot, lambda: "loading: 0/3 files · 0 chunks" in str(bar.render()))
            await pilot.press("ctrl+b")  # the panel shown says it: the bar does not repeat it
            await pilot.pause()
            assert app.query_one("#sidebar").display and "loading" not in str(bar.render())
            await pilot.press("ctrl+b")
            await pilot.pause()
            assert "loading: 0/3 files" in str(bar.render())
            other_writer.release()
            await settle(pilot)
            return str(bar.render()), app.notices[-1]

    try:
        done, said = asyncio.run(scenario())
    finally:
        if other_writer.is_locked:
            other_writer.release()
        engine.close()
    assert "loading" not in done and "model offline" in done
    assert said.startswith("Ingested 3 files")


def test_the_model_api_base_level_and_profile_given_to_chatapp_chat_are_used(tmp_path, openai_server):
    """`chatapp chat --model M --api-base URL --level L --profile P` hands these to the chat: the status
    bar says them and the first message is answered by that model at that server, at that level."""
    from chatapp.llm.openai_compatible import load_openai
    from chatapp.tui.status_bar import StatusBar
    from tests.test_tui_chat import send

    load_openai()
    data_dir = tmp_path / "data"
    ChatEngine.open(data_dir, load_sample_kb=False).close()
    openai_server.script(Scripted.reply("Plain answer.", pieces=2))

    async def scenario():
        app = ChatApp(settings=offline_settings(data_dir), model="test-model", api_base=openai_server.url,
                      level="aggressive", profile="compact")
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            status = str(app.query_one(StatusBar).render())
            await send(pilot, "can u hlep me")
            await settle(pilot)
            return status, str(app.query(UserMessage).last().render())

    status, sent = asyncio.run(scenario())
    assert "model test-model" in status and "level aggressive" in status and "profile compact" in status
    assert openai_server.chat_requests and openai_server.chat_requests[0].body["model"] == "test-model"
    assert "help" in sent  # corrected, at the level given
