"""Postprocess latency per answer (p50 / p95), beside one embedding call of
the same answer (MiniLM, `MiniLMEmbedder.embed([answer])`), in the same run.

Three workloads, all warm (models loaded, one throw-away call first):
- kb: answers about sample_kb's people, meetings and projects, checked
  against its registry (entities.jsonl + facts.jsonl), with a resolved entity
  and a question — the seed scenario and its variants;
- qa / dialogue: HaluEval dev answers (right and hallucinated) with the line's
  knowledge as evidence and an empty registry, dialogue with its history;
- chat: bench_paraphrase.py's answers (right ones in other words, wrong ones
  worded alike) as a chat turn checks them: held to the chunks their question
  retrieves from its three folders of work documents, ingested into one data
  dir, with no evidence supplied (so the support model may embed claims beside
  every sentence of those chunks, kept per sentence from turn to turn). As a
  turn does, those sentences are embedded while the model answers
  (Postprocessor.prepare, untimed here, as the question's embedding is; a build
  without prepare embeds them in the check).
Each workload runs once without and once with the embedder given to the
Postprocessor (it is then used for the answer's topical fit to the question).
With the embedder, each answer starts with nothing remembered but its question,
embedded beforehand (untimed) as retrieval does in a real turn, and the evidence
vectors prepare kept: those the check kept of the answer (its sentences, words,
corrected text) are dropped after it. The embedding beside it is always computed
afresh by the same embedder.

Wall-clock ratios swing with other load on the machine; the CPU-time ratios
(the process's CPU time over the check, every thread counted, ÷ that of the
embedding) do much less, and say what the check costs rather than how long it
waited for a core.

    python tests/bench/bench_postprocess_latency.py [--answers 300]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import chatapp  # noqa: F401 - offline environment first

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_halueval import dialogue_turns, load  # noqa: E402
from bench_paraphrase import PAIRS, open_engines  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KB_ANSWERS = [
    "John's email is john.s@company.org. He mentioned the meeting in his message yesterday about the Q4 budget "
    "review with Sarah from marketing.",
    "John Smith's email is john.smith@company.com.",
    "The Q4 budget review is at 3pm on December 3 in Conference Room B.",
    "The Q4 Budget Review Meeting is scheduled for November 30, 2026 at 14:00 in Conference Room B. John Smith "
    "organized it, and David Okafor, Sarah Chen, Emma Johansson, Tom Becker and Miguel Alvarez are attending.",
    "You should ask Marcus Delgado, who handles the Atlas vendor contract.",
    "Project Atlas has a Q4 budget of $500,000 and a deadline of January 15, 2027.",
    "Lisa Wong organized the Q4 budget review. John will attend the budget review. John will not attend it.",
    "Emma Johansson's phone is +1 555 0154 and she is based in Seattle. She leads Project Beacon.",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def workloads(count: int):
    from chatapp.records import ResolvedEntity

    john = ResolvedEntity("johns", (19, 24), "person:john-smith", "John Smith", "person", 0.92)
    kb = [(a, dict(question="can u help me find johns email from yesterdya", resolved_entities=[john]))
          for a in KB_ANSWERS] * max(1, count // len(KB_ANSWERS))
    qa, dialogue = [], []
    for _, row in load("qa", "dev", None, 7)[: count // 2]:
        kwargs = dict(question=row["question"], evidence=[row["knowledge"]])
        qa += [(row["right_answer"], kwargs), (row["hallucinated_answer"], kwargs)]
    for _, row in load("dialogue", "dev", None, 7)[: count // 2]:
        turns = dialogue_turns(row["dialogue_history"])
        question = next((t.content for t in reversed(turns) if t.role == "user"), "")
        kwargs = dict(question=question, evidence=[row["knowledge"]], history=turns)
        dialogue += [(row["right_response"], kwargs), (row["hallucinated_response"], kwargs)]
    return {"kb": kb[:count], "qa": qa[:count], "dialogue": dialogue[:count]}


def chat_workload(root: Path, count: int | None):
    """(engine, answers) for the chat workload: bench_paraphrase.py's folders ingested into one engine,
    each answer with the chunks its question retrieves (the first `count`; None: all)."""
    engine = open_engines(root, together=True)
    items = []
    for _, question, right, wrong in PAIRS:
        chunks = engine.kb.search(question)
        items += [(answer, dict(question=question, rag_chunks=chunks)) for answer in (right, wrong)]
    return engine, items[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", type=int, default=300, help="answers per workload")
    args = parser.parse_args()

    from chatapp.engine import ChatEngine
    from chatapp.knowledge.embeddings import MiniLMEmbedder
    from chatapp.nlp import load_pipeline
    from chatapp.postprocess import Postprocessor

    nlp = load_pipeline()[0]
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    with tempfile.TemporaryDirectory() as kb_dir, tempfile.TemporaryDirectory() as empty_dir, \
            tempfile.TemporaryDirectory() as chat_dir:
        kb_engine = ChatEngine.open(kb_dir)
        kb_engine.ingest(ROOT / "sample_kb" / "entities.jsonl", ROOT / "sample_kb" / "facts.jsonl")
        empty_engine = ChatEngine.open(empty_dir)
        chat_engine, chat_items = chat_workload(Path(chat_dir), args.answers)
        registries = {"kb": kb_engine.kb.registry, "chat": chat_engine.kb.registry}
        rows = []
        for name, items in {**workloads(args.answers), "chat": chat_items}.items():
            registry = registries.get(name, empty_engine.kb.registry)
            for with_embedder in (False, True):
                post = Postprocessor(registry, embedder=embedder if with_embedder else None, nlp=nlp)
                post.process(*items[0][:1], **items[0][1])
                post_ms, embed_ms, ratios, cpu_ratios = [], [], [], []
                for answer, kwargs in items:
                    embedder.forget()
                    embedder.embed([kwargs["question"]])  # what retrieval did before the model answered
                    if kwargs.get("rag_chunks"):  # … and what the turn embeds while the model answers
                        ready = post.prepare(kwargs["rag_chunks"], question=kwargs["question"])
                        if ready is not None:
                            ready.result()
                    vectors = post.support_model.vectors
                    ready = vectors.kept() if hasattr(vectors, "kept") else None  # a build before has no kept()
                    start, cpu = time.perf_counter(), time.process_time()
                    post.process(answer, **kwargs)
                    post_ms.append(1000 * (time.perf_counter() - start))
                    post_cpu = time.process_time() - cpu
                    # The answer's own vectors (its sentences, words, corrected text) are not kept for the
                    # next: a right answer and its wrong twin share wording, which two turns seldom do.
                    if ready is not None:
                        vectors.drop(vectors.kept() - ready)
                    embedder.forget()  # the floor is one embedding computed, never one remembered
                    start, cpu = time.perf_counter(), time.process_time()
                    embedder.embed([answer])
                    embed_ms.append(1000 * (time.perf_counter() - start))
                    ratios.append(post_ms[-1] / embed_ms[-1])
                    cpu_ratios.append(post_cpu / max(time.process_time() - cpu, 1e-6))
                rows.append((name, with_embedder, len(items), post_ms, embed_ms, ratios, cpu_ratios))
        kb_engine.close()
        empty_engine.close()
        chat_engine.close()

    print("### Postprocess latency per answer (warm; ms)\n")
    print("| workload | embedder | answers | postprocess p50 | postprocess p95 | embed p50 | embed p95 "
          "| ratio p50 (per answer) | ratio p95 | CPU ratio p50 | CPU ratio p95 |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, with_embedder, n, post_ms, embed_ms, ratios, cpu_ratios in rows:
        print(f"| {name} | {'yes' if with_embedder else 'no'} | {n} | {statistics.median(post_ms):.1f} | "
              f"{percentile(post_ms, 0.95):.1f} | {statistics.median(embed_ms):.1f} | {percentile(embed_ms, 0.95):.1f} | "
              f"{statistics.median(ratios):.1f}× | {percentile(ratios, 0.95):.1f}× | "
              f"{statistics.median(cpu_ratios):.2f}× | {percentile(cpu_ratios, 0.95):.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
