"""The dense half of the knowledge index: chunk texts and their vectors in Chroma.

Full chunk text lives here (SQLite keeps ids, offsets and hashes), so a chunk
is re-loadable by id. Embeddings are computed by chatapp and handed to Chroma
explicitly, so Chroma never reaches for its own (downloading) default model.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from chatapp.config import Settings
from chatapp.knowledge.embeddings import MiniLMEmbedder, chroma_embedding_function
from chatapp.optional_imports import deferred, left_out
from chatapp.storage.problems import StorageError, describe

COLLECTION_NAME = "chatapp_chunks"


@dataclass
class VectorHit:
    chunk_id: str
    similarity: float  # cosine similarity, 1.0 = same direction
    content: str
    metadata: dict[str, Any]


# chromadb imports its OpenTelemetry exporter whatever its settings, and calls it only to send traces to
# a collector (chroma_otel_collection_endpoint), which chatapp never sets up.
OTEL_EXPORTER = "opentelemetry.exporter.otlp.proto.grpc.trace_exporter"


def import_chromadb():
    """The chromadb package, imported (on first call) without its OpenTelemetry gRPC exporter (grpc and
    protobuf: 11 MiB and 0.15 s of CPU) and httpx's command line (pygments, 2.6 MiB), which httpx imports
    when it can and chromadb's HTTP client never runs. Every chatapp module imports chromadb through
    this, or after it."""
    if "chromadb" in sys.modules:
        import chromadb  # imported already, or being imported by another thread: this waits for it

        return chromadb
    with deferred(OTEL_EXPORTER, "OTLPSpanExporter"), left_out("httpx._main"):
        import chromadb
    return chromadb


def open_chroma_client(settings: Settings):
    chromadb = import_chromadb()
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma_url:
        from urllib.parse import urlparse

        url = urlparse(settings.chroma_url)
        return chromadb.HttpClient(
            host=url.hostname or "localhost",
            port=url.port or (443 if url.scheme == "https" else 8000),
            ssl=url.scheme == "https",
            settings=chroma_settings,
        )
    settings.chroma_dir.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(settings.chroma_dir), settings=chroma_settings)


class VectorIndex:
    def __init__(self, settings: Settings, embedder: MiniLMEmbedder):
        self.settings = settings
        self.embedder = embedder
        self._client = None
        self._collection = None
        # Whether the collection was seen holding chunks: asked once, not before
        # every query (writes happen under the write lock, which closes this index).
        self._has_chunks = False

    @property
    def collection(self):
        if self._collection is None:
            with self._reading():
                self._client = open_chroma_client(self.settings)
                self._collection = self._client.get_or_create_collection(
                    COLLECTION_NAME,
                    embedding_function=chroma_embedding_function(self.embedder),
                    metadata={"hnsw:space": "cosine"},
                )
        return self._collection

    @contextmanager
    def _reading(self):
        """A local index whose files Chroma cannot read (a damaged chroma.sqlite3: Chroma raises its
        own InternalError with a traceback's worth of detail) is one line saying what to run. A full
        or read-only disk keeps its own message; a Chroma server's failures are not ours to name."""
        try:
            yield
        except StorageError:
            raise
        except Exception as exc:
            if self.settings.chroma_url:
                raise
            known = describe(exc, self.settings.data_dir)
            if known and "kb rebuild" not in known:
                raise StorageError(known) from exc
            raise StorageError(f"the vector index at {self.settings.chroma_dir} cannot be read (damaged?): "
                               "run `chatapp kb rebuild`") from exc

    def count(self) -> int:
        with self._reading():
            return self.collection.count()

    def reset(self) -> str:
        """Drop every chunk, so a rebuild starts from nothing. A local index Chroma cannot open
        (damaged files) is moved aside instead, and a new one made; returns where it was moved
        ("" when it was not), so the user can look at it or delete it."""
        import_chromadb()
        from chromadb.errors import NotFoundError

        try:
            client = self._client or open_chroma_client(self.settings)
            try:
                client.delete_collection(COLLECTION_NAME)
            except NotFoundError:
                pass  # no index yet, or chroma/ was deleted: nothing to drop
        except Exception:
            if self.settings.chroma_url:
                raise  # a server's storage is not ours to move
            self.close(forget_cached_state=True)
            directory = self.settings.chroma_dir
            moved = directory.with_name(f"{directory.name}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
            os.replace(directory, moved)
            return str(moved)
        self._client, self._collection, self._has_chunks = client, None, False
        return ""

    def upsert(self, ids: list[str], texts: list[str], metadatas: list[dict], embeddings=None) -> None:
        if not ids:
            return
        if embeddings is None:
            embeddings = self.embedder.embed(texts)
        self.collection.upsert(ids=ids, documents=texts, metadatas=metadatas, embeddings=embeddings)

    def delete_document(self, document_id: str) -> None:
        self.delete_documents([document_id])

    def delete_documents(self, document_ids: list[str]) -> None:
        # By metadata, not by the ids SQLite knows: a kill between the Chroma
        # write and the SQLite commit can leave chunks only Chroma has.
        if document_ids:
            self.collection.delete(where={"document_id": {"$in": list(document_ids)}})

    def query(self, text: str, k: int) -> list[VectorHit]:
        return self.query_many([text], k)[0]

    def _is_empty(self) -> bool:
        if not self._has_chunks:
            self._has_chunks = self.count() > 0
        return not self._has_chunks

    def query_many(self, texts: list[str], k: int) -> list[list[VectorHit]]:
        """Nearest chunks for each text: one embedding batch, one Chroma call."""
        if k <= 0 or not texts or self._is_empty():
            return [[] for _ in texts]
        vectors = self.embedder.embed(list(texts))
        with self._reading():
            result = self.collection.query(
                query_embeddings=vectors, n_results=k, include=["documents", "metadatas", "distances"]
            )
        return [
            [
                VectorHit(chunk_id=i, similarity=1.0 - float(d), content=doc or "", metadata=meta or {})
                for i, d, doc, meta in zip(ids, distances, documents, metadatas)
            ]
            for ids, distances, documents, metadatas in zip(
                result["ids"], result["distances"], result["documents"], result["metadatas"]
            )
        ]

    def nearest_many(self, texts: list[str], k: int) -> list[list[tuple[str, float]]]:
        """(chunk id, cosine similarity) of the nearest chunks for each text,
        best first: query_many without the texts, which cost Chroma more to
        fetch than the search itself (hybrid search takes them from the
        keyword index instead)."""
        if k <= 0 or not texts or self._is_empty():
            return [[] for _ in texts]
        vectors = self.embedder.embed(list(texts))
        with self._reading():
            result = self.collection.query(query_embeddings=vectors, n_results=k, include=["distances"])
        return [
            [(i, 1.0 - float(d)) for i, d in zip(ids, distances)]
            for ids, distances in zip(result["ids"], result["distances"])
        ]

    def get(self, ids: list[str]) -> dict[str, tuple[str, dict]]:
        """Text and metadata by chunk id (ids Chroma does not have are absent)."""
        found: dict[str, tuple[str, dict]] = {}
        for begin in range(0, len(ids), 500):
            with self._reading():
                result = self.collection.get(ids=ids[begin : begin + 500], include=["documents", "metadatas"])
            for i, doc, meta in zip(result["ids"], result["documents"], result["metadatas"]):
                found[i] = (doc or "", meta or {})
        return found

    def close(self, forget_cached_state: bool = False) -> None:
        """Let go of the collection. `forget_cached_state`: also drop the state
        Chroma shares between clients of one path in this process, so the next
        client reads what other processes wrote meanwhile."""
        self._has_chunks = False
        self._collection = None
        self._client = None
        if forget_cached_state and not self.settings.chroma_url:
            import_chromadb()
            from chromadb.api.client import SharedSystemClient

            SharedSystemClient.clear_system_cache()
