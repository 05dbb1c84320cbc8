"""Sessions and transcripts say what happened: questions counted as questions, a regenerated answer
shown once with the first one labelled, a preprocess run kept apart from the conversation, an
interrupted question still known to the next turn, sessions found by the start of their name or the
words of their first question. Real SQLite files, the real pipeline, the stand-in OpenAI server."""

from __future__ import annotations

import json
import threading

import pytest

from chatapp.engine import ChatEngine
from chatapp.storage.export import session_transcript, to_html, to_markdown
from chatapp.storage.sessions import AmbiguousSession, SessionNameTaken, SessionNotFound
from tests.conftest import SAMPLE_KB, run_cli
from tests.openai_server import Scripted

INVENTED_ANSWER = "Project Atlas is led by Zorblax Quint and Merriwether Plonk, with Quibble Farnsworth."
GOOD_ANSWER = "John Smith leads Project Atlas."


@pytest.fixture()
def engine(tmp_path):
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    engine.ingest(SAMPLE_KB / "entities.jsonl", SAMPLE_KB / "facts.jsonl")
    yield engine
    engine.close()


def test_sessions_list_counts_questions_not_messages(engine):
    for question in ("What is John Smith's email address?", "And his phone?", "Who leads Project Atlas?"):
        engine.ask(question, session="three", model="offline")
    engine.preprocess("what would you send for this?", session="three")  # a preview: no question asked

    listed = run_cli("sessions", "list", "--json", data_dir=engine.settings.data_dir)
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)["sessions"]
    assert row["questions"] == 3
    assert row["title"] == "What is John Smith's email address?"

    table = run_cli("sessions", "list", data_dir=engine.settings.data_dir, env={"COLUMNS": "200"}).stdout
    assert "questions" in table and "What is John Smith's email" in table
    three = next(line for line in table.splitlines() if " three " in f" {line} ")
    assert " 3 " in three and " 6 " not in three and " 7 " not in three


def test_a_regenerated_answer_is_exported_once_with_the_first_labelled(engine, openai_server):
    openai_server.script(Scripted.reply(INVENTED_ANSWER, pieces=3), Scripted.reply(GOOD_ANSWER, pieces=2))
    result = engine.ask("Who leads Project Atlas?", session="regen", model="test-model", api_base=openai_server.url)
    assert result.regenerated and len(openai_server.chat_requests) == 2

    transcript = session_transcript(engine.sessions, engine.sessions.get("regen"))
    markdown = to_markdown(transcript)
    assert markdown.count("## Assistant") == 1 and "## Assistant (regenerated)" in markdown
    # Once as the answer; the account of how it was checked, after it, quotes its sentences again.
    assert markdown[:markdown.index("How this answer was checked")].count(GOOD_ANSWER) == 1
    assert markdown.count("Superseded first answer") == 1
    superseded = markdown[markdown.index("Superseded first answer"):markdown.index("## Assistant (regenerated)")]
    assert "<details>" in superseded and "Zorblax Quint" in superseded and "</details>" in superseded

    page = to_html(transcript)
    assert page.count("Assistant (regenerated)") == 1
    assert page[:page.index("<details class='checked")].count(GOOD_ANSWER) == 1
    first = page[page.index("<details class='turn superseded'>"):page.index("</details>")]
    assert "Superseded first answer" in first and "Zorblax Quint" in first


def test_preprocess_with_a_session_keeps_its_records_but_leaves_no_unanswered_turn(engine):
    engine.preprocess("what is john smiths emial", session="mixed")
    engine.ask("Who leads Project Atlas?", session="mixed", model="offline")

    transcript = session_transcript(engine.sessions, engine.sessions.get("mixed"))
    assert [turn["role"] for turn in transcript["turns"]] == ["user", "assistant"]
    assert transcript["turns"][0]["content"] == "Who leads Project Atlas?"
    (preview,) = transcript["previews"]
    assert preview["content"] == "what is john smiths emial"
    assert preview["corrections"] and preview["resolved_entities"] and preview["prompt_sections"]
    assert "john smiths emial" not in to_markdown(transcript)
    # Nor in what the model is told next: the conversation holds the one question asked.
    follow_up = engine.ask("And who else works on it?", session="mixed", model="offline")
    assert "emial" not in json.dumps(follow_up.preprocessed.prompt.messages)


def test_a_question_stopped_by_the_user_is_still_in_the_next_turns_context(engine, openai_server):
    cancel = threading.Event()
    resume = threading.Event()
    openai_server.script(Scripted.stalled("Quartz lamps need ", pieces=4, stall_after=2, resume=resume),
                         Scripted.reply("Noted."))

    def stop_when_streaming(stage: str, data: dict) -> None:
        if stage == "delta":
            cancel.set()  # as Esc does in the chat

    stopped = engine.ask("How often do the quartz lamps need replacing?", session="stopped", model="test-model",
                         api_base=openai_server.url, on_event=stop_when_streaming, cancel=cancel)
    resume.set()
    assert stopped.status == "interrupted"
    follow_up = engine.ask("And the filters?", session="stopped", model="test-model", api_base=openai_server.url)
    sent = json.dumps(openai_server.chat_requests[-1].body["messages"])
    assert "quartz lamps need replacing" in sent
    assert follow_up.status == "complete"


# --- finding, renaming and deleting sessions -----------------------------------------------------


def test_sessions_are_found_by_exact_name_prefix_or_the_words_of_their_first_question(engine):
    engine.ask("What is John Smith's email address?", session="work-email", model="offline")
    engine.ask("Who leads Project Atlas?", session="work-atlas", model="offline")
    engine.ask("Who leads Project Atlas?", session="work", model="offline")
    store = engine.sessions

    assert store.resolve("work").name == "work"  # an exact name wins over the names it begins
    assert store.resolve("work-e").name == "work-email"
    assert store.resolve(store.get("work-atlas").id[:6]).name == "work-atlas"
    assert store.resolve("john smith email").name == "work-email"
    with pytest.raises(AmbiguousSession, match="work-atlas"):
        store.resolve("work-")
    with pytest.raises(SessionNotFound, match="no session named like 'holiday plans'"):
        store.resolve("holiday plans")


def test_a_session_is_renamed_and_deleted_with_all_its_records(engine):
    engine.ask("What is John Smith's email address?", session="old-name", model="offline")
    engine.ask("Who leads Project Atlas?", session="other", model="offline")
    store = engine.sessions
    renamed = store.rename(store.get("old-name"), "  john's   email ")
    assert renamed.name == "john's email" and store.find("old-name") is None
    with pytest.raises(SessionNameTaken):
        store.rename(renamed, "other")

    store.delete(renamed)
    assert [row["name"] for row in store.list()] == ["other"]
    left = engine.database.query("SELECT count(*) AS n FROM corrections c JOIN turns t ON t.id = c.turn_id "
                                 "WHERE t.session_id = ?", (renamed.id,))
    assert left[0]["n"] == 0
    assert not engine.database.query("SELECT id FROM turns WHERE session_id = ?", (renamed.id,))


def test_chat_flags_are_checked_like_ask_and_an_ambiguous_session_is_one_line(engine):
    engine.ask("Who leads Project Atlas?", session="atlas-one", model="offline")
    engine.ask("Who leads Project Atlas?", session="atlas-two", model="offline")
    data_dir = engine.settings.data_dir

    ambiguous = run_cli("chat", "--session", "atlas", data_dir=data_dir)
    assert ambiguous.returncode == 2
    assert ambiguous.stderr.strip().splitlines() == [
        "error: 'atlas' starts more than one session's name: 'atlas-two', 'atlas-one'"]
    for flags, named in ((["--level", "loud"], "level"), (["--profile", "huge"], "profile"),
                         (["--api-base", "ftp://x"], "--api-base"), (["--model", "nota/provider"], "nota/provider")):
        refused = run_cli("chat", *flags, data_dir=data_dir)
        assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert named in refused.stderr and "Traceback" not in refused.stderr

    # Without a terminal the chat says how to use chatapp from scripts, after the flags were accepted.
    fine = run_cli("chat", "--session", "atlas-o", "--level", "minimal", "--profile", "compact", data_dir=data_dir)
    assert fine.returncode == 0 and "needs a terminal" in fine.stdout
