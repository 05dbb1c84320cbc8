"""A chat turn's claim support — each sentence's support score, whether it was flagged and why, and
the evidence sentence closest to it with its source — is stored with the turn in SQLite and shown
wherever the turn is: `ask --explain` and `ask --json`, `sessions show` and the md/html/json
exports, and the review under the answer in the chat, live and after a restart. The evidence comes
from the user's own documents: markup and escape sequences in it are shown as text and do nothing.
Real parts throughout: SQLite, the knowledge base, the local OpenAI-compatible server, the offline
model and Textual's pilot."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from textual.widgets import OptionList

from chatapp.engine import ChatEngine
from chatapp.llm.openai_compatible import load_openai
from chatapp.redact import SECRET_MARK
from chatapp.storage.database import MIGRATIONS, Database
from chatapp.storage.export import session_transcript, to_html, to_json, to_markdown
from chatapp.tui.answer_view import AssistantMessage
from chatapp.tui.app import ChatApp
from tests.conftest import run_cli
from tests.openai_server import Scripted
from tests.test_tui import settle
from tests.test_tui_chat import screen_text, send

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# A document whose sentence carries Rich markup and a screen-clearing escape sequence.
LAUNCH_PLAN = ("# Launch plan\n\nThe [bold red]Orion[/bold red] rollout starts on 12 May 2025 in Lisbon.\x1b[2J "
               "The budget is 40,000 euros <img src=x onerror=alert(1)>.\n")
MARKUP = "[bold red]Orion[/bold red]"
QUESTION = "What do you know about the launch?"
# The first sentence is what the plan says; the second names someone the plan never mentions.
ANSWER = "The Orion rollout starts on 12 May 2025 in Lisbon. The Lisbon rollout budget was approved by Kevin Marsh in Porto."
INVENTED = "The Lisbon rollout budget was approved by Kevin Marsh in Porto."


@pytest.fixture(scope="module", autouse=True)
def client_library_loaded():
    load_openai()  # the library the test server's calls go through


@pytest.fixture()
def docs(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "launch.md").write_text(LAUNCH_PLAN, encoding="utf-8")
    return folder


def launch_engine(data_dir: Path, docs: Path, server=None) -> ChatEngine:
    engine = ChatEngine.open(data_dir, load_sample_kb=False, **(
        {"model": "test-model", "api_base": server.url} if server else {}))
    engine.ingest(docs)
    return engine


def test_a_turns_claim_support_is_stored_and_read_back_after_a_restart(tmp_path, docs, openai_server):
    openai_server.script(Scripted.reply(ANSWER, pieces=4))
    engine = launch_engine(tmp_path / "data", docs, openai_server)
    result = engine.ask(QUESTION, session="launch")
    live = result.response.claim_support
    engine.close()

    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    try:
        stored = engine.sessions.claim_support(result.turn_id)
    finally:
        engine.close()
    assert [(c.text, c.span, c.score, c.flagged, c.reason, c.evidence, c.source, c.claim) for c in stored] == \
        [(c.text, c.span, c.score, c.flagged, c.reason, c.evidence, c.source, c.claim) for c in live]
    invented = next(c for c in stored if c.text == INVENTED)
    assert invented.flagged and invented.score < invented.threshold and "Kevin Marsh" in invented.reason
    assert MARKUP in invented.evidence and invented.source == "document Launch plan (retrieved)"


def test_exports_say_how_the_answer_was_checked_with_evidence_as_text(tmp_path, docs, openai_server):
    openai_server.script(Scripted.reply(ANSWER, pieces=4))
    engine = launch_engine(tmp_path / "data", docs, openai_server)
    try:
        engine.ask(QUESTION, session="launch")
        transcript = session_transcript(engine.sessions, engine.sessions.get("launch"))
    finally:
        engine.close()
    answer = transcript["turns"][-1]
    invented = next(c for c in answer["claim_support"] if c["text"] == INVENTED)
    assert invented["flagged"] and invented["source"] == "document Launch plan (retrieved)"

    exported = json.loads(to_json(transcript))["turns"][-1]["claim_support"]
    assert [c["text"] for c in exported] == [c["text"] for c in answer["claim_support"]]
    assert exported[-1]["features"] and MARKUP in exported[-1]["evidence"]

    markdown = to_markdown(transcript)
    checked = markdown[markdown.index("Recommendation:"):]
    assert "<details><summary>How this answer was checked</summary>" in checked
    assert "2 claims held to the evidence, 1 flagged" in checked
    assert f"support {invented['score']:.2f}, **flagged**" in checked
    assert f"best evidence: “The {MARKUP} rollout starts" in checked and "(document Launch plan (retrieved))" in checked

    page = to_html(transcript)
    assert "How this answer was checked: 2 claims held to the evidence, 1 flagged" in page
    assert "<td>The [bold red]Orion[/bold red] rollout starts" in page
    assert "40,000 euros &lt;img src=x onerror=alert(1)&gt;" in page and "<img" not in page
    assert "40,000 euros &lt;img src=x onerror=alert(1)&gt;" in checked
    for text in (markdown, page, to_json(transcript)):
        assert "\x1b" not in text


def test_sessions_show_and_export_of_a_database_from_before_claim_support(tmp_path):
    """A data dir written before claim support was kept opens with every turn as it was; its
    answers simply have no per-claim record."""
    path = tmp_path / "data" / "chatapp.db"
    path.parent.mkdir()
    connection = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:4]:
        migration(connection)
    connection.execute("PRAGMA user_version = 4")
    connection.executescript("""
        INSERT INTO sessions VALUES ('abc123', 'old-talk', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00',
                                     'offline', '{}');
        INSERT INTO turns(id, session_id, idx, role, content, created_at) VALUES
            (1, 'abc123', 0, 'user', 'Who leads Atlas?', '2026-01-01T00:00:00+00:00'),
            (2, 'abc123', 1, 'assistant', 'Sarah Chen leads Atlas [unverified].', '2026-01-01T00:00:01+00:00');
        INSERT INTO postprocessing VALUES (2, 'Sarah Chen leads Atlas.', 'Sarah Chen leads Atlas [unverified].',
                                           '{}', '{}', 'AcceptWithFlags', 0.61);
        INSERT INTO hallucination_flags(turn_id, hallucination_type, span_start, span_end, content, confidence,
                                        suggestion, evidence, corrected)
            VALUES (2, 'UnsupportedClaim', 0, 10, 'Sarah Chen', 0.6, NULL, '[]', 0);
    """)
    connection.close()

    shown = run_cli("sessions", "show", "old-talk", data_dir=tmp_path / "data")
    assert shown.returncode == 0, shown.stderr
    assert "Sarah Chen leads Atlas [unverified]." in shown.stdout and "AcceptWithFlags" in shown.stdout
    assert "How this answer was checked" not in shown.stdout and "held to the evidence" not in shown.stdout

    database = Database(path)
    try:
        assert database.schema_version == len(MIGRATIONS)
        assert database.query("SELECT count(*) AS n FROM turns")[0]["n"] == 2
        assert database.query("SELECT support FROM postprocessing")[0]["support"] is None
    finally:
        database.close()


def test_the_chat_lists_flagged_claims_with_their_evidence_live_and_after_a_restart(tmp_path, docs, openai_server):
    openai_server.script(Scripted.reply(ANSWER, pieces=4))
    data_dir = tmp_path / "data"
    engine = launch_engine(data_dir, docs, openai_server)

    async def ask_live():
        app = ChatApp(engine, session_name="launch")
        async with app.run_test(size=(200, 60)) as pilot:
            await send(pilot, QUESTION)
            await settle(pilot)
            return await read_review(app, pilot)

    try:
        live = asyncio.run(ask_live())
    finally:
        engine.close()

    engine = ChatEngine.open(data_dir, load_sample_kb=False)  # a new process's view: SQLite only

    async def resume():  # `chatapp chat --session launch`
        app = ChatApp(engine, session_name="launch")
        async with app.run_test(size=(200, 60)) as pilot:
            await settle(pilot)
            assert len(app.query(AssistantMessage)) == 1
            return await read_review(app, pilot)

    try:
        resumed = asyncio.run(resume())
    finally:
        engine.close()

    for flagged, detail, shown in (live, resumed):
        assert flagged.startswith("Flagged claims")
        assert INVENTED in flagged and "best evidence: The [bold red]Orion[/bold red] rollout starts" in flagged
        assert "(document Launch plan (retrieved))" in flagged
        assert "Model wrote: Kevin Marsh" in detail and "Support: 0.0" in detail
        assert "Best evidence: The [bold red]Orion[/bold red] rollout" in detail
        assert MARKUP in shown and "\x1b" not in shown
    assert live[:2] == resumed[:2]


async def read_review(app, pilot) -> tuple[str, str, str]:
    """(the flagged-claims list, the detail of the [unverified] span once selected, the screen)."""
    # The review is mounted by a message the finished turn posts: on a loaded machine it may come a
    # few frames after the workers are done.
    for _ in range(600):  # up to 30 s: a CI machine has two cores and may be busy
        answer = app.query(AssistantMessage).last()
        if answer.review is not None:
            break
        await pilot.pause(0.05)
    review = answer.review
    flagged = str(review.query_one(".flagged-claims").render())
    options = review.query_one(OptionList)
    unverified = next(i for i, o in enumerate(options.options) if str(o.prompt).startswith("[unverified] Kevin"))
    options.focus()
    await pilot.press("home", *["down"] * unverified, "enter")
    await pilot.pause()
    return flagged, str(review.query_one(".annotation-detail").render()), screen_text(app)


def test_ask_explain_and_json_carry_each_claims_support(tmp_path, docs):
    data_dir = tmp_path / "data"
    assert run_cli("ingest", str(docs), data_dir=data_dir).returncode == 0
    explained = run_cli("ask", "When does the Orion rollout start?", "--model", "offline", "--explain",
                        data_dir=data_dir, env={"COLUMNS": "400"})
    assert explained.returncode == 0, explained.stderr
    table = explained.stdout[explained.stdout.index("support per claim"):]
    assert MARKUP in table and "document Launch plan (retrieved)" in table
    assert "\x1b" not in explained.stdout

    as_json = run_cli("ask", "When does the Orion rollout start?", "--model", "offline", "--json", data_dir=data_dir)
    claims = json.loads(as_json.stdout)["response"]["claim_support"]
    backed = [c for c in claims if c["claim"] and c["evidence"]]
    assert backed and all(c["source"] == "document Launch plan (retrieved)" for c in backed)
    assert all({"score", "flagged", "reason", "span"} <= set(c) for c in claims)


def test_a_secret_quoted_in_an_evidence_sentence_is_stored_redacted(tmp_path, openai_server):
    key = "sk-proj-Q7mT2vX9kLp4Rz8NwB3c"
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "deploy.md").write_text(f"# Deploy\n\nThe Orion deploy pipeline signs builds with {key} today.\n",
                                      encoding="utf-8")
    openai_server.script(Scripted.reply(f"The Orion deploy pipeline signs builds with {key} today."))
    engine = launch_engine(tmp_path / "data", folder, openai_server)
    try:
        result = engine.ask("How are the Orion builds signed?", session="deploy")
        assert any(key in c.evidence for c in result.response.claim_support)  # the check itself saw it
        stored = engine.sessions.claim_support(result.turn_id)
    finally:
        engine.close()
    assert any(SECRET_MARK in c.evidence for c in stored)
    on_disk = b"".join(p.read_bytes() for p in sorted((tmp_path / "data").glob("chatapp.db*")))
    assert key.encode() not in on_disk
