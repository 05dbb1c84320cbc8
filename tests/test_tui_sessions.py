"""The chat as a client a person lives in: the sessions screen, resuming by the start of a name or
the words of a question, the model picker against a real OpenAI-compatible server, the message box
(several lines, history, taking or declining the correction), the command palette, the help screen,
the status bar and a theme that is still there after a restart. Driven through Textual's Pilot,
with the real engine."""

from __future__ import annotations

import asyncio
import io
import threading
import tomllib

from rich.console import Console
from textual import events
from textual.command import CommandPalette
from textual.widgets import DataTable, Input, OptionList

from chatapp.tui.answer_view import AssistantMessage
from chatapp.tui.app import ChatApp
from chatapp.tui.help_screen import HelpScreen
from chatapp.tui.model_picker import ModelPicker
from chatapp.tui.prompt_input import PromptInput
from chatapp.tui.sessions_screen import SessionsScreen
from chatapp.tui.status_bar import StatusBar
from chatapp.tui.widgets import AssistantMessage, CorrectionDiff, UserMessage
from tests.openai_server import Scripted
from tests.test_transcripts import GOOD_ANSWER, INVENTED_ANSWER
from tests.test_tui import settle, tui_engine  # noqa: F401 - the fixture, shared

SIZE = (140, 40)


async def send(pilot, text: str) -> None:
    pilot.app.query_one("#prompt", PromptInput).value = text
    await pilot.press("enter")
    await settle(pilot)


def test_resume_by_the_start_of_a_name_or_the_words_of_the_first_question(tui_engine):
    tui_engine.ask("What is John Smith's email address?", session="earlier", model="offline")
    tui_engine.ask("Who leads Project Atlas?", session="atlas-talk", model="offline")

    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "/resume nope")
            assert app.notices[-1].startswith("No session named like 'nope'")

            await send(pilot, "/resume earl")
            assert app.session_name == "earlier"
            assert "John Smith's email address" in str(app.query_one(UserMessage).render())
            assert "john.smith@company.com" in app.query_one(AssistantMessage).text
            verdicts = [str(v.render()) for v in app.query(".verdict")]
            assert verdicts and verdicts[0].startswith("Accept · confidence")  # the verdict it got then

            await send(pilot, "/resume who leads atlas")
            assert app.session_name == "atlas-talk"
            assert len(app.query(UserMessage)) == 1

            await send(pilot, "/resume earlier")
            await send(pilot, "and his phone?")  # the resumed session goes on where it stopped
            assert len(app.query(AssistantMessage)) == 2 and not app.busy
            assert "+1 555" in app.query(AssistantMessage).last().text

    asyncio.run(scenario())


def test_the_sessions_screen_opens_renames_and_deletes(tui_engine):
    tui_engine.ask("What is John Smith's email address?", session="older", model="offline")
    tui_engine.ask("And his phone?", session="older", model="offline")
    tui_engine.ask("Who leads Project Atlas?", session="newer", model="offline")

    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "/sessions")
            screen = app.screen
            assert isinstance(screen, SessionsScreen)
            table = screen.query_one(DataTable)
            rows = [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]
            # Most recent first; the first question is the title; questions, not messages, counted.
            assert rows[0][0] == "Who leads Project Atlas?" and rows[0][1] == "1" and rows[0][3] == "newer"
            assert rows[1][0] == "What is John Smith's email address?" and rows[1][1] == "2"

            await pilot.press("down", "r")
            rename = screen.query_one("#rename", Input)
            assert rename.has_focus and rename.value == "older"
            rename.value = "john's contacts"
            await pilot.press("enter")
            await pilot.pause()
            assert tui_engine.sessions.find("older") is None
            assert tui_engine.sessions.find("john's contacts") is not None
            # The cursor stays on the session just renamed: E exports that one.
            assert str(table.get_row_at(table.cursor_row)[3]) == "john's contacts"
            await pilot.press("e")
            await pilot.pause()
            exported = list((tui_engine.settings.data_dir / "exports").glob("*.md"))
            assert len(exported) == 1 and "And his phone?" in exported[0].read_text(encoding="utf-8")

            await pilot.press("up", "d")
            assert tui_engine.sessions.find("newer") is not None  # the first D only asks
            await pilot.press("d")
            await pilot.pause()
            assert tui_engine.sessions.find("newer") is None
            assert table.row_count == 1

            await pilot.press("enter")  # open the one left
            await settle(pilot)
            assert not isinstance(app.screen, SessionsScreen)
            assert app.session_name == "john's contacts"
            assert len(app.query(UserMessage)) == 2

            await pilot.press("ctrl+o")
            await pilot.pause()
            # Typing filters, every key of it: typed fast (or pasted), the keys all reach the app before
            # the first has moved the focus, and no "d" or "r" in them may act as the list's own key.
            for character in "smith's address":
                app._driver.send_message(events.Key("space" if character == " " else character, character))
            await pilot.pause()
            await pilot.pause()
            assert app.screen.query_one("#filter", Input).value == "smith's address"
            assert app.screen.query_one(DataTable).row_count == 1
            assert "delete" not in str(app.screen.query_one("#sessions-note").render()).lower()
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, SessionsScreen)

    asyncio.run(scenario())


def test_the_model_picker_lists_the_servers_models_and_saves_the_choice(tui_engine, openai_server):
    async def scenario():
        app = ChatApp(tui_engine, model="offline", api_base=openai_server.url)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("ctrl+t")
            await settle(pilot)
            picker = app.screen
            assert isinstance(picker, ModelPicker)
            options = picker.query_one(OptionList)
            names = [options.get_option_at_index(n).id for n in range(options.option_count)]
            assert names == ["offline", "test-model"]
            assert "1 models at" in str(picker.query_one("#model-note").render())

            options.highlighted = names.index("test-model")
            await pilot.press("s")  # use it and save it
            await settle(pilot)
            assert app.model == "test-model"
            assert "model test-model" in str(app.query_one(StatusBar).render())
            saved = tomllib.loads((tui_engine.settings.data_dir / "config.toml").read_text(encoding="utf-8"))
            assert saved["model"] == "test-model" and saved["api_base"] == openai_server.url

            openai_server.script()
            await send(pilot, "Who leads Project Atlas?")
            assert openai_server.chat_requests and app.query(AssistantMessage).last().text == "OK"
            assert "tokens · $" in str(app.query_one(StatusBar).render())

    asyncio.run(scenario())


def test_a_server_that_lists_nothing_is_one_line_and_offline_still_offered(tui_engine, closed_port_url):
    async def scenario():
        app = ChatApp(tui_engine, api_base=closed_port_url)
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "/model")
            picker = app.screen
            note = str(picker.query_one("#model-note").render())
            assert note.startswith("Could not list models: cannot reach") and "\n" not in note
            options = picker.query_one(OptionList)
            assert [options.get_option_at_index(n).id for n in range(options.option_count)] == ["offline"]

    asyncio.run(scenario())


def test_the_message_box_takes_several_lines_and_recalls_what_was_sent(tui_engine):
    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=SIZE) as pilot:
            prompt = app.query_one("#prompt", PromptInput)
            await pilot.press(*"first", "ctrl+j", *"line")
            assert prompt.value == "first\nline"
            await pilot.press("enter")
            await settle(pilot)
            assert prompt.value == ""
            assert "first\nline" in str(app.query_one(UserMessage).render())
            await send(pilot, "/level minimal")

            await pilot.press(*"draft")
            await pilot.press("up")
            assert prompt.value == "/level minimal"
            await pilot.press("up")
            assert prompt.value == "first\nline" and prompt.cursor_location[0] == 1
            await pilot.press("up")  # within a message of several lines, Up and Down move the cursor
            assert prompt.value == "first\nline" and prompt.cursor_location[0] == 0
            await pilot.press("down")
            assert prompt.value == "first\nline" and prompt.cursor_location[0] == 1
            await pilot.press("down")
            assert prompt.value == "/level minimal"
            await pilot.press("down")
            assert prompt.value == "draft"  # what was being typed comes back

            # A click in the conversation takes the focus; what is typed next still goes into the box.
            await pilot.click("#conversation")
            assert not prompt.has_focus
            await pilot.press(*" more")
            assert prompt.value == "draft more" and prompt.has_focus

        # Kept in the data dir: the next chat remembers.
        again = ChatApp(tui_engine)
        async with again.run_test(size=SIZE) as pilot:
            await pilot.press("up")
            assert again.query_one("#prompt", PromptInput).value == "/level minimal"

    asyncio.run(scenario())


def test_the_correction_is_taken_with_tab_or_declined_with_ctrl_g(tui_engine):
    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=SIZE) as pilot:
            prompt = app.query_one("#prompt", PromptInput)
            prompt.value = "can u hlep me"
            await settle(pilot)
            assert "help" in str(app.query_one(CorrectionDiff).render())
            await pilot.press("tab")
            assert prompt.value.startswith("Can you help me") and prompt.has_focus

            prompt.value = "pls hlep me find the emial"
            await settle(pilot)
            await pilot.press("ctrl+g")
            await pilot.pause()
            assert "kept as typed" in str(app.query_one(CorrectionDiff).render())
            await pilot.press("enter")
            await settle(pilot)
            sent = str(app.query(UserMessage).last().render())
            assert sent == "pls hlep me find the emial"  # no "→ corrected" line: sent as typed

    asyncio.run(scenario())


def test_the_palette_has_the_chats_commands_and_f1_shows_the_keys(tui_engine):
    tui_engine.ask("Who leads Project Atlas?", session="atlas-talk", model="offline")

    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("ctrl+p")
            await pilot.pause()
            assert isinstance(app.screen, CommandPalette)
            await pilot.press(*"profile compact")
            await settle(pilot)
            await pilot.pause(0.3)
            await pilot.press("enter")
            await settle(pilot)
            assert app.profile == "compact"
            assert "profile compact" in str(app.query_one(StatusBar).render())

            from chatapp.tui.commands import ChatCommands

            provider = ChatCommands(app.screen)
            names = [hit.text for hit in [h async for h in provider.discover()]]
            for expected in ("Correction level: off", "Budget profile: extended", "Model: choose…",
                             "Session: new", "Session: open…", "Session: export as html",
                             "Ingest a file or folder…", "Toggle the side panel", "Theme: chatapp-light",
                             "Session: resume atlas-talk", "Help: keys and commands"):
                assert expected in names, expected

            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            console = Console(width=120, record=True, file=io.StringIO())
            console.print(app.screen.query_one("#help-keys").content)
            console.print(app.screen.query_one("#help-commands").content)
            shown = console.export_text()
            assert "Ctrl+J" in shown and "Ctrl+O" in shown and "/resume NAME" in shown
            await pilot.press("escape")

    asyncio.run(scenario())


def test_the_theme_picked_is_there_after_a_restart(tui_engine):
    async def scenario(pick: str | None) -> str:
        app = ChatApp(tui_engine)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            if pick:
                app.theme = pick
                await pilot.pause()
            return app.theme

    assert asyncio.run(scenario(None)) == "chatapp-dark"
    assert asyncio.run(scenario("chatapp-light")) == "chatapp-light"
    # A new engine reads the config again, as the next `chatapp` does.
    from chatapp.engine import ChatEngine

    with ChatEngine.open(tui_engine.settings.data_dir) as reopened:
        assert reopened.settings.theme == "chatapp-light"
        tui_engine.settings = reopened.settings
    assert asyncio.run(scenario(None)) == "chatapp-light"


def test_a_regenerated_answer_is_labelled_in_the_chat_and_when_the_session_is_resumed(tui_engine, openai_server):
    openai_server.script(Scripted.reply(INVENTED_ANSWER, pieces=3), Scripted.reply(GOOD_ANSWER, pieces=2))

    def conversation(app) -> list[tuple[str, str]]:
        return [(message.status, message.text) for message in app.query(AssistantMessage)]

    async def scenario(**options) -> list[str]:
        app = ChatApp(tui_engine, model="test-model", api_base=openai_server.url, **options)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            if "session_name" not in options:
                await send(pilot, "Who leads Project Atlas?")
            return conversation(app), app.session_name

    live, name = asyncio.run(scenario())
    resumed, _ = asyncio.run(scenario(session_name=name))
    for shown in (live, resumed):
        # The first answer is labelled as replaced, the second follows it, each shown once.
        assert [status for status, _ in shown] == ["superseded", "complete"]
        assert "Zorblax Quint" in shown[0][1] and GOOD_ANSWER in shown[1][1]
        shown = [text for _, text in shown]
        assert sum(GOOD_ANSWER in text for text in shown) == 1


def hold_start_up(engine, monkeypatch) -> threading.Event:
    """Hold the chat's start-up at the knowledge base (as a first start loading the sample is held)
    until the event returned is set."""
    knowledge_loaded = threading.Event()
    real_ensure = engine.ensure_sample_kb

    def slow_ensure(**kwargs):
        knowledge_loaded.wait(30)
        return real_ensure(**kwargs)

    monkeypatch.setattr(engine, "ensure_sample_kb", slow_ensure)
    return knowledge_loaded


async def live_diff_ready(app) -> None:
    for _ in range(200):
        if app.live_ready:
            return
        await asyncio.sleep(0.05)


def test_a_resume_while_the_chat_is_still_starting_shows_that_session_once(tui_engine, monkeypatch):
    tui_engine.ask("What is John Smith's email address?", session="earlier", model="offline")
    tui_engine.ask("Who leads Project Atlas?", session="atlas-talk", model="offline")
    # The resume lands before the start-up would show the --session's history.
    knowledge_loaded = hold_start_up(tui_engine, monkeypatch)

    async def scenario():
        app = ChatApp(tui_engine, session_name="earlier")
        async with app.run_test(size=SIZE) as pilot:
            await live_diff_ready(app)
            app.query_one("#prompt", PromptInput).value = "/resume atlas-talk"
            await pilot.press("enter")
            for _ in range(200):  # the resumed history shown (its own worker), start-up still held
                await pilot.pause()
                if app.query(UserMessage):
                    break
                await asyncio.sleep(0.05)
            knowledge_loaded.set()
            await settle(pilot)
            questions = [str(m.render()) for m in app.query(UserMessage)]
            assert app.session_name == "atlas-talk"
            assert len(questions) == 1 and "Atlas" in questions[0]

    asyncio.run(scenario())


def test_a_question_sent_while_the_chat_is_still_starting_follows_the_sessions_history_once(
        tui_engine, monkeypatch):
    """`chat --session earlier` and a question sent at once: the earlier exchange is shown above it,
    and the new question and its checked answer once, not again as history read after they were stored."""
    tui_engine.ask("What is John Smith's email address?", session="earlier", model="offline")
    knowledge_loaded = hold_start_up(tui_engine, monkeypatch)

    async def scenario():
        app = ChatApp(tui_engine, session_name="earlier", model="offline")
        async with app.run_test(size=SIZE) as pilot:
            await live_diff_ready(app)
            app.query_one("#prompt", PromptInput).value = "Who leads Project Atlas?"
            await pilot.press("enter")
            for _ in range(600):  # the answer finished and checked, the start-up still held
                await pilot.pause(0.05)
                answers = app.query(AssistantMessage)
                if not app.busy and answers and answers.last().status != "streaming":
                    break
            knowledge_loaded.set()
            await settle(pilot)
            return ([str(m.render()) for m in app.query(UserMessage)],
                    [(m.text, m.review is not None) for m in app.query(AssistantMessage)])

    questions, answers = asyncio.run(scenario())
    assert len(questions) == 2 and "email" in questions[0] and "Atlas" in questions[1]
    assert len(answers) == 2 and all(checked for _, checked in answers)
    assert answers[0][1] and "@" in answers[0][0]


def test_a_model_name_no_provider_takes_is_refused_and_the_model_kept(tui_engine):
    async def scenario():
        app = ChatApp(tui_engine, model="offline")
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "/model notaprovider/xyz")
            assert app.model == "offline"
            assert "'notaprovider/xyz' is not a model name litellm can route" in app.notices[-1]
            assert app.notices[-1].endswith("still answering with offline.")
            assert "model offline" in str(app.query_one(StatusBar).render())

    asyncio.run(scenario())


KEY_NAMES = {"ctrl": "Ctrl", "escape": "Esc", "pageup": "PageUp", "pagedown": "PageDown"}


def test_the_help_names_every_key_of_the_chat_and_scrolls_by_keyboard_at_80x24(tui_engine):
    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=(80, 24)) as pilot:
            conversation = app.query_one("#conversation")
            await pilot.press("f1")
            await pilot.pause()
            help_view = app.screen.query_one("VerticalScroll")
            console = Console(width=120, record=True, file=io.StringIO())
            console.print(app.screen.query_one("#help-keys").content)
            shown = console.export_text()
            for binding in ChatApp.BINDINGS:
                name = "+".join(KEY_NAMES.get(part, part.upper()) for part in binding.key.split("+"))
                assert name in shown, name
            assert help_view.max_scroll_y > 0  # taller than 24 lines
            under = conversation.scroll_y
            await pilot.press("pagedown")
            await pilot.pause()
            assert help_view.scroll_y > 0 and conversation.scroll_y == under  # the help scrolled, not the chat
            await pilot.press("end")
            await pilot.pause()
            assert help_view.scroll_y == help_view.max_scroll_y

    asyncio.run(scenario())


def test_at_80x24_the_sessions_list_keeps_the_date_in_view(tui_engine):
    from tests.test_tui_chat import screen_text

    tui_engine.ask("Which of the people in the finance team approved the Q4 budget review and when was it?",
                   session="long-question", model="offline")
    updated = tui_engine.sessions.list()[0]["updated_at"][:16].replace("T", " ")

    async def scenario():
        app = ChatApp(tui_engine)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("ctrl+o")
            await pilot.pause()
            return screen_text(app)

    shown = asyncio.run(scenario())
    row = next(line for line in shown.splitlines() if "Which of the people" in line)
    assert updated in row and "…" in row  # the long question cut shorter, the date whole

