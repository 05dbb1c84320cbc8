"""The keyword half of the knowledge index: BM25 (bm25s) over chunk texts,
persisted in the data dir.

bm25s builds a static index, so it is rebuilt whole after each ingest that
changed something; `version` records which knowledge-base state it reflects,
so a reader can tell a stale index (e.g. after a killed ingest) and rebuild.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

STATE_FILE = "chatapp-state.json"
# The version alone, so the check before every search does not parse the id list.
VERSION_FILE = "chatapp-version"


def _stemmer():
    try:
        import Stemmer  # PyStemmer

        return Stemmer.Stemmer("english").stemWords
    except ImportError:  # stemming helps recall; plain tokens still work
        return None


class KeywordIndex:
    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self._retriever = None
        self._ids: list[str] = []
        self._loaded_version: str | None = None
        self._stem = _stemmer()

    def _tokenize(self, texts: list[str], as_ids: bool = True):
        import bm25s

        return bm25s.tokenize(
            texts, stopwords="en", stemmer=self._stem, show_progress=False, return_ids=as_ids
        )

    @property
    def version(self) -> str | None:
        try:
            return (self.directory / VERSION_FILE).read_text().strip() or None
        except OSError:
            return None

    def size_bytes(self) -> int:
        if not self.directory.is_dir():
            return 0
        return sum(p.stat().st_size for p in self.directory.rglob("*") if p.is_file())

    def rebuild(self, ids: list[str], texts: list[str], version: str) -> None:
        import bm25s

        staging = self.directory.with_name(f"{self.directory.name}.building-{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        if ids:
            retriever = bm25s.BM25()
            retriever.index(self._tokenize(texts), show_progress=False)
            retriever.save(str(staging), show_progress=False)
        (staging / STATE_FILE).write_text(json.dumps({"version": version, "ids": ids}))
        (staging / VERSION_FILE).write_text(version)
        # Swap directories so a reader never sees half an index.
        retired = self.directory.with_name(f"{self.directory.name}.old-{os.getpid()}")
        if self.directory.exists():
            os.replace(self.directory, retired)
        os.replace(staging, self.directory)
        shutil.rmtree(retired, ignore_errors=True)
        self._retriever = None
        self._loaded_version = None

    def _load(self) -> bool:
        version = self.version
        if version is None:
            return False
        if self._loaded_version == version:
            return True
        import bm25s

        state = json.loads((self.directory / STATE_FILE).read_text())
        self._ids = state["ids"]
        self._retriever = bm25s.BM25.load(str(self.directory), show_progress=False) if self._ids else None
        self._loaded_version = version
        return True

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Chunk ids with BM25 scores, best first; empty if there is no index."""
        try:
            if not self._load() or self._retriever is None:
                return []
        except (OSError, ValueError):
            return []
        vocab = self._retriever.vocab_dict
        tokens = [t for t in self._tokenize([query], as_ids=False)[0] if t in vocab]
        if not tokens:
            return []
        k = min(k, len(self._ids))
        docs, scores = self._retriever.retrieve([tokens], k=k, show_progress=False, n_threads=1)
        return [(self._ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]
