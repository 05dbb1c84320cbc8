"""The keyword half of the knowledge index: BM25 (bm25s) over chunk texts,
persisted in the data dir, with each chunk's text stored beside it.

bm25s builds a static index, so it is rebuilt whole after each ingest that
changed something; `version` records which knowledge-base state it reflects,
so a reader can tell a stale index (e.g. after a killed ingest) and rebuild.

The texts are kept so that a search can hand back chunk texts without a
round trip to Chroma (fetching documents is most of a Chroma query's cost).
Chunk ids are hashes of their text, so an id's text never changes: even a
stale index answers correctly for the ids it has.
"""

from __future__ import annotations

import json
import mmap
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatapp.accents import strip_accents
from chatapp.optional_imports import left_out

if TYPE_CHECKING:
    import numpy as np

STATE_FILE = "chatapp-state.json"
# The version alone, so the check before every search does not parse the id list.
VERSION_FILE = "chatapp-version"
# All chunk texts as UTF-8, back to back, and where each one starts (n + 1 offsets).
TEXTS_FILE = "chatapp-texts.bin"
OFFSETS_FILE = "chatapp-text-offsets.npy"
# Written with an index whose words were read without their accents ("café" is "cafe", as a user without
# the key types it); an index without it was written before, and is rebuilt once.
FOLDED_FILE = "chatapp-accents-folded"


def _bm25s():
    """bm25s, imported without scipy when nothing in the process has loaded scipy.sparse: bm25s
    imports it whenever it can, but uses it only to build an index with csc_backend="scipy" (its
    default, and ours, is numpy), and scores with numpy alone. scipy.sparse was 0.2 s and 8 MiB of
    a cold `ask`."""
    if "bm25s" not in sys.modules:
        # Nothing chatapp loads beside this import uses scipy.
        with left_out("scipy.sparse"):
            import bm25s  # noqa: F401
    import bm25s

    return bm25s


def _stemmer():
    try:
        import Stemmer  # PyStemmer

        return Stemmer.Stemmer("english").stemWords
    except ImportError:  # stemming helps recall; plain tokens still work
        return None


@dataclass(frozen=True)
class _Loaded:
    """One version of the index as read from disk, replaced whole (never
    changed in place) so a search in another thread sees one version only."""

    version: str
    retriever: Any  # bm25s.BM25, or None for an empty knowledge base
    ids: list[str]
    positions: dict[str, int]
    texts: mmap.mmap | bytes
    offsets: np.ndarray

    def text(self, chunk_id: str) -> str | None:
        n = self.positions.get(chunk_id)
        if n is None:
            return None
        return self.texts[int(self.offsets[n]) : int(self.offsets[n + 1])].decode("utf-8")


class KeywordIndex:
    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self._loaded: _Loaded | None = None
        self._version_seen: tuple[tuple, str | None] | None = None  # (version file's stat, version)
        self._stem = None  # the stemmer, loaded with bm25s when text is first tokenized
        self._stem_loaded = False

    def _tokenize(self, texts: list[str], as_ids: bool = True):
        bm25s = _bm25s()
        if not self._stem_loaded:
            self._stem, self._stem_loaded = _stemmer(), True
        return bm25s.tokenize(
            [strip_accents(text) for text in texts], stopwords="en", stemmer=self._stem, show_progress=False,
            return_ids=as_ids
        )

    @property
    def version(self) -> str | None:
        """The knowledge-base version this index reflects; None when there is
        no index, or one written before texts were stored beside it (so the
        next ingest or search rebuilds it once). Asked before every search:
        the file is read again only when it changed (a rebuild writes a new one)."""
        path = self.directory / VERSION_FILE
        try:
            info = os.stat(path)
            stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
            if self._version_seen is not None and self._version_seen[0] == stamp:
                return self._version_seen[1]
            version = path.read_text().strip() or None
        except OSError:
            return None
        if version is not None and not ((self.directory / OFFSETS_FILE).is_file()
                                        and (self.directory / FOLDED_FILE).is_file()):
            version = None
        self._version_seen = (stamp, version)
        return version

    def rebuild(self, ids: list[str], texts: list[str], version: str) -> None:
        import numpy as np  # here, not at the top: commands that never search do not load numpy

        bm25s = _bm25s()

        staging = self.directory.with_name(f"{self.directory.name}.building-{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        if ids:
            retriever = bm25s.BM25()
            retriever.index(self._tokenize(texts), show_progress=False)
            retriever.save(str(staging), show_progress=False)
        encoded = [text.encode("utf-8") for text in texts]
        (staging / TEXTS_FILE).write_bytes(b"".join(encoded))
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        np.save(staging / OFFSETS_FILE, offsets)
        (staging / STATE_FILE).write_text(json.dumps({"version": version, "ids": ids}))
        (staging / FOLDED_FILE).write_text("")
        (staging / VERSION_FILE).write_text(version)
        self._loaded = None  # let go of the old files before they are swapped away
        # Swap directories so a reader never sees half an index.
        retired = self.directory.with_name(f"{self.directory.name}.old-{os.getpid()}")
        if self.directory.exists():
            os.replace(self.directory, retired)
        os.replace(staging, self.directory)
        shutil.rmtree(retired, ignore_errors=True)

    def _load(self) -> _Loaded | None:
        version = self.version
        if version is None:
            return None
        loaded = self._loaded
        if loaded is not None and loaded.version == version:
            return loaded
        import numpy as np

        bm25s = _bm25s()
        ids = json.loads((self.directory / STATE_FILE).read_text())["ids"]
        retriever = bm25s.BM25.load(str(self.directory), show_progress=False) if ids else None
        offsets = np.load(self.directory / OFFSETS_FILE)
        with open(self.directory / TEXTS_FILE, "rb") as handle:
            # Mapped, not read: a large knowledge base's texts stay on disk until asked for.
            texts = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if offsets[-1] else b""
        loaded = _Loaded(version, retriever, ids, {chunk_id: n for n, chunk_id in enumerate(ids)}, texts, offsets)
        self._loaded = loaded
        return loaded

    def texts(self, chunk_ids: list[str]) -> dict[str, str]:
        """The stored text of each chunk id this index has (others are absent)."""
        try:
            loaded = self._load()
        except (OSError, ValueError):
            return {}
        if loaded is None:
            return {}
        return {chunk_id: text for chunk_id in chunk_ids if (text := loaded.text(chunk_id)) is not None}

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Chunk ids with BM25 scores, best first; empty if there is no index."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: list[str], k: int) -> list[list[tuple[str, float]]]:
        """search() for each query, tokenised and scored in one pass."""
        results: list[list[tuple[str, float]]] = [[] for _ in queries]
        try:
            loaded = self._load() if queries else None
        except (OSError, ValueError):
            return results
        if loaded is None or loaded.retriever is None:
            return results
        vocab = loaded.retriever.vocab_dict
        tokenized = self._tokenize(list(queries), as_ids=False)
        wanted = [(n, [t for t in tokens if t in vocab]) for n, tokens in enumerate(tokenized)]
        wanted = [(n, tokens) for n, tokens in wanted if tokens]
        k = min(k, len(loaded.ids))
        if not wanted or k <= 0:
            return results
        # n_threads=0: scored in this thread; a pool per call costs more than a small corpus's scoring.
        docs, scores = loaded.retriever.retrieve([tokens for _, tokens in wanted], k=k, show_progress=False,
                                                 n_threads=0)
        for (n, _), row_docs, row_scores in zip(wanted, docs, scores):
            results[n] = [(loaded.ids[int(d)], float(s)) for d, s in zip(row_docs, row_scores) if s > 0]
        return results
