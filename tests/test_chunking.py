"""The chunker, driven by real parsed files and the real cl100k tokenizer."""

from __future__ import annotations

import random
import re
from email.message import EmailMessage
from pathlib import Path

import chatapp  # noqa: F401  (points tiktoken at the bundled BPE files: no network)
import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatapp.knowledge.chunking import ChunkSpan, chunk_document
from chatapp.knowledge.parsers import Block, ParsedDocument, parse_file

ENCODING = tiktoken.get_encoding("cl100k_base")
SAMPLE_KB = Path(__file__).resolve().parents[1] / "sample_kb"
WORDS = (
    "budget atlas helios migration warehouse replica cutover validation finance quarter "
    "engineering contract vendor timeline review owner alert rotation portal customer "
    "report backfill freeze approval spend forecast risk launch team meeting decision"
).split()


def count_tokens(text: str) -> int:
    return len(ENCODING.encode(text, disallowed_special=()))


def sentences(rng: random.Random, n: int) -> str:
    out = []
    for _ in range(n):
        words = rng.choices(WORDS, k=rng.randint(6, 18))
        out.append(" ".join(words).capitalize() + rng.choice([".", ".", ".", "!", "?"]))
    return " ".join(out)


def markdown_report(seed: int, sections: int) -> str:
    rng = random.Random(seed)
    parts = ["# Quarterly report\n\n" + sentences(rng, 3)]
    for n in range(sections):
        parts.append(f"## Section {n}\n\n" + sentences(rng, rng.choice([1, 2, 4, 8, 15])))
        if n % 3 == 0:
            parts.append(f"### Detail {n}\n\n- " + "\n- ".join(sentences(rng, 1) for _ in range(rng.randint(2, 5))))
        if n % 5 == 0:
            parts.append(sentences(rng, 40))  # a paragraph far over max_tokens
    return "\n\n".join(parts) + "\n"


def parse(tmp_path: Path, name: str, content: str | bytes) -> ParsedDocument:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return parse_file(path)


def check_invariants(doc: ParsedDocument, chunks: list[ChunkSpan], max_tokens: int, overlap_tokens: int) -> None:
    """What every chunking must satisfy, whatever the document."""
    assert chunks, "a document with text gives at least one chunk"
    for chunk in chunks:
        assert chunk.text == doc.text[chunk.start : chunk.end]
        assert chunk.text == chunk.text.strip()
        assert chunk.tokens == count_tokens(chunk.text)
        assert chunk.tokens <= max_tokens + overlap_tokens
    for previous, current in zip(chunks, chunks[1:]):
        assert previous.start < current.start and previous.end < current.end
    # Every block is inside the chunks: nothing the parser found is dropped.
    for block in doc.blocks:
        visible = doc.text[block.start : block.end].strip()
        if not visible:
            continue
        first = block.start + doc.text[block.start : block.end].index(visible[0])
        last = first + len(visible)
        covered = [c for c in chunks if c.start < last and c.end > first]
        assert covered and covered[0].start <= first and covered[-1].end >= last


def block_kind_ending_at(doc: ParsedDocument, end: int) -> str | None:
    return next((b.kind for b in doc.blocks if b.end == end), None)


def test_markdown_report_invariants(tmp_path):
    doc = parse(tmp_path, "report.md", markdown_report(seed=1, sections=30))
    chunks = chunk_document(doc, count_tokens)
    check_invariants(doc, chunks, max_tokens=400, overlap_tokens=40)
    assert len(chunks) > 10


@pytest.mark.parametrize("target,max_tokens,overlap", [(60, 90, 15), (120, 200, 0), (280, 400, 40), (500, 500, 80)])
def test_token_bounds_hold_for_other_sizes(tmp_path, target, max_tokens, overlap):
    doc = parse(tmp_path, "report.md", markdown_report(seed=2, sections=20))
    chunks = chunk_document(doc, count_tokens, target, max_tokens, overlap)
    check_invariants(doc, chunks, max_tokens, overlap)
    assert len(chunks) > 1
    if overlap == 0:
        assert all(a.end < b.start for a, b in zip(chunks, chunks[1:]))


def test_consecutive_chunks_overlap_at_sentence_starts(tmp_path):
    rng = random.Random(3)
    doc = parse(tmp_path, "memo.txt", "\n\n".join(sentences(rng, rng.randint(2, 6)) for _ in range(60)))
    chunks = chunk_document(doc, count_tokens)
    assert len(chunks) > 5
    for previous, current in zip(chunks, chunks[1:]):
        shared = doc.text[current.start : previous.end]
        assert current.start < previous.end and shared.strip()
        assert count_tokens(shared) <= 40 + 2  # the overlap budget, give or take a join
        # Where possible the carried-over context begins at a sentence or line start.
        assert re.search(r"([.!?]\s+|\n\s*)$", doc.text[: current.start])


def test_long_sentence_overlap_falls_back_to_words(tmp_path):
    doc = ParsedDocument("t", " ".join(["word"] * 3000), [], "text", {}, None)
    chunks = chunk_document(doc, count_tokens, 100, 150, 20)
    check_invariants(doc, chunks, 150, 20)
    assert len(chunks) > 10
    for previous, current in zip(chunks, chunks[1:]):
        assert current.start < previous.end
        assert doc.text[current.start - 1] == " "  # begins on a whole word


def test_headings_never_end_a_chunk(tmp_path):
    doc = parse(tmp_path, "report.md", markdown_report(seed=4, sections=40))
    chunks = chunk_document(doc, count_tokens, target_tokens=120, max_tokens=200, overlap_tokens=20)
    check_invariants(doc, chunks, 200, 20)
    for chunk in chunks:
        assert block_kind_ending_at(doc, chunk.end) != "heading", chunk.text[-80:]
    # Sections open chunks: a chunk that starts on a heading has no overlap before it.
    heading_starts = {b.start for b in doc.blocks if b.kind == "heading"}
    assert sum(c.start in heading_starts for c in chunks) > 10


def test_a_heading_is_placed_with_its_text_even_when_that_text_is_large(tmp_path):
    # A small section, then a heading whose paragraph cannot share a chunk with
    # both: the heading must move with its paragraph, not close the chunk.
    repeats = 1
    while count_tokens(" ".join(["The budget grew."] * repeats)) < 140:
        repeats += 1
    paragraph = " ".join(["The budget grew."] * repeats)  # fits max_tokens alone, not with the intro
    doc = parse(tmp_path, "notes.md", f"# Notes\n\nA short intro.\n\n## Findings\n\n{paragraph}\n")
    chunks = chunk_document(doc, count_tokens, target_tokens=100, max_tokens=150, overlap_tokens=0)
    check_invariants(doc, chunks, 150, 0)
    assert [c.text.split("\n")[0] for c in chunks] == ["# Notes", "## Findings"]


def test_a_heading_joins_a_small_chunk_but_opens_a_new_one_after_a_third(tmp_path):
    short, long_ = "A short note.", " ".join(["Enough text to fill a third of a chunk."] * 12)
    small = parse(tmp_path, "small.md", f"# Title\n\n{short}\n\n## Next\n\nMore text here.\n")
    assert len(chunk_document(small, count_tokens, target_tokens=100)) == 1
    big = parse(tmp_path, "big.md", f"# Title\n\n{long_}\n\n## Next\n\nMore text here.\n")
    chunks = chunk_document(big, count_tokens, target_tokens=300)
    assert [c.text.split("\n")[0] for c in chunks] == ["# Title", "## Next"]


def test_email_header_stays_with_the_first_body_text(tmp_path):
    rng = random.Random(5)
    msg = EmailMessage()
    msg["From"] = "John Smith <john.smith@company.com>"
    msg["To"] = ", ".join(f"Person {n} <person{n}@company.com>" for n in range(12))
    msg["Subject"] = "Atlas status"
    msg["Date"] = "Thu, 19 Nov 2026 17:20:00 -0800"
    # The first paragraph fits a chunk alone but not with the header: it must
    # be split so its start stays with the header, not moved to chunk two.
    first_paragraph = ""
    while count_tokens(first_paragraph) < 340:
        first_paragraph = (first_paragraph + " " + sentences(rng, 1)).strip()
    msg.set_content(first_paragraph + "\n\n" + "\n\n".join(sentences(rng, 5) for _ in range(10)))
    doc = parse(tmp_path, "status.eml", bytes(msg))
    header, first_body = doc.blocks[0], doc.blocks[1]
    assert header.kind == "header"
    block_tokens = [count_tokens(doc.text[b.start : b.end]) for b in (header, first_body)]
    assert block_tokens[1] <= 400 < sum(block_tokens)
    chunks = chunk_document(doc, count_tokens)
    check_invariants(doc, chunks, 400, 40)
    assert chunks[0].start == header.start and chunks[0].end > first_body.start
    assert len(chunks) > 1 and all(c.start >= header.end for c in chunks[1:])


def test_oversized_paragraph_is_cut_at_sentence_ends():
    rng = random.Random(6)
    text = sentences(rng, 200)
    doc = ParsedDocument("t", text, [Block("paragraph", 0, len(text))], "text", {}, None)
    chunks = chunk_document(doc, count_tokens)
    check_invariants(doc, chunks, 400, 40)
    assert len(chunks) > 3
    assert all(c.text[-1] in ".!?" for c in chunks)


def test_text_without_sentences_or_spaces_still_fits():
    blob = "QUJD" * 6000  # base64-like: no sentence, line or word boundary at all
    doc = ParsedDocument("t", blob, [Block("paragraph", 0, len(blob))], "text", {}, None)
    chunks = chunk_document(doc, count_tokens, 100, 150, 20)
    check_invariants(doc, chunks, 150, 20)
    assert chunks[0].start == 0 and chunks[-1].end == len(blob)


def test_tiny_and_empty_documents():
    tiny = ParsedDocument("t", "Just one line.", [Block("paragraph", 0, 14)], "text", {}, None)
    assert chunk_document(tiny, count_tokens) == [ChunkSpan("Just one line.", 0, 14, 4)]
    blank = ParsedDocument("t", "  \n\n\t ", [], "text", {}, None)
    assert chunk_document(blank, count_tokens) == []


def test_document_without_blocks_is_chunked_as_one_block():
    doc = ParsedDocument("t", "\n  Some text. More text.  \n", [], "text", {}, None)
    assert [c.text for c in chunk_document(doc, count_tokens)] == ["Some text. More text."]


def test_rejects_impossible_sizes():
    doc = ParsedDocument("t", "x", [], "text", {}, None)
    with pytest.raises(ValueError):
        chunk_document(doc, count_tokens, target_tokens=500, max_tokens=400)


def test_same_input_same_chunks(tmp_path):
    doc = parse(tmp_path, "report.md", markdown_report(seed=7, sections=25))
    assert chunk_document(doc, count_tokens) == chunk_document(doc, count_tokens)


def test_large_document_counts_each_part_a_bounded_number_of_times(tmp_path):
    rng = random.Random(8)
    paragraphs, words = [], 0
    while words < 50_000:
        paragraph = sentences(rng, rng.randint(1, 12))
        words += len(paragraph.split())
        paragraphs.append(("## Part\n\n" if len(paragraphs) % 9 == 0 else "") + paragraph)
    doc = parse(tmp_path, "big.md", "\n\n".join(paragraphs))
    counted = 0

    def counting(text: str) -> int:
        nonlocal counted
        counted += len(text)
        return count_tokens(text)

    chunks = chunk_document(doc, counting)
    check_invariants(doc, chunks, 400, 40)
    # Linear work: each character is tokenized a few times, never once per chunk-so-far.
    assert counted < 4 * len(doc.text)


@pytest.mark.parametrize(
    "path", sorted(p for p in SAMPLE_KB.rglob("*") if p.suffix in {".md", ".rst", ".txt", ".eml", ".html", ".csv", ".json"}),
    ids=lambda p: p.name,
)
def test_sample_knowledge_base_chunks_cleanly(path):
    doc = parse_file(path)
    chunks = chunk_document(doc, count_tokens)
    check_invariants(doc, chunks, 400, 40)
    for chunk in chunks:
        assert block_kind_ending_at(doc, chunk.end) not in ("heading", "header")


_block_text = st.one_of(
    st.builds(lambda n, seed: sentences(random.Random(seed), n), st.integers(1, 60), st.integers(0, 10**6)),
    st.text(alphabet=st.sampled_from("ab .\n"), min_size=1, max_size=400),
)


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    blocks=st.lists(st.tuples(st.sampled_from(["heading", "paragraph", "list", "row"]), _block_text), max_size=25),
    sizes=st.sampled_from([(40, 60, 10), (100, 150, 20), (280, 400, 40)]),
)
def test_any_structure_keeps_the_invariants(blocks, sizes):
    parts, spans, offset = [], [], 0
    for kind, text in blocks:
        parts.append(text)
        spans.append(Block(kind, offset, offset + len(text), 2 if kind == "heading" else 0))
        offset += len(text) + 2
    doc = ParsedDocument("t", "\n\n".join(parts), spans, "text", {}, None)
    chunks = chunk_document(doc, count_tokens, *sizes)
    if not doc.text.strip():
        assert chunks == []
        return
    check_invariants(doc, chunks, sizes[1], sizes[2])
    assert chunks == chunk_document(doc, count_tokens, *sizes)
