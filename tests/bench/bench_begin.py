"""Attribution on BEGIN (Wizard of Wikipedia test split): is a dialogue
response fully supported by its knowledge snippet?

Each response is checked by chatapp's Postprocessor (an empty knowledge base,
the MiniLM embedder it ships, the offline path: no LLM) with the snippet as its
only evidence and the user's message as the question. Beside it, in the same
run, the ten-line baseline: the share of the response's content words found in
the snippet.

Positive = "Not fully attributable"; "Generic" responses are left out (as in
the issue's figures). Reported:
- AUROC of a score against the label: chatapp's 1 − confidence, chatapp's
  1 − weakest claim support, and the baseline's 1 − share;
- balanced accuracy of chatapp's flag (at least one hallucination flag), and of
  the baseline thresholded where the dev splits put it best (and, for
  reference, where the test split itself puts it best, as the issue did).

Only test is measured here; the dev files (`*_dev_*`) are for fit_support.py.

    python tests/bench/bench_begin.py [--sample 600] [--workers 2] [--dump out.jsonl]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import chatapp  # noqa: F401 - offline environment first

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "begin"
TEST_FILES = ("wow_begin_test_wow.tsv",)
DEV_FILES = ("wow_begin_dev_wow.tsv", "topicalchat_begin_dev_tc.tsv", "cmu-dog_begin_dev_cmu.tsv")
LABELS = {"Not fully attributable": 1, "Fully attributable": 0}


@dataclass
class Row:
    number: int
    source: str
    knowledge: str
    message: str
    response: str
    unattributable: int


def load(files, sample: int | None = None, seed: int = 7) -> list[Row]:
    rows = []
    for name in files:
        with (DATA / name).open(encoding="utf-8", newline="") as handle:
            for number, record in enumerate(csv.DictReader(handle, delimiter="\t"), start=1):
                if record["begin_label"] in LABELS:
                    rows.append(Row(number, name, record["knowledge"], record["message"], record["response"],
                                    LABELS[record["begin_label"]]))
    if sample and sample < len(rows):
        rows = sorted(random.Random(seed).sample(rows, sample), key=lambda r: (r.source, r.number))
    return rows


def baseline_share(response: str, knowledge: str) -> float:
    """The baseline: share of the response's content words that the snippet has."""
    from chatapp.postprocess.evidence import is_stop, words

    content = [w.lower() for w in words(response) if not is_stop(w) and w.isalpha()]
    have = {w.lower() for w in words(knowledge)}
    return sum(w in have for w in content) / len(content) if content else 1.0


def auroc(scores: list[float], labels: list[int]) -> float:
    """Probability that a random positive outscores a random negative (ties count half)."""
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    positives = sum(labels)
    negatives = len(labels) - positives
    rank_sum = sum(r for r, y in zip(ranks, labels) if y)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def balanced_accuracy(flags: list[bool], labels: list[int]) -> float:
    tp = sum(f and y for f, y in zip(flags, labels))
    tn = sum((not f) and not y for f, y in zip(flags, labels))
    positives = sum(labels)
    return 0.5 * (tp / positives + tn / (len(labels) - positives))


def best_threshold(scores: list[float], labels: list[int]) -> tuple[float, float]:
    """(threshold, balanced accuracy) flagging score >= threshold, best over the observed scores."""
    best = (0.5, 0.0)
    for t in sorted(set(scores)):
        accuracy = balanced_accuracy([s >= t for s in scores], labels)
        if accuracy > best[1]:
            best = (t, accuracy)
    return best


_worker = None


def _init(similarity: str = "auto") -> None:
    global _worker
    from chatapp.engine import ChatEngine
    from chatapp.knowledge.embeddings import MiniLMEmbedder
    from chatapp.postprocess import Postprocessor
    from chatapp.postprocess.pipeline import PostprocessSettings

    engine = ChatEngine.open(tempfile.mkdtemp(prefix="begin-"))  # an empty knowledge base
    _worker = Postprocessor(engine.kb.registry, embedder=MiniLMEmbedder(threads=1),
                            settings=PostprocessSettings(support_similarity=similarity))
    _worker.process("Warm up.", question="warm up?", evidence=["Warm up."])


def judge(row: Row) -> dict:
    start = time.perf_counter()
    result = _worker.process(row.response, question=row.message, evidence=[row.knowledge])
    claims = [c for c in result.claim_support if c.claim]
    return {
        "source": row.source, "number": row.number, "unattributable": row.unattributable,
        "confidence": result.confidence, "flagged": bool(result.hallucination_flags),
        "flags": [f.hallucination_type for f in result.hallucination_flags],
        "weakest": min((c.score for c in claims), default=1.0),
        "support": result.support,
        "claims": [{"features": c.features, "score": c.score} for c in claims],
        "baseline": baseline_share(row.response, row.knowledge),
        "seconds": time.perf_counter() - start,
    }


def run(rows: list[Row], workers: int, similarity: str = "auto") -> list[dict]:
    if workers <= 1:
        _init(similarity)
        return [judge(row) for row in rows]
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(similarity,)) as pool:
        return list(pool.map(judge, rows, chunksize=20))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["test", "dev"], default="test",
                        help="dev: the WoW dev file, for checking a change while fitting (report test)")
    parser.add_argument("--sample", type=int, default=None, help="random sample of N responses of the split")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dump", type=Path, help="write per-response outcomes as JSON lines")
    args = parser.parse_args()

    dev = load(DEV_FILES)
    dev_cut, _ = best_threshold([1 - baseline_share(r.response, r.knowledge) for r in dev],
                                [r.unattributable for r in dev])
    rows = load(TEST_FILES if args.split == "test" else DEV_FILES[:1], args.sample, args.seed)
    began = time.perf_counter()
    outcomes = run(rows, args.workers)
    wall = time.perf_counter() - began
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as out:
            for o in outcomes:
                out.write(json.dumps(o) + "\n")

    labels = [o["unattributable"] for o in outcomes]
    baseline = [1 - o["baseline"] for o in outcomes]
    flagged = [o["flagged"] for o in outcomes]
    positives = sum(labels)
    test_cut, test_best = best_threshold(baseline, labels)
    sampled = f"random sample of {args.sample} (seed {args.seed})" if args.sample else "all"
    print(f"### BEGIN, WoW {args.split} ({sampled}): {len(outcomes)} responses, {positives} not fully attributable\n")
    print("| method | AUROC | balanced accuracy of the flag | flags unattributable | flags attributable |")
    print("| --- | ---: | ---: | ---: | ---: |")

    def share(flags, want):
        chosen = [f for f, y in zip(flags, labels) if y == want]
        return sum(chosen) / len(chosen)

    print(f"| chatapp (1 − confidence; flag = any hallucination flag) | {auroc([1 - o['confidence'] for o in outcomes], labels):.3f} "
          f"| {balanced_accuracy(flagged, labels):.3f} | {share(flagged, 1):.0%} | {share(flagged, 0):.0%} |")
    print(f"| chatapp (1 − the answer's support) | {auroc([1 - o['support'] for o in outcomes], labels):.3f} | | | |")
    print(f"| chatapp (1 − weakest claim's support) | {auroc([1 - o['weakest'] for o in outcomes], labels):.3f} | | | |")
    base_flags = [b >= dev_cut for b in baseline]
    print(f"| baseline: content-word share (threshold from dev: unsupported share ≥ {dev_cut:.2f}) "
          f"| {auroc(baseline, labels):.3f} | {balanced_accuracy(base_flags, labels):.3f} | {share(base_flags, 1):.0%} "
          f"| {share(base_flags, 0):.0%} |")
    print(f"| baseline, threshold best on this split ({test_cut:.2f}) | | {test_best:.3f} | | |")
    ms = sorted(1000 * o["seconds"] for o in outcomes)
    print(f"\nchatapp: median {ms[len(ms) // 2]:.1f} ms per response, p95 {ms[int(0.95 * (len(ms) - 1))]:.1f} ms; "
          f"wall {wall:.0f} s with {args.workers} workers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
