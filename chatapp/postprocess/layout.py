"""Where an answer's claims begin and end, before any parsing: its lines,
list items and the source citations that close them, the lines that only
frame it ("(offline — …)", "Sources: …"), the rows and cells of its
pipe tables, and its fenced code, which claims nothing.
"""

from __future__ import annotations

import functools
import re

# A list item's marker: "- ", "* ", "• ", "1. ", "2) ".
_LIST_MARKER_RE = re.compile(r"(?:[-*•]|\d{1,2}[.)])\s+")
# A source citation closing a line: "(onboarding.html)", "(team-directory.md, notes.txt)".
_CITATION_RE = re.compile(r"\s*\((?:[\w./-]+\.[A-Za-z]{2,5}(?:,\s*)?)+\)\s*$")
# Lines that frame an answer rather than state anything: "(offline — answering from …)",
# "Sources: a.md, b.html", "From your documents:", "## Details".
_META_LINE_RE = re.compile(
    r"^(?:\([^()]*\)|(?:sources?|references?|citations?|see also)\s*:.*|#+\s.*|[^.!?:]{0,60}:)$", re.IGNORECASE | re.DOTALL)
# A pipe-table row ("| Acme | Software |") and the rule under its header ("| --- | :-: |").
_TABLE_ROW_RE = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$", re.MULTILINE)
_TABLE_RULE_RE = re.compile(r"[\s|:-]*-[\s|:-]*")


def split_quoted(text: str) -> tuple[str, str]:
    """(the answer's own words, the passages it quotes): a quoted passage is a line that a source
    citation closes ("- Hi David, Sarah, Emma, Tom, (q4-review.eml)") or a "> " quote; framing
    lines ("Sources: …") belong to neither."""
    own, quoted = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(">") or (_CITATION_RE.search(stripped) and _LIST_MARKER_RE.match(stripped)):
            quoted.append(stripped.lstrip("> "))
        elif not _META_LINE_RE.match(stripped):
            own.append(line)
    return "\n".join(own), "\n".join(quoted)


def code_block_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each fenced code block ("```python" … "```"), its fence lines included: code
    states no claim, and a marker in it would change the code and its fence's language."""
    if "```" not in text and "~~~" not in text:
        return []
    starts = [0]  # where each line begins, lines as Markdown counts them (cut at "\n" only)
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    return [(starts[token.map[0]], min(starts[token.map[1]], len(text)))
            for token in _markdown().parse(text) if token.type == "fence" and token.map]  # Markdown's own reading


@functools.cache
def _markdown():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def table_line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each whole line that is a row of a pipe table, the rule included."""
    return [m.span() for m in _TABLE_ROW_RE.finditer(text)]


def table_rows(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, is_header) of each row of a pipe table, without its outer pipes; the rule
    under the header ("| --- | --- |") is left out, and the row above it is the header."""
    rows = []
    for match in _TABLE_ROW_RE.finditer(text):
        inner = match.group(1)
        if _TABLE_RULE_RE.fullmatch(inner):
            if rows and rows[-1][1] < match.start() and "\n" not in text[rows[-1][1]:match.start()].strip():
                rows[-1] = (rows[-1][0], rows[-1][1], True)
            continue
        lead = len(inner) - len(inner.lstrip())
        body = inner.strip()
        if body:
            start = match.start(1) + lead
            rows.append((start, start + len(body), False))
    return rows


def row_headers(text: str) -> dict[str, str]:
    """Each body row of a pipe table in `text` (its text as `table_rows` spans it) and the header
    row of its table: a cell means what its column is called ("150 kW each" is a "Rating")."""
    headers: dict[str, str] = {}
    header, last_end = None, -1
    for start, end, is_header in table_rows(text):
        if last_end < 0 or re.search(r"[^\s|:-]", text[last_end:start]) or text[last_end:start].count("\n") > 2:
            header = None  # another table, or one without a header
        if is_header:
            header = text[start:end]
        elif header is not None:
            headers.setdefault(text[start:end], header)
        last_end = end
    return headers


def cells(text: str) -> list[tuple[int, str]]:
    """(offset, text) of each pipe-separated part of a span (one part when there is no pipe)."""
    parts, offset = [], 0
    for part in text.split("|"):
        stripped = part.strip()
        if stripped:
            parts.append((offset + part.index(stripped), stripped))
        offset += len(part) + 1
    return parts


def line_pieces(text: str, start: int, end: int):
    """(start, end, is_meta) of each non-empty line in text[start:end], without list markers;
    a trailing citation is a piece of its own, and meta."""
    position = start
    for line in re.split(r"(\n)", text[start:end]):
        line_start, position = position, position + len(line)
        if line == "\n" or not line.strip():
            continue
        lead = len(line) - len(line.lstrip())
        marker = _LIST_MARKER_RE.match(line, lead)
        if marker and marker.end() < len(line.rstrip()):
            lead = marker.end()
        body_start, body_end = line_start + lead, line_start + len(line.rstrip())
        body = text[body_start:body_end]
        citation = _CITATION_RE.search(body)
        if citation and citation.start() > 0:
            cite_start = body_start + citation.start() + (len(citation.group(0)) - len(citation.group(0).lstrip()))
            yield body_start, body_start + citation.start(), bool(_META_LINE_RE.match(body[:citation.start()]))
            yield cite_start, body_end, True
        else:
            yield body_start, body_end, bool(_META_LINE_RE.match(body)) or _in_heading(text, body_start)


# A Markdown heading's line ("## Budget"): spaCy may cut the "##" off as a sentence of its own, and
# the words after it are then a piece that no longer looks like a heading.
_HEADING_RE = re.compile(r"[ \t]{0,3}#{1,6}[ \t]")


def _in_heading(text: str, position: int) -> bool:
    """Whether `position` lies on a Markdown heading's line: a title, not a claim."""
    return bool(_HEADING_RE.match(text, text.rfind("\n", 0, position) + 1))
