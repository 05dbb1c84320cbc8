"""A long session: does turn 1,000 cost what turn 10 did?

One session of N turns with the offline model over sample_kb, with an ingest of D small generated
documents (bench_ingest's corpus) halfway through. Recorded per turn: wall time of the whole
`ChatEngine.ask`, the process's resident memory, and the database's size on disk (file and
write-ahead log). The figures that count, side by side in one run:

- p95 turn latency over the last W turns ÷ p95 over W turns near the start (after a short warm-up):
  goal ≤ 1.5;
- memory growth: RSS after the last turn minus RSS after the warm-up, and per 100 turns;
- database bytes per turn (the ingest's own bytes taken out).

The questions rotate through a list of everyday questions and follow-ups, so later turns of the
session carry its whole history as a real long chat does.

    python tests/bench/bench_soak.py [--turns 1000] [--docs 2000] [--window 50] [--json FILE]

Not collected by pytest (tests/bench is excluded and the name is bench_*).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chatapp  # noqa: E402,F401 - offline environment first
from bench_ingest import generate_corpus  # noqa: E402
from bench_preprocess_latency import QUESTIONS, percentile  # noqa: E402
from chatapp.engine import ChatEngine, sample_kb_path  # noqa: E402

TARGET_RATIO = 1.5
WARM_UP_TURNS = 5  # the first turns load spaCy, the embedder and the dictionaries
FOLLOW_UPS = ["and who else was involved?", "when was that?", "thanks, what about the budget?",
              "can you say more about it", "who leads it?"]


def rss_mib() -> float:
    """Resident memory of this process now, from /proc (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def database_bytes(data_dir: Path) -> int:
    return sum(p.stat().st_size for p in data_dir.glob("chatapp.db*"))


def question(n: int) -> str:
    # Every third turn a follow-up that leans on the conversation, as people chat.
    return FOLLOW_UPS[n % len(FOLLOW_UPS)] if n % 3 == 2 else QUESTIONS[n % len(QUESTIONS)]


def run(turns: int, docs: int, window: int, seed: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="chatapp-bench-soak-") as tmp:
        tmp = Path(tmp)
        data_dir = tmp / "data"
        engine = ChatEngine.open(data_dir, load_sample_kb=False)
        engine.ingest(sample_kb_path())
        corpus = tmp / "corpus"
        generate_corpus(corpus, docs, seed)
        ingest_at = turns // 2
        latencies: list[float] = []
        memory: list[float] = []
        sizes: list[int] = []
        ingest_seconds = ingest_bytes = 0.0
        statuses: dict[str, int] = {}
        for n in range(turns):
            if n == ingest_at and docs:
                before = database_bytes(data_dir)
                started = time.perf_counter()
                report = engine.ingest(corpus)
                ingest_seconds = time.perf_counter() - started
                ingest_bytes = database_bytes(data_dir) - before
                print(f"  ingest of {report.files_ingested} documents, {report.chunks_added} chunks: "
                      f"{ingest_seconds:.0f} s", flush=True)
            started = time.perf_counter()
            result = engine.ask(question(n), session="soak", model="offline")
            latencies.append(time.perf_counter() - started)
            statuses[result.status] = statuses.get(result.status, 0) + 1
            memory.append(rss_mib())
            sizes.append(database_bytes(data_dir))
            if (n + 1) % 50 == 0:
                print(f"  turn {n + 1}: {latencies[-1] * 1000:.0f} ms, RSS {memory[-1]:.0f} MiB, "
                      f"db {sizes[-1] / 1e6:.1f} MB", flush=True)
        state_bytes = len(json.dumps(engine.sessions.get("soak").meta))
        engine.close()

    window = min(window, max(1, (turns - WARM_UP_TURNS) // 2))
    early = latencies[WARM_UP_TURNS: WARM_UP_TURNS + window]
    late = latencies[-window:]
    turn_bytes = sizes[-1] - sizes[WARM_UP_TURNS - 1] - ingest_bytes
    counted = turns - WARM_UP_TURNS
    return {
        "turns": turns, "docs": docs, "window": window, "statuses": statuses,
        "early_turns": [WARM_UP_TURNS + 1, WARM_UP_TURNS + window], "late_turns": [turns - window + 1, turns],
        "early_p50_ms": round(statistics.median(early) * 1000, 1), "early_p95_ms": round(percentile(early, 0.95) * 1000, 1),
        "late_p50_ms": round(statistics.median(late) * 1000, 1), "late_p95_ms": round(percentile(late, 0.95) * 1000, 1),
        "p95_ratio": round(percentile(late, 0.95) / percentile(early, 0.95), 2),
        "p50_ratio": round(statistics.median(late) / statistics.median(early), 2),
        "rss_after_warm_up_mib": round(memory[WARM_UP_TURNS - 1], 1), "rss_end_mib": round(memory[-1], 1),
        "rss_growth_per_100_turns_mib": round((memory[-1] - memory[WARM_UP_TURNS - 1]) / counted * 100, 2),
        "db_bytes_per_turn": round(turn_bytes / counted),
        "db_end_mb": round(sizes[-1] / 1e6, 2), "ingest_mb": round(ingest_bytes / 1e6, 2),
        "ingest_seconds": round(ingest_seconds, 1), "session_meta_bytes": state_bytes,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=2000, help="generated documents ingested halfway (0: none)")
    parser.add_argument("--window", type=int, default=50, help="turns in each of the early and late samples")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.turns < WARM_UP_TURNS + 2:
        parser.error(f"--turns must be at least {WARM_UP_TURNS + 2}")
    figures = run(args.turns, args.docs, args.window, args.seed)
    for key, value in figures.items():
        print(f"{key:>30}: {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    ok = figures["p95_ratio"] <= TARGET_RATIO
    print(f"p95 late ÷ early {figures['p95_ratio']} (goal ≤ {TARGET_RATIO}): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
