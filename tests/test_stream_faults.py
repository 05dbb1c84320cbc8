"""Nothing streamed is lost: stalls, endless streams, split emoji, Ctrl+C, kill and kill -9, and
several asks at once in one session. Every test talks to the stand-in OpenAI-compatible server
(tests/openai_server.py) over real HTTP and reads back what a real SQLite file holds."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import chatapp  # noqa: F401 - offline environment first
from chatapp.config import ConfigError, load_settings
from chatapp.engine import ChatEngine
from chatapp.llm.openai_compatible import load_openai
from chatapp.storage.database import Database
from chatapp.storage.export import session_transcript, to_markdown
from chatapp.storage.sessions import ORPHAN_AFTER_SECONDS, SessionStore
from tests.conftest import ROOT, run_cli
from tests.openai_server import Scripted

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STALLED_TEXT = "alpha beta gamma delta"  # four pieces; the stall comes after "alpha beta gamma "
SHOWN_BEFORE_STALL = "alpha beta gamma "
# Long enough that a subprocess is still stalled when the test signals it, whatever the machine's load.
LONG_STALL = "120"


@pytest.fixture(scope="module", autouse=True)
def client_library_loaded():
    load_openai()  # once, not inside the first test's timeouts: the test server's calls go through it


def open_engine(data_dir: Path, **settings) -> ChatEngine:
    return ChatEngine.open(data_dir, load_sample_kb=False, **settings)


def stored_turns(data_dir: Path) -> list[dict]:
    """The turns as the database file holds them (a separate connection, as another process reads them)."""
    connection = sqlite3.connect(data_dir / "chatapp.db")
    connection.row_factory = sqlite3.Row
    try:
        return [{**row, "meta": json.loads(row["meta"] or "{}")} for row in map(dict, connection.execute(
            "SELECT role, status, content, meta FROM turns ORDER BY id"))]
    finally:
        connection.close()


def wait_for_stored_answer(data_dir: Path, text: str, timeout: float = 120) -> dict:
    """Poll the database until the assistant turn holds `text`; the turn as stored then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (data_dir / "chatapp.db").exists():
            try:
                answers = [t for t in stored_turns(data_dir) if t["role"] == "assistant"]
            except sqlite3.OperationalError:  # the schema is still being created
                answers = []
            if answers and answers[-1]["content"] == text:
                return answers[-1]
        time.sleep(0.05)
    pytest.fail(f"the database never held {text!r}")


def dialogue_turns(engine: ChatEngine, session: str) -> list[tuple[str, str]]:
    stored = engine.sessions.get(session).meta["dialogue_state"]["turns"]
    return [(t["role"], t["content"]) for t in stored]


# --- stalls and endless streams ------------------------------------------------------------------


def test_text_is_saved_during_a_stall_not_only_when_the_next_piece_comes(tmp_path, openai_server):
    resume = threading.Event()
    openai_server.script(Scripted.stalled(STALLED_TEXT, pieces=4, stall_after=3, resume=resume))
    engine = open_engine(tmp_path / "data")
    asked: dict = {}
    turn = threading.Thread(target=lambda: asked.update(result=engine.ask(
        "say the letters", session="stall", model="test-model", api_base=openai_server.url)))
    turn.start()
    try:
        stored = wait_for_stored_answer(tmp_path / "data", SHOWN_BEFORE_STALL)
        # Saved while nothing more arrives: the stream is still going (and still stalled).
        assert stored["status"] == "streaming" and openai_server.chat_requests[0].pieces_sent == 3
    finally:
        resume.set()
        turn.join()
    assert asked["result"].status == "complete"
    assert stored_turns(tmp_path / "data")[-1]["content"] == STALLED_TEXT


def test_a_stalled_stream_is_cut_off_by_stall_timeout_with_all_text_kept(tmp_path, openai_server):
    openai_server.script(Scripted.stalled(STALLED_TEXT, pieces=4, stall_after=3))
    engine = open_engine(tmp_path / "data", stall_timeout=1, first_byte_timeout=30, total_timeout=600)
    result = engine.ask("say the letters", session="stall", model="test-model", api_base=openai_server.url)

    assert result.status == "interrupted"
    assert "1s" in result.error and "stall_timeout" in result.error and "CHATAPP_STALL_TIMEOUT" in result.error
    answer = stored_turns(tmp_path / "data")[-1]
    assert (answer["status"], answer["content"]) == ("interrupted", SHOWN_BEFORE_STALL)
    assert answer["meta"]["error_kind"] == "timeout_stall"

    # The question of the cut-off turn is part of the conversation the next prompt carries.
    follow_up = engine.ask("and the next one?", session="stall", model="test-model", api_base=openai_server.url)
    sent = json.dumps(follow_up.preprocessed.prompt.messages)
    assert "say the letters" in sent.lower() and SHOWN_BEFORE_STALL.strip() in sent


def test_an_endless_stream_is_cut_off_by_total_timeout(tmp_path, openai_server):
    openai_server.script(Scripted.endless_stream("more and more ", piece_delay=0.05))
    engine = open_engine(tmp_path / "data", total_timeout=1.5)
    result = engine.ask("go on", session="endless", model="test-model", api_base=openai_server.url)

    assert result.status == "interrupted" and "1.5s" in result.error and "total_timeout" in result.error
    answer = stored_turns(tmp_path / "data")[-1]
    assert answer["status"] == "interrupted" and answer["content"].startswith("more and more")
    assert answer["meta"]["error_kind"] == "timeout_total"


def test_a_first_byte_that_never_comes_names_first_byte_timeout(tmp_path, openai_server):
    openai_server.script(Scripted.stalled(STALLED_TEXT, pieces=4, stall_after=0))
    engine = open_engine(tmp_path / "data", first_byte_timeout=1)
    result = engine.ask("anyone there?", session="silent", model="test-model", api_base=openai_server.url)
    assert result.status == "failed" and "first_byte_timeout" in result.error
    assert "CHATAPP_FIRST_BYTE_TIMEOUT" in result.error


def test_timeouts_are_read_from_config_and_environment_and_bad_values_refused(tmp_path):
    (tmp_path / "config.toml").write_text("stall_timeout = 7\ntotal_timeout = 90.5\n", encoding="utf-8")
    settings = load_settings(tmp_path, environ={"CHATAPP_FIRST_BYTE_TIMEOUT": "12"})
    assert (settings.first_byte_timeout, settings.stall_timeout, settings.total_timeout) == (12, 7, 90.5)
    assert load_settings(tmp_path / "elsewhere", environ={}).total_timeout == 600
    for bad in ("0", "-3", "soon"):
        with pytest.raises(ConfigError, match="CHATAPP_STALL_TIMEOUT.*stall_timeout"):
            load_settings(tmp_path, environ={"CHATAPP_STALL_TIMEOUT": bad})


# --- an emoji split between pieces ----------------------------------------------------------------


def test_an_emoji_split_between_pieces_is_stored_whole(tmp_path, openai_server):
    openai_server.script(Scripted.in_parts("Party ", "\ud83d", "\ude00", " time"))
    engine = open_engine(tmp_path / "data")
    shown: list[str] = []
    result = engine.ask("celebrate", session="emoji", model="test-model", api_base=openai_server.url,
                        on_event=lambda stage, data: shown.append(data["text"]) if stage == "delta" else None)
    assert result.status == "complete"
    assert "".join(shown) == "Party 😀 time"  # printable as it streamed: no half on its own
    assert stored_turns(tmp_path / "data")[-1]["content"] == "Party 😀 time"


def test_a_half_emoji_left_by_a_stall_is_replaced_not_fatal(tmp_path, openai_server):
    openai_server.script(Scripted.in_parts("Party ", "\ud83d", "\ude00", " time", stall_after=2))
    engine = open_engine(tmp_path / "data", stall_timeout=1)
    result = engine.ask("celebrate", session="emoji", model="test-model", api_base=openai_server.url)
    answer = stored_turns(tmp_path / "data")[-1]
    assert result.status == "interrupted" and answer["status"] == "interrupted"
    assert answer["content"] == "Party \ufffd"


# --- the process stopped mid-stream -------------------------------------------------------------


def start_ask(data_dir: Path, server_url: str, session: str) -> subprocess.Popen:
    env = {**os.environ, "CHATAPP_LOAD_SAMPLE_KB": "false", "CHATAPP_STALL_TIMEOUT": LONG_STALL}
    return subprocess.Popen(
        [sys.executable, "-m", "chatapp", "ask", "say the letters", "--session", session, "--model", "test-model",
         "--api-base", server_url, "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_a_stall_saves_what_arrived_before_exit(tmp_path, openai_server, signal_number):
    data_dir = tmp_path / "data"
    openai_server.script(Scripted.stalled(STALLED_TEXT, pieces=4, stall_after=3))
    process = start_ask(data_dir, openai_server.url, "stopped")
    try:
        wait_for_stored_answer(data_dir, SHOWN_BEFORE_STALL)
        process.send_signal(signal_number)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "what arrived is saved" in err and "Traceback" not in err
    assert SHOWN_BEFORE_STALL in out  # what was on screen ...
    answer = stored_turns(data_dir)[-1]
    assert (answer["status"], answer["content"]) == ("interrupted", SHOWN_BEFORE_STALL)  # ... is what is kept


def test_killed_during_a_stall_the_next_process_marks_the_turn_interrupted(tmp_path, openai_server):
    data_dir = tmp_path / "data"
    openai_server.script(Scripted.stalled(STALLED_TEXT, pieces=4, stall_after=3))
    process = start_ask(data_dir, openai_server.url, "killed")
    try:
        wait_for_stored_answer(data_dir, SHOWN_BEFORE_STALL)
    finally:
        process.kill()
        process.wait()
    assert stored_turns(data_dir)[-1]["status"] == "streaming"  # as the dead process left it

    engine = open_engine(data_dir)
    session = engine.sessions.get("killed")  # opening the data dir for turns marks what the dead left
    answer = stored_turns(data_dir)[-1]
    assert (answer["status"], answer["content"]) == ("interrupted", SHOWN_BEFORE_STALL)
    assert "pid" not in answer["meta"]
    assert "interrupted" in to_markdown(session_transcript(engine.sessions, session))

    # The killed turn's question is still part of the conversation.
    follow_up = engine.ask("and then?", session="killed", model="test-model", api_base=openai_server.url)
    assert "say the letters" in json.dumps(follow_up.preprocessed.prompt.messages).lower()


def test_a_live_stream_of_another_process_is_left_alone_but_a_silent_one_is_not(tmp_path):
    # A turn that a live process streams carries its pid and a fresh heartbeat. A pid can be taken
    # over by another program after its process died: a heartbeat that stopped tells them apart.
    database = Database(tmp_path / "chatapp.db")
    store = SessionStore(database)
    session = store.open_or_create("shared")
    turn_id = store.add_turn(session, "assistant", "half an ans", status="streaming")  # this live pid
    assert store.mark_orphans_interrupted() == 0
    assert store.turns(session)[0]["status"] == "streaming"

    silent_since = time.time() - ORPHAN_AFTER_SECONDS - 1
    with database.transaction() as db:
        db.execute("UPDATE turns SET meta = json_set(meta, '$.heartbeat', ?) WHERE id = ?", (silent_since, turn_id))
    assert store.turns(session)[0]["status"] == "interrupted"  # as read, before it is marked
    assert store.mark_orphans_interrupted() == 1
    assert stored_turns(tmp_path)[0]["status"] == "interrupted"
    assert stored_turns(tmp_path)[0]["content"] == "half an ans"
    database.close()


# --- several asks at once in one session -----------------------------------------------------------


def test_asks_overlapping_in_one_session_all_stay_in_the_conversation(tmp_path, openai_server):
    # The first ask is held mid-stream while two more, from another connection (as another process
    # would), finish: when it ends, the memory it updates is the one they stored, not the one it read.
    resume = threading.Event()
    openai_server.script(Scripted.stalled("first answer", pieces=2, stall_after=1, resume=resume),
                         Scripted.reply("second answer"), Scripted.reply("third answer"))
    first_engine, other_engine = open_engine(tmp_path / "data"), open_engine(tmp_path / "data")
    ask = dict(session="together", model="test-model", api_base=openai_server.url)
    first = threading.Thread(target=first_engine.ask, args=("what is the first thing?",), kwargs=ask)
    first.start()
    try:
        assert openai_server.wait_for_chat_requests(1)
        other_engine.ask("what is the second thing?", **ask)
        other_engine.ask("what is the third thing?", **ask)
    finally:
        resume.set()
        first.join()

    remembered = dialogue_turns(other_engine, "together")
    questions = [text for role, text in remembered if role == "user"]
    answers = [text for role, text in remembered if role == "assistant"]
    assert sorted(questions) == ["What is the first thing?", "What is the second thing?",
                                 "What is the third thing?"]
    assert sorted(answers) == ["first answer", "second answer", "third answer"]
    assert [t["role"] for t in stored_turns(tmp_path / "data")].count("assistant") == 3
