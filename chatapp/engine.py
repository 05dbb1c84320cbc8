"""ChatEngine: the Python facade over one data dir, for the CLI, the TUI,
library users and benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatapp.config import Settings, load_settings
from chatapp.knowledge.base import KnowledgeBase
from chatapp.knowledge.sample import sample_kb_path
from chatapp.records import IngestReport, KnowledgeChunk
from chatapp.storage.database import Database
from chatapp.storage.problems import StorageError, describe


class ChatEngine:
    def __init__(self, settings: Settings):
        self.settings = settings
        try:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            message = describe(exc, settings.data_dir)
            raise StorageError(message or f"cannot make the data dir {settings.data_dir}: {exc.strerror}") from exc
        from chatapp import table_cache

        table_cache.use_directory(settings.cache_dir)
        self.database = Database(settings.database_path)
        self.kb = KnowledgeBase(settings, self.database)
        self._sessions = None
        self._turns = None

    @classmethod
    def open(
        cls,
        data_dir: Path | str | None = None,
        config_file: Path | str | None = None,
        **overrides: Any,
    ) -> "ChatEngine":
        return cls(load_settings(data_dir, config_file, overrides))

    # --- knowledge ------------------------------------------------------------

    def ingest(self, *paths: Path | str, prune: bool = False, on_event=None, follow_links: bool = False) -> IngestReport:
        return self.kb.ingest([Path(p) for p in paths], prune=prune, on_event=on_event, follow_links=follow_links)

    def search(self, query: str, k: int | None = None, mode: str = "hybrid") -> list[KnowledgeChunk]:
        return self.kb.search(query, k=k, mode=mode)

    def ensure_sample_kb(self, on_event=None) -> IngestReport | None:
        """On the first chat start, load sample_kb into an empty knowledge base
        (unless load_sample_kb is off). Returns the report when it loaded."""
        if not self.settings.load_sample_kb or not self.kb.is_empty():
            return None
        path = sample_kb_path()
        if path is None:
            return None
        return self.ingest(path, on_event=on_event)

    # --- turns ----------------------------------------------------------------

    @property
    def turns(self):
        if self._turns is None:
            from chatapp.turn import TurnRunner

            self._turns = TurnRunner(self)
        return self._turns

    @property
    def sessions(self):
        # Its own store, not the turn runner's: `sessions list` and `export` read records
        # without loading the pipeline that writes them.
        if self._sessions is None:
            from chatapp.storage.sessions import SessionStore

            store = SessionStore(self.database)
            # Turns a dead process left 'streaming' say what happened to them before anyone reads them.
            store.mark_orphans_interrupted()
            self._sessions = store
        return self._sessions

    def live_correct(self, text: str, level=None):
        """Tiers 1–2 of correction, for the diff shown while typing."""
        return self.turns.live_correct(text, level)

    def preprocess(self, text: str, session: str | None = None, level=None, profile: str | None = None, now=None):
        """The PreprocessedPrompt for `text`; records are stored when it belongs to a session."""
        found = self.sessions.open_or_create(session) if session else None
        result = self.turns.preprocess(text, session=found, level=level, profile=profile, now=now)
        if found is not None:
            from chatapp.storage.sessions import PREVIEW_FLAG

            # Kept with its records, but not a question of the conversation: nothing was sent.
            self.sessions.add_user_turn(found, result, meta={PREVIEW_FLAG: True})
        return result

    def postprocess(self, response: str, question: str = "", evidence=(), now=None, evidence_labels=None,
                    search_documents: bool = False):
        """Check an answer from any source against the knowledge base and `evidence` texts
        (`evidence_labels`: what to call each of them where support is shown). With `search_documents`,
        the ingested passages that match the question (else the answer) are held to as a chat turn
        holds its retrieved ones."""
        chunks = []
        if search_documents and (question.strip() or response.strip()):
            from chatapp.input_limits import read_part

            chunks = self.kb.search(read_part(question.strip() or response))
        return self.turns.postprocess(response, question=question, evidence=evidence, now=now,
                                      evidence_labels=evidence_labels, rag_chunks=chunks,
                                      searched=search_documents)

    def ask(self, text: str, session: str | None = None, **options):
        """One whole turn: preprocess, model (streamed), postprocess, dialogue update."""
        return self.turns.ask(text, session_name=session, **options)

    def close(self) -> None:
        self.database.close()

    def __enter__(self) -> "ChatEngine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
