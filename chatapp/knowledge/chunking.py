"""Cut a parsed document into retrieval chunks along its own structure.

Chunks are spans of the document text (chunk.text == doc.text[start:end]) so
a hit can always be shown in place. Blocks are packed up to a target size; a
heading opens a new chunk rather than ending one; oversized blocks are split
at sentences, then lines, then words. Each chunk after the first repeats the
tail of the one before it, so a fact split across a boundary is still found.

Token counting may be slow (tiktoken), so every piece of text is counted a
bounded number of times: once per block, once per sentence of an oversized
block, once per finished chunk, and a few times per overlap.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Callable

from chatapp.knowledge.parsers import ParsedDocument

CountTokens = Callable[[str], int]


@dataclass
class ChunkSpan:
    text: str
    start: int
    end: int
    tokens: int


@dataclass
class _Unit:
    """A piece that is never cut further once packed: a block or part of one."""

    start: int
    end: int
    tokens: int
    kind: str
    gap_tokens: int = 0  # the text between the previous unit and this one

    @property
    def sticky(self) -> bool:
        return self.kind in _STICKY_KINDS


# Headings and an email's header block belong with the text that follows them.
_STICKY_KINDS = ("heading", "header")


def _sticky_limit(max_tokens: int) -> int:
    # Past this, a run of headings is no longer "a heading with its text" and
    # binding it would crowd out the text it introduces.
    return max_tokens // 2


# Boundaries to split oversized text at, coarsest first. Group 1 is the gap
# that separates two pieces; the punctuation stays with the sentence it ends.
_SPLIT_BOUNDARIES = (
    re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*(\s+)"),
    re.compile(r"(\s*\n\s*)"),
)
# Where an overlap may begin: after a sentence end or at the start of a line.
_OVERLAP_START = re.compile(r"(?:[.!?]+[\"'\u201d\u2019)\]]*\s+|\n\s*)(?=\S)")
_WORD = re.compile(r"\S+")
# Enough characters to hold overlap_tokens of ordinary text several times over.
_CHARS_PER_TOKEN_BOUND = 12


def chunk_document(
    doc: ParsedDocument,
    count_tokens: CountTokens,
    target_tokens: int = 280,
    max_tokens: int = 400,
    overlap_tokens: int = 40,
) -> list[ChunkSpan]:
    if target_tokens <= 0 or max_tokens < target_tokens or overlap_tokens < 0:
        raise ValueError("need 0 < target_tokens <= max_tokens and overlap_tokens >= 0")
    text = doc.text
    if not text.strip():
        return []
    units = _measure_units(text, doc, count_tokens, max_tokens)
    groups = _group_units(text, units, count_tokens, max_tokens)
    chunks = _pack_groups(groups, target_tokens, max_tokens)

    spans: list[ChunkSpan] = []
    for index, chunk in enumerate(chunks):
        core_start, end = chunk[0].start, chunk[-1].end
        start = core_start
        # A chunk that opens a new section reads better without the tail of
        # the previous one; everything else carries some context over.
        if index and overlap_tokens and chunk[0].kind != "heading":
            start = _overlap_start(text, chunks[index - 1][0].start, core_start, overlap_tokens, count_tokens)
        tokens = count_tokens(text[start:end])
        if tokens > max_tokens + overlap_tokens and start < core_start:
            start = core_start  # the estimate was off; the bound matters more than the overlap
            tokens = count_tokens(text[start:end])
        spans.append(ChunkSpan(text[start:end], start, end, tokens))
    return spans


# --- units: blocks measured once, oversized ones split ----------------------


def _block_spans(doc: ParsedDocument) -> list[tuple[int, int, str]]:
    """The document's blocks, trimmed to visible text, in order, without overlaps."""
    text = doc.text
    spans: list[tuple[int, int, str]] = []
    last_end = 0
    for block in sorted(doc.blocks, key=lambda b: (b.start, b.end)):
        start, end = max(block.start, last_end, 0), min(block.end, len(text))
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            spans.append((start, end, block.kind))
            last_end = end
    if not spans:  # a parser that gave no structure: the whole text is one block
        stripped = text.strip()
        start = text.index(stripped[0])
        spans.append((start, start + len(stripped), "paragraph"))
    return spans


def _measure_units(text: str, doc: ParsedDocument, count: CountTokens, max_tokens: int) -> list[_Unit]:
    units: list[_Unit] = []
    for start, end, kind in _block_spans(doc):
        # Sticky pieces must leave room for the text bound to them.
        limit = _sticky_limit(max_tokens) if kind in _STICKY_KINDS else max_tokens
        tokens = count(text[start:end])
        if tokens <= limit:
            pieces = [(start, end, tokens)]
        else:
            pieces = _split_oversized(text, start, end, limit, count)
            # A heading too long to keep whole is treated as ordinary text.
            kind = "paragraph" if kind == "heading" else kind
        for piece_start, piece_end, piece_tokens in pieces:
            previous_end = units[-1].end if units else piece_start
            gap = _gap_tokens(text, previous_end, piece_start, count)
            units.append(_Unit(piece_start, piece_end, piece_tokens, kind, gap))
    return units


def _gap_tokens(text: str, start: int, end: int, count: CountTokens) -> int:
    # Whitespace between pieces costs about a token; anything the parser left
    # outside blocks (a Markdown table rule, a transition line) is counted.
    if start >= end:
        return 0
    gap = text[start:end]
    return count(gap) if gap.strip() else 1


def _split_oversized(
    text: str, start: int, end: int, limit: int, count: CountTokens, level: int = 0
) -> list[tuple[int, int, int]]:
    """Split text[start:end] into (start, end, tokens) pieces of at most `limit` tokens."""
    if level >= len(_SPLIT_BOUNDARIES):
        return _split_words(text, start, end, limit, count)
    segments, piece_start = [], start
    for match in _SPLIT_BOUNDARIES[level].finditer(text, start, end):
        gap_start, gap_end = match.span(1)
        if gap_start > piece_start and gap_end < end:
            segments.append((piece_start, gap_start))
            piece_start = gap_end
    segments.append((piece_start, end))
    if len(segments) == 1:
        return _split_oversized(text, start, end, limit, count, level + 1)
    pieces = []
    for seg_start, seg_end in segments:
        tokens = count(text[seg_start:seg_end])
        if tokens <= limit:
            pieces.append((seg_start, seg_end, tokens))
        else:
            pieces.extend(_split_oversized(text, seg_start, seg_end, limit, count, level + 1))
    return pieces


def _split_words(text: str, start: int, end: int, limit: int, count: CountTokens) -> list[tuple[int, int, int]]:
    """Pack whole words into pieces of at most `limit` tokens, counting each word once."""
    # Words counted alone can tokenize slightly differently in context: aim a
    # little under the limit, then count each packed piece exactly.
    budget = max(1, int(limit * 0.9))
    pieces: list[tuple[int, int, int]] = []
    piece_start = piece_end = None
    piece_tokens = 0

    def close() -> None:
        if piece_start is not None:
            pieces.append((piece_start, piece_end, count(text[piece_start:piece_end])))

    for match in _WORD.finditer(text, start, end):
        word_tokens = count(match.group())
        if word_tokens > limit:  # a blob with no spaces (base64, a long URL list)
            close()
            piece_start, piece_tokens = None, 0
            pieces.extend(_split_chars(text, match.start(), match.end(), limit, count))
            continue
        if piece_start is not None and piece_tokens + word_tokens > budget:
            close()
            piece_start, piece_tokens = None, 0
        if piece_start is None:
            piece_start = match.start()
        piece_end = match.end()
        piece_tokens += word_tokens
    close()
    return pieces


def _split_chars(text: str, start: int, end: int, limit: int, count: CountTokens) -> list[tuple[int, int, int]]:
    tokens = count(text[start:end])
    if tokens <= limit or end - start <= 1:
        return [(start, end, tokens)]
    middle = (start + end) // 2
    return _split_chars(text, start, middle, limit, count) + _split_chars(text, middle, end, limit, count)


# --- packing ------------------------------------------------------------------


def _span_tokens(units: list[_Unit]) -> int:
    """Estimated tokens of the text from the first unit's start to the last's end."""
    return sum(u.tokens for u in units) + sum(u.gap_tokens for u in units[1:])


def _group_units(text: str, units: list[_Unit], count: CountTokens, max_tokens: int) -> list[list[_Unit]]:
    """Bind each run of headings (or the email header) to the unit after it.

    A group is placed whole, so a heading can never be the last thing in a
    chunk and the header block always shares a chunk with the body's start.
    """
    sticky_limit = _sticky_limit(max_tokens)
    groups: list[list[_Unit]] = []
    pending: list[_Unit] = []
    queue = deque(units)
    while queue:
        unit = queue.popleft()
        if unit.sticky:
            if pending and _span_tokens(pending + [unit]) > sticky_limit:
                groups.append(pending)
                pending = []
            pending.append(unit)
            continue
        if pending:
            room = max_tokens - _span_tokens(pending) - unit.gap_tokens
            if unit.tokens > room:
                # Take only as much of the following text as fits with its heading.
                pieces = _split_oversized(text, unit.start, unit.end, room, count)
                split = [_Unit(s, e, t, unit.kind, 1) for s, e, t in pieces]
                split[0].gap_tokens = unit.gap_tokens
                unit = split[0]
                queue.extendleft(reversed(split[1:]))
        groups.append(pending + [unit])
        pending = []
    if pending:  # the document ends with a heading; nothing to bind it to
        groups.append(pending)
    return groups


def _pack_groups(groups: list[list[_Unit]], target_tokens: int, max_tokens: int) -> list[list[_Unit]]:
    chunks: list[list[_Unit]] = []
    current: list[_Unit] = []
    current_tokens = 0
    third = target_tokens / 3
    for group in groups:
        group_tokens = _span_tokens(group)
        if current:
            joined = current_tokens + group[0].gap_tokens + group_tokens
            opens_section = group[0].kind == "heading" and current_tokens >= third
            # A nearly empty chunk may run past the target (up to the maximum)
            # rather than be left as a scrap.
            too_big = joined > target_tokens and not (current_tokens < third and joined <= max_tokens)
            if opens_section or too_big:
                chunks.append(current)
                current, current_tokens = [], 0
        current_tokens = current_tokens + group[0].gap_tokens + group_tokens if current else group_tokens
        current.extend(group)
    if current:
        chunks.append(current)
    return chunks


# --- overlap ------------------------------------------------------------------


def _overlap_start(text: str, previous_start: int, core_start: int, overlap_tokens: int, count: CountTokens) -> int:
    """Where a chunk should begin so it repeats up to overlap_tokens of the previous one — never
    all of it: a chunk that began where the previous one did would hold it whole, and the previous
    one would be found twice for nothing."""
    window_start = max(previous_start + 1, core_start - overlap_tokens * _CHARS_PER_TOKEN_BOUND)
    starts = [m.end() for m in _OVERLAP_START.finditer(text, window_start, core_start)]
    best, used, after = core_start, 0, core_start
    # Walk back sentence by sentence, counting each once, while it still fits.
    for start in reversed(starts):
        if start >= after:
            continue
        tokens = count(text[start:after])
        if used + tokens > overlap_tokens:
            break
        best, used, after = start, used + tokens, start
    if best < core_start:
        return best
    # The last sentence alone is longer than the overlap: fall back to words.
    words = [m.start() for m in _WORD.finditer(text, window_start, core_start)]
    if words and words[0] == window_start and not text[window_start - 1].isspace():
        words.pop(0)  # the window cut this word in half
    for start in reversed(words):
        tokens = count(text[start:after])
        if used + tokens > overlap_tokens:
            break
        best, used, after = start, used + tokens, start
    return best
