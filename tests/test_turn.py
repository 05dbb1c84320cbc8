"""Whole turns through a real OpenAI-compatible server on 127.0.0.1:
the seed scenario, failures mid-stream, a killed process, resume and export."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone

import pytest

from chatapp.engine import ChatEngine
from tests.conftest import ROOT, run_cli
from tests.openai_server import Scripted

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)
SEED_QUESTION = "can u help me find johns email from yesterdya"
SEED_ANSWER = ("John's email is john.s@company.org. He mentioned the meeting in his message yesterday about the "
               "Q4 budget review with Sarah from marketing.")


def test_seed_scenario_end_to_end(sample_engine, openai_server):
    openai_server.script(Scripted.reply(SEED_ANSWER, pieces=6))
    streamed: list[str] = []
    result = sample_engine.ask(
        SEED_QUESTION, session="seed", model="gpt-4o-mini", api_base=openai_server.url, now=NOW,
        on_event=lambda stage, data: streamed.append(data["text"]) if stage == "delta" else None,
    )
    assert "".join(streamed) == SEED_ANSWER and len(streamed) > 1
    assert result.preprocessed.corrected_input == "Can you help me find John's email from yesterday?"
    delivered = result.response.delivered
    assert "john.smith@company.com [corrected]" in delivered
    assert "[unverified]" in delivered and "Sarah" in delivered
    assert result.response.original == SEED_ANSWER
    kinds = {f.hallucination_type for f in result.response.hallucination_flags}
    assert "WrongAttribute" in kinds
    wrong = next(f for f in result.response.hallucination_flags if f.hallucination_type == "WrongAttribute")
    assert wrong.suggestion == "john.smith@company.com" and wrong.corrected
    sarah = [f for f in result.response.hallucination_flags if "Sarah" in f.content]
    assert sarah and not any(f.corrected for f in sarah)  # marked [unverified], not rewritten
    assert result.response.recommendation in ("AcceptWithFlags", "CorrectAndDeliver")
    # The model saw the corrected question and the retrieved knowledge, fenced as reference data.
    sent = openai_server.chat_requests[-1].body["messages"]
    flat = json.dumps(sent)
    assert "Can you help me find John's email from yesterday?" in flat
    # Every record of the turn is in SQLite.
    records = sample_engine.sessions.turn_records(result.turn_id)
    assert records["postprocessing"]["recommendation"] == result.response.recommendation
    assert records["hallucination_flags"] and records["llm_calls"][0]["status"] == "ok"
    stored = {(f["hallucination_type"], f["corrected"]) for f in records["hallucination_flags"]}
    assert ("WrongAttribute", True) in stored


def test_a_correct_answer_is_accepted(sample_engine, openai_server):
    openai_server.script(Scripted.reply("John Smith's email is john.smith@company.com.", pieces=3))
    result = sample_engine.ask("What is John Smith's email?", session="correct", model="gpt-4o-mini",
                               api_base=openai_server.url, now=NOW)
    assert result.response.hallucination_flags == []
    assert result.response.recommendation == "Accept"
    assert result.response.delivered == "John Smith's email is john.smith@company.com."


def test_server_error_mid_stream_keeps_the_partial_answer(sample_engine, openai_server):
    openai_server.script(Scripted.broken_stream("The Q4 budget review is on Monday at 2pm in Conference Room B.",
                                                pieces=6, break_after=3))
    result = sample_engine.ask("When is the budget review?", session="broken", model="gpt-4o-mini",
                               api_base=openai_server.url, now=NOW)
    assert result.status == "failed" and result.error
    assert result.response is None
    turns = sample_engine.sessions.turns(sample_engine.sessions.get("broken"))
    assistant = turns[-1]
    assert assistant["role"] == "assistant" and assistant["status"] == "failed"
    assert assistant["content"].startswith("The Q4")  # what arrived is kept
    assert turns[-2]["role"] == "user" and turns[-2]["content"] == "When is the budget review?"


def test_offline_responder_answers_from_the_knowledge_base(sample_engine):
    result = sample_engine.ask("What is John Smith's email address?", session="offline", model="offline", now=NOW)
    assert result.status == "complete"
    assert "john.smith@company.com" in result.response.delivered
    assert "offline" in result.response.delivered.lower()
    assert result.usage.model == "offline" and result.usage.cost == 0


@pytest.mark.parametrize("question", [
    "where is conference room b", "who is sarah chen and when is the q4 budget review", "who leads helios",
    "what did we decide in the q4 budget review", "summarize the northwind contract", "when does atlas cut over",
])
def test_what_the_offline_responder_quotes_from_the_documents_is_not_flagged(sample_engine, question):
    result = sample_engine.ask(question, session="offline-quotes", model="offline", now=NOW)
    assert result.response.hallucination_flags == [], result.response.delivered
    assert "[unverified]" not in result.response.delivered


def test_documents_that_disagree_go_to_a_person_offline_without_a_pointless_retry(tmp_path):
    # Two notes say opposite things; the offline responder quotes both, as it would every time.
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "monday.md").write_text("Monday notes\n\nOrsolya Brandt will attend the safety audit.\n")
    (folder / "tuesday.md").write_text("Tuesday notes\n\nOrsolya Brandt will not attend the safety audit.\n")
    engine = ChatEngine.open(tmp_path / "data")
    try:
        engine.ingest(folder)
        result = engine.ask("Will Orsolya Brandt attend the safety audit?", session="disagree", model="offline",
                            now=NOW)
        assert "LogicalInconsistency" in {f.hallucination_type for f in result.response.hallucination_flags}
        assert not result.regenerated and result.response.recommendation == "HumanReview"
        turns = engine.sessions.turn_records(result.turn_id)
        assert len(turns["llm_calls"]) == 1  # one answer composed, none superseded
    finally:
        engine.close()


def test_a_follow_up_question_is_completed_from_the_previous_turn(sample_engine):
    sample_engine.ask("What is John Smith's email address?", session="follow-up", model="offline", now=NOW)
    result = sample_engine.ask("and sarah?", session="follow-up", model="offline", now=NOW)
    assert result.preprocessed.corrected_input == "And Sarah's email address?"
    assert "sarah.chen@company.com" in result.response.delivered


def test_cli_ask_json_and_export_without_secrets(sample_engine, openai_server, tmp_path):
    openai_server.script(Scripted.reply(SEED_ANSWER, pieces=4))
    data_dir = str(sample_engine.settings.data_dir)
    secret = "sk-test-" + "a1b2c3d4e5f6g7h8i9j0"
    result = run_cli("ask", SEED_QUESTION, "--session", "cli-seed", "--model", "gpt-4o-mini", "--api-base",
                     openai_server.url, "--json", "--data-dir", data_dir, env={"OPENAI_API_KEY": secret})
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    for key in ("original_input", "corrected_input", "corrections", "resolved_entities", "rag_chunks", "prompt",
                "response", "usage"):
        assert key in payload
    assert "[corrected]" in payload["response"]["delivered"]
    assert any(f["corrected"] for f in payload["response"]["hallucination_flags"])
    assert openai_server.chat_requests[-1].headers.get("Authorization", "").endswith(secret)
    # A second question whose sources include several chunks of one document.
    again = run_cli("ask", "who is sarah chen and when is the q4 budget review", "--session", "cli-seed",
                    "--model", "offline", "--data-dir", data_dir)
    assert again.returncode == 0, again.stderr

    for fmt in ("md", "json", "html"):
        out = tmp_path / f"export.{fmt}"
        exported = run_cli("export", "cli-seed", "--format", fmt, "-o", str(out), "--data-dir", data_dir)
        assert exported.returncode == 0, exported.stderr
        text = out.read_text()
        assert "[corrected]" in text and "[unverified]" in text
        assert "WrongAttribute" in text
        assert {"md": "WrongAttribute (corrected)", "json": '"corrected": true',
                "html": "WrongAttribute</span> (corrected)"}[fmt] in text
        assert secret not in text
    for line in (tmp_path / "export.md").read_text().splitlines():
        if line.startswith("Sources: "):  # a document is named once however many of its chunks were used
            entries = line.removeprefix("Sources: ").split("; ")
            assert len(entries) == len(set(entries)), line
    assert json.loads((tmp_path / "export.json").read_text())["session"]["name"] == "cli-seed"


def test_cli_ask_shows_the_answer_again_only_when_checking_changed_it(sample_engine, openai_server):
    data_dir = str(sample_engine.settings.data_dir)
    plain = run_cli("ask", "What is John Smith's email address?", "--model", "offline", "--data-dir", data_dir)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.count("John Smith's email is john.smith@company.com.") == 1
    assert "Accept" in plain.stdout

    openai_server.script(Scripted.reply(SEED_ANSWER, pieces=4))
    fixed = run_cli("ask", SEED_QUESTION, "--model", "gpt-4o-mini", "--api-base", openai_server.url,
                    "--data-dir", data_dir)
    assert fixed.returncode == 0, fixed.stderr
    assert "john.s@company.org" in fixed.stdout  # as it streamed
    assert "john.smith@company.com [corrected]" in fixed.stdout  # then as delivered


def test_killed_during_a_stream_then_resumed(tmp_path, openai_server):
    data_dir = tmp_path / "data"
    engine = ChatEngine.open(data_dir, load_sample_kb=False)
    engine.close()
    openai_server.script(Scripted.reply("one two three four five six seven eight nine ten " * 3, pieces=30,
                                        piece_delay=0.3))
    env = {**os.environ, "CHATAPP_LOAD_SAMPLE_KB": "false"}
    process = subprocess.Popen(
        [sys.executable, "-m", "chatapp", "ask", "count to ten", "--session", "killed", "--model", "gpt-4o-mini",
         "--api-base", openai_server.url, "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )
    deadline = time.time() + 120
    seen = ""
    while time.time() < deadline and len(seen) < 20:
        time.sleep(0.2)
        shown = run_cli("sessions", "show", "killed", "--json", "--data-dir", str(data_dir))
        if shown.returncode == 0:
            turns = json.loads(shown.stdout)["turns"]
            seen = turns[-1]["content"] if turns and turns[-1]["role"] == "assistant" else ""
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert seen, "nothing was checkpointed while streaming"

    shown = run_cli("sessions", "show", "killed", "--json", "--data-dir", str(data_dir))
    turns = json.loads(shown.stdout)["turns"]
    assert [t["role"] for t in turns] == ["user", "assistant"]
    assert turns[0]["content"] == "count to ten"
    assert turns[1]["status"] == "interrupted" and turns[1]["content"].startswith("one two")
    markdown = run_cli("sessions", "show", "killed", "--data-dir", str(data_dir)).stdout
    assert "interrupted" in markdown


def test_his_after_two_people_is_the_man_asked_about_not_a_name_in_a_quoted_email(sample_engine):
    # The answer about Sarah quotes an email greeting "Hi David, Sarah, Emma, Tom": those names stay
    # referable but do not take the focus from John, the only man the user asked about.
    sample_engine.ask("who is John Smith?", session="his", model="offline", now=NOW)
    sample_engine.ask("and Sarah Chen?", session="his", model="offline", now=NOW)
    result = sample_engine.ask("what is his phone number?", session="his", model="offline", now=NOW)
    his = [e for e in result.preprocessed.resolved_entities if e.surface == "his"]
    assert his and his[0].entity_id == "person:john-smith"
    assert "+1 555 0142" in result.response.delivered
