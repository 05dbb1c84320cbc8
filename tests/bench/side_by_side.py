"""Run benchmarks against two builds of chatapp in one run, alternating, so a
change is measured beside what it replaced on the same machine at the same time.

The earlier build is a checkout of another commit (`git worktree add ../before
COMMIT`); each benchmark script runs from this checkout with PYTHONPATH pointing
first at one build, then at the other, and the closing lines of each are
printed under the build's name.

    python tests/bench/side_by_side.py --before ../before [--rounds 1] [--lines 30] \\
        bench_spelling.py bench_false_positives.py "bench_preprocess_latency.py --rounds 40"
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
THIS_BUILD = BENCH_DIR.parents[1]


def run(script_and_args: str, build: Path) -> str:
    """The benchmark's output with `build` first on the import path (its own copy of the script if it has one)."""
    script, *args = shlex.split(script_and_args)
    own = build / "tests" / "bench" / script
    path = own if own.is_file() else BENCH_DIR / script
    env = {**os.environ, "PYTHONPATH": str(build)}
    done = subprocess.run([sys.executable, str(path), *args], cwd=build, env=env, capture_output=True, text=True)
    return done.stdout + (f"\n[exit {done.returncode}]\n{done.stderr[-2000:]}" if done.returncode else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the earlier build")
    parser.add_argument("--rounds", type=int, default=1, help="alternations of before and after per benchmark")
    parser.add_argument("--lines", type=int, default=30, help="closing lines of each output to print")
    parser.add_argument("benchmarks", nargs="+", help='bench scripts, with their arguments quoted ("x.py --k 5")')
    options = parser.parse_args()
    builds = {"before": options.before.resolve(), "after": THIS_BUILD}
    for bench in options.benchmarks:
        for round_number in range(1, options.rounds + 1):
            for label, build in builds.items():
                output = run(bench, build)
                print(f"\n===== {bench} · {label} ({build}) · round {round_number} =====")
                print("\n".join(output.rstrip().splitlines()[-options.lines:]), flush=True)


if __name__ == "__main__":
    main()
