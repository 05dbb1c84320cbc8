"""Preprocess latency per turn on sample_kb, beside its floor, in one run.

Floor = the work no preprocessor can skip for the same input: one spaCy
parse, one query embedding and one Chroma query. Also the live path (tiers
1–2 of correction, run on every keystroke) for a 30-word input, and a pasted
100,000-character text beside the floor for the part of it chatapp reads
closely (a parse of its first 5,000 characters, one embedding, one query).

Every measured turn is new to the engine, as a user's turn is: there are more
questions than the correction stage keeps parses of, asked in turn, so no
turn reuses the parse of an earlier one (caches of words and of the index
stay warm, as they do in a session).

    python tests/bench/bench_preprocess_latency.py [--data-dir DIR] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import chatapp  # noqa: F401 - offline environment
from chatapp.engine import ChatEngine, sample_kb_path
from chatapp.nlp import load_pipeline

QUESTIONS = [
    "can u hlep me find the emial from john yesterdya",
    "can u help me find johns email from yesterdya",
    "when is the q4 budget review meeting and who organised it",
    "what did sarah say about the northwind contract",
    "whos working on projct atlas and whats the deadline",
    "summarize the incident postmortem from last month",
    "what is the engineering budget for q4",
    "who should i ask about purchase approvals",
    "what went wrong in INC-1112 and who fixd it",
    "is confrence room b available next week",
    "when does helios launch and what did the beta users say",
    "who is on call this week",
    "what was decided at the offsite planning sync",
    "how much is the northwind contract worth",
    "what are the onboarding steps for a new engineer",
    "what is project beacon about",
]
LIVE_INPUT = ("so i was wondering if u could hlep me understand teh budget numbers that john sent "
              "yesterday becuase the spreadsheet seems to disagree with what sarah said in her reply")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    from chatapp.preprocess.correction import pipeline

    # Fewer questions than cached parses would measure the cache, not a turn.
    assert len(QUESTIONS) > getattr(pipeline, "PARSE_CACHE_SIZE", 0), "add questions: turns would reuse parses"
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="chatapp-bench-"))
    engine = ChatEngine.open(data_dir, load_sample_kb=False)
    if engine.kb.is_empty():
        engine.ingest(sample_kb_path())
    nlp = load_pipeline()[0]
    now = datetime(2026, 12, 2, 10, tzinfo=timezone.utc)
    engine.preprocess(QUESTIONS[0], now=now)  # warm every model once

    full, floor, live = [], [], []
    stages: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for question in QUESTIONS:
            # Each round asks the same questions again: nothing remembered from the last round counts.
            engine.kb.embedder.forget()
            started = time.perf_counter()
            result = engine.preprocess(question, now=now)
            full.append((time.perf_counter() - started) * 1000)
            for stage, ms in result.timings_ms.items():
                stages.setdefault(stage, []).append(ms)

            engine.kb.embedder.forget()
            started = time.perf_counter()
            nlp(question)
            engine.kb.vector.query(question, 20)  # one embedding + one Chroma query
            floor.append((time.perf_counter() - started) * 1000)
        for _ in range(len(QUESTIONS)):
            started = time.perf_counter()
            engine.live_correct(LIVE_INPUT)
            live.append((time.perf_counter() - started) * 1000)

    paste = (" ".join(QUESTIONS) + ". ") * (100_000 // len(" ".join(QUESTIONS)) + 1)
    paste = paste[:100_000]
    paste_full, paste_floor = [], []
    for _ in range(max(3, args.rounds // 4)):
        engine.kb.embedder.forget()
        started = time.perf_counter()
        engine.preprocess(paste, now=now)
        paste_full.append((time.perf_counter() - started) * 1000)
        engine.kb.embedder.forget()
        started = time.perf_counter()
        nlp(paste[:5_000])
        engine.kb.vector.query(paste[:2_000], 20)
        paste_floor.append((time.perf_counter() - started) * 1000)

    rows = [
        ("preprocess (all five stages)", full),
        ("floor: spaCy parse + embedding + Chroma query", floor),
        (f"live path, tiers 1–2, {len(LIVE_INPUT.split())} words", live),
        ("100,000-character paste, preprocess", paste_full),
        ("its floor: parse of 5,000 characters + embedding + Chroma query", paste_floor),
    ]
    print("| measure | p50 ms | p95 ms |\n| --- | ---: | ---: |")
    for name, values in rows:
        print(f"| {name} | {statistics.median(values):.1f} | {percentile(values, 0.95):.1f} |")
    print("\nstages, p50 / p95 ms: " + ", ".join(
        f"{stage} {statistics.median(ms):.1f} / {percentile(ms, 0.95):.1f}" for stage, ms in stages.items()))
    print(f"\nratio preprocess / floor: p50 {statistics.median(full) / statistics.median(floor):.2f}×, "
          f"p95 {percentile(full, 0.95) / percentile(floor, 0.95):.2f}× (target ≤ 1.5×)")
    print(f"ratio for the 100,000-character paste: p50 "
          f"{statistics.median(paste_full) / statistics.median(paste_floor):.2f}×")


if __name__ == "__main__":
    main()
