"""A chat turn asked of an engine with the local OpenAI-compatible test server scripted to answer
(shared by the chat-turn support tests)."""

from __future__ import annotations

from chatapp.engine import ChatEngine
from tests.openai_server import Scripted


def ask_scripted(engine: ChatEngine, server, question: str, answer: str, session: str, now):
    """The turn's checked answer; the model says the same again if asked to regenerate it."""
    server.default = Scripted.reply(answer, pieces=3)
    result = engine.ask(question, session=session, model="test-model", api_base=server.url, now=now)
    assert result.status == "complete" and result.preprocessed.rag_chunks, "the turn retrieved nothing"
    return result.response
