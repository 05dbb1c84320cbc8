"""The English lexicon behind tier-1 correction: word counts, bigram counts,
and fast look-ups of the dictionary words near a misspelling.

The data are symspellpy's bundled frequency lists (82,765 words and 242,342
bigrams from Google Books n-grams, intersected with SCOWL), joined with
wordfreq's list of English words used at least once per million words: the
first is clean but British-leaning and dated (no "favorite", "color", "ok",
"instagram"), the second fills those gaps. Both are read from the installed
packages, so nothing is fetched at run time. The lexicon is built on first use,
as arrays only (`lexicon_tables`), which the table cache keeps in the data dir:
later processes memory-map them instead of building them again.

Words are numbered; counts and bigrams live in numpy arrays so a whole
candidate list is scored in one vectorised step. Near words are found with a
symmetric-delete index (as in SymSpell): every dictionary word's first PREFIX
letters, with up to two letters deleted, are hashed into one sorted array; a
misspelling's own deletions are looked up in it, and the survivors are checked
with rapidfuzz's OSA (Damerau) distance. Building the ~2 million deletions as
numpy columns rather than Python strings is what keeps the first build short.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import math
import threading
from collections import defaultdict
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import Iterable

import jellyfish
import numpy as np
from rapidfuzz.distance import OSA
from rapidfuzz.process import cdist

WORDS_FILE = "frequency_dictionary_en_82_765.txt"
BIGRAMS_FILE = "frequency_bigramdictionary_en_243_342.txt"
PREFIX = 7  # as in SymSpell: deletions of longer words come from their first 7 letters
MAX_DISTANCE = 2
# A web word rarer than this (zipf: log10 of uses per billion words) that is one edit from a
# word MISSPELLING_GAP zipf units more frequent is taken for that word's misspelling ("teh").
MISSPELLING_MAX_ZIPF = 3.5
MISSPELLING_GAP = 3.0
NEAR_CACHE_SIZE = 8192  # words whose near words are remembered
RECENT_WORDS = 4096  # words whose id (or absence) is remembered
_BASE = 1_000_003  # odd multiplier of the polynomial string hash
_POWERS = [pow(_BASE, k, 1 << 64) for k in range(PREFIX)]
# 32-bit keys: a rare collision only adds a candidate that the distance check drops.
_MASK32 = np.uint64((1 << 32) - 1)


def deletions(text: str, depth: int = MAX_DISTANCE) -> set[str]:
    """`text` and every string made by deleting up to `depth` of its characters."""
    found = {text}
    frontier = {text}
    for _ in range(depth):
        frontier = {s[:i] + s[i + 1 :] for s in frontier for i in range(len(s))} - found
        found |= frontier
    return found


_DELETION_WEIGHTS: dict[tuple[int, int, int], np.ndarray] = {}


def _deletion_weights(length: int, depth: int, least: int) -> np.ndarray:
    """One row per way of deleting `least` to `depth` of `length` letters: the power of BASE
    each remaining letter is multiplied by (0 for a deleted one), so rows @ codes are hashes."""
    key = (length, depth, least)
    if key not in _DELETION_WEIGHTS:
        rows = []
        for d in range(least, min(depth, length) + 1):
            for removed in combinations(range(length), d):
                kept = [c for c in range(length) if c not in removed]
                row = [0] * length
                for position, column in enumerate(kept):
                    row[column] = _POWERS[position]
                rows.append(row)
        _DELETION_WEIGHTS[key] = np.array(rows, dtype=np.uint64).reshape(len(rows), length)
    return _DELETION_WEIGHTS[key]


def _deletion_hashes(text: str, depth: int, least: int = 0) -> np.ndarray:
    """Hashes of `text` with `least` to `depth` letters deleted: sum of code * BASE**position,
    mod 2**32, the same value the index computes for its words."""
    codes = np.array([ord(c) for c in text], dtype=np.uint64)
    return ((_deletion_weights(len(text), depth, least) @ codes) & _MASK32).astype(np.uint32)


def phonetic_key(word: str) -> str:
    """Metaphone key ("" for words outside ASCII, which Metaphone does not model)."""
    return jellyfish.metaphone(word) if word.isascii() else ""


def delete_index_tables(words: list[str]) -> dict[str, np.ndarray]:
    """The arrays of a symmetric-delete index over `words` (see DeleteIndex)."""
    lengths = np.fromiter(map(len, words), dtype=np.int32, count=len(words))
    padded = "".join(w[:PREFIX].ljust(PREFIX, "\0") for w in words)
    codes = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32).reshape(-1, PREFIX).astype(np.uint64)
    real_letters = np.minimum(lengths, PREFIX)
    powers = np.array(_POWERS, dtype=np.uint64)
    entries = []
    for depth in range(MAX_DISTANCE + 1):
        for removed in combinations(range(PREFIX), depth):
            # Deleting a padding column repeats a shorter deletion: skip those rows.
            rows = np.flatnonzero(real_letters > (removed[-1] if removed else -1)).astype(np.uint64)
            kept = [c for c in range(PREFIX) if c not in removed]
            value = np.zeros(len(rows), dtype=np.uint64)
            for position, column in enumerate(kept):
                value += codes[rows, column] * powers[position]
            # One sortable number per entry: 32-bit hash above, word id below.
            entries.append(((value & _MASK32) << np.uint64(32)) | rows)
    combined = np.sort(np.concatenate(entries))
    all_hashes = combined >> np.uint64(32)
    first = np.ones(len(all_hashes), dtype=bool)
    first[1:] = all_hashes[1:] != all_hashes[:-1]
    return {
        "index_lengths": lengths,
        "index_owners": (combined & _MASK32).astype(np.int32),
        "index_keys": all_hashes[first].astype(np.uint32),
        "index_starts": np.append(np.flatnonzero(first), len(all_hashes)),
    }


class DeleteIndex:
    """Symmetric-delete index over a fixed word list, held in numpy arrays (which may be
    memory-mapped from the table cache)."""

    def __init__(self, words: np.ndarray, tables: dict[str, np.ndarray]):
        self.word_array = words  # the words by id (a str array)
        self.lengths = tables["index_lengths"]
        self.owners = tables["index_owners"]
        self.keys = tables["index_keys"]
        self.starts = tables["index_starts"]

    def near(self, word: str, max_distance: int = MAX_DISTANCE, closest_first: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Ids and OSA distances of the words within `max_distance` of `word` (itself excluded).

        `closest_first`: look up the word's single deletions first and stop there if
        that finds a word one edit away (as SymSpell does); those keys also find many
        words two edits away, so little is lost, and most words need 8 look-ups instead of 29.
        """
        if not word:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int32)
        prefix = word[:PREFIX]
        if not closest_first or max_distance < 2:
            return self._verified(word, _deletion_hashes(prefix, max_distance), max_distance)
        ids, distances = self._verified(word, _deletion_hashes(prefix, 1), max_distance)
        if len(distances) and distances.min() == 1:
            return ids, distances
        more, more_distances = self._verified(word, _deletion_hashes(prefix, max_distance, least=2), max_distance)
        ids, first = np.unique(np.concatenate([ids, more]), return_index=True)
        return ids, np.concatenate([distances, more_distances])[first]

    def _verified(self, word: str, hashes: np.ndarray, max_distance: int) -> tuple[np.ndarray, np.ndarray]:
        """The words owning any of `hashes`, checked to lie within `max_distance` of `word`."""
        empty = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int32))
        positions = np.searchsorted(self.keys, hashes)
        np.minimum(positions, len(self.keys) - 1, out=positions)
        positions = positions[self.keys[positions] == hashes]
        if not len(positions):
            return empty
        # Concatenate the owner runs of all matched keys in one vectorised step.
        starts = self.starts[positions]
        sizes = self.starts[positions + 1] - starts
        ends = np.cumsum(sizes)
        ids = self.owners[np.repeat(starts - ends + sizes, sizes) + np.arange(ends[-1])]
        ids = ids[np.abs(self.lengths[ids] - len(word)) <= max_distance]
        if not len(ids):
            return empty
        ids.sort()
        ids = ids[np.concatenate(([True], ids[1:] != ids[:-1]))]
        distances = cdist([word], self.word_array[ids].tolist(), scorer=OSA.distance, score_cutoff=max_distance, dtype=np.int32)[0]
        keep = (distances > 0) & (distances <= max_distance)
        return ids[keep].astype(np.int64), distances[keep]


class SmallIndex:
    """The same look-ups for a few thousand added words (knowledge-base names), in plain Python."""

    def __init__(self) -> None:
        self.by_deletion: dict[str, set[str]] = defaultdict(set)
        self.by_sound: dict[str, set[str]] = defaultdict(set)
        self.words: set[str] = set()

    def add(self, word: str) -> None:
        if word in self.words:
            return
        self.words.add(word)
        for deletion in deletions(word[:PREFIX]):
            self.by_deletion[deletion].add(word)
        key = phonetic_key(word)
        if key:
            self.by_sound[key].add(word)

    def near(self, word: str, max_distance: int = MAX_DISTANCE) -> list[tuple[str, int]]:
        found: set[str] = set()
        for deletion in deletions(word[:PREFIX], max_distance):
            found |= self.by_deletion.get(deletion, set())
        out = []
        for candidate in found:
            distance = OSA.distance(word, candidate, score_cutoff=max_distance)
            if 0 < distance <= max_distance:
                out.append((candidate, distance))
        return out

    def sounding_like(self, word: str) -> set[str]:
        key = phonetic_key(word)
        return self.by_sound.get(key, set()) if key else set()


class WordIds:
    """The lexicon's words by id and each word's id, read from arrays (the words in id order, the same
    words sorted and their ids in that order: a binary search, about a microsecond) rather than held as
    a list and a dict of 85,000 Python strings (10 MiB of every process that corrects). The words most
    recently looked up are remembered: text repeats its words, and correcting a long paste asks about
    each word's neighbours (a pasted 5,000 characters: 10,000 look-ups). `word(i)` is the word of id i (a
    slice: a list); `word_ids[word]`, `.get(word)` and `word in word_ids` look a word up."""

    def __init__(self, words: np.ndarray, sorted_words: np.ndarray, sorted_ids: np.ndarray):
        self._words = words
        self._sorted_words = sorted_words
        self._sorted_ids = sorted_ids
        self._longest = words.dtype.itemsize // np.dtype("U1").itemsize
        self._remembered = lru_cache(maxsize=RECENT_WORDS)(self._look_up)

    def __len__(self) -> int:
        return len(self._words)

    def word(self, word_id):
        """The word of an id (a list of words for a slice)."""
        if isinstance(word_id, slice):
            return self._words[word_id].tolist()
        return str(self._words[word_id])

    def get(self, word: str, default=None):
        if not isinstance(word, str):
            return default
        found = self._remembered(word)
        return default if found is None else found

    def _look_up(self, word: str) -> int | None:
        # numpy pads its strings with NULs: a word ending in one would match the word without it.
        if len(word) > self._longest or word.endswith("\0"):
            return None
        # The last of equal words, as a dict built in id order keeps (the sort is stable).
        at = int(self._sorted_words.searchsorted(word, side="right")) - 1
        if at >= 0 and self._sorted_words[at] == word:
            return int(self._sorted_ids[at])
        return None

    def __getitem__(self, word: str) -> int:
        found = self.get(word)
        if found is None:
            raise KeyError(word)
        return found

    def __contains__(self, word) -> bool:
        return self.get(word) is not None


class _WordsById:
    """`Lexicon.words`: the word of an id, as a list would give it."""

    def __init__(self, ids: WordIds):
        self._ids = ids

    def __len__(self) -> int:
        return len(self._ids)

    def __getitem__(self, word_id):
        return self._ids.word(word_id)


class Lexicon:
    """Word and bigram counts plus near-word look-ups; get it from `load_lexicon()`.

    Ids below `core_size` are the curated dictionary's words. After them come
    the web-frequency words it lacks (American spellings such as "favorite",
    newer words such as "instagram"), which are candidates too; `other_known`
    holds the short and possessive forms that are known but never offered.
    """

    # The arrays made into Python lists, sets and dicts as the lexicon is made (the rest are looked up).
    READ_WHOLE = ("web_words", "web_zipf", "other_known", "chat_speak_ids")

    def __init__(self, tables: dict[str, np.ndarray]):
        """From the arrays `lexicon_tables()` makes (or the table cache memory-maps)."""
        self.word_id = WordIds(tables["words"], tables["sorted_words"], tables["sorted_word_ids"])
        self.words = _WordsById(self.word_id)
        self.core_size = int(tables["core_size"])
        self.size = len(self.words)
        web_words = tables["web_words"].tolist()
        self.web_zipf: dict[str, float] = dict(zip(web_words, tables["web_zipf"].tolist()))
        self.other_known: set[str] = set(tables["other_known"].tolist())
        # Dictionary words that are also chat-speak ("cant"): never offered, they would be corrected again.
        self.chat_speak_ids = frozenset(tables["chat_speak_ids"].tolist())
        self.counts = tables["counts"]
        self.total = float(tables["total"])
        self.log_probabilities = tables["log_probabilities"]
        self.bigram_keys = tables["bigram_keys"]
        self.bigram_counts = tables["bigram_counts"]
        # Bigram counts come from a different sample than the word counts, so
        # conditional probabilities use the bigram file's own marginals.
        self.left_totals = tables["left_totals"]
        self.smallest_bigram = float(tables["smallest_bigram"])
        self.index = DeleteIndex(tables["words"], tables)
        self._sound_keys = tables["sound_keys"]
        self._sound_order = tables["sound_order"]
        self._sorted_sounds = tables["sorted_sounds"]
        self._misspelling_verdicts: dict[str, bool] = {}
        self._near_cached = lru_cache(maxsize=NEAR_CACHE_SIZE)(self._near_read_only)

    def __contains__(self, word: str) -> bool:
        return word in self.word_id

    def is_word(self, word: str) -> bool:
        """Whether `word` is English to leave alone: a dictionary word, or a web word that
        is not just a frequent misspelling of a far more frequent word ("teh" of "the")."""
        if word in self.word_id and self.word_id[word] < self.core_size:
            return True
        zipf = self.web_zipf.get(word)
        if zipf is None:
            return False
        if zipf >= MISSPELLING_MAX_ZIPF:
            return True
        verdict = self._misspelling_verdicts.get(word)
        if verdict is None:
            ids, _ = self.index.near(word, 1)
            best = float(self.counts[ids].max()) if len(ids) else 0.0
            verdict = best > 0 and self.zipf_of(best) - zipf >= MISSPELLING_GAP
            self._misspelling_verdicts[word] = verdict
        return not verdict

    def count(self, word: str) -> float:
        i = self.word_id.get(word)
        return 0.0 if i is None else float(self.counts[i])

    def zipf_of(self, count: float) -> float:
        """A count in these lists on the Zipf scale (3: once per million words); 0 for none."""
        return math.log10(count / self.total) + 9 if count > 0 else 0.0

    def _pair_counts(self, keys: np.ndarray) -> np.ndarray:
        """Counts of the bigrams with these keys (left id * size + right id); 0 where unlisted."""
        positions = np.searchsorted(self.bigram_keys, keys)
        np.minimum(positions, len(self.bigram_keys) - 1, out=positions)
        return np.where(self.bigram_keys[positions] == keys, self.bigram_counts[positions], 0.0)

    def near(self, word: str, max_distance: int = MAX_DISTANCE, closest_first: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """`DeleteIndex.near`, remembered for the most recent words: text repeats its
        words ("the", "and"), and the live path re-reads the same line on every key."""
        return self._near_cached(word, max_distance, closest_first)

    def forget_recent(self) -> None:
        """Drop the remembered look-ups (for measurements that must start cold)."""
        self._near_cached.cache_clear()

    def _near_read_only(self, word: str, max_distance: int, closest_first: bool) -> tuple[np.ndarray, np.ndarray]:
        ids, distances = self.index.near(word, max_distance, closest_first)
        ids.flags.writeable = distances.flags.writeable = False  # shared by every caller of the cache
        return ids, distances

    def context_pmi(self, ids: np.ndarray, left: str | None, right: str | None, backoff: float) -> np.ndarray:
        """PMI(left, w) + PMI(w, right) for each word id: how much more likely the neighbours make it.

        A pair the bigram list lacks occurred fewer times than its rarest pair, so
        its probability is taken as `backoff` x P(w), capped by that bound.
        """
        scores = np.zeros(len(ids))
        left_id = self.word_id.get(left) if left else None
        if left_id is not None and self.left_totals[left_id] > 0:
            total = self.left_totals[left_id]
            unigram = self.counts[ids] / self.total
            pairs = self._pair_counts(ids + left_id * self.size)
            p = np.where(pairs > 0, pairs / total, np.minimum(backoff * unigram, self.smallest_bigram / total))
            scores += np.log(p / unigram)
        right_id = self.word_id.get(right) if right else None
        if right_id is not None:
            p_right = self.counts[right_id] / self.total
            totals = np.maximum(self.left_totals[ids], 1.0)  # 1 where a word starts no listed pair
            pairs = self._pair_counts(ids * self.size + right_id)
            p = np.where(pairs > 0, pairs / totals, np.minimum(backoff * p_right, self.smallest_bigram / totals))
            scores += np.log(p / p_right)
        return scores

    def sounding_like(self, word: str, key: str | None = None) -> list[int]:
        """Ids of the dictionary words with the same Metaphone key as `word` (`key`, if known), in id order."""
        key = phonetic_key(word) if key is None else key
        if not key:
            return []
        first = int(np.searchsorted(self._sorted_sounds, key, side="left"))
        last = int(np.searchsorted(self._sorted_sounds, key, side="right"))
        return self._sound_order[first:last].tolist()

    def sound_of(self, word_id: int) -> str:
        """The Metaphone key of a dictionary word."""
        return str(self._sound_keys[word_id])


def lexicon_tables(words: list[str], counts: np.ndarray, bigram_left: np.ndarray, bigram_right: np.ndarray,
                   bigram_counts: np.ndarray, web_words: dict[str, float] | None = None,
                   never_offer: Iterable[str] = ()) -> dict[str, np.ndarray]:
    """Everything a Lexicon holds, as arrays: the curated words and their counts, the web words
    they lack, the bigrams, the near-word index and the Metaphone keys."""
    core_size = len(words)
    total = float(counts.sum())
    core, skip = set(words), set(never_offer)
    web_names, web_zipf, other_known = [], [], []
    extra_words, extra_counts = [], []
    for word, frequency in (web_words or {}).items():
        if word in core or word in skip:
            continue
        web_names.append(word)
        web_zipf.append(math.log10(frequency) + 9)
        if len(word) > 2 and word.isascii() and word.isalpha():
            extra_words.append(word)
            extra_counts.append(frequency * total)
        else:
            other_known.append(word)
    all_words = words + extra_words
    size = len(all_words)
    all_counts = np.concatenate([counts.astype(np.float64), np.array(extra_counts, dtype=np.float64)])
    keys = bigram_left.astype(np.int64) * size + bigram_right
    order = np.argsort(keys)
    sound_keys = np.array([jellyfish.metaphone(w) for w in all_words] or [""], dtype=str)[:size]
    sound_order = np.argsort(sound_keys, kind="stable")
    word_array = np.array(all_words or [""], dtype=str)[:size]
    word_order = np.argsort(word_array, kind="stable")
    return {
        "words": word_array,
        "sorted_words": word_array[word_order],
        "sorted_word_ids": word_order.astype(np.int32),
        "core_size": np.array(core_size),
        "web_words": np.array(web_names or [""], dtype=str)[:len(web_names)],
        "web_zipf": np.array(web_zipf, dtype=np.float64),
        "other_known": np.array(other_known or [""], dtype=str)[:len(other_known)],
        "chat_speak_ids": np.array([i for i, w in enumerate(words) if w in skip], dtype=np.int64),
        "counts": all_counts,
        "total": np.array(total),
        "log_probabilities": np.log(all_counts / total),
        "bigram_keys": keys[order],
        "bigram_counts": bigram_counts[order].astype(np.float64),
        "left_totals": np.bincount(bigram_left, weights=bigram_counts, minlength=size).astype(np.float64),
        "smallest_bigram": np.array(float(bigram_counts.min()) if len(bigram_counts) else 1.0),
        "sound_keys": sound_keys,
        "sound_order": sound_order.astype(np.int32),
        "sorted_sounds": sound_keys[sound_order],
        **delete_index_tables(all_words),
    }


def _read_fields(name: str) -> list[str]:
    return importlib.resources.files("symspellpy").joinpath(name).read_text(encoding="utf-8").split()


def _web_words() -> dict[str, float]:
    """wordfreq's English words used at least once per million words (its "small" list), read
    from its data file without importing wordfreq (which costs more than the rest of the
    lexicon); wordfreq's own reader where the file is not as expected; without wordfreq the
    lexicon is symspellpy's lists alone."""
    from chatapp.lexicon import read_wordfreq_list, wordfreq_list_path

    buckets = read_wordfreq_list("small_en")
    if buckets is not None:
        frequencies = {}
        for centibels, bucket in enumerate(buckets):
            frequencies.update(dict.fromkeys(bucket, 10 ** (-centibels / 100)))
        return frequencies
    if wordfreq_list_path("small_en") is None:
        return {}
    import wordfreq

    return wordfreq.get_frequency_dict("en", wordlist="small")


_LOAD_LOCK = threading.Lock()


def load_lexicon() -> Lexicon:
    """The process-wide lexicon, built on first use (the TUI may ask from two threads)."""
    with _LOAD_LOCK:
        return _build_lexicon()


@lru_cache(maxsize=1)
def _build_lexicon() -> Lexicon:
    from chatapp.preprocess.correction.abbreviations import CHAT_SPEAK, CONTRACTIONS
    from chatapp.table_cache import load_or_build

    # Chat-speak is corrected through its table, so it is never a dictionary word or a candidate.
    never_offer = sorted(set(CHAT_SPEAK) | set(CONTRACTIONS))
    tables = load_or_build("lexicon", _lexicon_inputs(never_offer), lambda: _read_lexicon_tables(never_offer),
                           read_whole=Lexicon.READ_WHOLE)
    return Lexicon(tables)


def _lexicon_inputs(never_offer: list[str]) -> list[str]:
    """What the lexicon's arrays are made from, for the table cache's key."""
    from chatapp.lexicon import read_wordfreq_list, wordfreq_list_path
    from chatapp.table_cache import file_stamp

    symspell = importlib.util.find_spec("symspellpy")
    folder = Path(list(symspell.submodule_search_locations)[0]) if symspell and symspell.submodule_search_locations else Path()
    return [file_stamp(__file__), file_stamp(folder / WORDS_FILE), file_stamp(folder / BIGRAMS_FILE),
            file_stamp(wordfreq_list_path("small_en") or "no wordfreq"), file_stamp(read_wordfreq_list.__code__.co_filename),
            file_stamp(jellyfish.__file__),
            f"numpy {np.__version__}", "never offer " + " ".join(never_offer)]


def _read_lexicon_tables(never_offer: list[str]) -> dict[str, np.ndarray]:
    fields = _read_fields(WORDS_FILE)
    words = fields[0::2]
    counts = np.fromiter(map(int, fields[1::2]), dtype=np.int64)
    word_id = {w: i for i, w in enumerate(words)}
    fields = _read_fields(BIGRAMS_FILE)
    left = np.array([word_id.get(w, -1) for w in fields[0::3]], dtype=np.int64)
    right = np.array([word_id.get(w, -1) for w in fields[1::3]], dtype=np.int64)
    pair_counts = np.fromiter(map(int, fields[2::3]), dtype=np.int64)
    listed = (left >= 0) & (right >= 0)
    return lexicon_tables(words, counts, left[listed], right[listed], pair_counts[listed], _web_words(), never_offer)
