"""False positives of tier-1 correction: the share of words it changes in text
that needs no correction. Target: at most 0.5% at the standard level.

Clean text comes from two places:
- every sentence of the sample_kb documents (parsed as ingest parses them),
  corrected with the knowledge base's vocabulary joined in, as the app does;
  the same text without that vocabulary shows what the join is worth;
- the corrected (`right`) side of holbrook-sentences test lines 301-786.

A word counts as changed when tier 1 proposes a correction for it with at
least the confidence a level needs (levels.threshold): "proposed" counts every
proposal, whatever its confidence. The most frequent changes are listed so a
regression is easy to read.

    python tests/bench/bench_false_positives.py [--show 15]

Not collected by pytest (tests/bench is excluded and the name is bench_*).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import chatapp  # noqa: F401 - offline environment first
from chatapp.preprocess.correction.levels import LEVELS, threshold
from chatapp.preprocess.correction.lexical import LexicalCorrector
from chatapp.preprocess.correction.tokens import tokenize
from chatapp.engine import ChatEngine, sample_kb_path
from chatapp.knowledge.parsers.base import SUPPORTED_SUFFIXES, FileRejected
from chatapp.knowledge.parsers.dispatch import parse_file

HOLBROOK = Path(__file__).resolve().parents[3] / "shared" / "data" / "spelling" / "holbrook-sentences.jsonl"
HOLBROOK_DEV_LINES = 300
TARGET = 0.005
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")


def sample_kb_sentences() -> list[str]:
    sentences = []
    for path in sorted(sample_kb_path().rglob("*")):
        if path.suffix.lower() not in SUPPORTED_SUFFIXES or not path.is_file():
            continue
        try:
            text = parse_file(path).text
        except FileRejected:
            continue
        sentences += [s.strip() for s in _SENTENCE_BREAK.split(text) if len(s.split()) >= 3]
    return sentences


def holbrook_right_sentences() -> list[str]:
    lines = HOLBROOK.read_text(encoding="utf-8").splitlines()[HOLBROOK_DEV_LINES:]
    return [json.loads(line)["right"] for line in lines]


def knowledge_base_vocabulary() -> set[str]:
    """The registry's vocabulary after ingesting sample_kb's entities and facts, as the app builds it."""
    with tempfile.TemporaryDirectory(prefix="chatapp-bench-fp-") as tmp:
        engine = ChatEngine.open(Path(tmp), load_sample_kb=False)
        try:
            root = sample_kb_path()
            engine.ingest(root / "entities.jsonl", root / "facts.jsonl")
            return engine.kb.registry.vocabulary()
        finally:
            engine.close()


def measure(corrector: LexicalCorrector, sentences: list[str]) -> tuple[int, list[tuple[str, str, float]], float]:
    """Words seen, the proposals made (original, corrected, confidence), seconds spent."""
    words, proposals = 0, []
    start = time.perf_counter()
    for sentence in sentences:
        doc = tokenize(sentence)
        words += len(doc.words())
        proposals += [(r.original, r.corrected, r.confidence) for r in corrector.correct(doc)]
    return words, proposals, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=15, help="most frequent changes to list per corpus")
    args = parser.parse_args(argv)

    with_kb = LexicalCorrector(knowledge_base_vocabulary())
    plain = LexicalCorrector()
    plain.suggest("warmup")
    corpora = [("sample_kb documents, KB vocabulary joined", with_kb, sample_kb_sentences()),
               ("sample_kb documents, no KB vocabulary", plain, sample_kb_sentences())]
    if HOLBROOK.exists():
        corpora.append(("holbrook-sentences test, right side", plain, holbrook_right_sentences()))

    levels = [("proposed", 0.0)] + [(name, threshold(LEVELS[name])) for name in ("aggressive", "standard", "minimal")]
    print("| clean text | sentences | words | " + " | ".join(f"{n} (≥{t:.2f})" if t else n for n, t in levels) + " |")
    print("|" + " --- |" * (3 + len(levels)))
    worst = 0.0
    details = []
    for name, corrector, sentences in corpora:
        words, proposals, _ = measure(corrector, sentences)
        cells = []
        for level_name, minimum in levels:
            changed = sum(1 for *_, confidence in proposals if confidence >= minimum)
            share = changed / words if words else 0.0
            cells.append(f"{share:.2%} ({changed})")
            if level_name == "standard" and "no KB" not in name:
                worst = max(worst, share)
        print(f"| {name} | {len(sentences):,} | {words:,} | " + " | ".join(cells) + " |")
        details.append((name, Counter((o, c, round(conf, 2)) for o, c, conf in proposals)))
    print(f"\nstandard level, worst corpus the app would see: {worst:.2%} (target ≤ {TARGET:.1%})")
    for name, changes in details:
        if changes and args.show:
            listed = ", ".join(f"{o}→{c} {conf} ×{n}" for (o, c, conf), n in changes.most_common(args.show))
            print(f"\n{name}: {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
