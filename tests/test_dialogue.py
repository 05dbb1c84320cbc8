"""The dialogue state: salience, questions under discussion, topic, persistence."""

from __future__ import annotations

import json
import sqlite3

from chatapp.preprocess.dialogue import DialogueState
from chatapp.records import KnowledgeChunk

STAMP = "2026-12-02T10:00:00"


def test_mentioned_entities_are_fully_salient_and_others_fade():
    state = DialogueState()
    state.add_user_turn("who is John Smith?", STAMP, ["person:john-smith"], is_question=True)
    state.add_user_turn("and Sarah Chen?", STAMP, ["person:sarah-chen"], is_question=True)
    assert state.salience["person:sarah-chen"] == 1.0
    assert abs(state.salience["person:john-smith"] - 0.8) < 1e-9
    assert [e for e, _ in state.salient()] == ["person:sarah-chen", "person:john-smith"]
    for _ in range(15):
        state.add_user_turn("ok thanks", STAMP, [])
    assert state.salience == {}  # long forgotten entities drop out


def test_decay_rate_is_configurable_and_dates_are_not_referents():
    state = DialogueState(decay=0.5)
    state.add_user_turn("John's email from yesterday", STAMP, ["person:john-smith", "date:2026-12-01"])
    state.add_user_turn("thanks", STAMP, [])
    assert state.salience == {"person:john-smith": 0.5}
    assert state.turns[0].entity_ids == ["person:john-smith", "date:2026-12-01"]


def test_answers_boost_their_entities_and_mark_unverified_ones():
    state = DialogueState()
    state.add_user_turn("who runs Atlas?", STAMP, ["project:atlas"], is_question=True)
    state.add_assistant_turn("John Smith owns it, with Sarah from marketing.", STAMP,
                             ["person:john-smith"], unverified_entity_ids=["unknown:sarah-marketing"],
                             entity_info={"unknown:sarah-marketing": {"name": "Sarah", "type": "person"}})
    assert state.salience["person:john-smith"] == state.assistant_boost
    assert state.salience["unknown:sarah-marketing"] == state.unverified_boost
    assert state.unverified == {"unknown:sarah-marketing"}
    assert state.entity_info["unknown:sarah-marketing"]["type"] == "person"


def test_names_only_in_a_quoted_passage_are_referable_but_not_the_focus():
    from chatapp.postprocess.layout import split_quoted

    answer = ("Sarah Chen is the Finance Manager.\n\nFrom your documents:\n"
              "- Hi David, Sarah, Emma, Tom, (2026-11-26-q4-budget-review.eml)\n\nSources: entities.jsonl")
    own, quoted = split_quoted(answer)
    assert own.strip() == "Sarah Chen is the Finance Manager."
    assert quoted == "- Hi David, Sarah, Emma, Tom, (2026-11-26-q4-budget-review.eml)"
    state = DialogueState()
    state.add_user_turn("and Sarah Chen?", STAMP, ["person:sarah-chen"], is_question=True)
    state.add_assistant_turn(answer, STAMP, ["person:sarah-chen"], quoted_entity_ids=["person:david-okafor",
                                                                                     "person:sarah-chen"])
    assert state.salience["person:sarah-chen"] == state.assistant_boost  # named in its own words too
    assert state.salience["person:david-okafor"] == state.quoted_boost < state.assistant_boost
    assert DialogueState.from_json(state.to_json()).quoted_boost == state.quoted_boost


def test_questions_are_pushed_and_popped_when_answered():
    state = DialogueState()
    state.add_user_turn("what is John's email?", STAMP, [], is_question=True)
    state.add_user_turn("and his phone?", STAMP, [], is_question=True)
    assert state.qud == ["what is John's email?", "and his phone?"]
    state.add_assistant_turn("I could not reach the directory.", STAMP, [], answered=False)
    assert state.open_question == "and his phone?"
    state.add_assistant_turn("+1 555 0142", STAMP, [])
    assert state.qud == ["what is John's email?"]
    state.add_user_turn("thanks, that's all", STAMP, [], is_question=False)
    assert state.qud == ["what is John's email?"]


def test_topic_keywords_come_from_recent_turns_without_filler():
    state = DialogueState()
    state.add_user_turn("can you help me find the Q4 budget review notes for Project Atlas?", STAMP, [], True)
    state.add_assistant_turn("The Q4 budget review covered Atlas spend and the migration budget.", STAMP, [])
    state.add_user_turn("what did the budget review decide about Atlas?", STAMP, [], True)
    keywords = state.topic["keywords"]
    assert keywords[:3] == ["budget", "review", "atlas"]
    assert len(keywords) <= 10
    assert not {"can", "you", "help", "find", "the", "what"} & set(keywords)
    assert state.topic["label"]


def test_topic_shift_starts_a_new_topic_and_keeps_the_old_one():
    state = DialogueState()
    state.add_user_turn("what is the status of the Atlas warehouse migration?", STAMP, ["project:atlas"], True)
    first_label = state.topic["label"]
    # Same entity, new words: still the same conversation.
    state.add_user_turn("who is the vendor on it?", STAMP, ["project:atlas"], True)
    assert state.topic_history == []
    state.add_user_turn("book a conference room for the offsite catering tasting", STAMP, [], False)
    assert state.topic["label"] != first_label
    assert "catering" in state.topic["keywords"] and "migration" not in state.topic["keywords"]
    assert state.topic_history[-1]["label"] == first_label


def test_noted_documents_are_remembered_most_recent_first():
    state = DialogueState()
    email = KnowledgeChunk("c1", "emails/a.eml", 0.9, "…", title="Budget follow-up", document_id="d1", date="2026-12-01")
    email_again = KnowledgeChunk("c2", "emails/a.eml", 0.8, "…", title="Budget follow-up", document_id="d1")
    note = KnowledgeChunk("c3", "notes/b.md", 0.7, "…", title="Atlas sync", document_id="d2", date="2026-12-01")
    state.note_documents([email, email_again])
    state.note_documents([note])
    assert state.last_document == {"document_id": "d2", "source": "notes/b.md", "title": "Atlas sync", "date": "2026-12-01"}
    assert [d["document_id"] for d in state.recent_documents] == ["d2", "d1"]
    state.note_documents([])
    assert state.last_document["document_id"] == "d2"


def test_state_round_trips_through_json_in_sqlite(tmp_path):
    state = DialogueState(decay=0.7)
    state.add_user_turn("who runs the Q4 budget review?", STAMP, ["event:q4-budget-review"], is_question=True)
    state.add_assistant_turn("John Smith organizes it.", STAMP, ["person:john-smith"], unverified_entity_ids=["x:1"])
    state.note_documents([KnowledgeChunk("c1", "emails/a.eml", 0.9, "…", title="Follow-up", document_id="d1")])
    state.add_user_turn("and who attends?", STAMP, [], is_question=True)

    db = sqlite3.connect(tmp_path / "state.db")
    db.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, meta TEXT)")
    db.execute("INSERT INTO sessions VALUES ('s1', ?)", (json.dumps({"dialogue_state": state.to_json()}),))
    db.commit()
    stored = json.loads(db.execute("SELECT meta FROM sessions WHERE id = 's1'").fetchone()[0])["dialogue_state"]
    db.close()

    restored = DialogueState.from_json(stored)
    assert restored.to_json() == state.to_json()
    assert restored.turns == state.turns
    assert restored.decay == 0.7 and restored.unverified == {"x:1"}
    assert restored.document_salience() == state.document_salience()
    # A restored state keeps updating the same way.
    restored.add_user_turn("thanks", STAMP, [])
    state.add_user_turn("thanks", STAMP, [])
    assert restored.to_json() == state.to_json()


def test_empty_or_missing_state_is_a_fresh_one():
    for data in (None, {}):
        state = DialogueState.from_json(data)
        assert state.turns == [] and state.salience == {} and state.qud == [] and state.last_document is None


def _long_chat(state: DialogueState, exchanges: int) -> None:
    """An opening exchange about the Atlas launch budget, then `exchanges` of everyday chatter."""
    state.add_user_turn("What is the launch budget for Project Atlas?", STAMP, ["project:atlas"], is_question=True)
    state.add_assistant_turn("Project Atlas has a launch budget of £240,000, approved by Priya Natarajan.", STAMP,
                             ["project:atlas", "person:priya-natarajan"])
    chatter = ["when is the ferry to Harbourside?", "who cooks on Thursday?", "what did the plumber quote?",
               "where are the garden tools kept?", "which film is on at the Regal tonight?"]
    for n in range(exchanges):
        state.add_user_turn(chatter[n % len(chatter)], STAMP, [], is_question=True)
        state.add_assistant_turn(f"Answer number {n}: the notes say something about it.", STAMP, [])


def test_a_long_conversation_keeps_a_bounded_memory_and_an_earlier_summary(tmp_path):
    from chatapp.preprocess.context import build_context
    from chatapp.preprocess.dialogue import FOLD_EVERY, REMEMBERED_TURNS
    from chatapp.storage.database import Database
    from chatapp.storage.sessions import SessionStore

    # Through the session store, as each turn stores it: read, change, write back.
    database = Database(tmp_path / "chatapp.db")
    store = SessionStore(database)
    session = store.open_or_create("long-chat")
    exchanges = 2 * (REMEMBERED_TURNS + FOLD_EVERY)

    def chat(stored):
        state = DialogueState.from_json(stored)
        _long_chat(state, exchanges)
        return state.to_json()

    store.update_state(session, chat)
    for _ in range(3):  # more turns later: the stored memory does not grow with them
        store.update_state(session, lambda stored: _one_more_exchange(stored))
    stored = store.get("long-chat").meta["dialogue_state"]
    database.close()

    state = DialogueState.from_json(stored)
    total = 2 + 2 * exchanges + 6
    assert len(stored["turns"]) <= REMEMBERED_TURNS + FOLD_EVERY
    assert state.turn_count == total and state.turns[-1].turn_id == total - 1
    assert len(json.dumps(stored)) < 60_000
    # The opening topic is still remembered, in the folded summary and in the prompt's summary.
    earlier = " ".join(t.content for t in state.earlier)
    assert "Atlas" in earlier and "240,000" in earlier
    context = build_context(state.turns, [], state.salience, None, state.topic, None, "", earlier=state.earlier)
    assert "Atlas" in context.summary
    # The counters still count the whole conversation: the documents noted now are fresh.
    state.note_documents([KnowledgeChunk(chunk_id="c1", source="notes.md", relevance=1.0, content="x", document_id="d1")])
    assert state.documents_noted_at == total and state.document_salience() == 1.0


def _one_more_exchange(stored: dict) -> dict:
    state = DialogueState.from_json(stored)
    state.add_user_turn("and the bins, which day?", STAMP, [], is_question=True)
    state.add_assistant_turn("Tuesday, the notes say.", STAMP, [])
    return state.to_json()


def test_sessions_opened_in_one_minute_never_share_a_name(tmp_path, monkeypatch):
    import uuid

    from chatapp.storage.database import Database
    from chatapp.storage.sessions import SessionStore

    store = SessionStore(Database(tmp_path / "chatapp.db"))
    # A script calling `chatapp ask` many times a minute: ids whose first four hex digits agree.
    ids = iter(["f1c8b324b3dd0000", "f1c8aa11bb220000", "f1c8aa1199990000"])
    monkeypatch.setattr(uuid, "uuid4", lambda: type("U", (), {"hex": next(ids)})())
    import chatapp.storage.sessions as sessions

    monkeypatch.setattr(sessions, "now_iso", lambda: "2026-12-07T12:51:07+00:00")  # all within one minute
    names = [store.open_or_create(None).name for _ in range(3)]
    assert len(set(names)) == 3
    assert names[0].endswith("-f1c8") and names[1].endswith("-f1c8aa11") and names[2].endswith("-f1c8aa119999")
