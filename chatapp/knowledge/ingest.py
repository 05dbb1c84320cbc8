"""Ingest: files and folders into the knowledge base, one file per transaction.

For each file: hash its bytes; skip it if the hash is what we stored; else
parse, chunk, embed, replace its chunks in Chroma, then commit its rows in
SQLite. A kill between those two steps leaves extra chunks in Chroma that
SQLite does not list: search ignores them, and the next run (which sees the
old hash) replaces them. entities.jsonl and facts.jsonl go to the registry.
"""

from __future__ import annotations

import errno
import hashlib
import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from chatapp.knowledge.registry import (
    ENTITY_FILE_NAMES,
    FACT_FILE_NAMES,
    RegistryFileError,
    parse_entities,
    parse_facts,
)
from chatapp.knowledge.discovery import discover
from chatapp.knowledge.word_forms import written_forms
from chatapp.records import FailedFile, IngestReport, RebuildReport
from chatapp.token_count import token_counter

# Formats we do not read; skipped with a note rather than reported as failures,
# since folders of documents commonly hold images and archives.
KNOWN_UNSUPPORTED_SUFFIXES = frozenset(
    ".png .jpg .jpeg .gif .bmp .svg .webp .ico .tif .tiff .mp3 .mp4 .wav .mov .avi .zip .gz .tgz .bz2 .xz .7z "
    ".rar .tar .xls .doc .pptx .ppt .odt .ods .exe .dll .so .dylib .bin .pyc .class .jar .woff "
    ".woff2 .ttf .otf .db .sqlite .parquet .pkl .npy".split()
)

# "~$budget.xlsx": the owner file Office keeps beside a document while it is open, a few bytes naming
# who has it open. Folders synced from a desktop hold them; they are no document, nor a broken one.
OFFICE_SUFFIXES = frozenset({".docx", ".xlsx"})  # the older ones are skipped as unsupported already
OFFICE_LOCK_NOTE = "an Office lock file (kept while the document is open), not a document"


# Chroma writes are far cheaper in batches; this many chunks are queued
# across files before one write.
WRITE_BATCH_CHUNKS = 64


@dataclass
class PendingDocument:
    """A parsed, chunked file waiting for the next batched write."""

    document_id: str
    path: Path
    parsed: Any
    chunks: dict  # chunk id -> ChunkSpan, in order
    metadatas: list[dict]
    digest: str
    size: int
    doc_date: datetime | None
    # What extraction learnt from it (chatapp.knowledge.extraction.Observation); None: keep what is
    # stored (a rebuild of a file that did not change).
    observations: list | None


# Raised when the parsers or chunking read a file differently (a JSON list of records became a line per
# record in version 2): documents read by an earlier version are read again by the next ingest, though
# their files have not changed.
READER_VERSION = 2


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def document_id_for(path: Path) -> str:
    return hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:24]


def chunk_id_for(document_id: str, text: str) -> str:
    return hashlib.sha256(f"{document_id}\n{text}".encode("utf-8")).hexdigest()[:32]


# Errors of the data dir, not of the file being read: they end the command (with one line from the
# CLI) rather than fail every file after them in turn.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT})
# Chunks embedded and written to Chroma per call, with a progress event after each: a big table's
# thousands of chunks show progress instead of minutes of silence.
EMBED_SLICE = 256


def _short(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:100]}" if lines else type(exc).__name__


class Ingester:
    """Fills the knowledge base `kb` (a KnowledgeBase, which calls this from
    its own `ingest`: the type is not imported back, so base.py and this module
    do not import each other)."""

    def __init__(self, kb, on_event: Callable[..., None] | None = None, follow_links: bool = False):
        self.kb = kb
        self.database = kb.database
        self.on_event = on_event or (lambda event, **data: None)
        self.max_bytes = int(kb.settings.max_file_mb * 1024 * 1024)
        self.max_rows = kb.settings.max_table_rows
        self.follow_links = follow_links
        self._pending: list[PendingDocument] = []
        self._learnt_changed = False

    def run(self, paths: list[Path], prune: bool = False) -> IngestReport:
        report = IngestReport()
        started = time.perf_counter()
        files = list(dict.fromkeys(discover(paths, report, self.follow_links)))  # a path named twice is read once
        self.on_event("start", total=len(files))
        changed = False
        with self.kb.write_lock(on_wait=lambda: self.on_event("waiting", path=str(self.kb.settings.data_dir))):
            for path in files:
                report.files_seen += 1
                self.on_event("file", path=str(path))
                changed |= self._ingest_guarded(path, report)
                if sum(len(p.chunks) for p in self._pending) >= WRITE_BATCH_CHUNKS:
                    self._flush(report)
                # Chunks read so far, written or still queued for the next batch's write.
                self.on_event("progress", path=str(path),
                              chunks=report.chunks_added + sum(len(p.chunks) for p in self._pending))
            self._flush(report)
            if prune:
                changed |= self._prune([p.resolve() for p in paths], report)
            if changed or self.kb.keyword.version != self.kb.version:
                self.on_event("keyword_index")
                self.kb.rebuild_keyword_index()
            if changed or self._learnt_changed:
                self.on_event("learning")
                report.entities_learnt = self.kb.relearn()
            report.index_warning = self.kb.index_disagreement()
        report.seconds = round(time.perf_counter() - started, 3)
        self.on_event("done", report=report)
        return report

    def rebuild(self) -> RebuildReport:
        """Fill the vector and keyword indexes again from the documents SQLite lists. SQLite keeps each
        chunk's offsets and hash, not its text (Chroma held that), so every document's file is read,
        parsed and chunked again; chunks that hash as stored go back under their ids. A file that
        changed since it was indexed is indexed as it is now, as ingest would; one that is gone is
        named, its rows left for the user to restore or remove."""
        report = RebuildReport()
        started = time.perf_counter()
        reading = IngestReport()  # _ingest_one's failures and notes land here
        with self.kb.write_lock(on_wait=lambda: self.on_event("waiting", path=str(self.kb.settings.data_dir))):
            report.moved_aside = self.kb.vector.reset()
            documents = self.database.query("SELECT id, path FROM documents ORDER BY path")
            self.on_event("start", total=len(documents))
            changed_content = False
            for row in documents:
                path = Path(row["path"])
                self.on_event("file", path=str(path))
                if not path.is_file():
                    report.documents_missing.append(str(path))
                elif self._ingest_guarded(path, reading, rebuild=True):
                    item = self._pending[-1]
                    stored = {r["id"]: r["hash"] for r in self.database.query(
                        "SELECT id, hash FROM chunks WHERE document_id = ?", (row["id"],))}
                    made = {chunk_id: content_hash(span.text.encode("utf-8")) for chunk_id, span in item.chunks.items()}
                    if made != stored:
                        report.documents_reindexed.append(str(path))
                    changed_content |= item.observations is not None
                    report.documents_rebuilt += 1
                    report.chunks += len(made)
                if sum(len(p.chunks) for p in self._pending) >= WRITE_BATCH_CHUNKS:
                    self._flush(reading)
                self.on_event("progress", path=str(path), chunks=report.chunks)
            self._flush(reading)
            self.on_event("keyword_index")
            self.kb.rebuild_keyword_index()
            if changed_content:
                self.on_event("learning")
                self.kb.relearn()
        report.files_failed, report.files_noted = reading.files_failed, reading.files_noted
        report.seconds = round(time.perf_counter() - started, 3)
        return report

    # --- one file ---------------------------------------------------------------

    def _ingest_guarded(self, path: Path, report: IngestReport, rebuild: bool = False) -> bool:
        """_ingest_one, with whatever goes wrong reading this file made its one failure line, so the
        rest of the batch goes on. Only a broken data dir (a full disk, a damaged database) ends it."""
        try:
            return self._ingest_one(path, report, rebuild)
        except sqlite3.DatabaseError:
            raise
        except OSError as exc:
            if exc.errno in STORAGE_ERRNOS:
                raise
            reason = f"cannot read: {exc.strerror or exc}"
        except RecursionError:
            reason = "nested too deeply to read"
        except MemoryError:
            reason = "too large to read in memory"
        except Exception as exc:  # noqa: BLE001 - a parser's surprise is this file's failure, not the batch's
            reason = f"could not be read ({_short(exc)})"
        report.files_failed.append(FailedFile(str(path), reason))
        return False

    def _ingest_one(self, path: Path, report: IngestReport, rebuild: bool = False) -> bool:
        """Parse and chunk `path` into the pending batch. `rebuild`: read it even when unchanged, and
        learn from it again only if it changed (what it said is still stored otherwise)."""
        if path.name in ENTITY_FILE_NAMES or path.name in FACT_FILE_NAMES:
            return self._load_registry_file(path, report)
        from chatapp.knowledge.parsers import SUPPORTED_SUFFIXES, FileRejected, parse_file

        suffix = path.suffix.lower()
        if suffix in KNOWN_UNSUPPORTED_SUFFIXES:
            report.files_skipped.append(FailedFile(str(path), f"unsupported format {suffix}"))
            return False
        if path.name.startswith("~$") and suffix in OFFICE_SUFFIXES:
            report.files_skipped.append(FailedFile(str(path), OFFICE_LOCK_NOTE))
            return False
        if suffix not in SUPPORTED_SUFFIXES:
            # README, LICENSE, .log, .cfg…: read as plain text when they are text.
            suffix = ".txt"
        size = path.stat().st_size
        if size > self.max_bytes:
            report.files_failed.append(
                FailedFile(str(path), f"larger than {self.kb.settings.max_file_mb:g} MB ({size / 1e6:.1f} MB)")
            )
            return False
        data = path.read_bytes()
        digest = content_hash(data)
        stored = self._stored_document(path)
        if not rebuild and self._unchanged_document(stored, digest, report):
            return False
        try:
            parsed = parse_file(path, max_bytes=self.max_bytes, suffix=suffix, max_rows=self.max_rows)
        except FileRejected as exc:
            report.files_failed.append(FailedFile(str(path), exc.reason))
            return False
        if "rows_indexed" in parsed.metadata:
            kept, total = int(parsed.metadata["rows_indexed"]), int(parsed.metadata["rows"])
            report.files_noted.append(FailedFile(
                str(path), f"indexed its first {kept:,} of {total:,} rows (max_table_rows in the config)"))
        from chatapp.knowledge.chunking import chunk_document

        spans = chunk_document(parsed, token_counter(None))
        if not spans:
            report.files_failed.append(FailedFile(str(path), "no text to index"))
            return False

        document_id = document_id_for(path)
        # Only a date the document states (a mail's Date:, a dated file name, front matter): a file's
        # mtime says when it was copied, and would make every undated page look like today's news.
        doc_date = parsed.date
        ids = [chunk_id_for(document_id, s.text) for s in spans]
        # Identical passages inside one file would share an id: keep the first.
        unique = {}
        for chunk_id, span in zip(ids, spans):
            unique.setdefault(chunk_id, span)
        base_meta = {
            "document_id": document_id,
            "source": str(path),
            "title": parsed.title,
            "format": parsed.format,
        }
        if doc_date is not None:
            base_meta.update(date=doc_date.isoformat(), date_ts=doc_date.timestamp())
        for key in ("from", "to", "subject"):
            if parsed.metadata.get(key):
                base_meta[key] = parsed.metadata[key]
        metadatas = [{**base_meta, "chunk_index": n} for n in range(len(unique))]

        observations: list | None = []
        if rebuild and stored is not None and stored["content_hash"] == digest:
            observations = None  # unchanged: what it said is stored already
        elif self.kb.settings.learn_from_documents:
            observations = self._extract(path, parsed, data, report)
        self._pending.append(PendingDocument(
            document_id=document_id, path=path, parsed=parsed, chunks=unique, metadatas=metadatas,
            digest=digest, size=len(data), doc_date=doc_date, observations=observations,
        ))
        return True

    def _extract(self, path: Path, parsed, data: bytes, report: IngestReport) -> list:
        """What the document says about people, projects and things (names in prose come later, in
        _flush, batched). A failure here costs what is learnt from this file, not its indexing."""
        from chatapp.knowledge.extraction import extract

        raw_text = None
        if parsed.format in ("csv", "json"):
            raw_text = parsed.record_text
            if raw_text is None:
                raw_text = data.decode("utf-8-sig", errors="replace")
        try:
            return extract(parsed, raw_text, with_mentions=False)
        except Exception as exc:  # noqa: BLE001 - learning is a bonus; the document is still indexed
            report.files_noted.append(FailedFile(str(path), f"indexed, but nothing learnt from it ({_short(exc)})"))
            return []

    def _read_mentions(self, pending: list[PendingDocument], report: IngestReport) -> None:
        from chatapp.knowledge.extraction import reads_mentions
        from chatapp.knowledge.extraction.mentions import read_mentions_many

        readable = [p for p in pending if p.observations is not None and reads_mentions(p.parsed)]
        try:
            found_all = read_mentions_many([p.parsed.text for p in readable])
        except Exception:  # noqa: BLE001 - one document spoilt the batch: read them one by one to find it
            found_all = []
            for item in readable:
                try:
                    found_all += read_mentions_many([item.parsed.text])
                except Exception as exc:  # noqa: BLE001 - this file's learning fails, its indexing does not
                    found_all.append([])
                    report.files_noted.append(
                        FailedFile(str(item.path), f"indexed, but no names read from it ({_short(exc)})"))
        for item, found in zip(readable, found_all):
            item.observations += found

    def _flush(self, report: IngestReport) -> None:
        """Write the queued documents: Chroma first, in one batch (per-file
        writes cost several times the embedding), then one SQLite transaction
        per file. A kill loses only this batch, which the next run redoes."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        if self.kb.settings.learn_from_documents:
            self._read_mentions(pending, report)
        vector = self.kb.vector
        vector.delete_documents([p.document_id for p in pending])
        ids = [chunk_id for p in pending for chunk_id in p.chunks]
        texts = [span.text for p in pending for span in p.chunks.values()]
        metadatas = [meta for p in pending for meta in p.metadatas]
        for begin in range(0, len(ids), EMBED_SLICE):
            end = begin + EMBED_SLICE
            vector.upsert(ids[begin:end], texts[begin:end], metadatas[begin:end])
            if len(ids) > EMBED_SLICE:
                self.on_event("embedding", path=str(pending[-1].path), done=min(end, len(ids)), total=len(ids))
        for item in pending:
            self._commit(item, report)

    def _commit(self, item: "PendingDocument", report: IngestReport) -> None:
        document_id = item.document_id
        old_ids = {r["id"] for r in self.database.query("SELECT id FROM chunks WHERE document_id = ?", (document_id,))}
        with self.database.transaction() as db:
            db.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
            db.execute("DELETE FROM word_forms WHERE document_id = ?", (document_id,))
            if item.observations is not None:
                db.execute("DELETE FROM observations WHERE document_id = ?", (document_id,))
            db["documents"].upsert(
                {
                    "id": document_id,
                    "path": str(item.path),
                    "title": item.parsed.title,
                    "format": item.parsed.format,
                    "content_hash": item.digest,
                    "doc_date": item.doc_date.isoformat() if item.doc_date else None,
                    "indexed_at": datetime.now(timezone.utc).isoformat(),
                    "size": item.size,
                    "metadata": json.dumps({**item.parsed.metadata, "reader": READER_VERSION}, ensure_ascii=False),
                    "origin": self.kb.origin_of(item.path),
                },
                pk="id",
            )
            db["chunks"].insert_all(
                [
                    {
                        "id": chunk_id,
                        "document_id": document_id,
                        "idx": n,
                        "start": span.start,
                        "end": span.end,
                        "hash": content_hash(span.text.encode("utf-8")),
                        "tokens": span.tokens,
                    }
                    for n, (chunk_id, span) in enumerate(item.chunks.items())
                ]
            )
            db["word_forms"].insert_all(
                [{"document_id": document_id, "lower": lower, "form": form, "uses": uses}
                 for (lower, form), uses in written_forms(item.parsed.text).items()]
            )
            doc_date = item.doc_date.isoformat() if item.doc_date else None
            db["observations"].insert_all(
                [
                    {
                        "document_id": document_id, "subject": o.subject, "subject_type": o.subject_type,
                        "key": o.key, "value": o.value, "confidence": o.confidence, "method": o.method,
                        "position": o.position, "doc_date": doc_date, "previous": o.previous or None,
                    }
                    for o in item.observations or ()
                ]
            )
            self.kb.bump_version()
        new_ids = set(item.chunks)
        report.files_ingested += 1
        report.chunks_added += len(new_ids - old_ids)
        report.chunks_removed += len(old_ids - new_ids)

    def _stored_document(self, path: Path) -> dict | None:
        rows = self.database.query("SELECT content_hash, metadata FROM documents WHERE path = ?", (str(path),))
        return rows[0] if rows else None

    def _unchanged_document(self, stored: dict | None, digest: str, report: IngestReport) -> bool:
        """Whether a document was read before with this content and as many rows as the limit now allows."""
        if stored is None or stored["content_hash"] != digest:
            return False
        metadata = json.loads(stored["metadata"] or "{}")
        if metadata.get("reader") != READER_VERSION:
            return False  # read by an older chatapp: read again with what the readers know now
        kept = metadata.get("rows_indexed")
        if kept is not None and self.max_rows > int(kept):
            return False  # cut at a lower max_table_rows: read it again for the rows now allowed
        report.files_unchanged += 1
        return True

    def _unchanged(self, table: str, path: Path, digest: str, report: IngestReport) -> bool:
        """Whether `path` was read before with this content (`table`: documents or registry_files);
        counted as unchanged when it was."""
        rows = self.database.query(f"SELECT content_hash FROM {table} WHERE path = ?", (str(path),))
        if rows and rows[0]["content_hash"] == digest:
            report.files_unchanged += 1
            return True
        return False

    def _load_registry_file(self, path: Path, report: IngestReport) -> bool:
        data = path.read_bytes()
        digest = content_hash(data)
        if self._unchanged("registry_files", path, digest, report):
            return False
        try:
            if path.name in ENTITY_FILE_NAMES:
                entities, facts = parse_entities(path), []
            else:
                entities, facts = [], parse_facts(path)
        except RegistryFileError as exc:
            report.files_failed.append(FailedFile(str(path), str(exc)))
            return False
        origin = self.kb.origin_of(path)
        for entity in entities:
            entity.origin = origin
        with self.database.transaction() as db:
            self.kb.registry.store_entities(db, entities)
            self.kb.registry.store_facts(db, facts)
            # A Fact record carries no origin of its own: set it on the rows just stored.
            db.conn.executemany("UPDATE facts SET origin = ? WHERE id = ?", [(origin, f.id) for f in facts])
            db["registry_files"].upsert(
                {
                    "path": str(path),
                    "content_hash": digest,
                    "kind": "entities" if entities else "facts",
                    "loaded_at": datetime.now(timezone.utc).isoformat(),
                },
                pk="path",
            )
        report.files_ingested += 1
        report.entities += len(entities)
        report.facts += len(facts)
        return False  # the document index is unchanged

    # --- prune ------------------------------------------------------------------

    def _prune(self, roots: list[Path], report: IngestReport) -> bool:
        changed = False
        for row in self.database.query("SELECT id, path FROM documents ORDER BY path"):
            path = Path(row["path"])
            inside = any(path == root or root in path.parents for root in roots)
            if not inside or path.exists():
                continue
            removed = self.database.conn.execute(
                "SELECT count(*) FROM chunks WHERE document_id = ?", (row["id"],)
            ).fetchone()[0]
            self.kb.vector.delete_document(row["id"])
            with self.database.transaction() as db:
                db.execute("DELETE FROM chunks WHERE document_id = ?", (row["id"],))
                db.execute("DELETE FROM observations WHERE document_id = ?", (row["id"],))
                db.execute("DELETE FROM word_forms WHERE document_id = ?", (row["id"],))
                db.execute("DELETE FROM documents WHERE id = ?", (row["id"],))
                self.kb.bump_version()
            report.chunks_removed += removed
            report.documents_pruned += 1
            self.on_event("pruned", path=str(path))
            changed = True
        return changed
