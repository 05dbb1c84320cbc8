"""Start-up cost of whole `chatapp` processes, measured side by side in one run.

Each command runs as a fresh process (`python -m chatapp ...`) several times on
a data dir that holds a few generated work documents and one session; the
table gives the median wall and CPU time (user + system, less moved by other
load on the machine) and the largest peak RSS of each, and the ratios issue
#15 names:

- cold `ask --model offline` ÷ `python -c "import chatapp"` (the floor every
  process pays), with its absolute wall (goal ≤ 2.0 s) and peak (≤ 300 MiB);
- cold `ask` against a local OpenAI-compatible server ÷ cold `ask --model
  offline` (goal ≤ 1.2: a remote model should cost no more than its own call);
- `--help` (≤ 0.3 s), `sessions list` and `export` (≤ 0.4 s), `kb stats`.

The figures are reported, never asserted: absolute times move with the
machine's load; ratios measured in the same run much less.

    python tests/bench/bench_startup.py [--runs 5]

Not collected by pytest (tests/bench is excluded and the name is bench_*).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # for tests.openai_server

from tests.openai_server import OpenAITestServer, Scripted  # noqa: E402

QUESTION = "who leads the project"
SESSION = "bench"
GOAL_ASK_SECONDS = 2.0
GOAL_ASK_MIB = 300
GOAL_REMOTE_RATIO = 1.2
GOAL_HELP_SECONDS = 0.3
GOAL_SESSIONS_SECONDS = 0.4

# --- a small invented folder: a team page, a project page, two mails ----------

TEAM = """# Larkspur Works — Team

- **Imre Salo** — Engineering Lead. Email: imre.salo@larkspur.example
- **Noor Vance** — Product Manager. Email: noor.vance@larkspur.example
- **Teodor Quill** — Finance Lead. Email: teodor.quill@larkspur.example
"""

PROJECT = """---
title: Project Kestrel — billing rewrite
date: 2026-03-02
status: In progress
---

# Project Kestrel

Lead: Imre Salo
Sponsor: Noor Vance
Budget: £48,000
Milestones: design review 14 April 2026; launch 1 September 2026

The rewrite replaces the nightly invoice batch with a queue.
"""

MAIL_OLD = """From: Noor Vance <noor.vance@larkspur.example>
To: Imre Salo <imre.salo@larkspur.example>
Subject: Kestrel
Date: Mon, 9 Mar 2026 09:00:00 +0000

Imre, the Kestrel launch stays on 1 September for now.

Thanks,
Noor
"""

MAIL_NEW = """From: Teodor Quill <teodor.quill@larkspur.example>
To: All Staff <everyone@larkspur.example>
Subject: Kestrel launch moved
Date: Tue, 12 May 2026 08:30:00 +0000

Hi all,

After the audit the Kestrel launch has moved to 15 September.

Teodor Quill | Finance Lead
"""


def write_documents(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "team.md").write_text(TEAM, encoding="utf-8")
    (folder / "project-kestrel.md").write_text(PROJECT, encoding="utf-8")
    (folder / "2026-03-09-kestrel.eml").write_text(MAIL_OLD, encoding="utf-8")
    (folder / "2026-05-12-kestrel-moved.eml").write_text(MAIL_NEW, encoding="utf-8")
    (folder / "people.csv").write_text("full name,job title\nOla Brandt,Account Manager\n", encoding="utf-8")


# --- whole processes ------------------------------------------------------------


@dataclass
class Measure:
    label: str
    argv: list[str]
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)  # user + system seconds: less moved by other load
    peaks_kib: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls) if self.walls else float("nan")

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus) if self.cpus else float("nan")

    @property
    def peak_mib(self) -> float:
        return max(self.peaks_kib) / 1024 if self.peaks_kib else float("nan")


def run_once(argv: list[str], env: dict) -> tuple[float, float, int, int, str]:
    """Wall seconds, CPU seconds, peak RSS (KiB, this process alone), exit code and the tail of stderr."""
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=ROOT)
        # wait4 gives this child's own rusage; RUSAGE_CHILDREN would be the largest of all so far.
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode("utf-8", "replace")[-300:]
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, process.returncode, tail


def measure(item: Measure, env: dict, runs: int) -> None:
    for _ in range(runs):
        wall, cpu, peak, code, tail = run_once(item.argv, env)
        if code != 0:
            item.failures.append(f"exit {code}: {tail.strip()}")
            continue
        item.walls.append(wall)
        item.cpus.append(cpu)
        item.peaks_kib.append(peak)


def chatapp_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "chatapp", *args]


def prepare(data_dir: Path, env: dict) -> None:
    """Ingest the folder and leave one session to list and export."""
    docs = data_dir.parent / "docs"
    write_documents(docs)
    for argv in (chatapp_argv("ingest", str(docs), "--data-dir", str(data_dir)),
                 chatapp_argv("ask", QUESTION, "--model", "offline", "--session", SESSION, "--data-dir", str(data_dir))):
        result = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
        if result.returncode != 0:
            raise SystemExit(f"setup failed: {' '.join(argv[2:])}\n{result.stderr[-2000:]}")


def run(runs: int) -> list[Measure]:
    env = {**os.environ, "CHATAPP_LOAD_SAMPLE_KB": "false", "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    with tempfile.TemporaryDirectory() as tmp, OpenAITestServer(Scripted.reply("Imre Salo leads it.", pieces=4)) as server:
        data_dir = Path(tmp) / "data"
        prepare(data_dir, env)
        d = ["--data-dir", str(data_dir)]
        items = [
            Measure('`python -c "import chatapp"`', [sys.executable, "-c", "import chatapp"]),
            Measure("`chatapp --help`", chatapp_argv("--help")),
            Measure("`chatapp sessions list`", chatapp_argv("sessions", "list", *d)),
            Measure("`chatapp export SESSION`", chatapp_argv("export", SESSION, *d)),
            Measure("`chatapp kb stats`", chatapp_argv("kb", "stats", *d)),
            Measure("`chatapp ask … --model offline`", chatapp_argv("ask", QUESTION, "--model", "offline", *d)),
            Measure("`chatapp ask …` (local OpenAI-compatible server)",
                    chatapp_argv("ask", QUESTION, "--model", "test-model", "--api-base", server.url, *d)),
        ]
        # Interleaved rounds: a burst of load on the machine hits every command alike.
        for _ in range(runs):
            for item in items:
                measure(item, env, 1)
    return items


def print_table(items: list[Measure], runs: int) -> None:
    by_label = {item.label.split("`")[1]: item for item in items}
    floor = by_label['python -c "import chatapp"']
    offline = by_label["chatapp ask … --model offline"]
    remote = items[-1]
    goals = {
        "chatapp --help": f"≤ {GOAL_HELP_SECONDS} s",
        "chatapp sessions list": f"≤ {GOAL_SESSIONS_SECONDS} s",
        "chatapp export SESSION": f"≤ {GOAL_SESSIONS_SECONDS} s",
        "chatapp ask … --model offline": f"≤ {GOAL_ASK_SECONDS} s, ≤ {GOAL_ASK_MIB} MiB",
    }
    print(f"\n### Start-up of whole processes (median of {runs} runs; peak RSS the largest run)\n")
    print("| command | wall s (median) | CPU s (median) | peak MiB | ÷ import chatapp | goal |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for item in items:
        key = item.label.split("`")[1]
        print(f"| {item.label} | {item.wall:.2f} | {item.cpu:.2f} | {item.peak_mib:.0f} | {item.wall / floor.wall:.1f}× "
              f"| {goals.get(key, '')} |")
    print()
    print(f"- cold `ask --model offline` ÷ `import chatapp`: **{offline.wall / floor.wall:.1f}×** "
          f"({offline.wall:.2f} s, {offline.peak_mib:.0f} MiB; goals ≤ {GOAL_ASK_SECONDS} s, ≤ {GOAL_ASK_MIB} MiB)")
    print(f"- cold `ask` remote ÷ cold `ask --model offline`: **{remote.wall / offline.wall:.2f}** "
          f"(goal ≤ {GOAL_REMOTE_RATIO}; in CPU time {remote.cpu / offline.cpu:.2f})")
    for item in items:
        for failure in item.failures[:2]:
            print(f"\nWarning: {item.label} failed: {failure}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    print_table(run(args.runs), args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
