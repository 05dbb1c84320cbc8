"""Records, FileRejected and helpers shared by every parser: decoding, dates, titles, the text builder."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path


@dataclass
class Block:
    kind: str  # "heading" | "paragraph" | "row" | "header" | "list"
    start: int
    end: int
    level: int = 0


@dataclass
class ParsedDocument:
    title: str
    text: str
    blocks: list[Block]
    format: str
    metadata: dict[str, str]
    date: datetime | None
    # A table cut at its row limit: the rows kept, in the file's own syntax, for what reads records
    # (extraction) so it sees the same rows as the index. None: the whole file was kept.
    record_text: str | None = None
    # A workbook's sheets kept, each a header row and its rows as shown, for what reads records.
    record_tables: list[list[list[str]]] | None = None


class FileRejected(Exception):
    """A file ingest skips; .reason is a short human message."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


SUPPORTED_SUFFIXES: frozenset[str] = frozenset(
    {".txt", ".md", ".markdown", ".rst", ".html", ".htm", ".eml", ".pdf", ".csv", ".json", ".docx", ".xlsx"}
)

_TITLE_MAX = 120
_BINARY_PROBE = 8192
_FILENAME_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
# "Date: 2026-11-12", "**Date:** 12 Nov 2026", ":Date: November 12, 2026", "date: 2026-11-12" (front
# matter), "Last updated: …", "Meeting date: …".
_DATE_LINE = re.compile(r"^[\s>*_:-]*(?:(?:last\s+)?updated|(?:meeting\s+|document\s+)?date|written|dated)[\s*_]*:"
                        # "Written 3 Dec 2026", "Dated 4 March 2026": the day right after the word, no colon.
                        r"|^[\s>*_-]*(?:written|dated)(?:\s+on)?\s+(?=\d|(?:mon|tue|wed|thu|fri|sat|sun)\w*\b)",
                        re.IGNORECASE)
# A heading (a Markdown "#" line, or the first line) whose date leads it or closes it set apart:
# "Standup — 2026-03-12", "Weekly update: 3 Nov 2026", "Minutes (12 March 2026)", "2026-03-12 retro".
# "Launch plan for 11 May 2027" names a date the document is about, not the day it was written.
_SET_APART = r"[\s]*[—–|:,(\[-][\s]*"
_HEADING_MARK = re.compile(r"^\s*#{1,6}\s+")


# --- shared helpers ----------------------------------------------------------


def _human_size(n: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def _short(exc: Exception) -> str:
    """The first line of a library's error, bounded: a damaged file's message names what broke."""
    message = str(exc).strip().splitlines()
    return (message[0] if message else type(exc).__name__)[:80]


def _reject_binary(data: bytes) -> None:
    if b"\x00" in data[:_BINARY_PROBE]:
        raise FileRejected("binary file")


def _decode_text(data: bytes) -> str:
    _reject_binary(data)
    try:
        # utf-8-sig reads plain UTF-8 too and drops a BOM if an editor wrote one.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # No latin-1 fallback: it "succeeds" on anything and indexes mojibake.
        raise FileRejected("not valid UTF-8") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise FileRejected("empty")
    return text


def _clip_title(value: str | None) -> str:
    return " ".join((value or "").split())[:_TITLE_MAX].rstrip()


def _humanise(stem: str) -> str:
    # Dashes between digits are kept so "2026-11-12" stays a date.
    return " ".join(re.sub(r"(?<!\d)[-_]+|[-_]+(?!\d)", " ", stem).split()) or stem


def _utc_date(year: str, month: str, day: str) -> datetime | None:
    try:
        return datetime(int(year), int(month), int(day), tzinfo=timezone.utc)
    except ValueError:
        return None


def _aware(value: datetime | None) -> datetime | None:
    # Mixing naive and aware datetimes breaks comparisons downstream; a date
    # without a zone is read as UTC.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


def _filename_date(path: Path) -> datetime | None:
    # Meeting notes and exported mail are named "2026-11-12-....".
    match = _FILENAME_DATE.search(path.name)
    return _utc_date(*match.groups()) if match else None


def _front_date(text: str) -> datetime | None:
    """The date a document gives itself in its first lines: a date field, else a dated heading."""
    from chatapp.knowledge.extraction.values import find_dates

    lines = text.split("\n", 10)[:10]
    for line in lines:
        if _DATE_LINE.match(line) and (found := find_dates(line[:200])):
            return _midnight(found[0][1])
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    dated: set = set()
    for n, line in enumerate(lines):
        if n != first and not _HEADING_MARK.match(line):
            continue
        heading = _HEADING_MARK.sub("", line[:200]).strip()
        for match, day in find_dates(heading):
            before, after = heading[:match.start()], heading[match.end():]
            # Leading the heading, or closing it after a separator (never the object of a preposition).
            if not before.strip() or (re.search(_SET_APART + "$", before) and not after.strip(" )]")):
                dated.add(day)
    # Several dated headings make a log ("## 3 Nov", "## 4 Nov"): no one day is the document's.
    return _midnight(dated.pop()) if len(dated) == 1 else None


def _midnight(day) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def _make_doc(path, fmt, title, text, blocks, date, metadata=None) -> ParsedDocument:
    meta = {"format": fmt, "file_name": path.name}
    for key, value in (metadata or {}).items():
        # Chroma metadata must be scalars; None and blanks carry no information.
        if value is not None and str(value).strip():
            meta[key] = str(value)
    return ParsedDocument(_clip_title(title) or path.stem, text, blocks, fmt, meta, date)


class _TextBuilder:
    """Joins extracted pieces with blank lines, remembering where each landed."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0
        self.blocks: list[Block] = []

    def add(self, kind: str | None, text: str, level: int = 0, next_line: bool = False) -> None:
        """`text` as a block of `kind` (None: text with no block of its own, such as a table's rule
        line); `next_line` puts it on the line after the last piece rather than after a blank line,
        as the rows of one Markdown table must be."""
        text = text.strip()
        if not text:
            return
        if self._parts:
            joiner = "\n" if next_line else "\n\n"
            self._parts.append(joiner)
            self._length += len(joiner)
        if kind is not None:
            self.blocks.append(Block(kind, self._length, self._length + len(text), level))
        self._parts.append(text)
        self._length += len(text)

    @property
    def text(self) -> str:
        return "".join(self._parts)
