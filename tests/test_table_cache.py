"""The word tables (correction dictionary, near-word index, word frequencies) are built once into
the data dir's cache folder and read back by later processes; changed inputs or a damaged cache
mean a rebuild, never a wrong table or a traceback."""

from __future__ import annotations

import json
import os

import numpy as np

from chatapp import table_cache
from tests.conftest import run_cli


# The data dir's own cache folder, not the one the test run shares (conftest.py).
OWN_CACHE = {"CHATAPP_CACHE_DIR": ""}
OFFLINE = {"CHATAPP_MODEL": "offline", **OWN_CACHE}


def _stage_details(result) -> dict[str, str]:
    assert result.returncode == 0, result.stdout + result.stderr
    return {t["stage"]: t["detail"] for t in json.loads(result.stdout)["timings"]}


def _corrected(result) -> str:
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return json.loads(result.stdout)["corrected_input"]


def test_the_second_process_reads_the_tables_the_first_one_built(tmp_path):
    data = tmp_path / "data"
    first = _stage_details(run_cli("doctor", "--timings", "--json", data_dir=data, env=OFFLINE))
    assert first["correction dictionary load"].endswith("built (cached)")
    assert first["word-frequency table load"] == "built (cached)"
    second = _stage_details(run_cli("doctor", "--timings", "--json", data_dir=data, env=OFFLINE))
    assert second["correction dictionary load"] == first["correction dictionary load"].replace("built (cached)", "from cache")
    assert second["word-frequency table load"] == "from cache"
    assert first["embedder load (first embedding)"].endswith("graph built (cached)")
    assert second["embedder load (first embedding)"].endswith("graph from cache")


def test_a_damaged_cache_is_rebuilt_and_corrects_as_before(tmp_path):
    data = tmp_path / "data"
    typo = "who leeds teh projetc"
    built = _corrected(run_cli("preprocess", typo, "--json", data_dir=data, env=OWN_CACHE))
    lexicon = next((data / "cache").glob("lexicon-*"))
    zipf = next((data / "cache").glob("zipf-*"))
    # One table cut short, the other's words swapped for a pickled object array (data, never code).
    (lexicon / "index_owners.npy").write_bytes((lexicon / "index_owners.npy").read_bytes()[:1000])
    np.save(zipf / "words.npy", np.array([object()], dtype=object), allow_pickle=True)
    assert _corrected(run_cli("preprocess", typo, "--json", data_dir=data, env=OWN_CACHE)) == built
    # Both were written anew: a third process reads them.
    details = _stage_details(run_cli("doctor", "--timings", "--json", data_dir=data, env=OFFLINE))
    assert details["correction dictionary load"].endswith("from cache")
    assert details["word-frequency table load"] == "from cache"


def _squares(source):
    values = np.array([int(v) for v in source.read_text().split()])
    return {"values": values, "squares": values ** 2, "count": np.array(len(values))}


def test_a_table_is_rebuilt_when_its_input_file_changes_and_the_old_one_removed(tmp_path):
    source = tmp_path / "numbers.txt"
    source.write_text("1 2 3")
    cache = tmp_path / "cache"
    table_cache.use_directory(cache)
    try:
        first = table_cache.load_or_build("squares", [table_cache.file_stamp(source)], lambda: _squares(source))
        assert table_cache.outcome("squares") == "built (cached)" and first["squares"].tolist() == [1, 4, 9]
        again = table_cache.load_or_build("squares", [table_cache.file_stamp(source)], lambda: _squares(source))
        assert table_cache.outcome("squares") == "from cache" and again["squares"].tolist() == [1, 4, 9]
        assert int(again["count"]) == 3
        old_folders = list(cache.iterdir())

        source.write_text("1 2 3 4")
        os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 1_000_000_000))
        changed = table_cache.load_or_build("squares", [table_cache.file_stamp(source)], lambda: _squares(source))
        assert table_cache.outcome("squares") == "built (cached)" and changed["squares"].tolist() == [1, 4, 9, 16]
        assert len(list(cache.iterdir())) == 1 and not any(p.exists() for p in old_folders)
    finally:
        table_cache.use_directory(None)


def test_an_unwritable_cache_folder_still_gives_the_table(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder would be")
    table_cache.use_directory(blocker)
    try:
        source = tmp_path / "numbers.txt"
        source.write_text("5")
        table = table_cache.load_or_build("squares", [table_cache.file_stamp(source)], lambda: _squares(source))
        assert table["squares"].tolist() == [25] and table_cache.outcome("squares") == "built"
    finally:
        table_cache.use_directory(None)


def test_the_embedder_opens_its_saved_optimised_graph_and_gives_the_same_vectors(tmp_path):
    from chatapp.knowledge.embeddings import MiniLMEmbedder

    texts = ["who leads the project", "Imre Salo is the Engineering Lead of Larkspur Works"]
    table_cache.use_directory(None)
    reference = MiniLMEmbedder(remember=0).embed(texts)
    cache = tmp_path / "cache"
    cache.mkdir()
    earlier_layout = cache / "model-optimized-0123456789abcdef.onnx"  # one file, graph and weights
    earlier_layout.write_bytes(b"a graph saved by an earlier version")
    table_cache.use_directory(cache)
    try:
        assert np.array_equal(MiniLMEmbedder(remember=0).embed(texts), reference)  # saves the graph
        [saved] = list(cache.glob("*-optimized-*"))
        assert not earlier_layout.exists()
        graph, weights = saved / "graph.onnx", saved / "weights.bin"
        assert weights.stat().st_size > 80_000_000 > graph.stat().st_size  # the weights beside the graph
        written = graph.stat().st_mtime_ns
        assert np.array_equal(MiniLMEmbedder(remember=0).embed(texts), reference)  # opens it
        assert table_cache.outcome("model graph") == "from cache" and graph.stat().st_mtime_ns == written
        graph.write_bytes(b"not a model")
        assert np.array_equal(MiniLMEmbedder(remember=0).embed(texts), reference)  # replaces it
        assert graph.stat().st_size > 10_000
        with weights.open("r+b") as cut:  # weights cut short (a full disk, a copy stopped halfway)
            cut.truncate(weights.stat().st_size // 2)
        assert np.array_equal(MiniLMEmbedder(remember=0).embed(texts), reference)  # replaces it too
        assert weights.stat().st_size > 80_000_000
    finally:
        table_cache.use_directory(None)


def _resident_kib(path) -> int:
    """How much of `path` this process has mapped and resident."""
    total, current = 0, None
    with open("/proc/self/smaps", encoding="utf-8") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and len(fields[0]) > 8 and ":" not in fields[0]:
                current = fields[5] if len(fields) > 5 else None
            elif fields[0] == "Rss:" and current == str(path):
                total += int(fields[1])
    return total


def test_look_ups_in_a_cached_table_keep_only_the_pages_they_read_in_memory(tmp_path):
    """A binary search reads a page here and there of a mapped table: what stays resident is those
    pages, not the blocks around each (a turn's word-frequency look-ups held most of an 11 MB table)."""
    if not os.path.exists("/proc/self/smaps"):
        import pytest

        pytest.skip("needs Linux's /proc/self/smaps")
    keys = np.arange(0, 8_000_000, 2, dtype=np.int64)  # 32 MB
    table_cache.use_directory(tmp_path / "cache")
    try:
        table_cache.load_or_build("keys", ["evens"], lambda: {"keys": keys})
        mapped = table_cache.load_or_build("keys", ["evens"], lambda: {"keys": keys})["keys"]
        assert table_cache.outcome("keys") == "from cache"
        found = [int(mapped.searchsorted(k)) for k in range(1, 8_000_000, 266_667)]
        assert found == [int(keys.searchsorted(k)) for k in range(1, 8_000_000, 266_667)]
        path = next((tmp_path / "cache").glob("keys-*")) / "keys.npy"
        assert _resident_kib(path) < keys.nbytes / 1024 / 8
        # The same advice for a file a library maps itself (onnxruntime, the embedder's weights).
        assert table_cache.advise_random_reads(path) == 1
    finally:
        table_cache.use_directory(None)
