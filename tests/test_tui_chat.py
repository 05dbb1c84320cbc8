"""The chat view as a person uses it (Textual's Pilot, the real engine, the local OpenAI-compatible
server in tests/openai_server.py): what reaches the screen, streaming, Ctrl+N in the middle of an
answer, scrolling, the layout at two terminal sizes, and the annotations under an answer."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import threading
from pathlib import Path

import pytest
from textual import events
from textual.widgets import OptionList, Static
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from chatapp.engine import ChatEngine
from chatapp.llm.openai_compatible import load_openai
from chatapp.tui.annotations import Review, TurnReview
from chatapp.tui.answer_view import AssistantMessage
from chatapp.tui.app import ChatApp
from chatapp.tui.prompt_input import PromptInput
from chatapp.tui.widgets import CorrectionDiff, UserMessage
from tests.conftest import SAMPLE_KB
from tests.openai_server import Scripted, split_into_pieces
from tests.test_tui import settle

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module", autouse=True)
def client_library_loaded():
    load_openai()  # once, not inside the first test's waits: the test server's calls go through it


@pytest.fixture()
def data_dir(tmp_path) -> Path:
    return tmp_path / "data"


def model_engine(data_dir: Path, server) -> ChatEngine:
    """A chat engine with the sample's people and Q4 email, answering through the test server."""
    engine = ChatEngine.open(data_dir, load_sample_kb=False, model="test-model", api_base=server.url)
    engine.ingest(SAMPLE_KB / "entities.jsonl", SAMPLE_KB / "facts.jsonl",
                  SAMPLE_KB / "emails" / "2026-11-26-q4-budget-review.eml")
    return engine


def screen_text(app) -> str:
    """Every character the screen shows now, as the terminal would get it (the rendered segments)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def stored_turns(data_dir: Path) -> list[dict]:
    """(session name, role, status, content) of every turn, read from the database file itself."""
    connection = sqlite3.connect(data_dir / "chatapp.db")
    connection.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in connection.execute(
            "SELECT s.name AS session, t.role, t.status, t.content FROM turns t "
            "JOIN sessions s ON s.id = t.session_id ORDER BY t.id")]
    finally:
        connection.close()


def answer_in_chat(engine: ChatEngine, question: str, inspect, size=(200, 40)):
    """Ask `question` in the chat and wait for the whole turn; what `inspect(app)` reads then.
    The engine is closed afterwards."""
    async def scenario():
        app = ChatApp(engine)
        async with app.run_test(size=size) as pilot:
            await send(pilot, question)
            await settle(pilot)
            return inspect(app)

    try:
        return asyncio.run(scenario())
    finally:
        engine.close()


async def send(pilot, text: str) -> None:
    pilot.app.query_one("#prompt", PromptInput).value = text
    await pilot.press("enter")


async def wait_until(pilot, condition, timeout: float = 60) -> None:
    """Let the app run until `condition()` holds (a stream arrives at its own pace)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("the app never got there")
        await pilot.pause(0.05)


async def click_marker(pilot, answer, marker: str) -> None:
    """Click `marker` ("[corrected]") where the answer's text shows it, as a person would."""
    block = next(b for b in answer.query(MarkdownBlock) if marker in b._content.plain)
    column = block._content.plain.index(marker) + 2
    await pilot.click(block, offset=(column + block.styles.padding.left, 0))


HOSTILE_REPLY = ("Plain [bold]not bold[/bold] and [link=https://evil.example]click[/link] "
                 "\x1b]52;c;aGVsbG8=\x07clipboard \x1b[2Jcleared \x1b]8;;https://evil.example\x1b\\hidden\x1b]8;;\x1b\\ "
                 "\u202eevil\u202c done.")


def test_escape_sequences_and_markup_in_a_reply_are_shown_literally(data_dir, openai_server):
    # Split so that an escape sequence arrives in two pieces.
    openai_server.script(Scripted.in_parts(*(HOSTILE_REPLY[i:i + 7] for i in range(0, len(HOSTILE_REPLY), 7))))
    status, shown, blocks = answer_in_chat(model_engine(data_dir, openai_server), "say something odd", lambda app: (
        app.query_one(AssistantMessage).status, screen_text(app),
        " ".join(block._content.plain for block in app.query_one(AssistantMessage).query(MarkdownBlock))))
    assert status == "complete"
    assert "[bold]not bold[/bold]" in shown  # markup shown as typed, not applied
    assert "[link=https://evil.example]click[/link]" in shown
    assert "clipboard cleared hidden" in shown and "evil done." in shown
    assert not any(ch in shown for ch in "\x1b\x07\u202e\u202c")
    assert "\x1b" not in blocks and "[bold]not bold[/bold]" in blocks


def test_a_file_name_with_markup_and_escapes_is_shown_literally(data_dir, tmp_path):
    engine = ChatEngine.open(data_dir, load_sample_kb=False)
    folder = tmp_path / "[" / "b]docs"  # the path reads "…/[/b]docs": a closing tag
    folder.mkdir(parents=True)
    hostile = folder / "[red]notes \x1b[31mred\x1b[0m.txt"
    hostile.write_bytes(b"\x00\x01binary that is not text\xff\xfe")  # fails: its name is quoted in the notice

    async def scenario():
        app = ChatApp(engine)
        async with app.run_test(size=(200, 40)) as pilot:
            await send(pilot, f"/ingest {folder}")
            await settle(pilot)
            said = app.notices[-1]
            assert "[/b]docs/[red]notes red.txt" in said and "\x1b" not in said
            assert "\x1b" not in screen_text(app)
            await send(pilot, "/ingest [/oops]")  # a path that is also a closing markup tag
            await settle(pilot)
            assert app.notices[-2] == "Ingesting [/oops] …"
            assert "1 failed ([/oops]" in app.notices[-1]
            assert app.is_running

    try:
        asyncio.run(scenario())
    finally:
        engine.close()


def test_escape_sequences_and_markup_in_a_documents_text_are_shown_literally(data_dir, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "shed.txt").write_text("Shed rota\n\nThe shed key is on hook \x1b[31m[bold]7[/bold]\x1b[0m beside the "
                                     "\x1b]2;PWNED\x07door.\nThe mower is serviced in May.\n", encoding="utf-8")
    engine = ChatEngine.open(data_dir, load_sample_kb=False)  # offline: the answer quotes the document
    engine.ingest(folder)
    shown = answer_in_chat(engine, "Where is the shed key?", screen_text)
    assert "The shed key is on hook [bold]7[/bold] beside the door." in shown
    assert not any(ch in shown for ch in "\x1b\x07") and "PWNED" not in shown


@pytest.mark.parametrize("move_on", ["ctrl+n", "/new"])
def test_ctrl_n_mid_stream_keeps_the_answer_in_its_session_and_the_next_message_in_the_new_one(
        data_dir, openai_server, move_on):
    resume = threading.Event()
    openai_server.script(Scripted.stalled("first answer goes on and ends here", pieces=6, stall_after=2, resume=resume),
                         Scripted.reply("second answer", pieces=2))
    engine = model_engine(data_dir, openai_server)

    async def scenario():
        app = ChatApp(engine)
        async with app.run_test(size=(140, 40)) as pilot:
            await send(pilot, "first question")
            await wait_until(pilot, lambda: app.query(AssistantMessage) and app.query_one(AssistantMessage).text)
            if move_on == "/new":  # typed while the answer streams, as a command
                await send(pilot, "/new")
            else:
                await pilot.press(move_on)
            await pilot.pause()
            assert not app.query_one("#prompt", PromptInput).value  # taken, not left in the box
            assert not app.query(AssistantMessage) and not app.query(UserMessage) and not app.busy
            resume.set()  # the first answer streams on, off screen
            await send(pilot, "second question")
            await settle(pilot)
            shown = [m.text for m in app.query(AssistantMessage)]
            assert shown == ["second answer"]  # the first answer never came back on screen
            return app.session_name

    try:
        new_session = asyncio.run(scenario())
    finally:
        engine.close()
    turns = stored_turns(data_dir)
    first, second = turns[:2], turns[2:]
    assert [t["content"] for t in first] == ["first question", "first answer goes on and ends here"]
    assert first[1]["status"] == "complete"
    assert [t["content"] for t in second] == ["second question", "second answer"]
    assert first[0]["session"] != new_session and {t["session"] for t in second} == {new_session}


@pytest.mark.parametrize("scroll_up", ["pageup", "wheel"])
def test_scrolling_up_during_a_stream_stays_put_and_the_end_is_followed_otherwise(data_dir, openai_server,
                                                                                   scroll_up):
    resume = threading.Event()
    long_text = "".join(f"Line {n} of a long answer.\n\n" for n in range(60))
    openai_server.script(Scripted.stalled(long_text + "The end.", pieces=40, stall_after=30, resume=resume))
    engine = model_engine(data_dir, openai_server)

    async def scenario():
        app = ChatApp(engine)
        async with app.run_test(size=(120, 30)) as pilot:
            conversation = app.query_one("#conversation")
            await send(pilot, "tell me a lot")
            await wait_until(pilot, lambda: openai_server.chat_requests and
                             openai_server.chat_requests[0].pieces_sent == 30 and conversation.max_scroll_y > 20)
            await pilot.pause(0.2)
            assert conversation.scroll_y == conversation.max_scroll_y  # following the stream
            if scroll_up == "wheel":  # three notches over the conversation, as the terminal reports them
                x, y = conversation.region.center
                for _ in range(3):
                    app._driver.send_message(events.MouseScrollUp(None, x, y, 0, -1, 0, False, False, False,
                                                                  screen_x=x, screen_y=y))
            else:
                await pilot.press("pageup")
            await wait_until(pilot, lambda: conversation.scroll_y < conversation.max_scroll_y, timeout=10)
            held = conversation.scroll_y
            resume.set()
            await settle(pilot)
            assert "The end." in app.query_one(AssistantMessage).text
            assert conversation.scroll_y == held  # the user's place, kept while the rest arrived

    try:
        asyncio.run(scenario())
    finally:
        engine.close()


def test_layout_at_80x24_and_200x60(data_dir):
    engine = ChatEngine.open(data_dir, load_sample_kb=False)
    engine.ingest(SAMPLE_KB / "entities.jsonl", SAMPLE_KB / "facts.jsonl")

    async def at_size(size):
        app = ChatApp(engine)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            sidebar = app.query_one("#sidebar")
            prompt = app.query_one("#prompt", PromptInput)
            conversation = app.query_one("#conversation")
            result = {"sidebar": sidebar.display, "conversation_width": conversation.region.width,
                      "prompt_visible": prompt.region.bottom <= size[1] and prompt.region.height > 0}
            await pilot.press("ctrl+b")
            await pilot.pause()
            result["sidebar_after_toggle"] = sidebar.display and sidebar.region.width > 0
            # A pasted page: the diff under the input keeps to its few lines, the input stays.
            prompt.value = "teh quick brown fox jumps ovver the lazy dog. " * 110
            await settle(pilot)
            diff = app.query_one(CorrectionDiff)
            result["diff_height"] = diff.region.height
            result["diff_under_prompt"] = diff.region.y >= prompt.region.bottom
            result["diff_text"] = str(diff.render())
            result["prompt_visible_after_paste"] = prompt.region.bottom <= size[1] and prompt.region.height > 0
            result["conversation_height"] = conversation.region.height
            return result

    try:
        small = asyncio.run(at_size((80, 24)))
        large = asyncio.run(at_size((200, 60)))
    finally:
        engine.close()
    assert small["sidebar"] is False and small["conversation_width"] >= 70 and small["prompt_visible"]
    assert small["sidebar_after_toggle"]  # Ctrl+B shows it even so
    assert large["sidebar"] is True and large["prompt_visible"]
    assert large["sidebar_after_toggle"] is False  # and hides it
    for result in (small, large):
        assert result["diff_height"] <= 3 and result["prompt_visible_after_paste"]
        assert result["diff_under_prompt"]  # the correction of what is typed, just under it
        assert "corrections:" in result["diff_text"] and "the" in result["diff_text"]
        assert result["conversation_height"] >= 10


WRONG_EMAIL_REPLY = "John Smith's email is john.smith@wrongco.com and he works on Project Zephyr."


@pytest.mark.parametrize("size", [(200, 60), (80, 24)], ids=["200x60", "80x24"])
def test_annotations_under_an_answer_open_by_keyboard_and_by_mouse(data_dir, openai_server, size):
    openai_server.script(Scripted.reply(WRONG_EMAIL_REPLY, pieces=5))
    engine = model_engine(data_dir, openai_server)

    async def scenario():
        app = ChatApp(engine)
        async with app.run_test(size=size) as pilot:
            await send(pilot, "What is John Smith's email?")
            await settle(pilot)
            answer = app.query_one(AssistantMessage)
            assert "john.smith@company.com [corrected]" in answer.text
            review = answer.review
            verdict = review.query_one(".verdict")
            assert verdict.has_class("verdict-corrected")
            labels = [str(option.prompt) for option in review.query_one(OptionList).options]
            assert any("[corrected] john.smith@wrongco.com → john.smith@company.com" in label for label in labels)
            assert any("[unverified] Project Zephyr" in label for label in labels)
            detail = review.query_one(".annotation-detail")

            # Keyboard: into the list, down to a claim, Enter.
            corrected_at = next(i for i, label in enumerate(labels) if label.startswith("[corrected]"))
            unverified_at = next(i for i, label in enumerate(labels) if label.startswith("[unverified]"))
            review.query_one(OptionList).focus()
            await pilot.press("home", *["down"] * unverified_at, "enter")
            await pilot.pause()
            assert "Model wrote: Project Zephyr" in str(detail.render())

            # Mouse: a click on the [corrected] marker in the answer's text (scrolled back up to it: at
            # 80×24 its detail is then a screen below, and is brought into view).
            conversation = app.query_one("#conversation")
            conversation.scroll_home(animate=False)
            await pilot.pause()
            await click_marker(pilot, answer, "[corrected]")
            await settle(pilot)
            assert conversation.region.overlaps(detail.region)
            shown = str(detail.render())
            assert "Model wrote: john.smith@wrongco.com" in shown
            assert "Known value: john.smith@company.com" in shown
            assert "Evidence: John Smith: email = john.smith@company.com" in shown
            assert "Source: " in shown and "entities.jsonl" in shown
            assert review.query_one(OptionList).highlighted == corrected_at

            sources = review.query_one(".sources")
            assert sources.title.startswith("Sources (")
            listed = str(sources.query_one("Contents > Static", Static).render()).splitlines()  # each with its retrieval score
            assert listed and all(re.match(r"\d\.\d\d  \S", line) for line in listed)
            assert any("Q4 Budget Review" in line for line in listed), listed

    try:
        asyncio.run(scenario())
    finally:
        engine.close()


def test_a_code_block_in_a_checked_answer_is_highlighted_and_left_as_written(data_dir, openai_server):
    code = "def contact():\n    return 'john.s@company.org'  # Sarah from marketing"
    reply = f"John Smith's email is john.smith@company.com.\n\n```python\n{code}\n```\n"
    openai_server.script(Scripted.reply(reply, pieces=6))

    def inspect(app):
        answer = app.query_one(AssistantMessage)
        fence = answer.query_one(MarkdownFence)
        spans = fence._highlighted_code.spans
        return answer.status, answer.review is not None, fence.lexer, fence.code, {str(span.style) for span in spans}

    status, checked, lexer, shown_code, styles = answer_in_chat(
        model_engine(data_dir, openai_server), "What is John Smith's email?", inspect)
    assert status == "complete" and checked
    assert lexer == "python" and shown_code == code  # no marker in the code or after its fence
    assert len(styles) >= 3  # keywords, strings and comments drawn apart: highlighted


def test_a_markdown_heading_in_an_answer_is_a_title_not_a_claim(data_dir, tmp_path, openai_server):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "minutes.txt").write_text("Meeting minutes, 12 October\n\nThe water tank holds 800 litres and the "
                                        "pump was replaced.\n", encoding="utf-8")
    (folder / "pond.txt").write_text("Pond plans\n\nThe wildlife pond will be 3 metres long.\n", encoding="utf-8")
    # The heading's words are in no note: read as a claim, it was marked [unverified].
    reply = "## The greenhouse\n\nThe water tank holds 800 litres.\n"
    openai_server.script(Scripted.reply(reply, pieces=3), Scripted.reply(reply, pieces=3))
    engine = ChatEngine.open(data_dir, load_sample_kb=False, model="test-model", api_base=openai_server.url)
    engine.ingest(folder)
    text = answer_in_chat(engine, "What does the tank hold?", lambda app: app.query_one(AssistantMessage).text)
    assert text == reply


ALLOTMENT_NOTES = ("# Brackenfold allotment society\n\nThe society meets on the first Saturday of each month in the "
                   "church hall. Its treasurer, Odile Marchetti, collects the yearly plot fee of £35 in April.\n")


def test_an_answer_weak_as_a_whole_is_flagged_in_its_verdict_not_in_its_text(data_dir, tmp_path, openai_server):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "allotment.md").write_text(ALLOTMENT_NOTES, encoding="utf-8")
    # Its one claim lacks only an everyday word ("remember"); the answer as a whole rests little on the notes.
    reply = "Oh yes, I remember that, it was so much fun back then. The society meets in the church hall."
    openai_server.script(Scripted.reply(reply, pieces=3))
    engine = ChatEngine.open(data_dir, load_sample_kb=False, model="test-model", api_base=openai_server.url)
    engine.ingest(folder)

    def inspect(app):
        answer = app.query_one(AssistantMessage)
        review = answer.review
        labels = [str(option.prompt) for option in review.query_one(OptionList).options]
        return answer.text, str(review.query_one(".verdict").render()), labels

    text, verdict, labels = answer_in_chat(engine, "When does the allotment society meet?", inspect)
    assert "[unverified]" not in text and "church hall" in text
    assert "AcceptWithFlags" in verdict and "UnsupportedAnswer" in verdict
    assert "the sources bear out little of the answer as a whole" in verdict
    assert len(labels) == 1 and "UnsupportedAnswer" in labels[0]


def test_accept_and_human_review_verdicts_look_different(data_dir):
    engine = ChatEngine.open(data_dir, load_sample_kb=False)

    async def scenario():
        app = ChatApp(engine)
        async with app.run_test(size=(120, 30)) as pilot:
            conversation = app.query_one("#conversation")
            accepted, review = TurnReview(Review("Accept", 0.9, "")), TurnReview(Review("HumanReview", 0.4, ""))
            await conversation.mount_all([accepted, review])
            await pilot.pause()
            a, r = accepted.query_one(".verdict"), review.query_one(".verdict")
            assert "needs your review" in str(r.render())
            assert a.styles.color != r.styles.color
            assert a.styles.border_left != r.styles.border_left

    try:
        asyncio.run(scenario())
    finally:
        engine.close()


def test_a_model_error_ends_the_answer_marked_failed_and_says_why(data_dir, openai_server):
    openai_server.script(Scripted.error(400, "the model refused [/oops] this"))
    status, busy, shown, notices = answer_in_chat(model_engine(data_dir, openai_server), "hello", lambda app: (
        app.query_one(AssistantMessage).status, app.busy, screen_text(app), list(app.notices)))
    assert status == "failed" and not busy
    assert "[failed]" in shown
    assert any("[/oops]" in notice for notice in notices)


def test_the_stream_reaches_the_screen_with_the_focus_away_from_the_prompt(data_dir, openai_server):
    """Nothing but the stream changes: no cursor blinks (the prompt has lost the focus), and each draw
    must still reach the screen, not wait for something else to repaint it."""
    resume = threading.Event()
    lines = [f"Line {n} of the answer." for n in range(12)]  # the twelfth piece ends in the last line
    openai_server.script(Scripted.stalled("\n\n".join(lines) + "\n\nThe end.", pieces=13, stall_after=12,
                                          resume=resume))
    engine = model_engine(data_dir, openai_server)

    async def scenario():
        app = ChatApp(engine)
        async with app.run_test(size=(120, 40)) as pilot:
            await send(pilot, "tell me a little")
            app.set_focus(None)
            await wait_until(pilot, lambda: app.query(AssistantMessage)
                             and "Line 11" in app.query_one(AssistantMessage).text)
            await asyncio.sleep(1.0)  # a person looking at the screen; no key, no blink
            drawn = app.query_one(AssistantMessage).text.strip().splitlines()[-1]
            shown = screen_text(app)
            resume.set()
            await settle(pilot)
            return drawn, shown

    try:
        drawn, shown = asyncio.run(scenario())
    finally:
        engine.close()
    assert drawn.startswith("Line 11") and drawn in shown


def test_a_long_streamed_answer_keeps_finished_blocks_apart_and_esc_keeps_all_of_it(data_dir, openai_server):
    from chatapp.tui.answer_view import SETTLE_CHARS, AnswerMarkdown

    paragraphs = [f"Paragraph {n}: " + " ".join(f"word{n}x{i}" for i in range(80)) for n in range(12)]
    code = "```python\ndef f():\n\n    return 1\n```"  # a blank line inside a fence does not end it
    reply = "\n\n".join(paragraphs[:6] + [code] + paragraphs[6:]) + "\n\n"
    assert len(reply) > 3 * SETTLE_CHARS
    # Word by word, then the stream stays open with nothing more (an answer still coming) until Esc:
    # an endless stream would start the reply again, and on a busy machine the Esc can come after that.
    words = split_into_pieces(reply, len(reply.split()))
    openai_server.script(Scripted.in_parts(*words, "And then", piece_delay=0.002, stall_after=len(words)))
    engine = model_engine(data_dir, openai_server)

    async def scenario():
        app = ChatApp(engine)
        async with app.run_test(size=(120, 40)) as pilot:
            await send(pilot, "tell me a long story")
            await wait_until(pilot, lambda: app.query(AssistantMessage)
                             and len(app.query_one(AssistantMessage).query(AnswerMarkdown)) >= 3
                             and "return 1" in app.query_one(AssistantMessage).text)
            await pilot.press("escape")
            await settle(pilot)
            answer = app.query_one(AssistantMessage)
            shown = " ".join(block._content.plain for block in answer.query(MarkdownBlock)
                             if not isinstance(block, MarkdownFence))
            return answer.status, answer.text, shown, [f.code for f in answer.query(MarkdownFence)]

    try:
        status, text, shown, fences = asyncio.run(scenario())
    finally:
        engine.close()
    assert status == "interrupted"
    for paragraph in paragraphs[:6]:  # each finished paragraph shown once, in order, nothing lost
        assert text.count(paragraph) == 1 and shown.count(paragraph) == 1
    assert shown.index(paragraphs[0]) < shown.index(paragraphs[5])
    assert fences == ["def f():\n\n    return 1"]
