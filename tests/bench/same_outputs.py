"""Does a change leave the checker's results as they were? For speed work,
which must not change what the user is told.

`dump` runs the Postprocessor over a dev sample — BEGIN WoW dev rows (the
snippet as evidence, the user message as question), HaluEval QA and dialogue
dev lines (right and hallucinated answers; dialogue with its history) and
sample_kb's answers from bench_postprocess_latency.py, and its chat workload (bench_paraphrase.py's
answers held to the chunks their question retrieves, as a chat turn holds them) — once with the MiniLM
embedder and once without, and writes each result's flags, confidence,
support, coherence, delivered text and per-claim support to a JSON file.
`compare` says how many results of two such files differ (floats within
1e-6 are the same) and shows the first few. Run `dump` once with PYTHONPATH at
the build before the change and once at the build after it:

    PYTHONPATH=../before python tests/bench/same_outputs.py dump before.json
    PYTHONPATH=. python tests/bench/same_outputs.py dump after.json
    python tests/bench/same_outputs.py compare before.json after.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import chatapp  # noqa: F401 - offline environment first

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_begin  # noqa: E402
import bench_halueval  # noqa: E402
from bench_postprocess_latency import KB_ANSWERS, chat_workload  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOLERANCE = 1e-6


def cases(begin_rows: int, halueval_lines: int):
    """(name, answer, keyword arguments of Postprocessor.process) for the sample."""
    for row in bench_begin.load(bench_begin.DEV_FILES[:1], sample=begin_rows):
        yield f"begin:{row.number}", row.response, dict(question=row.message, evidence=[row.knowledge])
    for number, row in bench_halueval.load("qa", "dev", halueval_lines, 7):
        kwargs = dict(question=row["question"], evidence=[row["knowledge"]])
        yield f"qa:{number}:right", row["right_answer"], kwargs
        yield f"qa:{number}:hallucinated", row["hallucinated_answer"], kwargs
    for number, row in bench_halueval.load("dialogue", "dev", halueval_lines, 7):
        turns = bench_halueval.dialogue_turns(row["dialogue_history"])
        question = next((t.content for t in reversed(turns) if t.role == "user"), "")
        kwargs = dict(question=question, evidence=[row["knowledge"]], history=turns)
        yield f"dialogue:{number}:right", row["right_response"], kwargs
        yield f"dialogue:{number}:hallucinated", row["hallucinated_response"], kwargs


def outcome(result) -> dict:
    return {
        "delivered": result.delivered,
        "confidence": result.confidence,
        "support": result.support,
        "flags": [(f.hallucination_type, list(f.span), f.confidence, f.suggestion) for f in result.hallucination_flags],
        "coherence": [result.coherence.score, result.coherence.issues],
        "recommendation": str(result.recommendation),
        "claims": [[c.text, c.score, c.claim, c.flagged, c.evidence, c.source, c.reason]
                   for c in result.claim_support or []],
    }


def dump(path: Path, begin_rows: int, halueval_lines: int) -> None:
    from chatapp.engine import ChatEngine
    from chatapp.knowledge.embeddings import MiniLMEmbedder
    from chatapp.postprocess import Postprocessor
    from chatapp.records import ResolvedEntity

    embedder = MiniLMEmbedder()
    john = ResolvedEntity("johns", (19, 24), "person:john-smith", "John Smith", "person", 0.92)
    kb_cases = [(f"kb:{i}", answer, dict(question="can u help me find johns email from yesterdya",
                                          resolved_entities=[john])) for i, answer in enumerate(KB_ANSWERS)]
    results = {}
    with tempfile.TemporaryDirectory() as kb_dir, tempfile.TemporaryDirectory() as empty_dir, \
            tempfile.TemporaryDirectory() as chat_dir:
        kb_engine, empty_engine = ChatEngine.open(kb_dir), ChatEngine.open(empty_dir)
        kb_engine.ingest(ROOT / "sample_kb" / "entities.jsonl", ROOT / "sample_kb" / "facts.jsonl")
        chat_engine, chat_items = chat_workload(Path(chat_dir), count=None)
        chat_cases = [(f"chat:{i}", answer, kwargs) for i, (answer, kwargs) in enumerate(chat_items)]
        for with_embedder in (True, False):
            given = embedder if with_embedder else None
            on = {"kb": Postprocessor(kb_engine.kb.registry, embedder=given),
                  "chat": Postprocessor(chat_engine.kb.registry, embedder=given)}
            on_evidence = Postprocessor(empty_engine.kb.registry, embedder=given)
            for name, answer, kwargs in [*kb_cases, *cases(begin_rows, halueval_lines), *chat_cases]:
                post = on.get(name.split(":")[0], on_evidence)
                if kwargs.get("rag_chunks") and hasattr(post, "prepare"):
                    post.prepare(kwargs["rag_chunks"], question=kwargs["question"])  # as a turn does
                results[f"{name}|embedder={with_embedder}"] = outcome(post.process(answer, **kwargs))
        kb_engine.close()
        empty_engine.close()
        chat_engine.close()
    path.write_text(json.dumps(results, indent=0), encoding="utf-8")
    print(f"{len(results)} results written to {path}")


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, (int, float)) or isinstance(b, float) and isinstance(a, (int, float)):
        return abs(a - b) <= TOLERANCE
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def compare(before_path: Path, after_path: Path) -> int:
    before = json.loads(before_path.read_text(encoding="utf-8"))
    after = json.loads(after_path.read_text(encoding="utf-8"))
    if before.keys() != after.keys():
        print("the two files hold different samples")
        return 2
    differ = [k for k in before if not same(before[k], after[k])]
    flagged = sum(bool(r["flags"]) for r in before.values())
    print(f"{len(before)} results ({flagged} with flags): {len(differ)} differ")
    for key in differ[:5]:
        for field, value in before[key].items():
            if not same(value, after[key][field]):
                print(f"  {key} {field}: {value!r} -> {after[key][field]!r}")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump", help="write this build's results over the dev sample")
    dumping.add_argument("out", type=Path)
    dumping.add_argument("--begin", type=int, default=300, help="BEGIN WoW dev rows")
    dumping.add_argument("--halueval", type=int, default=150, help="HaluEval dev lines per task (two answers each)")
    comparing = commands.add_parser("compare", help="how many results of two dumps differ")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.out, args.begin, args.halueval)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
