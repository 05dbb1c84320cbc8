"""Hallucination detection on HaluEval (QA and dialogue), no LLM.

For every line, chatapp's Postprocessor checks the right answer and the
hallucinated answer separately, each with the line's knowledge as its only
evidence (an empty knowledge base: no registry entities), the question as the
question and, for dialogue, the earlier turns as history. Nothing else about
the line is used.

Definitions: see DEFINITIONS below (printed with the results).

Lines 1–1,000 of each file are dev (thresholds were tuned there); the rest are
test. `--sample N` takes a fixed random sample of N test lines (say so when
reporting).

    python tests/bench/bench_halueval.py [--split test|dev] [--sample 2000] [--task qa|dialogue|both]
        [--workers 2] [--embeddings] [--dump details.jsonl]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import chatapp  # noqa: F401 - offline environment first

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "halueval"
DEV_LINES = 1000
PAPER = {  # HaluEval paper, Table 5 (see ../shared/data/README.md)
    "qa": [("ChatGPT, knowledge supplied", "~76.8%"), ("ChatGPT", "62.6%"), ("Claude 2", "69.8%"),
           ("Claude", "67.6%")],
    "dialogue": [("ChatGPT", "72.4%")],
}
DEFINITIONS = """Definitions:
- an answer is *flagged* when the Postprocessor raises at least one
  hallucination flag on it; "positive" = the hallucinated answer.
- per-answer accuracy: share of all 2N answers judged correctly (hallucinated
  flagged, right not flagged). Balanced, chance = 50%. This is the setting of
  the HaluEval paper, whose judge sees one answer at a time.
- pair accuracy (the issue's definition): share of lines where the
  hallucinated answer comes out worse than the right one — flagged while the
  right one is not, or, when both or neither are flagged, given a strictly
  lower confidence. Ties count as misses.
- precision / recall of flagging, with positive = hallucinated."""
_TURN_RE = re.compile(r"\[(Human|Assistant)\]:\s*")


@dataclass
class Outcome:
    line: int
    right_flagged: bool
    hallu_flagged: bool
    right_confidence: float
    hallu_confidence: float
    right_flags: list[str]
    hallu_flags: list[str]
    seconds: float


def load(task: str, split: str, sample: int | None, seed: int) -> list[tuple[int, dict]]:
    path = DATA / ("qa_data.json" if task == "qa" else "dialogue_data.json")
    lines = path.read_text(encoding="utf-8").splitlines()
    numbered = list(enumerate(lines, start=1))
    chosen = numbered[:DEV_LINES] if split == "dev" else numbered[DEV_LINES:]
    if sample and sample < len(chosen):
        chosen = sorted(random.Random(seed).sample(chosen, sample))
    return [(n, json.loads(text)) for n, text in chosen]


def dialogue_turns(history: str):
    from chatapp.records import DialogueTurn

    parts = _TURN_RE.split(history)
    turns = []
    for role, content in zip(parts[1::2], parts[2::2]):
        if content.strip():
            turns.append(DialogueTurn("user" if role == "Human" else "assistant", content.strip(), ""))
    return turns


_worker = None


def _init(embeddings: bool) -> None:
    global _worker
    from chatapp.engine import ChatEngine
    from chatapp.postprocess import Postprocessor

    engine = ChatEngine.open(tempfile.mkdtemp(prefix="halueval-"))  # an empty knowledge base
    embedder = None
    if embeddings:
        from chatapp.knowledge.embeddings import MiniLMEmbedder

        embedder = MiniLMEmbedder(threads=1)
    _worker = Postprocessor(engine.kb.registry, embedder=embedder)
    _worker.process("Warm up.", question="warm up?", evidence=["Warm up."])


def _judge(task: str, item: tuple[int, dict]) -> Outcome:
    number, row = item
    start = time.perf_counter()
    if task == "qa":
        kwargs = dict(question=row["question"], evidence=[row["knowledge"]])
        right, hallu = row["right_answer"], row["hallucinated_answer"]
    else:
        turns = dialogue_turns(row["dialogue_history"])
        question = next((t.content for t in reversed(turns) if t.role == "user"), "")
        kwargs = dict(question=question, evidence=[row["knowledge"]], history=turns)
        right, hallu = row["right_response"], row["hallucinated_response"]
    r = _worker.process(right, **kwargs)
    h = _worker.process(hallu, **kwargs)
    return Outcome(number, bool(r.hallucination_flags), bool(h.hallucination_flags), r.confidence, h.confidence,
                   [f.hallucination_type for f in r.hallucination_flags],
                   [f.hallucination_type for f in h.hallucination_flags], time.perf_counter() - start)


def _judge_qa(item):
    return _judge("qa", item)


def _judge_dialogue(item):
    return _judge("dialogue", item)


def run(task: str, items, workers: int, embeddings: bool) -> list[Outcome]:
    judge = _judge_qa if task == "qa" else _judge_dialogue
    if workers <= 1:
        _init(embeddings)
        return [judge(item) for item in items]
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(embeddings,)) as pool:
        return list(pool.map(judge, items, chunksize=25))


def metrics(outcomes: list[Outcome]) -> dict:
    n = len(outcomes)
    tp = sum(o.hallu_flagged for o in outcomes)
    fp = sum(o.right_flagged for o in outcomes)
    pair = sum((o.hallu_flagged and not o.right_flagged)
               or (o.hallu_flagged == o.right_flagged and o.hallu_confidence < o.right_confidence) for o in outcomes)
    return {
        "lines": n,
        "per_answer_accuracy": (tp + (n - fp)) / (2 * n),
        "pair_accuracy": pair / n,
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / n,
        "right_flagged": fp / n,
        "ms_per_answer": 1000 * statistics.mean(o.seconds for o in outcomes) / 2,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "test"], default="test")
    parser.add_argument("--task", choices=["qa", "dialogue", "both"], default="both")
    parser.add_argument("--sample", type=int, default=None, help="random sample of N lines of the split")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--embeddings", action="store_true", help="give the Postprocessor the MiniLM embedder")
    parser.add_argument("--dump", type=Path, help="write per-line outcomes as JSON lines")
    args = parser.parse_args()

    tasks = ["qa", "dialogue"] if args.task == "both" else [args.task]
    print(DEFINITIONS, "\n")
    rows = []
    for task in tasks:
        items = load(task, args.split, args.sample, args.seed)
        began = time.perf_counter()
        outcomes = run(task, items, args.workers, args.embeddings)
        wall = time.perf_counter() - began
        m = metrics(outcomes)
        rows.append((task, m, wall))
        if args.dump:
            with args.dump.open("a", encoding="utf-8") as out:
                for o in outcomes:
                    out.write(json.dumps({"task": task, **o.__dict__}) + "\n")
        types = {}
        for o in outcomes:
            for kind in o.hallu_flags:
                types.setdefault(kind, [0, 0])[0] += 1
            for kind in o.right_flags:
                types.setdefault(kind, [0, 0])[1] += 1
        print(f"### {task}: flags by type (on hallucinated / on right answers)\n")
        print("| type | hallucinated | right |\n| --- | ---: | ---: |")
        for kind, (on_h, on_r) in sorted(types.items(), key=lambda kv: -kv[1][0]):
            print(f"| {kind} | {on_h} | {on_r} |")
        print()

    sampled = f"random sample of {args.sample} (seed {args.seed})" if args.sample else "all"
    print(f"### HaluEval, {args.split} lines ({sampled}); embeddings {'on' if args.embeddings else 'off'}\n")
    print("| task | lines | per-answer accuracy | pair accuracy | precision | recall | right answers flagged "
          "| ms/answer | wall s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for task, m, wall in rows:
        print(f"| {task} | {m['lines']} | {m['per_answer_accuracy']:.1%} | {m['pair_accuracy']:.1%} | "
              f"{m['precision']:.1%} | {m['recall']:.1%} | {m['right_flagged']:.1%} | {m['ms_per_answer']:.1f} | "
              f"{wall:.0f} |")
    print("\nPublished (HaluEval paper, Table 5; LLM judges, accuracy on one answer at a time):\n")
    print("| task | judge | accuracy |\n| --- | --- | ---: |")
    for task in tasks:
        for judge, figure in PAPER[task]:
            print(f"| {task} | {judge} | {figure} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
