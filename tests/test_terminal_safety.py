"""Nothing a model, a document, a file name or a session name says reaches the terminal as a command
(clipboard writes, hidden links, screen clears) or as Rich markup, nothing named after a session is
written outside its folder, and arguments that are not UTF-8 are read, not a traceback.

The CLI runs as a user runs it, in its own process, with Rich told it is writing to a colour terminal
(FORCE_COLOR): the assertions are on what it wrote, with Rich's own colour codes the only escape
sequences allowed."""

from __future__ import annotations

import asyncio
import json
import os
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chatapp.engine import ChatEngine
from chatapp.storage.export import export_file, to_markdown
from chatapp.storage.filenames import UnsafePath, file_under, slug
from chatapp.terminal_text import StreamCleaner, clean, cleaned_argument, markup_safe
from chatapp.tui.app import ChatApp
from chatapp.tui.prompt_input import PromptInput
from chatapp.tui.widgets import UserMessage
from tests.conftest import run_cli
from tests.openai_server import Scripted
from tests.test_tui import settle
from tests.test_tui_chat import screen_text

CLIPBOARD = "\x1b]52;c;aGVsbG8=\x07"  # OSC 52: put "hello" on the user's clipboard
HIDDEN_LINK = "\x1b]8;;https://evil.example\x1b\\harmless words\x1b]8;;\x1b\\"  # OSC 8: a link behind text
CLEAR_SCREEN = "\x1b[2J\x1b[H"
SEQUENCES = {
    "clipboard": CLIPBOARD,
    "hidden link": HIDDEN_LINK,
    "clear screen": CLEAR_SCREEN,
    "colour": "\x1b[31m",
    "title": "\x1b]0;pwned\x1b\\",
    "8-bit CSI": "\x9b2J",
    "device control": "\x1bPq#0;2;0;0;0\x1b\\",
    "bell": "\x07",
    "carriage return": "\rOVERWRITTEN",
    "bidi override": "\u202egnp.exe",
}
MARKUP_LINK = "[link=https://evil.example]click here[/link]"
MARKUP_CLOSE = "[/b]"
EVIL = f"Budget review notes {MARKUP_LINK} and {MARKUP_CLOSE} then {''.join(SEQUENCES.values())} end."
TERMINAL_ENV = {"FORCE_COLOR": "1", "COLUMNS": "200", "OPENAI_API_KEY": "test-key"}

RICH_COLOUR = re.compile(r"\x1b\[[0-9;]*m")  # Rich's own styling: select graphic rendition only
# What Rich's live progress bar writes besides: hide/show the cursor, erase the line, go up a line.
RICH_LIVE = re.compile(r"\x1b\[\?25[lh]|\x1b\[2K|\x1b\[1A|\r")
DRIVES_THE_TERMINAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def assert_inert(output: str, live: bool = False) -> None:
    """Once Rich's colour codes (and with `live`, its progress bar's cursor moves) are taken out,
    `output` holds no escape sequence, no control character but newline and tab, no bidi override."""
    rest = RICH_COLOUR.sub("", output)
    rest = RICH_LIVE.sub("", rest) if live else rest
    found = DRIVES_THE_TERMINAL.search(rest)
    assert found is None, f"{found.group()!r} reached the terminal: …{rest[max(0, found.start() - 40):found.end() + 40]!r}…"
    assert "evil.example\x1b" not in output and "\x1b]" not in output


def shown(output: str) -> str:
    """What a reader sees: the text without Rich's colours, on one line as a table may fold it."""
    return " ".join(RICH_COLOUR.sub("", output).split())


# --- the sanitiser itself ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", SEQUENCES)
def test_clean_takes_out_each_sequence_and_keeps_the_words(name):
    cleaned = clean(f"before {SEQUENCES[name]} after\tand\nnext")
    assert DRIVES_THE_TERMINAL.search(cleaned) is None
    assert cleaned.startswith("before ") and cleaned.endswith(" after\tand\nnext")
    assert "evil.example" not in cleaned and "aGVsbG8" not in cleaned


def test_markup_is_shown_as_it_is():
    from rich.console import Console

    console = Console(record=True, width=200, force_terminal=True)
    console.print(f"[bold]quoted:[/] {markup_safe(EVIL)}")
    text = console.export_text()
    assert MARKUP_LINK in text and MARKUP_CLOSE in text
    assert "\x1b]8" not in console.export_text(styles=True)


TEXT_OR_SEQUENCE_PIECES = st.lists(st.sampled_from(["a", "b c", "\n", "\x1b", "]", "[", "52;c;", "8;;", "\x07",
                                                    "\\", "2J", "m", "P", "\x9b", "\x9d", "\ud83d", "\ude00"]))


@given(parts=TEXT_OR_SEQUENCE_PIECES, cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=6))
def test_a_stream_cut_anywhere_shows_what_the_whole_text_would(parts, cuts):
    text = "".join(parts)
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    cleaner = StreamCleaner()
    streamed = "".join(cleaner.feed(text[a:b]) for a, b in zip(bounds, bounds[1:])) + cleaner.flush()
    assert streamed == clean(text)
    assert DRIVES_THE_TERMINAL.search(streamed) is None


def test_an_argument_with_bytes_that_are_not_utf8_becomes_text():
    assert cleaned_argument(os.fsdecode(b"caf\xe9 \xff\x1b[2J")) == "caf\ufffd \ufffd"
    assert cleaned_argument("line one\nline two\tend") == "line one\nline two\tend"


# --- file names from session names ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../../../../tmp/x", "..", ".bashrc", "/etc/passwd", "a\\..\\..\\b",
                                  "．．／．．／x", "con", "[/b]\x1b[2J", "", "x" * 500])
def test_a_slug_is_one_safe_name(name):
    made = slug(name)
    assert made and "/" not in made and "\\" not in made and not made.startswith(".")
    assert len(made) <= 80 and made.lower() != "con" and DRIVES_THE_TERMINAL.search(made) is None


def test_readable_names_keep_their_words():
    assert slug("Q4 budget review") == "Q4-budget-review"
    assert slug("Café notes 2026.v2") == "Café-notes-2026.v2"


def test_a_file_planted_as_a_link_out_of_the_folder_is_refused(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "notes.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(UnsafePath):
        file_under(folder, "notes", "md")
    assert file_under(folder, "../other", "md") == folder / "other.md"


# --- the CLI: ask, sessions, export -----------------------------------------------------------------


def test_ask_streams_and_sessions_show_a_model_answer_without_its_escape_sequences(tmp_path, openai_server):
    data_dir = tmp_path / "data"
    session = f"{MARKUP_CLOSE}oops{CLIPBOARD}"
    answer = f"Monday at 2pm. {HIDDEN_LINK} {CLIPBOARD}{CLEAR_SCREEN}<script>alert(1)</script> {MARKUP_LINK} done."
    openai_server.script(Scripted.reply(answer, pieces=23))  # pieces cut through the sequences
    asked = run_cli("ask", "when is the budget review?", "--session", session, "--model", "gpt-4o-mini",
                    "--api-base", openai_server.url, data_dir=data_dir, env=TERMINAL_ENV)
    assert asked.returncode == 0, asked.stderr
    assert_inert(asked.stdout)
    assert_inert(asked.stderr)
    assert "Monday at 2pm. harmless words" in shown(asked.stdout) and MARKUP_LINK in shown(asked.stdout)
    assert "session [/b]oops" in shown(asked.stdout)

    listed = run_cli("sessions", "list", data_dir=data_dir, env=TERMINAL_ENV)
    assert listed.returncode == 0, listed.stderr
    assert_inert(listed.stdout)
    assert "[/b]oops" in shown(listed.stdout)

    show = run_cli("sessions", "show", "[/b]oops" + CLIPBOARD, data_dir=data_dir, env=TERMINAL_ENV)
    assert show.returncode == 0, show.stderr
    assert_inert(show.stdout)
    assert "<script>alert(1)</script>" in shown(show.stdout)  # the answer's words, shown as words

    for fmt in ("md", "json", "html"):
        exported = run_cli("export", "[/b]oops", "--format", fmt, data_dir=data_dir, env=TERMINAL_ENV)
        assert exported.returncode == 0, exported.stderr
        assert_inert(exported.stdout)
        if fmt != "json":  # no viewer of the file runs the answer's HTML
            assert "<script>" not in exported.stdout and "&lt;script&gt;alert(1)&lt;/script&gt;" in exported.stdout


def test_the_markdown_export_shows_html_from_an_answer_as_text(tmp_path):
    transcript = {
        "session": {"id": "s1", "name": "<b>team</b>", "created_at": "2026-01-01", "model": None},
        "usage": {"calls": 1, "prompt_tokens": 1, "completion_tokens": 1, "cost": 0.0},
        "turns": [{"role": "assistant", "created_at": "2026-01-01", "status": "complete",
                   "content": 'See <img src=x onerror="alert(1)"> and R&D.', "postprocessing": None,
                   "hallucination_flags": []}],
    }
    markdown = to_markdown(transcript)
    assert "<img" not in markdown and "<b>" not in markdown
    assert '&lt;img src=x onerror="alert(1)"&gt; and R&amp;D.' in markdown


# --- the CLI: documents, file names, the registry, errors ---------------------------------------------


@pytest.fixture(scope="module")
def evil_data(tmp_path_factory):
    """A data dir holding a document, a file name and a registry entity full of sequences and markup."""
    root = tmp_path_factory.mktemp("evil")
    docs = root / "docs"
    docs.mkdir()
    (docs / f"[red]notes[\\red] {CLEAR_SCREEN}[b]x.txt").write_text(EVIL + "\n", encoding="utf-8")
    entity = {"id": "person:mallory-quince", "type": "person", "name": f"Mallory {MARKUP_CLOSE}Quince{CLIPBOARD}",
              "aliases": [MARKUP_LINK], "description": EVIL, "attributes": {"role": f"Auditor {HIDDEN_LINK}"}}
    (docs / "entities.jsonl").write_text(json.dumps(entity) + "\n", encoding="utf-8")
    data_dir = root / "data"
    ingested = run_cli("ingest", str(docs), data_dir=data_dir, env=TERMINAL_ENV)
    return data_dir, ingested


def test_ingest_shows_a_file_name_as_it_is(evil_data):
    _, ingested = evil_data
    assert ingested.returncode == 0, ingested.stderr
    assert_inert(ingested.stdout)
    assert_inert(ingested.stderr, live=True)
    assert "[red]notes[\\red] [b]x.txt" in shown(ingested.stderr)


def test_ingest_of_a_missing_path_that_looks_like_markup_is_one_failure(tmp_path):
    result = run_cli("ingest", "/tmp/[/oops]", data_dir=tmp_path / "data", env=TERMINAL_ENV)
    assert "Traceback" not in result.stderr and "MarkupError" not in result.stderr
    assert "/tmp/[/oops]" in shown(result.stdout + result.stderr)


def test_kb_search_shows_document_markup_as_text(evil_data):
    data_dir, _ = evil_data
    result = run_cli("kb", "search", "budget review notes", data_dir=data_dir, env=TERMINAL_ENV)
    assert result.returncode == 0, result.stderr
    assert_inert(result.stdout)
    assert MARKUP_LINK in shown(result.stdout) and MARKUP_CLOSE in shown(result.stdout)


def test_kb_entities_and_entity_show_registry_text_as_text(evil_data):
    data_dir, _ = evil_data
    listed = run_cli("kb", "entities", data_dir=data_dir, env=TERMINAL_ENV)
    assert listed.returncode == 0, listed.stderr
    assert_inert(listed.stdout)
    assert "Mallory [/b]Quince" in shown(listed.stdout)
    one = run_cli("kb", "entity", "person:mallory-quince", data_dir=data_dir, env=TERMINAL_ENV)
    assert one.returncode == 0, one.stderr
    assert_inert(one.stdout)
    assert MARKUP_LINK in shown(one.stdout) and "Auditor harmless words" in shown(one.stdout)


def test_an_error_line_quotes_the_input_as_text(tmp_path):
    result = run_cli("kb", "search", "budget", "--mode", f"[/b]{CLEAR_SCREEN}x", data_dir=tmp_path / "data",
                     env=TERMINAL_ENV)
    assert result.returncode == 2
    assert_inert(result.stderr)
    assert "error: --mode must be hybrid, dense or keyword, not '[/b]x'" in shown(result.stderr)


@pytest.mark.parametrize("command", [["preprocess"], ["check", "--response"], ["kb", "search"], ["ask"]])
def test_an_argument_that_is_not_utf8_is_read_as_text(tmp_path, command):
    argument = os.fsdecode(b"budget review \xff\xfe notes")  # how Python hands over bytes that are not UTF-8
    result = run_cli(*command, argument, data_dir=tmp_path / "data", env=TERMINAL_ENV)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert_inert(result.stdout)
    if command in (["preprocess"], ["check", "--response"]):
        assert "\ufffd" in result.stdout  # the undecodable bytes, shown as what they are


# --- the TUI ------------------------------------------------------------------------------------------


@pytest.fixture()
def chat_engine(tmp_path):
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    yield engine
    engine.close()


def test_tui_notifications_quote_names_as_text(chat_engine, tmp_path):
    missing = tmp_path / f"{MARKUP_CLOSE}gone{CLIPBOARD}"

    async def scenario():
        app = ChatApp(chat_engine)
        async with app.run_test(size=(140, 40)) as pilot:
            prompt = app.query_one("#prompt", PromptInput)
            for line in (f"/resume {MARKUP_CLOSE}{MARKUP_LINK}", f"/ingest {missing}"):
                prompt.value = line
                await pilot.press("enter")
                await settle(pilot)
            return list(app.notices), app.is_running

    notices, running = asyncio.run(scenario())
    assert running
    assert any(f"No session named like '{MARKUP_CLOSE}{MARKUP_LINK}'" in n for n in notices)
    assert any(f"{MARKUP_CLOSE}gone" in n and "failed" in n for n in notices)
    assert all(DRIVES_THE_TERMINAL.search(n) is None for n in notices)


def test_tui_streams_a_model_answer_and_exports_a_traversal_name_inside_the_data_dir(tmp_path, openai_server):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "config.toml").write_text(f'model = "gpt-4o-mini"\napi_base = "{openai_server.url}"\n')
    engine = ChatEngine.open(data_dir, load_sample_kb=False)
    name = "../../../../" + str(tmp_path / "escaped").lstrip("/")
    openai_server.script(Scripted.reply(f"Noted. {CLIPBOARD}{HIDDEN_LINK}{CLEAR_SCREEN} {MARKUP_CLOSE}", pieces=9))

    async def scenario():
        app = ChatApp(engine, session_name=name)
        async with app.run_test(size=(140, 40)) as pilot:
            prompt = app.query_one("#prompt", PromptInput)
            prompt.value = f"note this {MARKUP_LINK}"
            await pilot.press("enter")
            await settle(pilot)
            prompt.value = "/export md"
            await pilot.press("enter")
            await settle(pilot)
            # The answer is Markdown inside its message: read it off the screen as drawn.
            rendered = [*(str(w.render()) for w in app.query(UserMessage)), screen_text(app)]
            return rendered, list(app.notices)

    try:
        rendered, notices = asyncio.run(scenario())
    finally:
        engine.close()
    assert any("Noted. harmless words" in r and MARKUP_CLOSE in r for r in rendered)
    assert any(MARKUP_LINK in r for r in rendered)
    assert all(DRIVES_THE_TERMINAL.search(r) is None for r in rendered)
    assert not (tmp_path / "escaped.md").exists()
    exports = list((data_dir / "exports").iterdir())
    assert len(exports) == 1 and exports[0].suffix == ".md", exports
    assert notices[-1] == f"Exported to {exports[0]}"
    assert "escaped" in exports[0].name  # the readable part of the name is kept


def test_export_file_names_differ_for_names_that_slug_alike(tmp_path):
    from chatapp.storage.sessions import Session

    first = Session("aaaa1111bbbb", "a/b", "", "", None, {})
    second = Session("cccc2222dddd", "a b", "", "", None, {})
    assert export_file(tmp_path, first, "md") != export_file(tmp_path, second, "md")
    assert export_file(tmp_path, Session("eeee", "plain", "", "", None, {}), "md") == tmp_path / "plain.md"
