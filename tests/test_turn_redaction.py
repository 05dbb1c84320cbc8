"""A secret typed into a question, or repeated in an answer, never reaches the disk or an export.

What the user typed goes to the model as typed (they may mean to show it a token); what is stored
(the turn, its corrections and entities, the prompt record, the checked answer, the conversation's
memory) and so every export and resumed conversation holds [secret removed] instead. Every test
reads the real SQLite file byte for byte, so a secret in any table or column is found."""

from __future__ import annotations

import pytest

import chatapp  # noqa: F401 - offline environment first
from chatapp.engine import ChatEngine
from chatapp.llm.openai_compatible import load_openai
from chatapp.redact import SECRET_MARK
from chatapp.storage.export import session_transcript, to_html, to_json, to_markdown
from tests.openai_server import Scripted

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PASTED_KEY = "sk-proj-Q7mT2vX9kLp4Rz8NwB3c"
BEARER = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.ZmFrZXNpZw"
CONFIGURED_KEY = "zz-config-7f3a9e21c4b8d605"  # no known shape: found only because the environment holds it
QUESTION = (f"my openai key is {PASTED_KEY} and curl sends 'Authorization: Bearer {BEARER}' to "
            f"https://api.example.com/v1?api_key=QUERYSECRET123&x=1 — is teh key valid?")


def _database_bytes(data_dir) -> bytes:
    """The database as it sits on disk, write-ahead log included."""
    return b"".join(p.read_bytes() for p in sorted(data_dir.glob("chatapp.db*")))


def _leaks(blob: str | bytes, *secrets: str) -> list[str]:
    text = blob.decode("utf-8", "replace") if isinstance(blob, bytes) else blob
    return [s for s in secrets if s in text]


@pytest.fixture(scope="module", autouse=True)
def client_library_loaded():
    load_openai()  # the library the test server's calls go through


def test_a_key_pasted_into_a_question_and_echoed_in_the_answer_is_stored_and_exported_redacted(
        tmp_path, openai_server, monkeypatch):
    monkeypatch.setenv("EXAMPLE_SERVICE_TOKEN", CONFIGURED_KEY)
    answer = (f"That key, {PASTED_KEY}, looks like a project key. Your other token {CONFIGURED_KEY} "
              f"should go in a header: Bearer {BEARER}.")
    openai_server.script(Scripted.reply(answer, pieces=6))
    engine = ChatEngine.open(tmp_path, load_sample_kb=False)
    result = engine.ask(QUESTION + f" and {CONFIGURED_KEY}", session="keys", model="test-model",
                        api_base=openai_server.url)
    assert result.status == "complete"

    # The model was sent what the user typed.
    sent = str(openai_server.chat_requests[-1].body["messages"])
    assert PASTED_KEY in sent

    engine.close()  # checkpoint the write-ahead log into the file as well
    secrets = (PASTED_KEY, BEARER, "QUERYSECRET123", CONFIGURED_KEY)
    assert not _leaks(_database_bytes(tmp_path), *secrets)

    engine = ChatEngine.open(tmp_path, load_sample_kb=False)
    session = engine.sessions.get("keys")
    turns = engine.sessions.turns(session)
    question, reply = turns[0]["content"], turns[-1]["content"]
    assert SECRET_MARK in question and "is the key valid?" in turns[0]["meta"]["corrected"]
    assert question.startswith("my openai key is [secret removed] and curl sends 'Authorization: Bearer ")
    assert reply.startswith("That key, [secret removed], looks like") and "header: Bearer [secret removed]" in reply
    # The resumed conversation's memory holds the redacted text, so the key is not sent again next turn.
    memory = " ".join(t["content"] for t in session.meta["dialogue_state"]["turns"])
    assert SECRET_MARK in memory and not _leaks(memory, *secrets)

    transcript = session_transcript(engine.sessions, session)
    for export in (to_json(transcript), to_markdown(transcript), to_html(transcript)):
        assert not _leaks(export, *secrets) and "secret removed" in export
    engine.close()


def test_a_key_in_a_preprocessed_message_is_not_stored(tmp_path):
    engine = ChatEngine.open(tmp_path, load_sample_kb=False)
    pre = engine.preprocess(QUESTION, session="dry-run")
    assert PASTED_KEY in pre.original_input  # the caller gets back what it passed in
    engine.close()
    assert not _leaks(_database_bytes(tmp_path), PASTED_KEY, BEARER, "QUERYSECRET123")


def test_a_key_in_an_answer_stopped_while_streaming_is_checkpointed_redacted(tmp_path, openai_server):
    import threading

    resume = threading.Event()
    openai_server.script(Scripted.stalled(f"The key {PASTED_KEY} is the one you asked about, and more",
                                          pieces=4, stall_after=2, resume=resume))
    engine = ChatEngine.open(tmp_path, load_sample_kb=False, stall_timeout=1.5)
    try:
        result = engine.ask("which key?", session="stalled", model="test-model", api_base=openai_server.url)
    finally:
        resume.set()
    assert result.status == "interrupted"
    stored = engine.sessions.turns(engine.sessions.get("stalled"))[-1]["content"]
    assert stored.startswith("The key [secret removed]")
    engine.close()
    assert not _leaks(_database_bytes(tmp_path), PASTED_KEY)
