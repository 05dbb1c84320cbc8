"""Line-oriented formats: plain text, Markdown, reStructuredText."""

from __future__ import annotations

import re
from pathlib import Path

from .base import Block, ParsedDocument, _filename_date, _front_date, _make_doc


class _Lines:
    """The lines of a text with their offsets, for parsers that keep text as written."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[tuple[int, str]] = []
        offset = 0
        for line in text.split("\n"):
            self.items.append((offset, line))
            offset += len(line) + 1

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> str:
        return self.items[i][1]

    def blank(self, i: int) -> bool:
        return i >= len(self.items) or not self.items[i][1].strip()

    def block(self, kind: str, first: int, last: int, level: int = 0) -> Block:
        start, (offset, line) = self.items[first][0], self.items[last]
        end = offset + len(line)
        # Trim to the first and last visible character (an unclosed code fence
        # may run to a blank last line).
        while start < end and self.text[start].isspace():
            start += 1
        while end > start and self.text[end - 1].isspace():
            end -= 1
        return Block(kind, start, end, level)

    def paragraph_end(self, i: int, stop=lambda line: False) -> int:
        while not self.blank(i + 1) and not stop(self[i + 1]):
            i += 1
        return i

    def list_end(self, i: int, is_item) -> int:
        # A list runs on across blank lines while the next line is another
        # item or an indented continuation.
        while True:
            i = self.paragraph_end(i)
            nxt = i + 1
            while nxt < len(self) and self.blank(nxt):
                nxt += 1
            if nxt < len(self) and (is_item(self[nxt]) or self[nxt].startswith(("  ", "\t"))):
                i = nxt
                continue
            return i


def _parse_text(text: str, path: Path) -> ParsedDocument:
    lines = _Lines(text)
    blocks, i = [], 0
    while i < len(lines):
        if lines.blank(i):
            i += 1
            continue
        end = lines.paragraph_end(i)
        blocks.append(lines.block("paragraph", i, end))
        i = end + 1
    first_line = next((line for _, line in lines.items if line.strip()), "")
    date = _front_date(text) or _filename_date(path)
    return _make_doc(path, "text", first_line, text, blocks, date)


_MD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_MD_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MD_BULLET = re.compile(r"^\s*[-*+][ \t]+\S")
_MD_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
_MD_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_MD_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_MD_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def _md_inline(text: str) -> str:
    """Heading text without emphasis and link markup, for titles."""
    # Underscores inside a word (snake_case) are not emphasis.
    return re.sub(r"\*{1,3}|`+|(?<!\w)_{1,3}|_{1,3}(?!\w)", "", _MD_LINK.sub(r"\1", text)).strip()


def _front_matter_end(lines: _Lines) -> int:
    """The line closing a YAML front matter block that opens the file, or 0."""
    return next((j for j in range(1, len(lines)) if lines[j].strip() in ("---", "...")), 0)


def _md_is_table(lines: _Lines, i: int) -> bool:
    line = lines[i]
    if line.lstrip().startswith("|"):
        return True
    return "|" in line and i + 1 < len(lines) and "-" in lines[i + 1] and bool(_MD_TABLE_RULE.match(lines[i + 1]))


def _parse_markdown(text: str, path: Path) -> ParsedDocument:
    lines = _Lines(text)
    blocks: list[Block] = []
    headings: list[str] = []
    front_title = None
    # A paragraph ends where another construct begins without a blank line.
    interrupts = lambda line: bool(  # noqa: E731
        _MD_ATX.match(line) or _MD_FENCE.match(line) or _MD_BULLET.match(line)
        or _MD_SETEXT.match(line) or line.lstrip().startswith("|")
    )
    i = 0
    while i < len(lines):
        line = lines[i]
        if lines.blank(i):
            i += 1
        elif i == 0 and line.strip() == "---" and (end := _front_matter_end(lines)):
            for j in range(1, end):
                if match := re.match(r"^title:\s*(.+)$", lines[j], re.IGNORECASE):
                    front_title = match.group(1).strip().strip("'\"")
            blocks.append(lines.block("paragraph", 0, end))
            i = end + 1
        elif fence := _MD_FENCE.match(line):
            # Code stays one block, and a "# comment" in it is not a heading.
            marker = fence.group(1)
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(marker)), len(lines) - 1)
            blocks.append(lines.block("paragraph", i, end))
            i = end + 1
        elif atx := _MD_ATX.match(line):
            blocks.append(lines.block("heading", i, i, len(atx.group(1))))
            headings.append(atx.group(2) or "")
            i += 1
        elif _MD_BREAK.match(line):
            i += 1
        elif _md_is_table(lines, i):
            end = lines.paragraph_end(i)
            for j in range(i, end + 1):
                if not _MD_TABLE_RULE.match(lines[j]):
                    blocks.append(lines.block("row", j, j))
            i = end + 1
        elif _MD_ITEM.match(line):
            end = lines.list_end(i, _MD_ITEM.match)
            blocks.append(lines.block("list", i, end))
            i = end + 1
        else:
            end = lines.paragraph_end(i, interrupts)
            setext = end + 1 < len(lines) and _MD_SETEXT.match(lines[end + 1])
            if setext:  # "Title\n=====" makes the paragraph a heading
                level = 1 if setext.group(1).startswith("=") else 2
                blocks.append(lines.block("heading", i, end + 1, level))
                headings.append(" ".join(lines[j].strip() for j in range(i, end + 1)))
                end += 1
            else:
                blocks.append(lines.block("paragraph", i, end))
            i = end + 1
    title = next((_md_inline(h) for h in headings if _md_inline(h)), None) or front_title
    date = _front_date(text) or _filename_date(path)
    return _make_doc(path, "markdown", title, text, blocks, date)


# A line of one repeated punctuation character: an RST section adornment.
_RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")
_RST_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|#\.|\d{1,9}[.)]|\(\d{1,9}\))[ \t]+\S")


def _parse_rst(text: str, path: Path) -> ParsedDocument:
    lines = _Lines(text)
    blocks: list[Block] = []
    headings: list[str] = []
    # RST has no fixed heading markers: levels follow the order in which
    # adornment styles first appear.
    styles: dict[tuple[str, bool], int] = {}

    def heading(first: int, last: int, char: str, overlined: bool, title: str) -> None:
        level = styles.setdefault((char, overlined), len(styles) + 1)
        blocks.append(lines.block("heading", first, last, min(level, 6)))
        headings.append(title.strip())

    def adornment(i: int) -> str | None:
        match = i < len(lines) and _RST_ADORNMENT.match(lines[i])
        return match.group(1) if match else None

    i = 0
    while i < len(lines):
        line = lines[i]
        after_blank = i == 0 or lines.blank(i - 1)
        if lines.blank(i):
            i += 1
            continue
        over = adornment(i)
        if after_blank and over and not lines.blank(i + 1) and not adornment(i + 1) and adornment(i + 2) == over \
                and len(line.strip()) >= len(lines[i + 1].strip()):
            heading(i, i + 2, over, True, lines[i + 1])
            i += 3
        elif after_blank and not over and not line[0].isspace() and (under := adornment(i + 1)) \
                and len(lines[i + 1].strip()) >= max(len(line.rstrip()), 2):
            heading(i, i + 1, under, False, line)
            i += 2
        elif over:  # a transition line between sections carries no text
            i += 1
        elif _RST_ITEM.match(line):
            end = lines.list_end(i, _RST_ITEM.match)
            blocks.append(lines.block("list", i, end))
            i = end + 1
        else:
            end = lines.paragraph_end(i)
            blocks.append(lines.block("paragraph", i, end))
            i = end + 1
    title = next((h for h in headings if h), None)
    date = _front_date(text) or _filename_date(path)
    return _make_doc(path, "rst", title, text, blocks, date)
