"""The SQLite file that holds sessions, turns, per-turn records and the
knowledge registry. WAL lets readers work while one writer writes; the busy
timeout makes a second process wait its turn instead of failing."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from chatapp.storage.problems import StorageError, describe


def _import_sqlite_utils():
    """sqlite_utils, imported on the first write: commands that only read records (`sessions list`,
    `export`, `kb stats`) read through sqlite3 alone, and its import (with click, pluggy and dateutil)
    was most of what they cost above `--help`.

    sqlite_utils imports numpy and pandas when it can, only to name the column types of tables it
    creates from Python values; chatapp's tables come from SQL migrations. numpy costs a command a
    quarter of its time, so it is left out of this import unless something loaded it already (it is
    then used as before)."""
    from chatapp.optional_imports import left_out

    with left_out("numpy", "pandas"):
        import sqlite_utils
    return sqlite_utils


BUSY_TIMEOUT_SECONDS = 60


def _run_statements(db: sqlite3.Connection, script: str) -> None:
    # Not executescript(): it commits first, which would end our migration transaction.
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _m001_initial(db: sqlite3.Connection) -> None:
    _run_statements(
        db,
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY, name TEXT UNIQUE, created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL, model TEXT, meta TEXT DEFAULT '{}'
        );
        CREATE TABLE turns (
            id INTEGER PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id),
            idx INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,
            created_at TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'complete',  -- complete | streaming | interrupted | failed
            meta TEXT DEFAULT '{}'
        );
        CREATE INDEX turns_session ON turns(session_id, idx);
        CREATE TABLE corrections (
            id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id),
            tier TEXT, span_start INTEGER, span_end INTEGER, original TEXT, corrected TEXT,
            correction_type TEXT, confidence REAL, alternatives TEXT, applied INTEGER
        );
        CREATE TABLE resolved_entities (
            id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id),
            surface TEXT, span_start INTEGER, span_end INTEGER, entity_id TEXT,
            canonical_name TEXT, entity_type TEXT, confidence REAL, attributes TEXT
        );
        CREATE TABLE rag_chunks (
            id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id),
            chunk_id TEXT, rank INTEGER, relevance REAL, source TEXT, title TEXT
        );
        CREATE TABLE prompts (
            turn_id INTEGER PRIMARY KEY REFERENCES turns(id), budget_profile TEXT,
            token_count INTEGER, warnings TEXT, messages TEXT, meta TEXT
        );
        CREATE TABLE prompt_sections (
            id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id),
            name TEXT, tokens INTEGER, budget INTEGER, truncated INTEGER
        );
        CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY, turn_id INTEGER REFERENCES turns(id), model TEXT,
            prompt_tokens INTEGER, completion_tokens INTEGER, cost REAL, latency_ms REAL,
            first_byte_ms REAL, status TEXT, error TEXT, attempts INTEGER, created_at TEXT
        );
        CREATE TABLE postprocessing (
            turn_id INTEGER PRIMARY KEY REFERENCES turns(id), original TEXT, delivered TEXT,
            coherence TEXT, factual_validation TEXT, recommendation TEXT, confidence REAL
        );
        CREATE TABLE hallucination_flags (
            id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id),
            hallucination_type TEXT, span_start INTEGER, span_end INTEGER, content TEXT,
            confidence REAL, suggestion TEXT, evidence TEXT
        );

        CREATE TABLE entities (
            id TEXT PRIMARY KEY, type TEXT NOT NULL, name TEXT NOT NULL, description TEXT,
            prior REAL DEFAULT 0.5, source TEXT, updated_at TEXT
        );
        CREATE TABLE entity_aliases (
            entity_id TEXT NOT NULL REFERENCES entities(id), alias TEXT NOT NULL,
            alias_norm TEXT NOT NULL, PRIMARY KEY (entity_id, alias)
        );
        CREATE INDEX entity_aliases_norm ON entity_aliases(alias_norm);
        CREATE TABLE entity_attributes (
            entity_id TEXT NOT NULL REFERENCES entities(id), key TEXT NOT NULL,
            value TEXT, PRIMARY KEY (entity_id, key)
        );
        CREATE TABLE facts (
            id TEXT PRIMARY KEY, subject TEXT NOT NULL, predicate TEXT NOT NULL,
            object TEXT NOT NULL, source TEXT, confidence REAL DEFAULT 1.0
        );
        CREATE INDEX facts_subject ON facts(subject);
        CREATE TABLE documents (
            id TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, title TEXT, format TEXT,
            content_hash TEXT NOT NULL, doc_date TEXT, indexed_at TEXT NOT NULL,
            size INTEGER, metadata TEXT DEFAULT '{}'
        );
        CREATE TABLE chunks (
            id TEXT PRIMARY KEY, document_id TEXT NOT NULL REFERENCES documents(id),
            idx INTEGER NOT NULL, start INTEGER, end INTEGER, hash TEXT, tokens INTEGER
        );
        CREATE INDEX chunks_document ON chunks(document_id);
        -- Data files (entities.jsonl, facts.jsonl) seen by ingest, for idempotence.
        CREATE TABLE registry_files (
            path TEXT PRIMARY KEY, content_hash TEXT NOT NULL, kind TEXT, loaded_at TEXT
        );
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        """
    )


def _m002_fact_times(db: sqlite3.Connection) -> None:
    # When a fact was last stored: a changed value with the same number of facts
    # must still invalidate what readers built from the registry.
    db.execute("ALTER TABLE facts ADD COLUMN updated_at TEXT")


def _m003_flag_corrected(db: sqlite3.Connection) -> None:
    # Whether delivery replaced the flagged text with the suggestion ([corrected]) or only marked it.
    db.execute("ALTER TABLE hallucination_flags ADD COLUMN corrected INTEGER NOT NULL DEFAULT 0")


def _m004_learnt_knowledge(db: sqlite3.Connection) -> None:
    # What ingest learns from the user's own documents. `observations` holds what each document
    # says (redone when the file changes, dropped with it); the registry's extracted entities are
    # merged from them. `origin` tells the user's own records from extracted ones and the sample's;
    # `attribute_history` keeps every value a key had, current or superseded, with its source.
    _run_statements(
        db,
        """
        ALTER TABLE documents ADD COLUMN origin TEXT NOT NULL DEFAULT 'user';
        ALTER TABLE entities ADD COLUMN origin TEXT NOT NULL DEFAULT 'user';
        ALTER TABLE facts ADD COLUMN origin TEXT NOT NULL DEFAULT 'user';
        CREATE TABLE observations (
            document_id TEXT NOT NULL REFERENCES documents(id), subject TEXT NOT NULL,
            subject_type TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            confidence REAL NOT NULL, method TEXT NOT NULL, position INTEGER, doc_date TEXT,
            previous TEXT
        );
        CREATE INDEX observations_document ON observations(document_id);
        CREATE TABLE attribute_history (
            entity_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, status TEXT NOT NULL,
            source TEXT, position INTEGER, doc_date TEXT, confidence REAL, method TEXT
        );
        CREATE INDEX attribute_history_entity ON attribute_history(entity_id);
        """,
    )


def _m005_claim_support(db: sqlite3.Connection) -> None:
    # How well the evidence supported each sentence of a checked answer (postprocess/support.py),
    # kept with the turn so a resumed chat and an export can say how the answer was checked.
    # `is_claim` 0: a sentence that claims nothing (a question, a courtesy). Spans are in the
    # model's original answer, as the flags' are. `support` is the answer's as a whole.
    _run_statements(
        db,
        """
        CREATE TABLE claim_support (
            id INTEGER PRIMARY KEY, turn_id INTEGER NOT NULL REFERENCES turns(id),
            position INTEGER NOT NULL, text TEXT, span_start INTEGER, span_end INTEGER,
            is_claim INTEGER NOT NULL DEFAULT 1, score REAL, threshold REAL,
            flagged INTEGER NOT NULL DEFAULT 0, reason TEXT, evidence TEXT, source TEXT,
            missing TEXT, features TEXT
        );
        CREATE INDEX claim_support_turn ON claim_support(turn_id, position);
        ALTER TABLE postprocessing ADD COLUMN support REAL
        """,
    )


def _m006_word_forms(db: sqlite3.Connection) -> None:
    # How each document writes the words it gives capitals mid-sentence ("the Abuja office"), beside its
    # lower-case uses of them (form = lower): preprocessing capitalises a word the documents always do
    # (chatapp/knowledge/word_forms.py). Redone with the document, dropped with it.
    _run_statements(
        db,
        """
        CREATE TABLE word_forms (
            document_id TEXT NOT NULL REFERENCES documents(id), lower TEXT NOT NULL, form TEXT NOT NULL,
            uses INTEGER NOT NULL
        );
        CREATE INDEX word_forms_document ON word_forms(document_id);
        -- Covers the sums preprocessing reads per word and form (Registry.document_word_uses): three
        -- times faster over a 2,000-document folder's 600,000 rows.
        CREATE INDEX word_forms_word ON word_forms(lower, form, uses)
        """,
    )


# Append new migrations; never edit one that has shipped.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _m001_initial, _m002_fact_times, _m003_flag_corrected, _m004_learnt_knowledge, _m005_claim_support,
    _m006_word_forms,
]


def _enter_wal(conn: sqlite3.Connection) -> None:
    """Switch a file to WAL. On a new file that another process is creating at the same moment,
    SQLite answers "database is locked" at once instead of waiting out the busy timeout, so the
    switch is retried for as long as that timeout allows (the file is WAL for good after one
    success)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class Database:
    """One SQLite file; `transaction()` is the unit that survives a kill."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                str(self.path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_SECONDS * 1000}")
            _enter_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            self.conn = conn
            self._db = None  # the sqlite_utils view of `conn`, made for the first write (see `db`)
            # One connection serves several threads (a stream's checkpoint thread, the TUI's
            # workers): their transactions and queries take turns instead of nesting.
            self._transaction_lock = threading.RLock()
            self._migrate()
        except (sqlite3.DatabaseError, OSError) as exc:
            # A damaged file, a read-only folder, a full disk: said in one line with what to do.
            message = describe(exc, self.path.parent, database=self.path)
            if message is None:
                raise
            raise StorageError(message) from exc

    @property
    def db(self):
        """`conn` as a sqlite_utils.Database, for inserts and upserts; imported on first use."""
        if self._db is None:
            self._db = _import_sqlite_utils().Database(self.conn)
        return self._db

    @property
    def schema_version(self) -> int:
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def _migrate(self) -> None:
        if self.schema_version >= len(MIGRATIONS):
            return
        # BEGIN IMMEDIATE takes the write lock first, so two processes opening a
        # new data dir at once cannot both run migration 1.
        with self.transaction():
            for number in range(self.schema_version, len(MIGRATIONS)):
                MIGRATIONS[number](self.conn)
                self.conn.execute(f"PRAGMA user_version = {number + 1}")

    @contextmanager
    def transaction(self):
        with self._transaction_lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def query(self, sql: str, params: tuple | dict = ()) -> list[dict]:
        """The rows of a SELECT as dicts keyed by column name (as sqlite_utils' query gives them)."""
        with self._transaction_lock:
            cursor = self.conn.execute(sql, params)
            names = [column[0] for column in cursor.description]
            return [dict(zip(names, row)) for row in cursor]

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def close(self) -> None:
        self.conn.close()
