"""Ingest: files and folders into the knowledge base, one file per transaction.

For each file: hash its bytes; skip it if the hash is what we stored; else
parse, chunk, embed, replace its chunks in Chroma, then commit its rows in
SQLite. A kill between those two steps leaves extra chunks in Chroma that
SQLite does not list: search ignores them, and the next run (which sees the
old hash) replaces them. entities.jsonl and facts.jsonl go to the registry.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator
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
from chatapp.records import FailedFile, IngestReport
from chatapp.token_count import token_counter

# Formats we do not read; skipped with a note rather than reported as failures,
# since folders of documents commonly hold images and archives.
KNOWN_UNSUPPORTED_SUFFIXES = frozenset(
    ".png .jpg .jpeg .gif .bmp .svg .webp .ico .tif .tiff .mp3 .mp4 .wav .mov .avi .zip .gz .tgz .bz2 .xz .7z "
    ".rar .tar .xlsx .xls .docx .doc .pptx .ppt .odt .ods .exe .dll .so .dylib .bin .pyc .class .jar .woff "
    ".woff2 .ttf .otf .db .sqlite .parquet .pkl .npy".split()
)


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
    observations: list  # what extraction learnt from it (chatapp.knowledge.extraction.Observation)


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def document_id_for(path: Path) -> str:
    return hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:24]


def chunk_id_for(document_id: str, text: str) -> str:
    return hashlib.sha256(f"{document_id}\n{text}".encode("utf-8")).hexdigest()[:32]


def discover(paths: list[Path], report: IngestReport) -> Iterator[Path]:
    """Files under `paths`, depth first in name order; hidden entries skipped."""
    for root in paths:
        if root.is_file():
            yield root.resolve()
        elif root.is_dir():
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith("."):
                        yield (Path(folder) / name).resolve()
        else:
            report.files_failed.append(FailedFile(str(root), "no such file or directory"))


class Ingester:
    """Fills the knowledge base `kb` (a KnowledgeBase, which calls this from
    its own `ingest`: the type is not imported back, so base.py and this module
    do not import each other)."""

    def __init__(self, kb, on_event: Callable[..., None] | None = None):
        self.kb = kb
        self.database = kb.database
        self.on_event = on_event or (lambda event, **data: None)
        self.max_bytes = int(kb.settings.max_file_mb * 1024 * 1024)
        self._pending: list[PendingDocument] = []

    def run(self, paths: list[Path], prune: bool = False) -> IngestReport:
        report = IngestReport()
        started = time.perf_counter()
        files = list(dict.fromkeys(discover(paths, report)))  # a path named twice is read once
        self.on_event("start", total=len(files))
        changed = False
        self._learnt_changed = False
        with self.kb.write_lock(on_wait=lambda: self.on_event("waiting", path=str(self.kb.settings.data_dir))):
            for path in files:
                report.files_seen += 1
                self.on_event("file", path=str(path))
                try:
                    changed |= self._ingest_one(path, report)
                except OSError as exc:
                    report.files_failed.append(FailedFile(str(path), f"cannot read: {exc.strerror or exc}"))
                if sum(len(p.chunks) for p in self._pending) >= WRITE_BATCH_CHUNKS:
                    self._flush(report)
                self.on_event("progress", path=str(path), chunks=report.chunks_added)
            self._flush(report)
            if prune:
                changed |= self._prune([p.resolve() for p in paths], report)
            if changed or self.kb.keyword.version != self.kb.version:
                self.on_event("keyword_index")
                self.kb.rebuild_keyword_index()
            if changed or self._learnt_changed:
                self.on_event("learning")
                report.entities_learnt = self.kb.relearn()
        report.seconds = round(time.perf_counter() - started, 3)
        self.on_event("done", report=report)
        return report

    # --- one file ---------------------------------------------------------------

    def _ingest_one(self, path: Path, report: IngestReport) -> bool:
        if path.name in ENTITY_FILE_NAMES or path.name in FACT_FILE_NAMES:
            return self._load_registry_file(path, report)
        from chatapp.knowledge.parsers import SUPPORTED_SUFFIXES, FileRejected, parse_file

        suffix = path.suffix.lower()
        if suffix in KNOWN_UNSUPPORTED_SUFFIXES:
            report.files_skipped.append(FailedFile(str(path), f"unsupported format {suffix}"))
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
        if self._unchanged("documents", path, digest, report):
            return False
        try:
            parsed = parse_file(path, max_bytes=self.max_bytes, suffix=suffix)
        except FileRejected as exc:
            report.files_failed.append(FailedFile(str(path), exc.reason))
            return False
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

        observations = []
        if self.kb.settings.learn_from_documents:
            from chatapp.knowledge.extraction import extract

            raw_text = data.decode("utf-8-sig", errors="replace") if parsed.format in ("csv", "json") else None
            observations = extract(parsed, raw_text, with_mentions=False)  # names in prose: in _flush, batched
        self._pending.append(PendingDocument(
            document_id=document_id, path=path, parsed=parsed, chunks=unique, metadatas=metadatas,
            digest=digest, size=len(data), doc_date=doc_date, observations=observations,
        ))
        return True

    def _flush(self, report: IngestReport) -> None:
        """Write the queued documents: Chroma first, in one batch (per-file
        writes cost several times the embedding), then one SQLite transaction
        per file. A kill loses only this batch, which the next run redoes."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        if self.kb.settings.learn_from_documents:
            from chatapp.knowledge.extraction import reads_mentions
            from chatapp.knowledge.extraction.mentions import read_mentions_many

            readable = [p for p in pending if reads_mentions(p.parsed)]
            for item, found in zip(readable, read_mentions_many([p.parsed.text for p in readable])):
                item.observations += found
        vector = self.kb.vector
        vector.delete_documents([p.document_id for p in pending])
        vector.upsert(
            [chunk_id for p in pending for chunk_id in p.chunks],
            [span.text for p in pending for span in p.chunks.values()],
            [meta for p in pending for meta in p.metadatas],
        )
        for item in pending:
            self._commit(item, report)

    def _commit(self, item: "PendingDocument", report: IngestReport) -> None:
        document_id = item.document_id
        old_ids = {r["id"] for r in self.database.query("SELECT id FROM chunks WHERE document_id = ?", (document_id,))}
        with self.database.transaction() as db:
            db.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
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
                    "metadata": json.dumps(item.parsed.metadata, ensure_ascii=False),
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
            doc_date = item.doc_date.isoformat() if item.doc_date else None
            db["observations"].insert_all(
                [
                    {
                        "document_id": document_id, "subject": o.subject, "subject_type": o.subject_type,
                        "key": o.key, "value": o.value, "confidence": o.confidence, "method": o.method,
                        "position": o.position, "doc_date": doc_date, "previous": o.previous or None,
                    }
                    for o in item.observations
                ]
            )
            self.kb.bump_version()
        new_ids = set(item.chunks)
        report.files_ingested += 1
        report.chunks_added += len(new_ids - old_ids)
        report.chunks_removed += len(old_ids - new_ids)

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
                db.execute("DELETE FROM documents WHERE id = ?", (row["id"],))
                self.kb.bump_version()
            report.chunks_removed += removed
            report.documents_pruned += 1
            self.on_event("pruned", path=str(path))
            changed = True
        return changed
