"""KnowledgeBase: the registry, the vector index and the keyword index of one
data dir, opened lazily so that commands which never search stay fast."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from chatapp.config import Settings
from chatapp.knowledge.keyword_index import KeywordIndex
from chatapp.knowledge.registry import FACT_FILE_NAMES, Registry, RegistryFileError, parse_facts
from chatapp.knowledge.sample import SAMPLE_ORIGIN, is_within, sample_kb_path
from chatapp.records import IngestReport, KnowledgeChunk, RebuildReport, RemovalReport
from chatapp.storage.database import Database

if TYPE_CHECKING:  # the embedder brings numpy and onnxruntime: loaded when first embedding, not to open the base
    from chatapp.knowledge.embeddings import MiniLMEmbedder

KB_VERSION_KEY = "kb_version"
# SQLite allows a bounded number of ? in one statement; deletions go in slices of this many.
DELETE_SLICE = 500


def _dir_size(path: Path) -> int:
    """Bytes in the files under `path`. An index being rebuilt meanwhile (an ingest beside `kb stats` or
    the chat's status) replaces its files: one gone between listing and measuring counts as nothing."""
    total = 0
    for file in path.rglob("*") if path.is_dir() else ():
        try:
            if file.is_file():
                total += file.stat().st_size
        except FileNotFoundError:
            continue
    return total


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
            from chatapp.knowledge.embeddings import MiniLMEmbedder

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

    def short_document_chunks(self, document_ids: list[str], at_most: int) -> dict[str, list[str]]:
        """The chunk ids, in their order, of each of `document_ids` cut into no more than `at_most` chunks."""
        if not document_ids:
            return {}
        marks = ",".join("?" * len(document_ids))
        grouped: dict[str, list[str]] = {}
        for document_id, chunk_id in self.database.conn.execute(
                f"SELECT document_id, id FROM chunks WHERE document_id IN ({marks}) ORDER BY document_id, idx",
                tuple(document_ids)):
            grouped.setdefault(document_id, []).append(chunk_id)
        return {d: ids for d, ids in grouped.items() if len(ids) <= at_most}

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

    def ingest(self, paths, prune: bool = False, on_event=None, follow_links: bool = False) -> IngestReport:
        from chatapp.knowledge.ingest import Ingester

        paths = [Path(p) for p in paths]
        removed = self._make_way_for_own_documents(paths)
        report = Ingester(self, on_event=on_event, follow_links=follow_links).run(paths, prune=prune)
        report.sample_removed = removed.files
        return report

    def rebuild(self, on_event=None) -> RebuildReport:
        """Re-embed and re-index every document SQLite lists, from its file (chatapp.knowledge.ingest)."""
        from chatapp.knowledge.ingest import Ingester

        return Ingester(self, on_event=on_event).rebuild()

    def index_disagreement(self) -> str:
        """What to run when the vector index lacks chunks SQLite lists (chroma/ deleted or damaged:
        dense search would quietly find nothing), else "". Counts only: more chunks in Chroma than
        in SQLite is what a killed ingest leaves, which search ignores and the next run replaces."""
        listed = self.database.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        if not listed:
            return ""
        held = self.vector.count()
        if held >= listed:
            return ""
        where = self.settings.chroma_url or str(self.settings.chroma_dir)
        return (f"the vector index at {where} holds {held} of the {listed} chunks the database lists "
                "(deleted or damaged?): run `chatapp kb rebuild`")

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
        """The best chunks for `query`; a query past input_limits.READ_CHARS is searched for by its
        opening (the embedder reads 256 tokens of it in any case)."""
        from chatapp.input_limits import read_part
        from chatapp.knowledge.search import hybrid_search
        from chatapp.surrogates import repair_surrogates

        self._reopen_vector_if_stale()
        query = repair_surrogates(read_part(query))  # a lone surrogate half is U+FFFD, as everywhere
        return hybrid_search(self, query, k=k or self.settings.search_k, mode=mode)

    def search_many(self, queries: list[str], k: int | None = None, mode: str = "hybrid",
                    keyword_only: frozenset[int] = frozenset()) -> list[list[KnowledgeChunk]]:
        from chatapp.knowledge.search import hybrid_search_many

        self._reopen_vector_if_stale()
        return hybrid_search_many(self, queries, k=k or self.settings.search_k, mode=mode, keyword_only=keyword_only)

    # --- the sample, and removing documents ---------------------------------------

    @property
    def sample_root(self) -> Path | None:
        path = sample_kb_path()
        return path.resolve() if path is not None else None

    def origin_of(self, path: Path) -> str:
        """'sample' for a file of the bundled sample knowledge base, else 'user'."""
        root = self.sample_root
        return SAMPLE_ORIGIN if root is not None and is_within(Path(path).resolve(), root) else "user"

    def _sample_selection(self) -> tuple[list[dict], list[str]]:
        """The sample's documents (id, path) and registry files. By origin, and by path as well: a data
        dir filled before documents had an origin holds the sample's files marked as the user's."""
        root = self.sample_root
        documents = [
            row for row in self.database.query("SELECT id, path, origin FROM documents ORDER BY path")
            if row["origin"] == SAMPLE_ORIGIN or (root is not None and is_within(Path(row["path"]), root))
        ]
        registry_files = [
            row["path"] for row in self.database.query("SELECT path FROM registry_files ORDER BY path")
            if root is not None and is_within(Path(row["path"]), root)
        ]
        return [{"id": d["id"], "path": d["path"]} for d in documents], registry_files

    def holds_only_sample(self) -> bool:
        """Whether the sample is here and nothing of the user's is."""
        documents, registry_files = self._sample_selection()
        if not documents and not registry_files:
            return False
        count = lambda table: self.database.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
        return count("documents") == len(documents) and count("registry_files") == len(registry_files)

    def _make_way_for_own_documents(self, paths: list[Path]) -> RemovalReport:
        """The first ingest of the user's own files removes the sample (unless keep_sample_kb): its
        people and projects would otherwise answer questions about the user's. Only when every path
        is outside the sample and one of them exists, so a mistyped path does not cost the sample."""
        root = self.sample_root
        resolved = [p.expanduser().resolve() for p in paths]
        if (self.settings.keep_sample_kb or root is None or not resolved
                or any(is_within(p, root) for p in resolved) or not any(p.exists() for p in resolved)
                or not self.holds_only_sample()):
            return RemovalReport()
        return self.remove_documents(sample=True)

    def remove_documents(self, paths=None, sample: bool = False) -> RemovalReport:
        """Remove the documents at `paths` (a file, or everything under a folder; the files need not
        exist any more) and, with `sample`, the bundled sample's: their chunks, vectors and keyword
        entries, what was learnt from them (observations), and the entities and facts of registry
        files (entities.jsonl / facts.jsonl) among them."""
        roots = [Path(p).expanduser().resolve() for p in paths or []]
        documents: dict[str, str] = {}
        registry_files: list[str] = []
        for row in self.database.query("SELECT id, path FROM documents ORDER BY path"):
            if any(is_within(Path(row["path"]), root) for root in roots):
                documents[row["id"]] = row["path"]
        for row in self.database.query("SELECT path FROM registry_files ORDER BY path"):
            if any(is_within(Path(row["path"]), root) for root in roots):
                registry_files.append(row["path"])
        if sample:
            sample_documents, sample_files = self._sample_selection()
            documents.update((d["id"], d["path"]) for d in sample_documents)
            registry_files += [f for f in sample_files if f not in registry_files]
        entity_ids, fact_ids = self._registry_rows_of(registry_files, sample)
        report = RemovalReport(documents=sorted(documents.values()), registry_files=registry_files)
        if not documents and not registry_files and not entity_ids and not fact_ids:
            return report

        document_ids = list(documents)
        with self.write_lock():
            report.chunks = self._count_in("chunks", "document_id", document_ids)
            report.observations = self._count_in("observations", "document_id", document_ids)
            report.entities, report.facts = len(entity_ids), len(fact_ids)
            # SQLite first: chunks that only Chroma still holds after a kill are ignored by search.
            with self.database.transaction() as db:
                for table in ("observations", "chunks", "word_forms"):
                    self._delete_in(db, table, "document_id", document_ids)
                self._delete_in(db, "documents", "id", document_ids)
                for table in ("entity_aliases", "entity_attributes", "attribute_history"):
                    self._delete_in(db, table, "entity_id", entity_ids)
                self._delete_in(db, "entities", "id", entity_ids)
                self._delete_in(db, "facts", "id", fact_ids)
                self._delete_in(db, "registry_files", "path", registry_files)
                if document_ids:
                    self.bump_version()
            if document_ids:
                self.vector.delete_documents(document_ids)
                self.rebuild_keyword_index()
        # The extracted registry is learnt again from what the remaining documents say.
        self.relearn()
        return report

    def _registry_rows_of(self, registry_files: list[str], sample: bool) -> tuple[list[str], list[str]]:
        """Ids of the entities and facts that the given registry files brought (and, with `sample`,
        every one marked as the sample's). An entity names its file; a fact does not, so a facts
        file still on disk is read again for its ids."""
        named = set(registry_files)
        entity_ids = {r["id"] for r in self.database.query("SELECT id, source FROM entities") if r["source"] in named}
        fact_ids: set[str] = set()
        for path in map(Path, registry_files):
            if path.name in FACT_FILE_NAMES and path.is_file():
                try:
                    fact_ids.update(f.id for f in parse_facts(path))
                except (OSError, RegistryFileError):
                    pass  # unreadable now: its facts stay, as they would had it never been named
        if sample:
            marked = "SELECT id FROM {} WHERE origin = ?"
            entity_ids.update(r["id"] for r in self.database.query(marked.format("entities"), (SAMPLE_ORIGIN,)))
            fact_ids.update(r["id"] for r in self.database.query(marked.format("facts"), (SAMPLE_ORIGIN,)))
        # Only ids the registry holds, so the counts say what was removed.
        stored_facts = {r["id"] for r in self.database.query("SELECT id FROM facts")}
        return sorted(entity_ids), sorted(fact_ids & stored_facts)

    def _count_in(self, table: str, column: str, values: list[str]) -> int:
        total = 0
        for begin in range(0, len(values), DELETE_SLICE):
            part = values[begin : begin + DELETE_SLICE]
            sql = f"SELECT count(*) FROM {table} WHERE {column} IN ({','.join('?' * len(part))})"
            total += self.database.conn.execute(sql, part).fetchone()[0]
        return total

    @staticmethod
    def _delete_in(db, table: str, column: str, values: list[str]) -> None:
        for begin in range(0, len(values), DELETE_SLICE):
            part = values[begin : begin + DELETE_SLICE]
            db.execute(f"DELETE FROM {table} WHERE {column} IN ({','.join('?' * len(part))})", part)

    def stats(self) -> dict:
        count = lambda table: self.database.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
        db_files = [self.database.path, Path(f"{self.database.path}-wal")]
        return {
            "documents": count("documents"),
            "chunks": count("chunks"),
            "entities": count("entities"),
            "facts": count("facts"),
            "index_bytes": _dir_size(self.settings.chroma_dir) + _dir_size(self.keyword.directory),
            "database_bytes": sum(p.stat().st_size for p in db_files if p.exists()),
            "data_dir": str(self.settings.data_dir),
            "embedding_model": "all-MiniLM-L6-v2 (int8 ONNX)",
        }
