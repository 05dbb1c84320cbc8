"""How far the checker's own signals can go on HaluEval dialogue: a classifier
trained on dev over everything the Postprocessor reports for an answer, scored
per answer on a test sample, with and without how the answer is written (its length in words and sentences,
whether it ends in a question) beside them.

The gap between the two is what style alone buys on this data set (its
hallucinated responses were written by ChatGPT and read differently); the first
figure is about the ceiling of the checker's signals without world knowledge.
Needs scikit-learn, which chatapp itself does not use:

    pip install scikit-learn
    python tests/bench/bench_halueval_ceiling.py [--test-sample 1500]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import chatapp  # noqa: F401 - offline environment first

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_halueval import dialogue_turns, load  # noqa: E402


def signals(post, row, text: str) -> list[float]:
    """What the checker says of one answer, as numbers (no word of the answer itself)."""
    from chatapp.postprocess.evidence import TextIndex
    from chatapp.postprocess.statements import evidence_statements

    turns = dialogue_turns(row["dialogue_history"])
    question = next((t.content for t in reversed(turns) if t.role == "user"), "")
    result = post.process(text, question=question, evidence=[row["knowledge"]], history=turns)
    flags = result.hallucination_flags
    names = sum(f.hallucination_type == "UnsupportedClaim" and len(f.content.split()) <= 4 for f in flags)
    sentences = sum(f.hallucination_type == "UnsupportedClaim" and len(f.content.split()) > 4 for f in flags)
    contradictions = sum(f.hallucination_type == "ContradictsFact" for f in flags)
    history, answer = TextIndex([row["dialogue_history"]]), TextIndex([text])
    runs = {name for statement in evidence_statements(row["knowledge"]) for name in statement.names}
    new = [r for r in runs if not history.supports_name(r)]
    used = sum(answer.supports_name(r) for r in new)
    return [len(flags), names, sentences, contradictions, max((f.confidence for f in flags), default=0.0),
            len(new) - used, used, result.confidence, result.coherence.score]


def style(text: str) -> list[float]:
    """How the answer is written, not what it says: words, sentences, ends in a question."""
    return [len(text.split()), len(re.findall(r"[.!?]+", text)), float(text.rstrip().endswith("?"))]


def table(post, items) -> tuple[list[list[float]], list[int], list[list[float]]]:
    features, labels, styles = [], [], []
    for _, row in items:
        for label, key in ((0, "right_response"), (1, "hallucinated_response")):
            features.append(signals(post, row, row[key]))
            labels.append(label)
            styles.append(style(row[key]))
    return features, labels, styles


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--test-sample", type=int, default=1500)
    args = parser.parse_args()
    try:
        from sklearn.ensemble import GradientBoostingClassifier
    except ImportError:
        print("needs scikit-learn: pip install scikit-learn")
        return 2
    from chatapp.engine import ChatEngine
    from chatapp.postprocess import Postprocessor

    engine = ChatEngine.open(tempfile.mkdtemp(prefix="halueval-ceiling-"))
    post = Postprocessor(engine.kb.registry)
    dev_x, dev_y, dev_style = table(post, load("dialogue", "dev", None, 7))
    test_x, test_y, test_style = table(post, load("dialogue", "test", args.test_sample, 7))
    engine.close()

    def accuracy(train, test) -> float:
        model = GradientBoostingClassifier(max_depth=3, random_state=7).fit(train, dev_y)
        return float((model.predict(test) == test_y).mean())

    flagged = sum((x[0] > 0) == bool(y) for x, y in zip(test_x, test_y)) / len(test_y)
    with_style = accuracy([x + s for x, s in zip(dev_x, dev_style)], [x + s for x, s in zip(test_x, test_style)])
    print(f"HaluEval dialogue, per-answer accuracy on {args.test_sample} test lines (trained on dev lines 1–1,000)\n")
    print("| judge | accuracy |\n| --- | ---: |")
    print(f"| the checker's flags, as shipped | {flagged:.1%} |")
    print(f"| a classifier over the checker's signals | {accuracy(dev_x, test_x):.1%} |")
    print(f"| the same, plus how the answer is written (words, sentences, a question?) | {with_style:.1%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
