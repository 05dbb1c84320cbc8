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

Each command is measured twice, in interleaved rounds:

- "checkout": chatapp imported from the checkout's sources. Where
  PYTHONDONTWRITEBYTECODE is set (as on the development machine) no bytecode is
  kept, so every process compiles each chatapp module it imports from source;
- "installed": a copy of the package laid out as a wheel installs it (sample_kb
  and themes inside it) and compiled to bytecode at setup, as pip does at
  install. This is what a user's `chatapp` pays. (Not a real wheel: building
  one needs a newer setuptools than this machine may have offline.)

The figures are reported, never asserted: absolute times move with the
machine's load; ratios measured in the same run much less.

    python tests/bench/bench_startup.py [--runs 5] [--build CHECKOUT]

--build measures another checkout's chatapp with this script (for a before →
after comparison of both variants; default: this checkout).

Not collected by pytest (tests/bench is excluded and the name is bench_*).
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
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
    env: dict = field(default_factory=dict)
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
        # Not run from a checkout: `python -m` puts the working directory first on the import path.
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=tempfile.gettempdir())
        # wait4 gives this child's own rusage; RUSAGE_CHILDREN would be the largest of all so far.
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode("utf-8", "replace")[-300:]
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, process.returncode, tail


def measure(item: Measure, runs: int) -> None:
    for _ in range(runs):
        wall, cpu, peak, code, tail = run_once(item.argv, item.env)
        if code != 0:
            item.failures.append(f"exit {code}: {tail.strip()}")
            continue
        item.walls.append(wall)
        item.cpus.append(cpu)
        item.peaks_kib.append(peak)


def chatapp_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "chatapp", *args]


def install_copy(build: Path, site: Path) -> Path:
    """The build's package copied into `site` as a wheel lays it out, and compiled to bytecode as pip
    compiles it at install; `site` is then the import path of the installed variant."""
    package = site / "chatapp"
    shutil.copytree(build / "chatapp", package, ignore=shutil.ignore_patterns("__pycache__"))
    for data in ("sample_kb", "themes"):  # pyproject.toml's package-dir puts them inside the package
        if (build / data).is_dir():
            shutil.copytree(build / data, package / data)
    if not compileall.compile_dir(str(package), quiet=1, workers=0):
        raise SystemExit(f"compiling {package} failed")
    return site


def prepare(data_dir: Path, env: dict) -> None:
    """Ingest the folder and leave one session to list and export."""
    docs = data_dir.parent / "docs"
    if not docs.is_dir():
        write_documents(docs)
    for argv in (chatapp_argv("ingest", str(docs), "--data-dir", str(data_dir)),
                 chatapp_argv("ask", QUESTION, "--model", "offline", "--session", SESSION, "--data-dir", str(data_dir))):
        result = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
        if result.returncode != 0:
            raise SystemExit(f"setup failed: {' '.join(argv[2:])}\n{result.stderr[-2000:]}")


VARIANTS = ("checkout", "installed")


def run(runs: int, build: Path) -> list[Measure]:
    """Each command's measures, the checkout's and the installed copy's side by side."""
    base = {**os.environ, "CHATAPP_LOAD_SAMPLE_KB": "false"}
    with tempfile.TemporaryDirectory() as tmp, OpenAITestServer(Scripted.reply("Imre Salo leads it.", pieces=4)) as server:
        envs = {"checkout": {**base, "PYTHONPATH": str(build)},
                "installed": {**base, "PYTHONPATH": str(install_copy(build, Path(tmp) / "site"))}}
        items = []
        for variant, env in envs.items():
            # A data dir each: the table cache's keys name the files that build each table, so the two
            # copies would keep replacing each other's tables.
            data_dir = Path(tmp) / f"data-{variant}"
            prepare(data_dir, env)
            d = ["--data-dir", str(data_dir)]
            commands = [
                ('`python -c "import chatapp"`', [sys.executable, "-c", "import chatapp"]),
                ("`chatapp --help`", chatapp_argv("--help")),
                ("`chatapp sessions list`", chatapp_argv("sessions", "list", *d)),
                ("`chatapp export SESSION`", chatapp_argv("export", SESSION, *d)),
                ("`chatapp kb stats`", chatapp_argv("kb", "stats", *d)),
                ("`chatapp ask … --model offline`", chatapp_argv("ask", QUESTION, "--model", "offline", *d)),
                ("`chatapp ask …` (local OpenAI-compatible server)",
                 chatapp_argv("ask", QUESTION, "--model", "test-model", "--api-base", server.url, *d)),
            ]
            items.append([Measure(label, argv, env) for label, argv in commands])
        items = [item for pair in zip(*items) for item in pair]  # each command's variants side by side
        # Interleaved rounds: a burst of load on the machine hits every command and variant alike.
        for _ in range(runs):
            for item in items:
                measure(item, 1)
    return items


def print_table(items: list[Measure], runs: int) -> None:
    pairs = [items[i : i + len(VARIANTS)] for i in range(0, len(items), len(VARIANTS))]
    by_label = {pair[0].label.split("`")[1]: dict(zip(VARIANTS, pair)) for pair in pairs}
    floor = by_label['python -c "import chatapp"']
    offline = by_label["chatapp ask … --model offline"]
    remote = dict(zip(VARIANTS, pairs[-1]))
    goals = {
        "chatapp --help": f"≤ {GOAL_HELP_SECONDS} s",
        "chatapp sessions list": f"≤ {GOAL_SESSIONS_SECONDS} s",
        "chatapp export SESSION": f"≤ {GOAL_SESSIONS_SECONDS} s",
        "chatapp ask … --model offline": f"≤ {GOAL_ASK_SECONDS} s, ≤ {GOAL_ASK_MIB} MiB",
    }
    print(f"\n### Start-up of whole processes (median of {runs} runs; peak RSS the largest run)\n")
    print("checkout: sources compiled by each process; installed: bytecode compiled at install.\n")
    print("| command | wall s checkout / installed | CPU s checkout / installed | peak MiB | "
          "÷ import chatapp (installed) | goal |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for pair in pairs:
        source, installed = pair
        key = source.label.split("`")[1]
        print(f"| {source.label} | {source.wall:.2f} / {installed.wall:.2f} | {source.cpu:.2f} / {installed.cpu:.2f} "
              f"| {max(source.peak_mib, installed.peak_mib):.0f} | {installed.wall / floor['installed'].wall:.1f}× "
              f"| {goals.get(key, '')} |")
    print()
    for variant in VARIANTS:
        ask, base = offline[variant], floor[variant]
        print(f"- {variant}: cold `ask --model offline` {ask.wall:.2f} s wall, {ask.cpu:.2f} s CPU, "
              f"{ask.peak_mib:.0f} MiB (goals ≤ {GOAL_ASK_SECONDS} s, ≤ {GOAL_ASK_MIB} MiB), "
              f"{ask.wall / base.wall:.1f}× `import chatapp`; remote ÷ offline "
              f"**{remote[variant].wall / ask.wall:.2f}** wall, {remote[variant].cpu / ask.cpu:.2f} CPU "
              f"(goal ≤ {GOAL_REMOTE_RATIO})")
    for item in items:
        for failure in item.failures[:2]:
            print(f"\nWarning: {item.label} failed: {failure}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--build", type=Path, default=ROOT, help="the checkout whose chatapp is measured")
    args = parser.parse_args(argv)
    print_table(run(args.runs, args.build.resolve()), args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
