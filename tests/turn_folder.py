"""A folder of the user's documents ingested into a real engine, and a chat turn asked of it with the
local OpenAI-compatible test server scripted to answer (shared by the chat-turn support tests)."""

from __future__ import annotations

from chatapp.engine import ChatEngine
from tests.openai_server import Scripted


def ingested_engine(tmp_path_factory, name: str, files: dict[str, str]) -> ChatEngine:
    """A fresh engine with `files` (file name → text) ingested from a folder of their own."""
    folder = tmp_path_factory.mktemp(f"{name}-docs")
    for file_name, text in files.items():
        (folder / file_name).write_text(text, encoding="utf-8")
    engine = ChatEngine.open(tmp_path_factory.mktemp(f"{name}-data"), load_sample_kb=False)
    report = engine.ingest(folder)
    assert not report.files_failed, report.files_failed
    return engine


def ask_scripted(engine: ChatEngine, server, question: str, answer: str, session: str, now):
    """The turn's checked answer; the model says the same again if asked to regenerate it."""
    server.default = Scripted.reply(answer, pieces=3)
    result = engine.ask(question, session=session, model="test-model", api_base=server.url, now=now)
    assert result.status == "complete" and result.preprocessed.rag_chunks, "the turn retrieved nothing"
    return result.response
