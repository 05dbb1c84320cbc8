"""Retrieval quality on BEIR SciFact: nDCG@10 of dense, BM25 and hybrid side by side.

The corpus goes through chatapp's real ingest (one .txt file per abstract,
named by its BEIR _id, holding title and text); chunk hits are mapped back to
documents by file stem, keeping each document's best-ranked chunk (= its max
score). Queries and relevance come from qrels/test.tsv (300 queries), which is
only measured; fusion variants are compared on qrels/train.tsv (the dev
split) and the best of each family is then reported on test too.

Published nDCG@10 on test: BM25 0.665 (BEIR), bm25s with stemming 0.686,
all-MiniLM-L6-v2 about 0.645. Target: hybrid above both, dense near 0.645.

    python tests/bench/bench_retrieval.py [--k 20] [--work-dir DIR] [--no-variants]

--work-dir keeps the corpus files and data dir, so a re-run skips the ingest
(unchanged files are skipped). Not collected by pytest.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import chatapp  # noqa: F401 - offline environment first
from chatapp.engine import ChatEngine

ROOT = Path(__file__).resolve().parents[2]
SCIFACT = ROOT.parent / "shared" / "data" / "beir" / "scifact"
PUBLISHED = {"dense": "≈0.645 (all-MiniLM-L6-v2)", "keyword": "0.665 (BEIR BM25) · 0.686 (bm25s + stemming)"}
VARIANT_POOL = 100  # chunks fetched per ranking for the fusion variants


# --- data and metric ---------------------------------------------------------------


def load_jsonl(path: Path) -> dict[str, dict]:
    with path.open(encoding="utf-8") as f:
        return {row["_id"]: row for row in map(json.loads, f) if row}


def load_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as f:
        next(f)  # header: query-id corpus-id score
        for line in f:
            qid, doc, score = line.rstrip("\n").split("\t")
            qrels.setdefault(qid, {})[doc] = int(score)
    return qrels


def ndcg_at_10(ranked: list[str], relevance: dict[str, int]) -> float:
    """Graded nDCG@10: gain 2^rel - 1, discount log2(rank + 1), ideal from the qrels."""
    dcg = sum((2 ** relevance.get(doc, 0) - 1) / math.log2(rank + 1) for rank, doc in enumerate(ranked[:10], 1))
    ideal = sorted(relevance.values(), reverse=True)[:10]
    idcg = sum((2**rel - 1) / math.log2(rank + 1) for rank, rel in enumerate(ideal, 1))
    return dcg / idcg if idcg > 0 else 0.0


def unique_in_order(items) -> list[str]:
    """Documents in the order of their best chunk (a document's max score)."""
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def paired_bootstrap(a: list[float], b: list[float], rounds: int = 2000, seed: int = 1) -> tuple[float, float]:
    """95% interval of mean(a - b) over queries resampled with replacement."""
    diffs = np.array(a) - np.array(b)
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), size=(rounds, len(diffs)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


# --- ingest ---------------------------------------------------------------------------


def write_corpus(folder: Path, corpus: dict[str, dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, row in corpus.items():
        path = folder / f"{doc_id}.txt"
        content = f"{row.get('title', '').strip()}\n\n{row.get('text', '').strip()}\n"
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")


def chunk_documents(engine: ChatEngine) -> dict[str, str]:
    """Chunk id -> BEIR doc id (the file stem)."""
    rows = engine.database.query("SELECT c.id, d.path FROM chunks c JOIN documents d ON d.id = c.document_id")
    return {r["id"]: Path(r["path"]).stem for r in rows}


# --- the engine's own search, three modes -------------------------------------------


def engine_rankings(
    engine: ChatEngine, queries: dict[str, str], k: int, mode: str
) -> tuple[dict[str, list[str]], float]:
    ranked, started = {}, time.perf_counter()
    for qid, text in queries.items():
        ranked[qid] = unique_in_order(Path(hit.source).stem for hit in engine.search(text, k=k, mode=mode))
    return ranked, (time.perf_counter() - started) / max(1, len(queries))


# --- fusion variants (computed here from the two rankings; chatapp unchanged) -------


def raw_rankings(engine: ChatEngine, queries: dict[str, str], pool: int) -> dict[str, dict]:
    """Per query: dense [(chunk, cosine)] and keyword [(chunk, bm25)], best first."""
    out = {}
    for qid, text in queries.items():
        dense = [(h.chunk_id, h.similarity) for h in engine.search(text, k=pool, mode="dense")]
        keyword = engine.kb.keyword.search(text, pool)
        out[qid] = {"dense": dense, "keyword": keyword}
    return out


def rrf(rankings: list[tuple[list[str], float]], k_const: float) -> list[str]:
    scores: dict[str, float] = {}
    for ids, weight in rankings:
        for rank, item in enumerate(ids, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k_const + rank)
    return sorted(scores, key=lambda i: -scores[i])


def minmax(pairs: list[tuple[str, float]]) -> dict[str, float]:
    if not pairs:
        return {}
    values = [s for _, s in pairs]
    low, high = min(values), max(values)
    return {i: (s - low) / (high - low) if high > low else 1.0 for i, s in pairs}


def fuse(raw: dict, to_doc: dict[str, str], variant: dict) -> list[str]:
    """One fused document ranking for one query under `variant`."""
    pool = variant["pool"]
    dense, keyword = raw["dense"][:pool], raw["keyword"][:pool]
    if variant["level"] == "doc":  # collapse each ranking to documents first (max score per doc)
        dense = [(d, s) for d, s in _best_per_doc(dense, to_doc)]
        keyword = [(d, s) for d, s in _best_per_doc(keyword, to_doc)]
        as_doc = lambda i: i  # noqa: E731
    else:
        as_doc = to_doc.__getitem__
    if variant["kind"] == "rrf":
        fused = rrf([([i for i, _ in dense], variant["w_dense"]), ([i for i, _ in keyword], 1.0)], variant["k"])
    else:  # convex combination of min-max normalised scores
        d, kw, alpha = minmax(dense), minmax(keyword), variant["alpha"]
        scores = {i: alpha * d.get(i, 0.0) + (1 - alpha) * kw.get(i, 0.0) for i in set(d) | set(kw)}
        fused = sorted(scores, key=lambda i: -scores[i])
    return unique_in_order(as_doc(i) for i in fused)


def _best_per_doc(pairs: list[tuple[str, float]], to_doc: dict[str, str]) -> list[tuple[str, float]]:
    best: dict[str, float] = {}
    for chunk, score in pairs:
        best.setdefault(to_doc[chunk], score)
    return list(best.items())


def variant_grid() -> list[dict]:
    grid = []
    for level in ("chunk", "doc"):
        for pool in (20, 40, 80, 100):
            for k in (5, 10, 20, 60, 100):
                for w_dense in (0.5, 0.75, 1.0, 1.5):
                    grid.append({"kind": "rrf", "level": level, "pool": pool, "k": k, "w_dense": w_dense})
        for pool in (20, 40, 100):
            for alpha in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
                grid.append({"kind": "convex", "level": level, "pool": pool, "alpha": alpha})
    return grid


def describe(v: dict) -> str:
    if v["kind"] == "rrf":
        weights = "" if v["w_dense"] == 1.0 else f", dense weight {v['w_dense']}"
        return f"RRF {v['level']}-level, k={v['k']}, pool {v['pool']}{weights}"
    return f"min-max score blend {v['level']}-level, {v['alpha']}·dense + {1 - v['alpha']:.1f}·BM25, pool {v['pool']}"


def exact_dense(engine: ChatEngine, queries: dict[str, str], to_doc: dict[str, str]) -> dict[str, list[str]]:
    """Brute-force cosine over the stored vectors: shows what Chroma's HNSW search loses, if anything."""
    got = engine.kb.vector.collection.get(include=["embeddings"])
    keep = [n for n, i in enumerate(got["ids"]) if i in to_doc]
    ids = [got["ids"][n] for n in keep]
    matrix = np.asarray(got["embeddings"], dtype=np.float32)[keep]
    qids = list(queries)
    vectors = engine.kb.embedder.embed([queries[q] for q in qids])
    ranked = {}
    for qid, sims in zip(qids, vectors @ matrix.T):
        top = np.argsort(-sims)[:50]
        ranked[qid] = unique_in_order(to_doc[ids[i]] for i in top)
    return ranked


# --- main -------------------------------------------------------------------------


def run(args, work: Path) -> None:
    corpus = load_jsonl(SCIFACT / "corpus.jsonl")
    all_queries = {qid: row["text"] for qid, row in load_jsonl(SCIFACT / "queries.jsonl").items()}
    test_qrels = load_qrels(SCIFACT / "qrels" / "test.tsv")
    dev_qrels = load_qrels(SCIFACT / "qrels" / "train.tsv")
    test_queries = {q: all_queries[q] for q in test_qrels}
    dev_queries = {q: all_queries[q] for q in dev_qrels}

    write_corpus(work / "corpus", corpus)
    engine = ChatEngine.open(work / "data", load_sample_kb=False)
    started = time.perf_counter()
    report = engine.ingest(work / "corpus")
    ingest_seconds = time.perf_counter() - started
    to_doc = chunk_documents(engine)
    stats = engine.kb.stats()
    print(f"\n### SciFact retrieval ({len(corpus):,} abstracts → {stats['chunks']:,} chunks; "
          f"{len(test_queries)} test queries, graded nDCG@10)\n")
    print(f"Ingest: {report.files_ingested:,} files ingested, {report.files_unchanged:,} unchanged, "
          f"{len(report.files_failed)} failed, {report.chunks_added:,} chunks added in {ingest_seconds:.1f} s"
          + (f" ({report.chunks_added / ingest_seconds:.1f} chunks/s)" if report.chunks_added else "") + ".\n")

    scores: dict[str, list[float]] = {}
    print(f"| mode (`engine.search(q, k={args.k}, mode=…)`) | nDCG@10 | published | ms/query |")
    print("| --- | ---: | --- | ---: |")
    for mode in ("dense", "keyword", "hybrid"):
        ranked, seconds = engine_rankings(engine, test_queries, args.k, mode)
        scores[mode] = [ndcg_at_10(ranked[q], test_qrels[q]) for q in test_queries]
        print(f"| {mode} | {mean(scores[mode]):.3f} | {PUBLISHED.get(mode, '')} | {seconds * 1000:.0f} |", flush=True)
    for other in ("dense", "keyword"):
        low, high = paired_bootstrap(scores["hybrid"], scores[other])
        wins = sum(h > o for h, o in zip(scores["hybrid"], scores[other]))
        losses = sum(h < o for h, o in zip(scores["hybrid"], scores[other]))
        print(f"\nhybrid − {other}: {mean(scores['hybrid']) - mean(scores[other]):+.3f} "
              f"(95% paired bootstrap {low:+.3f} … {high:+.3f}; better on {wins}, worse on {losses} queries)")

    if args.no_variants:
        engine.close()
        return
    exact = exact_dense(engine, test_queries, to_doc)
    print(f"\nDense by exact cosine over the stored vectors (no HNSW): "
          f"{mean(ndcg_at_10(exact[q], test_qrels[q]) for q in test_queries):.3f}")

    dev_raw = raw_rankings(engine, dev_queries, VARIANT_POOL)
    test_raw = raw_rankings(engine, test_queries, VARIANT_POOL)
    rows = []
    for variant in variant_grid():
        dev = mean(ndcg_at_10(fuse(dev_raw[q], to_doc, variant), dev_qrels[q]) for q in dev_queries)
        rows.append((dev, variant))
    baseline = {"kind": "rrf", "level": "chunk", "pool": max(20, 4 * args.k), "k": 60, "w_dense": 1.0}
    singles = {
        "dense only": {"kind": "convex", "level": "chunk", "pool": VARIANT_POOL, "alpha": 1.0},
        "BM25 only": {"kind": "convex", "level": "chunk", "pool": VARIANT_POOL, "alpha": 0.0},
    }
    app_default = {**baseline, "pool": 20}  # search_k = 5 in the app: pool max(20, 4·5)
    chosen = [
        ("current: " + describe(baseline), baseline),
        ("current at the app's k=5: " + describe(app_default), app_default),
    ]
    chosen += [(name, v) for name, v in singles.items()]
    for family in (("rrf", "chunk"), ("rrf", "doc"), ("convex", "chunk"), ("convex", "doc")):
        best = max((r for r in rows if (r[1]["kind"], r[1]["level"]) == family), key=lambda r: r[0])
        chosen.append(("best on dev: " + describe(best[1]), best[1]))
    print(f"\n#### Fusion variants (tuned on the dev split, {len(dev_queries)} train queries; then measured on test)\n")
    print("| variant | dev nDCG@10 | test nDCG@10 |")
    print("| --- | ---: | ---: |")
    for name, variant in chosen:
        dev = mean(ndcg_at_10(fuse(dev_raw[q], to_doc, variant), dev_qrels[q]) for q in dev_queries)
        test = mean(ndcg_at_10(fuse(test_raw[q], to_doc, variant), test_qrels[q]) for q in test_queries)
        print(f"| {name} | {dev:.3f} | {test:.3f} |")
    print("\nTop 8 variants on dev:\n")
    for dev, variant in sorted(rows, key=lambda r: -r[0])[:8]:
        print(f"- {dev:.3f} — {describe(variant)}")
    engine.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=20, help="chunks per engine.search call (default 20)")
    parser.add_argument("--work-dir", help="keep corpus files and data dir here (re-runs skip the ingest)")
    parser.add_argument("--no-variants", action="store_true", help="only the three modes")
    args = parser.parse_args(argv)
    if not (SCIFACT / "corpus.jsonl").is_file():
        print(f"SciFact not found at {SCIFACT}", file=sys.stderr)
        return 2
    random.seed(0)
    scratch = None if args.work_dir else Path(tempfile.mkdtemp(prefix="chatapp-bench-scifact-"))
    try:
        run(args, Path(args.work_dir) if args.work_dir else scratch)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
