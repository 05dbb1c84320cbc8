"""`kill` (SIGTERM) or a closed terminal (SIGHUP) while the chat screen streams an answer: what
arrived is stored and the turn is marked interrupted before the program ends.

The chat runs as a user runs it: `python -m chatapp chat` in a real pseudo-terminal, typed into,
talking to the stand-in OpenAI-compatible server, which stalls mid-answer. The test reads the
SQLite file as it sits on disk (the turn's own status, not the status a later reader would infer
from a dead pid)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.openai_server import Scripted

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

PIECES = ("alpha ", "beta ", "gamma ", "delta ", "epsilon")
SHOWN_BEFORE_STALL = "alpha beta gamma "  # three of five pieces, then the server stalls


def stored_turns(data_dir: Path) -> list[dict]:
    connection = sqlite3.connect(data_dir / "chatapp.db")
    connection.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in connection.execute("SELECT role, status, content, meta FROM turns ORDER BY id")]
    except sqlite3.OperationalError:  # the schema is still being created
        return []
    finally:
        connection.close()


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


class ChatInTerminal:
    """`chatapp chat` in a pseudo-terminal of 120×40, its screen output drained in the background."""

    def __init__(self, data_dir: Path, api_base: str):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "CHATAPP_LOAD_SAMPLE_KB": "false",
               "CHATAPP_MODEL": "test-model", "CHATAPP_API_BASE": api_base, "CHATAPP_STALL_TIMEOUT": "300"}
        self.process = subprocess.Popen([sys.executable, "-m", "chatapp", "chat", "--data-dir", str(data_dir)],
                                        stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
                                        start_new_session=True)
        os.close(slave)
        self.master = master
        self.screen = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.screen.extend(data)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        os.close(self.master)


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP"])
def test_a_signal_during_a_stream_stores_what_arrived_and_marks_the_turn_interrupted(
        tmp_path, openai_server, signal_name):
    openai_server.script(Scripted.in_parts(*PIECES, stall_after=3))
    data_dir = tmp_path / "data"
    chat = ChatInTerminal(data_dir, openai_server.url)
    try:
        # The prompt has focus once the screen is up; typing before then would be lost.
        wait_until(lambda: b"Ask anything" in chat.screen or chat.process.poll() is not None, 120, "the chat screen")
        assert chat.process.poll() is None, chat.screen.decode("utf-8", "replace")[-2000:]
        chat.type("say the letters")
        time.sleep(0.5)
        chat.type("\r")
        wait_until(lambda: any(t["role"] == "assistant" and t["content"] == SHOWN_BEFORE_STALL
                               for t in stored_turns(data_dir)), 180, "the streamed text on disk")
        chat.process.send_signal(getattr(signal, signal_name))
        chat.process.wait(timeout=60)  # ends by itself: no second signal, no kill
    finally:
        chat.close()
    answer = [t for t in stored_turns(data_dir) if t["role"] == "assistant"][-1]
    assert answer["status"] == "interrupted"  # as stored by the chat itself, before it ended
    assert answer["content"] == SHOWN_BEFORE_STALL
    assert "pid" not in json.loads(answer["meta"] or "{}")  # finished, not left for an orphan sweep
