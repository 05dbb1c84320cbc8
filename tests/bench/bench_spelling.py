"""Spelling correction: chatapp's tier 1 against symspellpy and pyspellchecker,
side by side in one run, on the public sets in ../shared/data/spelling.

For every misspelling, each speller's top-1 answer is compared with the
target (lower-cased both sides, as in the data README). chatapp answers with
`LexicalCorrector.suggest(word, left, right)[0]`; on holbrook-sentences it
gets the words around the error (the sentence as typed), which is where
context decides. The peers run as their authors document: symspellpy's
`lookup(word, Verbosity.CLOSEST, max_edit_distance=2)` with its bundled 82k
dictionary, pyspellchecker's `correction(word)` at distance 2. A speller
that has nothing to offer keeps the word as typed.

pyspellchecker is slow (a few words per second), so it sees a fixed random
sample of --sample words per set; the table says so. Words/s are words per
CPU-second of the benchmark process (time.process_time), so that other work on
the machine does not tilt the comparison; dictionary loads are excluded.

    python tests/bench/bench_spelling.py [--split test|dev|all] [--sample 300] [--seed 7]

Not collected by pytest (tests/bench is excluded and the name is bench_*).
Tune only on dev sets; test sets are measured and reported.
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import chatapp  # noqa: F401 - offline environment first

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "spelling"
HOLBROOK_DEV_LINES = 300  # lines 1-300 are dev, 301-786 test
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")


@dataclass
class Case:
    wrong: str
    right: str
    left: str | None = None
    right_context: str | None = None


@dataclass
class SpellingSet:
    name: str
    split: str
    cases: list[Case] = field(default_factory=list)


def _mitton(path: Path) -> list[Case]:
    """`$target` lines, each followed by its misspellings (first field; `$?` = unknown target: skipped)."""
    cases, target = [], None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.strip()
        if line.startswith("$"):
            target = line[1:]
        elif line and target and target != "?":
            cases.append(Case(line.split()[0].lower(), target.lower()))
    return cases


def _norvig(path: Path) -> list[Case]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if ":" in line:
            target, wrongs = line.split(":", 1)
            cases += [Case(w.lower(), target.strip().lower()) for w in wrongs.split()]
    return cases


def _wikipedia_lists() -> list[Case]:
    pairs: dict[str, str] = {}
    json_path = DATA / "wikipedia-common-misspellings-nlaugmenter.json"
    if json_path.exists():
        pairs.update(json.loads(json_path.read_text(encoding="utf-8")))
    vim_path = DATA / "wikipedia-common-misspellings-vim-autocorrect.txt"
    if vim_path.exists():
        for line in vim_path.read_text(encoding="utf-8").splitlines():
            if "->" in line:
                wrong, right = line.split("->", 1)
                pairs.setdefault(wrong.strip(), right.strip())
    return [Case(w.lower(), r.lower()) for w, r in pairs.items() if _WORD.fullmatch(r)]


def holbrook_sentence_cases(first: int, last: int) -> list[Case]:
    """One case per word that differs between a sentence as typed and as meant, with its
    neighbours as typed. Only one-for-one word replacements count (splits and joins are skipped)."""
    cases = []
    lines = (DATA / "holbrook-sentences.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines[first - 1 : last]:
        row = json.loads(line)
        wrong = [w.lower() for w in _WORD.findall(row["wrong"])]
        right = [w.lower() for w in _WORD.findall(row["right"])]
        matcher = difflib.SequenceMatcher(None, wrong, right, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "replace" or i2 - i1 != j2 - j1:
                continue
            for offset in range(i2 - i1):
                i = i1 + offset
                left = wrong[i - 1] if i > 0 else None
                after = wrong[i + 1] if i + 1 < len(wrong) else None
                cases.append(Case(wrong[i], right[j1 + offset], left, after))
    return cases


def load_sets(split: str) -> list[SpellingSet]:
    """The spelling sets of a split ("dev", "test" or "all") that exist on this machine."""
    sources = [
        ("norvig1", "dev", lambda: _norvig(DATA / "norvig-spell-testset1.txt"), "norvig-spell-testset1.txt"),
        ("birkbeck", "dev", lambda: _mitton(DATA / "mitton-missp.dat"), "mitton-missp.dat"),
        ("holbrook-sentences dev", "dev", lambda: holbrook_sentence_cases(1, HOLBROOK_DEV_LINES), "holbrook-sentences.jsonl"),
        ("wikipedia lists", "dev", _wikipedia_lists, "wikipedia-common-misspellings-nlaugmenter.json"),
        ("norvig2", "test", lambda: _norvig(DATA / "norvig-spell-testset2.txt"), "norvig-spell-testset2.txt"),
        ("aspell", "test", lambda: _mitton(DATA / "mitton-aspell.dat"), "mitton-aspell.dat"),
        ("wikipedia", "test", lambda: _mitton(DATA / "mitton-wikipedia.dat"), "mitton-wikipedia.dat"),
        ("holbrook", "test", lambda: _mitton(DATA / "mitton-holbrook-missp.dat"), "mitton-holbrook-missp.dat"),
        ("holbrook-sentences test", "test", lambda: holbrook_sentence_cases(HOLBROOK_DEV_LINES + 1, 10**6), "holbrook-sentences.jsonl"),
    ]
    return [
        SpellingSet(name, part, load())
        for name, part, load, file_name in sources
        if split in (part, "all") and (DATA / file_name).exists()
    ]


# --- the spellers ----------------------------------------------------------------


class ChatappSpeller:
    name = "chatapp tier 1"
    uses_context = True

    def __init__(self) -> None:
        from chatapp.preprocess.correction.lexical import LexicalCorrector

        self.corrector = LexicalCorrector()
        self.corrector.suggest("warmup")  # builds the lexicon outside the timed part

    def start_set(self) -> None:
        # Each set starts cold: the sets share words (the Wikipedia lists), and
        # remembered look-ups from one would speed up the next.
        self.corrector.forget_recent()

    def top1(self, case: Case) -> str:
        ranked = self.corrector.suggest(case.wrong, case.left, case.right_context, k=1)
        return ranked[0][0] if ranked else case.wrong


class SymSpellSpeller:
    name = "symspellpy"
    uses_context = False

    def __init__(self) -> None:
        import importlib.resources

        from symspellpy import SymSpell, Verbosity

        self.verbosity = Verbosity.CLOSEST
        self.speller = SymSpell(max_dictionary_edit_distance=2)
        path = importlib.resources.files("symspellpy") / "frequency_dictionary_en_82_765.txt"
        self.speller.load_dictionary(str(path), term_index=0, count_index=1)

    def top1(self, case: Case) -> str:
        found = self.speller.lookup(case.wrong, self.verbosity, max_edit_distance=2)
        return found[0].term if found else case.wrong


class PySpellCheckerSpeller:
    name = "pyspellchecker"
    uses_context = False

    def __init__(self) -> None:
        from spellchecker import SpellChecker

        self.speller = SpellChecker(distance=2)

    def top1(self, case: Case) -> str:
        return self.speller.correction(case.wrong) or case.wrong


@dataclass
class Score:
    correct: int
    total: int
    seconds: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def words_per_second(self) -> float:
        return self.total / self.seconds if self.seconds else 0.0


def evaluate(speller, cases: list[Case]) -> Score:
    correct = 0
    start = time.process_time()
    for case in cases:
        correct += speller.top1(case).lower() == case.right
    return Score(correct, len(cases), time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["test", "dev", "all"], default="test")
    parser.add_argument("--sample", type=int, default=300, help="words per set for pyspellchecker")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-pyspellchecker", action="store_true")
    args = parser.parse_args(argv)

    sets = load_sets(args.split)
    if not sets:
        print(f"no spelling data under {DATA}", file=sys.stderr)
        return 2
    spellers = [ChatappSpeller(), SymSpellSpeller()]
    if not args.no_pyspellchecker:
        spellers.append(PySpellCheckerSpeller())
    rng = random.Random(args.seed)

    header = "| set | split | words | " + " | ".join(s.name for s in spellers) + " |"
    print(header)
    print("|" + " --- |" * (3 + len(spellers)))
    rates: dict[str, list[tuple[int, float]]] = {s.name: [] for s in spellers}
    for spelling_set in sets:
        cells = []
        for speller in spellers:
            cases = spelling_set.cases
            sampled = isinstance(speller, PySpellCheckerSpeller) and len(cases) > args.sample
            if sampled:
                cases = rng.sample(cases, args.sample)
            if hasattr(speller, "start_set"):
                speller.start_set()
            score = evaluate(speller, cases)
            rates[speller.name].append((score.total, score.seconds))
            note = f" (sample of {score.total})" if sampled else ""
            cells.append(f"{score.accuracy:.1%} · {score.words_per_second:,.0f} w/s{note}")
        print(f"| {spelling_set.name} | {spelling_set.split} | {len(spelling_set.cases):,} | " + " | ".join(cells) + " |", flush=True)
    overall = {s.name: sum(n for n, _ in rates[s.name]) / max(sum(t for _, t in rates[s.name]), 1e-9) for s in spellers}
    print("| all words | | | " + " | ".join(f"{v:,.0f} w/s" for v in overall.values()) + " |")
    ratio = overall[ChatappSpeller.name] / overall[SymSpellSpeller.name]
    print(f"\nchatapp / symspellpy throughput: {ratio:.2f} (target >= 0.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
