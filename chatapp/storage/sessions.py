"""Sessions and turns in SQLite, and every record of a turn.

The user turn is written before the model is called; the assistant turn is
written as 'streaming' and its text checkpointed as it arrives (see
stream_checkpoint.py), so a killed process leaves what came. A 'streaming'
turn whose process is gone, or whose heartbeat stopped (its pid may since
belong to another program), reads as 'interrupted' and is marked so when a
data dir is next opened for turns.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from chatapp.records import (
    AssembledPrompt,
    ClaimSupport,
    CorrectionRecord,
    KnowledgeChunk,
    PostprocessedResponse,
    ResolvedEntity,
    Usage,
    to_jsonable,
)
from chatapp.redact import redact, redact_value
from chatapp.storage.database import Database
from chatapp.storage.session_errors import AmbiguousSession, SessionNameTaken, SessionNotFound  # noqa: F401
from chatapp.surrogates import repair_surrogates

# A streaming turn's process stamps the time into it this often, even while no text arrives...
HEARTBEAT_SECONDS = 2.0
# ...so a turn unstamped for this long has no live process behind it, whatever its pid says now.
ORPHAN_AFTER_SECONDS = 20.0
# What an orphan is marked with; a process that was only suspended and finishes its turn after all clears it.
ORPHAN_NOTE = "the program stopped while the answer was streaming"


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _dumps(value: Any) -> str:
    """A record as stored: JSON, with every secret in its strings redacted."""
    return json.dumps(redact_value(to_jsonable(value)), ensure_ascii=False)


def _process_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stored_text(text: str) -> str:
    """Text SQLite can encode: a streamed emoji split into surrogate halves is joined, a lone half replaced."""
    return repair_surrogates(text or "")


def _kept(text: str | None) -> str:
    """What the user or the model wrote, as stored: encodable, and with any secret in it (a key pasted
    into a question, a token an answer repeats) redacted. The prompt sent keeps what was typed; the
    disk, and so every export and resumed conversation, does not."""
    return redact(_stored_text(text or ""))


def _stored_meta(meta: dict | None) -> str:
    """A turn's meta as stored: JSON, with any secret an error message carried redacted."""
    return _stored_text(json.dumps(redact_value(meta or {}), ensure_ascii=False))


def _orphaned(meta: dict, created_at: str | None, now: float) -> bool:
    """Whether a 'streaming' turn has no live process behind it: its process is gone, or it has not
    beaten its heartbeat for ORPHAN_AFTER_SECONDS (the pid was reused, or the process hung)."""
    if not _process_alive(int(meta.get("pid") or 0)):
        return True
    beat = meta.get("heartbeat")
    if beat is None and created_at:  # written before heartbeats existed
        try:
            beat = datetime.fromisoformat(created_at).timestamp()
        except ValueError:
            beat = None
    return beat is None or now - float(beat) > ORPHAN_AFTER_SECONDS


@dataclass
class Session:
    id: str
    name: str
    created_at: str
    updated_at: str
    model: str | None
    meta: dict




# A turn `chatapp preprocess --session` stored: its records are kept, but nothing was sent, so it is no
# question of the conversation (not shown, not counted, no unanswered turn in the transcript).
PREVIEW_FLAG = "preprocess_only"
# SQL for "this turn is part of the conversation" (not a preview).
_IN_CONVERSATION = f"json_extract(coalesce(t.meta, '{{}}'), '$.{PREVIEW_FLAG}') IS NULL"


class SessionStore:
    def __init__(self, database: Database):
        self.database = database

    # --- sessions ---------------------------------------------------------------

    def _from_row(self, row: dict) -> Session:
        return Session(
            id=row["id"], name=row["name"], created_at=row["created_at"], updated_at=row["updated_at"],
            model=row["model"], meta=json.loads(row["meta"] or "{}"),
        )

    def find(self, key: str) -> Session | None:
        rows = self.database.query("SELECT * FROM sessions WHERE id = ? OR name = ?", (key, key))
        return self._from_row(rows[0]) if rows else None

    def get(self, key: str) -> Session:
        session = self.find(key)
        if session is None:
            raise SessionNotFound(f"no session named or numbered {key!r} (see `chatapp sessions list`)")
        return session

    def open_or_create(self, name: str | None, model: str | None = None) -> Session:
        if name:
            existing = self.find(name)
            if existing:
                return existing
        session_id = uuid.uuid4().hex[:12]
        stamp = now_iso()
        with self.database.transaction() as db:
            if not name:
                # "chat-<minute>-<4 hex>": short to type, but many sessions a minute (a script calling `ask`)
                # can share four hex digits, so a name taken already gets more of the id.
                prefix = f"chat-{stamp[:16].replace(':', '')}-"
                taken = {row["name"] for row in db.query("SELECT name FROM sessions WHERE name LIKE ?",
                                                         (prefix + "%",))}
                name = next(prefix + session_id[:length] for length in (4, 8, 12)
                            if prefix + session_id[:length] not in taken or length == 12)
            db["sessions"].insert(
                {"id": session_id, "name": name, "created_at": stamp, "updated_at": stamp, "model": model,
                 "meta": "{}"}
            )
        return self.get(session_id)

    def list(self) -> list[dict]:
        """Every session, most recent first, with how many questions it holds (a question and its
        answer are one; a preview is none) and its title: the first question asked."""
        return self.database.query(
            "SELECT s.id, s.name, s.created_at, s.updated_at, s.model, "
            f"(SELECT count(*) FROM turns t WHERE t.session_id = s.id AND t.role = 'user' AND {_IN_CONVERSATION})"
            " AS questions, "
            f"(SELECT t.content FROM turns t WHERE t.session_id = s.id AND t.role = 'user' AND {_IN_CONVERSATION}"
            " ORDER BY t.idx LIMIT 1) AS title "
            "FROM sessions s ORDER BY s.updated_at DESC, s.rowid DESC"
        )

    def resolve(self, key: str) -> Session:
        """The session `key` names: its exact id or name, else the one session whose name or id
        starts with it, else the one that clearly matches it best by name or first question
        (chatapp.storage.session_lookup). SessionNotFound, listing the candidates, otherwise."""
        exact = self.find(key)
        if exact is not None:
            return exact
        from chatapp.storage.session_lookup import match_session  # rapidfuzz: loaded only when needed

        return self.get(match_session(self.list(), key)["id"])

    def rename(self, session: Session, name: str) -> Session:
        name = " ".join(name.split())
        if not name:
            raise ValueError("a session needs a name")
        if name != session.name and self.find(name) is not None:
            raise SessionNameTaken(f"a session called {name!r} exists already")
        with self.database.transaction() as db:
            db.execute("UPDATE sessions SET name = ? WHERE id = ?", (_stored_text(name), session.id))
        return self.get(session.id)

    def delete(self, session: Session) -> None:
        """The session, its turns and every record of them, gone in one transaction."""
        turn_ids = "SELECT id FROM turns WHERE session_id = ?"
        with self.database.transaction() as db:
            for table in ("corrections", "resolved_entities", "rag_chunks", "prompts", "prompt_sections",
                          "llm_calls", "postprocessing", "hallucination_flags", "claim_support"):
                db.execute(f"DELETE FROM {table} WHERE turn_id IN ({turn_ids})", (session.id,))
            db.execute("DELETE FROM turns WHERE session_id = ?", (session.id,))
            db.execute("DELETE FROM sessions WHERE id = ?", (session.id,))

    def save_state(self, session: Session, state: dict) -> None:
        self.update_state(session, lambda _stored: state)

    def update_state(self, session: Session, change: Callable[[dict | None], dict]) -> dict:
        """Apply `change` to the session's stored dialogue state and store what it returns.

        The state is read inside the write transaction (BEGIN IMMEDIATE takes the write lock
        first), so two turns of one session finishing at once, in threads or processes, each
        change what the other stored rather than overwrite it."""
        with self.database.transaction() as db:
            row = db.execute("SELECT meta FROM sessions WHERE id = ?", (session.id,)).fetchone()
            meta = json.loads(row[0] or "{}") if row else {}
            # The conversation's memory holds the turns' text too: it is kept redacted like them.
            meta["dialogue_state"] = redact_value(change(meta.get("dialogue_state")))
            db.execute(
                "UPDATE sessions SET meta = ?, updated_at = ? WHERE id = ?",
                (_stored_text(json.dumps(meta, ensure_ascii=False)), now_iso(), session.id),
            )
        session.meta = meta
        return meta["dialogue_state"]

    # --- turns ------------------------------------------------------------------

    def add_turn(self, session: Session, role: str, content: str, status: str = "complete", meta: dict | None = None) -> int:
        with self.database.transaction() as db:
            idx = db.execute("SELECT coalesce(max(idx), -1) + 1 FROM turns WHERE session_id = ?", (session.id,)).fetchone()[0]
            if status == "streaming":
                meta = {**(meta or {}), "pid": os.getpid(), "heartbeat": time.time()}
            cursor = db.execute(
                "INSERT INTO turns(session_id, idx, role, content, created_at, status, meta) VALUES (?,?,?,?,?,?,?)",
                (session.id, idx, role, _kept(content), now_iso(), status, _stored_meta(meta)),
            )
            db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now_iso(), session.id))
            return cursor.lastrowid

    def add_user_turn(self, session: Session, pre, meta: dict | None = None) -> int:
        """The user's message as typed, with every record its preprocessing made."""
        turn_id = self.add_turn(session, "user", pre.original_input,
                                meta={"corrected": pre.corrected_input, **(meta or {})})
        self.save_preprocessing(turn_id, pre.corrections, pre.suggestions, pre.resolved_entities,
                                pre.rag_chunks, pre.prompt)
        return turn_id

    def checkpoint(self, turn_id: int, content: str) -> None:
        """The text that has arrived so far, with a heartbeat: the stream is alive."""
        with self.database.transaction() as db:
            db.execute("UPDATE turns SET content = ?, meta = json_set(coalesce(meta, '{}'), '$.heartbeat', ?) "
                       "WHERE id = ?", (_kept(content), time.time(), turn_id))

    def heartbeat(self, turn_id: int) -> None:
        """The stream is alive though no text arrived (a slow first byte, a stall)."""
        with self.database.transaction() as db:
            db.execute("UPDATE turns SET meta = json_set(coalesce(meta, '{}'), '$.heartbeat', ?) "
                       "WHERE id = ? AND status = 'streaming'", (time.time(), turn_id))

    def finish_turn(self, turn_id: int, content: str, status: str, meta: dict | None = None) -> None:
        with self.database.transaction() as db:
            old = json.loads(db.execute("SELECT meta FROM turns WHERE id = ?", (turn_id,)).fetchone()[0] or "{}")
            old.pop("pid", None)
            old.pop("heartbeat", None)
            if old.get("error") == ORPHAN_NOTE:
                old.pop("error")
            db.execute(
                "UPDATE turns SET content = ?, status = ?, meta = ? WHERE id = ?",
                (_kept(content), status, _stored_meta({**old, **(meta or {})}), turn_id),
            )

    def turns(self, session: Session, previews: bool = False) -> list[dict]:
        """The conversation's turns in order; with `previews`, only the turns `chatapp preprocess
        --session` stored instead (their records kept, nothing sent)."""
        rows = self.database.query("SELECT * FROM turns WHERE session_id = ? ORDER BY idx", (session.id,))
        now = time.time()
        for row in rows:
            row["meta"] = json.loads(row["meta"] or "{}")
            if row["status"] == "streaming" and _orphaned(row["meta"], row["created_at"], now):
                row["status"] = "interrupted"
        return [row for row in rows if bool(row["meta"].get(PREVIEW_FLAG)) == previews]

    def mark_orphans_interrupted(self) -> int:
        """Turns left 'streaming' by a process that died (or stopped beating its heartbeat) are
        'interrupted' from now on; turns another live process is streaming are left alone.
        Returns how many were marked."""
        sql = "SELECT id, meta, created_at FROM turns WHERE status = 'streaming'"
        if not self.database.query(sql):
            return 0  # the usual case: no write lock taken at start-up
        marked = 0
        with self.database.transaction() as db:
            now = time.time()
            for turn_id, meta_json, created_at in db.execute(sql).fetchall():  # read again under the lock
                meta = json.loads(meta_json or "{}")
                if not _orphaned(meta, created_at, now):
                    continue
                meta.pop("pid", None)
                meta.pop("heartbeat", None)
                meta.setdefault("error", ORPHAN_NOTE)
                db.execute("UPDATE turns SET status = 'interrupted', meta = ? WHERE id = ? AND status = 'streaming'",
                           (_stored_meta(meta), turn_id))
                marked += 1
        return marked

    # --- the records of a turn --------------------------------------------------------

    def save_preprocessing(self, turn_id: int, corrections: list[CorrectionRecord], suggestions: list[CorrectionRecord],
                           entities: list[ResolvedEntity], chunks: list[KnowledgeChunk], prompt: AssembledPrompt) -> None:
        with self.database.transaction() as db:
            db["corrections"].insert_all(
                [
                    {"turn_id": turn_id, "tier": c.tier, "span_start": c.span[0], "span_end": c.span[1],
                     "original": _kept(c.original), "corrected": _kept(c.corrected),
                     "correction_type": c.correction_type,
                     "confidence": c.confidence, "alternatives": _dumps(c.alternatives), "applied": int(c.applied)}
                    for c in [*corrections, *suggestions]
                ]
            )
            db["resolved_entities"].insert_all(
                [
                    {"turn_id": turn_id, "surface": _kept(e.surface), "span_start": e.span[0], "span_end": e.span[1],
                     "entity_id": e.entity_id, "canonical_name": e.canonical_name, "entity_type": e.entity_type,
                     "confidence": e.confidence, "attributes": _dumps(e.attributes)}
                    for e in entities
                ]
            )
            db["rag_chunks"].insert_all(
                [
                    {"turn_id": turn_id, "chunk_id": c.chunk_id, "rank": n, "relevance": c.relevance,
                     "source": c.source, "title": c.title}
                    for n, c in enumerate(chunks, start=1)
                ]
            )
            db["prompts"].insert(
                {"turn_id": turn_id, "budget_profile": prompt.budget_profile, "token_count": prompt.token_count,
                 "warnings": _dumps(prompt.warnings), "messages": _dumps(prompt.messages), "meta": _dumps(prompt.meta)},
                replace=True,
            )
            db["prompt_sections"].insert_all(
                [
                    {"turn_id": turn_id, "name": s.name, "tokens": s.tokens, "budget": s.budget,
                     "truncated": int(s.truncated)}
                    for s in prompt.sections
                ]
            )

    def save_llm_call(self, turn_id: int | None, usage: Usage, status: str, error: str | None = None,
                      attempts: int = 1, first_byte_ms: float | None = None) -> None:
        with self.database.transaction() as db:
            db["llm_calls"].insert(
                {"turn_id": turn_id, "model": usage.model, "prompt_tokens": usage.prompt_tokens,
                 "completion_tokens": usage.completion_tokens, "cost": usage.cost, "latency_ms": usage.latency_ms,
                 "first_byte_ms": first_byte_ms, "status": status, "error": error and redact(error),
                 "attempts": attempts,
                 "created_at": now_iso()}
            )

    def save_postprocessing(self, turn_id: int, result: PostprocessedResponse) -> None:
        with self.database.transaction() as db:
            db["postprocessing"].insert(
                {"turn_id": turn_id, "original": _kept(result.original), "delivered": _kept(result.delivered),
                 "coherence": _dumps(result.coherence), "factual_validation": _dumps(result.factual_validation),
                 "recommendation": result.recommendation, "confidence": result.confidence,
                 "support": result.support},
                replace=True,
            )
            db["hallucination_flags"].insert_all(
                [
                    {"turn_id": turn_id, "hallucination_type": f.hallucination_type, "span_start": f.span[0],
                     "span_end": f.span[1], "content": _kept(f.content), "confidence": f.confidence,
                     "suggestion": f.suggestion and _kept(f.suggestion), "evidence": _dumps(f.evidence), "corrected": int(f.corrected)}
                    for f in result.hallucination_flags
                ]
            )
            # The evidence sentences quote the user's documents and the earlier turns: redacted like them.
            db["claim_support"].insert_all(
                [
                    {"turn_id": turn_id, "position": n, "text": _kept(c.text), "span_start": c.span[0],
                     "span_end": c.span[1], "is_claim": int(c.claim), "score": c.score, "threshold": c.threshold,
                     "flagged": int(c.flagged), "reason": _kept(c.reason), "evidence": _kept(c.evidence),
                     "source": _kept(c.source), "missing": _dumps(c.missing), "features": _dumps(c.features)}
                    for n, c in enumerate(result.claim_support)
                ]
            )

    def usage_totals(self, session: Session) -> dict:
        row = self.database.query(
            "SELECT count(*) AS calls, coalesce(sum(prompt_tokens),0) AS prompt_tokens, "
            "coalesce(sum(completion_tokens),0) AS completion_tokens, coalesce(sum(cost),0) AS cost "
            "FROM llm_calls c JOIN turns t ON t.id = c.turn_id WHERE t.session_id = ?",
            (session.id,),
        )
        return row[0]

    def retrieved(self, turn_id: int) -> list[dict]:
        """The chunks a question's turn retrieved, best first (their title, source and relevance)."""
        return self.database.query("SELECT * FROM rag_chunks WHERE turn_id = ? ORDER BY rank", (turn_id,))

    def turn_records(self, turn_id: int) -> dict:
        """Everything stored about one turn, for export and `sessions show`."""
        q = self.database.query
        records = {
            "corrections": q("SELECT * FROM corrections WHERE turn_id = ? ORDER BY span_start", (turn_id,)),
            "resolved_entities": q("SELECT * FROM resolved_entities WHERE turn_id = ?", (turn_id,)),
            "rag_chunks": self.retrieved(turn_id),
            "prompt": (q("SELECT * FROM prompts WHERE turn_id = ?", (turn_id,)) or [None])[0],
            "prompt_sections": q("SELECT * FROM prompt_sections WHERE turn_id = ?", (turn_id,)),
            "llm_calls": q("SELECT * FROM llm_calls WHERE turn_id = ?", (turn_id,)),
            "postprocessing": (q("SELECT * FROM postprocessing WHERE turn_id = ?", (turn_id,)) or [None])[0],
            "hallucination_flags": q("SELECT * FROM hallucination_flags WHERE turn_id = ?", (turn_id,)),
            "claim_support": self._claim_rows(turn_id),
        }
        for key in ("corrections", "resolved_entities", "hallucination_flags"):
            for row in records[key]:
                for field in ("alternatives", "attributes", "evidence"):
                    if isinstance(row.get(field), str):
                        row[field] = json.loads(row[field])
        for row in records["hallucination_flags"]:
            row["corrected"] = bool(row.get("corrected"))
        return records

    def claim_support(self, turn_id: int) -> list[ClaimSupport]:
        """How well the evidence supported each sentence of the turn's answer, as stored (empty for
        a turn checked before this was kept, or never checked)."""
        return [claim_support_record(row) for row in self._claim_rows(turn_id)]

    def _claim_rows(self, turn_id: int) -> list[dict]:
        rows = self.database.query("SELECT * FROM claim_support WHERE turn_id = ? ORDER BY position", (turn_id,))
        return [_claim_row(row) for row in rows]


def _claim_row(row: dict) -> dict:
    """A stored claim_support row as exported: flags as booleans, lists and features parsed, the
    table's own keys left out."""
    return {"text": row["text"], "span": [row["span_start"], row["span_end"]], "claim": bool(row["is_claim"]),
            "score": row["score"], "threshold": row["threshold"], "flagged": bool(row["flagged"]),
            "reason": row["reason"] or "", "evidence": row["evidence"] or "", "source": row["source"] or "",
            "missing": json.loads(row["missing"] or "[]"), "features": json.loads(row["features"] or "{}")}


def claim_support_record(row: dict) -> ClaimSupport:
    """The ClaimSupport an exported row (`_claim_row`) describes."""
    return ClaimSupport(text=row["text"] or "", span=tuple(row["span"]), score=row["score"] or 0.0,
                        evidence=row["evidence"], source=row["source"], flagged=row["flagged"],
                        threshold=row["threshold"] or 0.0, reason=row["reason"], claim=row["claim"],
                        features=row["features"], missing=row["missing"])
