"""The English lexicon behind tier-1 correction: word counts, bigram counts,
and fast look-ups of the dictionary words near a misspelling.

The data are symspellpy's bundled frequency lists (82,765 words and 242,342
bigrams from Google Books n-grams, intersected with SCOWL), read through
importlib.resources so nothing is fetched at run time. The lexicon is built
once per process, lazily, in well under a second.

Near words are found with a symmetric-delete index: every dictionary word's
first PREFIX characters, with up to two characters deleted, are hashed into
one sorted numpy array; a misspelling's own deletions are looked up in it, and
the survivors are checked with rapidfuzz's OSA (Damerau) distance. Building
the ~2 million deletions as numpy columns instead of Python strings is what
keeps the first load short.
"""

from __future__ import annotations

import importlib.resources
import math
import threading
from collections import defaultdict
from functools import lru_cache
from itertools import combinations
from typing import Iterable

import jellyfish
import numpy as np
from rapidfuzz.distance import OSA
from rapidfuzz.process import cdist

WORDS_FILE = "frequency_dictionary_en_82_765.txt"
BIGRAMS_FILE = "frequency_bigramdictionary_en_243_342.txt"
PREFIX = 7  # as in SymSpell: deletions of longer words are taken from their first 7 letters
MAX_DISTANCE = 2
_MASK = (1 << 64) - 1
_BASE = 1_000_003  # odd multiplier of the polynomial string hash
_POWERS = [pow(_BASE, k, 1 << 64) for k in range(PREFIX)]


def _string_hash(text: str) -> int:
    """Polynomial hash of a short string; equal to the numpy version below."""
    value = 0
    for power, char in zip(_POWERS, text):
        value += ord(char) * power
    return value & _MASK


def _deletions(text: str, depth: int = MAX_DISTANCE) -> set[str]:
    """`text` and every string made by deleting up to `depth` of its characters."""
    found = {text}
    frontier = {text}
    for _ in range(depth):
        frontier = {s[:i] + s[i + 1 :] for s in frontier for i in range(len(s))} - found
        found |= frontier
    return found


def phonetic_key(word: str) -> str:
    return jellyfish.metaphone(word) if word.isascii() else ""


class DeleteIndex:
    """Symmetric-delete index over a fixed word list, held in numpy arrays."""

    def __init__(self, words: list[str]):
        self.words = words
        self.lengths = np.fromiter((len(w) for w in words), dtype=np.int32, count=len(words))
        codes = np.zeros((len(words), PREFIX), dtype=np.uint64)
        for row, word in enumerate(words):
            prefix = word[:PREFIX]
            codes[row, : len(prefix)] = [ord(c) for c in prefix]
        powers = np.array(_POWERS, dtype=np.uint64)
        ids = np.arange(len(words), dtype=np.int32)
        hashes, owners = [], []
        # Keeping columns in order deletes the others; padding zeros stay at
        # the end and add nothing to the hash, so short words come out right.
        for deleted in range(MAX_DISTANCE + 1):
            for removed in combinations(range(PREFIX), deleted):
                kept = [c for c in range(PREFIX) if c not in removed]
                hashes.append(codes[:, kept] @ powers[: len(kept)])
                owners.append(ids)
        all_hashes = np.concatenate(hashes)
        all_owners = np.concatenate(owners)
        order = np.lexsort((all_owners, all_hashes))
        all_hashes, all_owners = all_hashes[order], all_owners[order]
        distinct = np.ones(len(all_hashes), dtype=bool)
        distinct[1:] = (all_hashes[1:] != all_hashes[:-1]) | (all_owners[1:] != all_owners[:-1])
        all_hashes, self.owners = all_hashes[distinct], all_owners[distinct]
        self.keys, starts = np.unique(all_hashes, return_index=True)
        self.starts = np.append(starts, len(all_hashes)).astype(np.int64)

    def near(self, word: str, max_distance: int = MAX_DISTANCE) -> list[tuple[str, int]]:
        """Dictionary words within OSA distance `max_distance` of `word` (itself excluded)."""
        if not word:
            return []
        hashes = np.array([_string_hash(d) for d in _deletions(word[:PREFIX], max_distance)], dtype=np.uint64)
        positions = np.minimum(np.searchsorted(self.keys, hashes), len(self.keys) - 1)
        positions = positions[self.keys[positions] == hashes]
        if not len(positions):
            return []
        ids = np.unique(np.concatenate([self.owners[self.starts[p] : self.starts[p + 1]] for p in positions]))
        ids = ids[np.abs(self.lengths[ids] - len(word)) <= max_distance]
        candidates = [self.words[i] for i in ids]
        if not candidates:
            return []
        distances = cdist([word], candidates, scorer=OSA.distance, score_cutoff=max_distance, dtype=np.int32)[0]
        return [(c, int(d)) for c, d in zip(candidates, distances) if 0 < d <= max_distance]


class SmallIndex:
    """The same look-up for a few thousand added words (knowledge-base names), in plain Python."""

    def __init__(self) -> None:
        self.by_deletion: dict[str, set[str]] = defaultdict(set)
        self.by_sound: dict[str, set[str]] = defaultdict(set)
        self.words: set[str] = set()

    def add(self, word: str) -> None:
        if word in self.words:
            return
        self.words.add(word)
        for deletion in _deletions(word[:PREFIX]):
            self.by_deletion[deletion].add(word)
        key = phonetic_key(word)
        if key:
            self.by_sound[key].add(word)

    def near(self, word: str, max_distance: int = MAX_DISTANCE) -> list[tuple[str, int]]:
        found: set[str] = set()
        for deletion in _deletions(word[:PREFIX], max_distance):
            found |= self.by_deletion.get(deletion, set())
        out = []
        for candidate in found:
            distance = OSA.distance(word, candidate, score_cutoff=max_distance)
            if 0 < distance <= max_distance:
                out.append((candidate, distance))
        return out

    def sounding_like(self, word: str) -> set[str]:
        return self.by_sound.get(phonetic_key(word), set())


class Lexicon:
    """Word and bigram counts plus near-word look-ups; use `load_lexicon()`."""

    def __init__(self, counts: dict[str, int], bigrams: dict[str, int]):
        self.counts = counts
        self.total = float(sum(counts.values()))
        self.bigrams = bigrams
        # Bigram counts come from a different sample than the word counts, so
        # conditional probabilities use the bigram file's own marginals.
        self.left_totals: dict[str, int] = defaultdict(int)
        for pair, count in bigrams.items():
            self.left_totals[pair.split(" ", 1)[0]] += count
        self.left_totals = dict(self.left_totals)
        self.smallest_bigram = min(bigrams.values()) if bigrams else 1
        self.words = list(counts)
        self.index = DeleteIndex(self.words)
        self._by_sound: dict[str, list[str]] | None = None
        self._lock = threading.Lock()

    def count(self, word: str) -> int:
        return self.counts.get(word, 0)

    def log_probability(self, word: str, floor: float = 1.0) -> float:
        return math.log(max(self.counts.get(word, 0), floor) / self.total)

    def bigram(self, left: str, right: str) -> int:
        return self.bigrams.get(f"{left} {right}", 0)

    def near(self, word: str, max_distance: int = MAX_DISTANCE) -> list[tuple[str, int]]:
        return self.index.near(word, max_distance)

    def sounding_like(self, word: str) -> list[str]:
        """Dictionary words with the same Metaphone key."""
        if self._by_sound is None:
            with self._lock:
                if self._by_sound is None:
                    by_sound: dict[str, list[str]] = defaultdict(list)
                    for w in self.words:
                        by_sound[phonetic_key(w)].append(w)
                    self._by_sound = dict(by_sound)
        return self._by_sound.get(phonetic_key(word), [])


def _read_counts(name: str, fields: int) -> Iterable[tuple[str, int]]:
    text = importlib.resources.files("symspellpy").joinpath(name).read_text(encoding="utf-8")
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == fields:
            yield " ".join(parts[:-1]), int(parts[-1])


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    """The process-wide lexicon, built on first use."""
    counts = dict(_read_counts(WORDS_FILE, 2))
    bigrams = dict(_read_counts(BIGRAMS_FILE, 3))
    return Lexicon(counts, bigrams)
