"""KnowledgeBase: the registry, the vector index and the keyword index of one
data dir, opened lazily so that commands which never search stay fast."""

from __future__ import annotations

import contextlib
from pathlib import Path

from chatapp.config import Settings
from chatapp.knowledge.embeddings import MiniLMEmbedder
from chatapp.knowledge.keyword_index import KeywordIndex
from chatapp.knowledge.registry import Registry
from chatapp.records import KnowledgeChunk
from chatapp.storage.database import Database

KB_VERSION_KEY = "kb_version"


def _dir_size(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


class KnowledgeBase:
    def __init__(self, settings: Settings, database: Database):
        self.settings = settings
        self.database = database
        self.registry = Registry(database)
        self.keyword = KeywordIndex(settings.keyword_index_dir)
        self._embedder: MiniLMEmbedder | None = None
        self._vector = None
        self._vector_version: str | None = None  # the knowledge-base version when Chroma was opened
        self._writing = False

    @property
    def embedder(self) -> MiniLMEmbedder:
        if self._embedder is None:
            self._embedder = MiniLMEmbedder(batch_size=self.settings.embedding_batch_size)
        return self._embedder

    @property
    def vector(self):
        if self._vector is None:
            from chatapp.knowledge.vector_index import VectorIndex

            self._vector = VectorIndex(self.settings, self.embedder)
            self._vector_version = self.version
        return self._vector

    def _reopen_vector_if_stale(self) -> None:
        """A long-running process (the TUI) keeps Chroma open, and Chroma keeps
        its segments in memory: after another process ingested, the dense side
        would not see the new chunks. The version in SQLite tells; reopen then,
        unless this process is the writer (its own writes are visible)."""
        if self._vector is not None and not self._writing and self._vector_version != self.version:
            self._vector.close(forget_cached_state=True)
            self._vector = None

    @contextlib.contextmanager
    def write_lock(self, on_wait=None):
        """Only one process writes the index at a time: Chroma's on-disk
        vector segments are not safe for two writers."""
        from filelock import FileLock, Timeout

        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.settings.write_lock_path))
        try:
            lock.acquire(timeout=0.2)
        except Timeout:
            if on_wait:
                on_wait()
            lock.acquire()
        self._writing = True
        try:
            yield
        finally:
            self._writing = False
            # Reopen Chroma next time: another process may have written meanwhile.
            if self._vector is not None:
                self._vector.close()
                self._vector = None
            lock.release()

    # --- state ----------------------------------------------------------------

    @property
    def version(self) -> str:
        return self.database.get_meta(KB_VERSION_KEY, "0")

    def bump_version(self) -> None:
        """Called inside the transaction that changes documents or chunks."""
        self.database.set_meta(KB_VERSION_KEY, str(int(self.version) + 1))

    def is_empty(self) -> bool:
        row = self.database.conn.execute(
            "SELECT (SELECT count(*) FROM documents) + (SELECT count(*) FROM entities)"
        ).fetchone()
        return row[0] == 0

    def chunk_rows(self, chunk_ids: list[str]) -> dict[str, dict]:
        """Document fields of each chunk of a committed document, by chunk id."""
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = self.database.conn.execute(
            "SELECT c.id, c.document_id, d.path, d.title, d.doc_date FROM chunks c "
            f"JOIN documents d ON d.id = c.document_id WHERE c.id IN ({marks})",
            tuple(chunk_ids),
        )
        fields = ("id", "document_id", "path", "title", "doc_date")
        return {row[0]: dict(zip(fields, row)) for row in rows}

    def chunk_texts(self, chunk_ids: list[str]) -> dict[str, str]:
        """Text by chunk id: from the keyword index's store, from Chroma for
        ids it lacks (a stale or not yet rebuilt index)."""
        found = self.keyword.texts(chunk_ids)
        missing = [i for i in chunk_ids if i not in found]
        if missing:
            found.update({i: text for i, (text, _) in self.vector.get(missing).items()})
        return found

    # --- keyword index ----------------------------------------------------------

    def rebuild_keyword_index(self) -> None:
        rows = self.database.query("SELECT id FROM chunks ORDER BY document_id, idx")
        ids = [r["id"] for r in rows]
        texts_by_id = self.vector.get(ids) if ids else {}
        ids = [i for i in ids if i in texts_by_id]
        self.keyword.rebuild(ids, [texts_by_id[i][0] for i in ids], self.version)

    def ensure_keyword_index(self) -> None:
        """Rebuild the BM25 index if an interrupted ingest left it behind."""
        if self.keyword.version == self.version:
            return
        from filelock import FileLock, Timeout

        try:
            with FileLock(str(self.settings.write_lock_path), timeout=0.2):
                if self.keyword.version != self.version:
                    self.rebuild_keyword_index()
        except Timeout:
            pass  # another process is writing; it rebuilds the index when it finishes

    # --- the operations ---------------------------------------------------------

    def ingest(self, paths, prune: bool = False, on_event=None):
        from chatapp.knowledge.ingest import Ingester

        return Ingester(self, on_event=on_event).run([Path(p) for p in paths], prune=prune)

    def relearn(self) -> int:
        """Merge what every document said (its stored observations) into the registry's extracted
        entities again; called after ingest or removal changed documents. Returns how many there are."""
        from chatapp.knowledge.extraction.merge import Row, merge

        rows = self.database.query(
            "SELECT o.subject, o.subject_type, o.key, o.value, o.confidence, o.method, o.position, "
            "coalesce(o.doc_date, '') AS doc_date, d.path AS source, coalesce(o.previous, '') AS previous "
            "FROM observations o JOIN documents d ON d.id = o.document_id ORDER BY d.path, o.rowid"
        )
        learnt = merge([Row(**row) for row in rows])
        with self.database.transaction() as db:
            return self.registry.replace_extracted(db, learnt.entities, learnt.history)

    def search(self, query: str, k: int | None = None, mode: str = "hybrid") -> list[KnowledgeChunk]:
        from chatapp.knowledge.search import hybrid_search

        self._reopen_vector_if_stale()
        return hybrid_search(self, query, k=k or self.settings.search_k, mode=mode)

    def search_many(self, queries: list[str], k: int | None = None, mode: str = "hybrid",
                    keyword_only: frozenset[int] = frozenset()) -> list[list[KnowledgeChunk]]:
        from chatapp.knowledge.search import hybrid_search_many

        self._reopen_vector_if_stale()
        return hybrid_search_many(self, queries, k=k or self.settings.search_k, mode=mode, keyword_only=keyword_only)

    def stats(self) -> dict:
        count = lambda table: self.database.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
        db_files = [self.database.path, Path(f"{self.database.path}-wal")]
        return {
            "documents": count("documents"),
            "chunks": count("chunks"),
            "entities": count("entities"),
            "facts": count("facts"),
            "index_bytes": _dir_size(self.settings.chroma_dir) + self.keyword.size_bytes(),
            "database_bytes": sum(p.stat().st_size for p in db_files if p.exists()),
            "data_dir": str(self.settings.data_dir),
            "embedding_model": "all-MiniLM-L6-v2 (int8 ONNX)",
        }
