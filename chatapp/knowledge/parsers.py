"""Turn files on disk into indexable plain text plus its structure.

Each parser returns the text to index and a list of blocks (headings,
paragraphs, rows, ...) as offsets into that text, so the chunker can cut along
the document's own seams instead of at arbitrary token counts. A file that
should not be indexed raises FileRejected with a short reason the ingest
report can show the user as is.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from email import policy
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from html.parser import HTMLParser
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


class FileRejected(Exception):
    """A file ingest skips; .reason is a short human message."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


SUPPORTED_SUFFIXES: frozenset[str] = frozenset(
    {".txt", ".md", ".markdown", ".rst", ".html", ".htm", ".eml", ".pdf", ".csv", ".json"}
)

# pypdf logs a warning for every damaged file it meets. With no handler in
# the tree, logging's last resort prints it to stderr, across the TUI. A
# NullHandler keeps stderr clean; the app's own handlers still see records.
logging.getLogger("pypdf").addHandler(logging.NullHandler())

_TITLE_MAX = 120
_BINARY_PROBE = 8192
_FILENAME_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
# "Date: 2026-11-12", "**Date:** 2026-11-12", ":Date: 2026-11-12", "date: 2026-11-12" (front matter).
_DATE_LINE = re.compile(r"^[\s>*_:-]*date[\s*_]*:[\s*_]*(\d{4})-(\d{2})-(\d{2})\b", re.IGNORECASE)


def parse_file(path: Path, max_bytes: int = 25 * 1024 * 1024, suffix: str | None = None) -> ParsedDocument:
    """Read and parse one file; `suffix` parses it as that format instead of its own
    (ingest reads README, LICENSE and the like as ".txt")."""
    path = Path(path)
    suffix = (suffix or path.suffix).lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise FileRejected(f"unsupported format {suffix or '(no suffix)'}")
    try:
        # Check the size before reading so a huge file never lands in memory.
        if path.stat().st_size > max_bytes:
            raise FileRejected(f"larger than {_human_size(max_bytes)}")
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise FileRejected(f"unreadable: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:  # grew between stat and read
        raise FileRejected(f"larger than {_human_size(max_bytes)}")
    if not data.strip():
        raise FileRejected("empty")
    if suffix == ".pdf":
        doc = _parse_pdf(data, path)
    elif suffix == ".eml":
        _reject_binary(data)
        doc = _parse_email(data, path)
    else:
        doc = _TEXT_PARSERS[suffix](_decode_text(data), path)
    if not doc.text.strip():  # e.g. an HTML page that is all script
        raise FileRejected("empty")
    return doc


# --- shared helpers ----------------------------------------------------------


def _human_size(n: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


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
    match = _FILENAME_DATE.match(path.name)
    return _utc_date(*match.groups()) if match else None


def _front_date(text: str) -> datetime | None:
    for line in text.split("\n", 10)[:10]:
        match = _DATE_LINE.match(line)
        if match and (found := _utc_date(*match.groups())):
            return found
    return None


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

    def add(self, kind: str, text: str, level: int = 0) -> None:
        text = text.strip()
        if not text:
            return
        if self._parts:
            self._parts.append("\n\n")
            self._length += 2
        self.blocks.append(Block(kind, self._length, self._length + len(text), level))
        self._parts.append(text)
        self._length += len(text)

    @property
    def text(self) -> str:
        return "".join(self._parts)


# --- line-oriented formats: plain text, Markdown, reStructuredText ----------


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


# --- HTML --------------------------------------------------------------------

_HTML_SKIP = {"script", "style", "noscript", "template", "svg", "nav"}
_HTML_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_HTML_BREAKS = {
    "p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote",
    "pre", "table", "thead", "tbody", "caption", "dl", "dt", "dd", "figure", "figcaption",
    "hr", "form", "address", "body", "html", "details", "summary",
}


class _HTMLExtractor(HTMLParser):
    """Collects (kind, text, level) pieces from HTML in reading order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)  # decodes &amp; &nbsp; &#8217; ...
        self.pieces: list[tuple[str, str, int]] = []
        self.title_parts: list[str] = []
        self._buffer: list[str] = []
        self._skip: list[str] = []
        self._in_title = False
        self._heading = 0
        self._pre = 0
        self._list_depth = 0
        self._list_items: list[str] = []
        self._row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _HTML_SKIP:
            self._skip.append(tag)
        elif self._skip:
            return
        elif tag == "title":
            self._in_title = True
        elif tag == "br":
            self._buffer.append("\n")
        elif tag in _HTML_HEADINGS:
            self._flush()
            self._heading = _HTML_HEADINGS[tag]
        elif tag in ("ul", "ol"):
            self._flush()
            self._list_depth += 1
        elif tag == "tr":
            self._emit_row()  # the previous row may never have been closed
            self._flush()
            self._row = []
        elif tag in ("td", "th"):
            self._end_cell()
        else:
            if tag == "li" or tag in _HTML_BREAKS:
                self._flush()
            if tag == "pre":
                self._pre += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self._skip:
            while self._skip.pop() != tag:
                pass
            return
        if self._skip:
            return
        if tag == "title":
            self._in_title = False
        elif tag in _HTML_HEADINGS:
            self._flush()
            self._heading = 0
        elif tag in ("ul", "ol"):
            self._flush()
            self._list_depth = max(0, self._list_depth - 1)
            if not self._list_depth:
                self._emit_list()
        elif tag in ("td", "th"):
            self._end_cell()
        elif tag in ("tr", "table"):
            self._emit_row()
        elif tag == "li" or tag in _HTML_BREAKS:
            self._flush()
            if tag == "pre":
                self._pre = max(0, self._pre - 1)

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.title_parts.append(data)
        else:
            self._buffer.append(data if self._pre else re.sub(r"\s+", " ", data))

    def close(self) -> None:
        super().close()
        self._flush()
        self._emit_row()
        self._emit_list()

    def _take_buffer(self) -> str:
        raw, self._buffer = "".join(self._buffer), []
        if self._pre:
            return raw.strip("\n").rstrip()
        return "\n".join(" ".join(line.split()) for line in raw.split("\n") if line.strip())

    def _flush(self) -> None:
        if self._row is not None:  # block tags inside a cell stay in the cell
            self._buffer.append(" ")
            return
        text = self._take_buffer()
        if not text:
            return
        if self._heading:
            self.pieces.append(("heading", text, self._heading))
        elif self._list_depth:
            self._list_items.append("  " * (self._list_depth - 1) + "- " + text.replace("\n", " "))
        else:
            self.pieces.append(("paragraph", text, 0))

    def _end_cell(self) -> None:
        if self._row is None:
            self._flush()
        elif cell := " ".join(self._take_buffer().split()):
            self._row.append(cell)

    def _emit_row(self) -> None:
        if self._row is None:
            return
        self._end_cell()
        if self._row:
            self.pieces.append(("row", " | ".join(self._row), 0))
        self._row = None

    def _emit_list(self) -> None:
        if self._list_items:
            self.pieces.append(("list", "\n".join(self._list_items), 0))
        self._list_items = []


def _extract_html(markup: str) -> _HTMLExtractor:
    extractor = _HTMLExtractor()
    extractor.feed(markup)
    extractor.close()
    return extractor


def _parse_html(text: str, path: Path) -> ParsedDocument:
    html = _extract_html(text)
    builder = _TextBuilder()
    for kind, piece, level in html.pieces:
        builder.add(kind, piece, level)
    first_h1 = next((p for kind, p, level in html.pieces if kind == "heading" and level == 1), None)
    title = _clip_title("".join(html.title_parts)) or first_h1
    return _make_doc(path, "html", title, builder.text, builder.blocks, _filename_date(path))


# --- email -------------------------------------------------------------------


def _part_text(part) -> str:
    payload = part.get_payload(decode=True) or b""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # an unknown charset name: emails are messy
        return payload.decode("utf-8", errors="replace")


def _header(msg, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:  # a malformed header must not lose the whole message
        value = next((raw for key, raw in msg.raw_items() if key.lower() == name.lower()), None)
    return " ".join(str(value).split()) if value is not None else ""


def _parse_email(data: bytes, path: Path) -> ParsedDocument:
    msg = BytesParser(policy=policy.default).parsebytes(data)
    fields = {name: _header(msg, name) for name in ("From", "To", "Cc", "Subject", "Date", "Message-ID")}
    try:
        date = _aware(parsedate_to_datetime(fields["Date"])) if fields["Date"] else None
    except (TypeError, ValueError, IndexError):
        date = None
    body = msg.get_body(preferencelist=("plain", "html"))
    attachments: list[str] = []
    for part in msg.walk():
        try:
            name = part.get_filename()
        except Exception:  # a garbled Content-Disposition names nothing
            name = None
        if part is not body and name and " ".join(name.split()) not in attachments:
            attachments.append(" ".join(name.split()))
    header_lines = [f"{name}: {fields[name]}" for name in ("From", "To", "Cc", "Date", "Subject") if fields[name]]
    if attachments:
        header_lines.append("Attachments: " + ", ".join(attachments))
    builder = _TextBuilder()
    builder.add("header", "\n".join(header_lines))
    if body is not None:
        content = _part_text(body).replace("\r\n", "\n").replace("\r", "\n")
        if body.get_content_subtype() == "html":
            for kind, piece, level in _extract_html(content).pieces:
                builder.add(kind, piece, level)
        else:
            for paragraph in re.split(r"\n[ \t]*\n", content):
                builder.add("paragraph", paragraph)
    metadata = {
        "from": fields["From"], "to": fields["To"], "cc": fields["Cc"], "subject": fields["Subject"],
        "message_id": fields["Message-ID"], "attachments": ", ".join(attachments),
    }
    date = date or _filename_date(path)
    return _make_doc(path, "email", fields["Subject"], builder.text, builder.blocks, date, metadata)


# --- PDF ---------------------------------------------------------------------


def _short(exc: Exception) -> str:
    message = str(exc).strip().splitlines()
    return (message[0] if message else type(exc).__name__)[:80]


def _parse_pdf(data: bytes, path: Path) -> ParsedDocument:
    from pypdf import PasswordType, PdfReader  # imported here: most ingests never meet a PDF

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            # Many PDFs are "encrypted" with an empty user password only to
            # restrict printing; those still open.
            try:
                opened = reader.decrypt("")
            except Exception:
                opened = PasswordType.NOT_DECRYPTED
            if opened == PasswordType.NOT_DECRYPTED:
                raise FileRejected("encrypted PDF")
        page_texts, page_error = [], None
        for page in reader.pages:
            try:
                page_texts.append(page.extract_text() or "")
            except Exception as exc:  # one bad page should not lose the rest
                page_error = page_error or exc
        info = reader.metadata
    except FileRejected:
        raise
    except Exception as exc:  # pypdf raises many types for damaged files
        raise FileRejected(f"broken PDF: {_short(exc)}") from exc
    builder = _TextBuilder()
    for page_text in page_texts:
        page_text = page_text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
        for paragraph in re.split(r"\n[ \t]*\n", page_text):
            builder.add("paragraph", "\n".join(line.rstrip() for line in paragraph.split("\n")))
    if not builder.text.strip():
        if page_error is not None:
            raise FileRejected(f"broken PDF: {_short(page_error)}")
        raise FileRejected("no extractable text (scanned PDF?)")
    title = author = created = None
    try:  # metadata is optional and often malformed; it never rejects a file
        if info is not None:
            title, author, created = info.title, info.author, info.creation_date
    except Exception:
        pass
    first_line = builder.text.split("\n", 1)[0]
    date = _aware(created) or _filename_date(path)
    metadata = {"pages": len(page_texts), "author": author}
    return _make_doc(path, "pdf", _clip_title(title) or first_line, builder.text, builder.blocks, date, metadata)


# --- tabular data: CSV, JSON ---------------------------------------------------


def _record_line(pairs) -> str:
    """One record as "key: value; key: value", empty values left out."""
    return "; ".join(f"{key}: {value}" for key, value in pairs if value)


def _parse_csv(text: str, path: Path) -> ParsedDocument:
    try:
        dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:  # the sniffer gives up on one-column or irregular files
        dialect = csv.excel
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline=""), dialect) if any(c.strip() for c in row)]
    except csv.Error as exc:
        raise FileRejected(f"invalid CSV: {exc}") from exc
    header = [" ".join(cell.split()) or f"column {n}" for n, cell in enumerate(rows[0], 1)] if rows else []
    builder = _TextBuilder()
    for row in rows[1:]:
        names = header + [f"column {n}" for n in range(len(header) + 1, len(row) + 1)]
        builder.add("row", _record_line(zip(names, (" ".join(cell.split()) for cell in row))))
    if len(rows) == 1:  # a header with no data still says what the file is about
        builder.add("paragraph", "Columns: " + ", ".join(header))
    metadata = {"columns": ", ".join(header), "rows": len(rows) - 1 if rows else 0}
    return _make_doc(path, "csv", _humanise(path.stem), builder.text, builder.blocks, _filename_date(path), metadata)


def _json_value(value) -> str:
    if isinstance(value, str):
        return " ".join(value.split())
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _parse_json(text: str, path: Path) -> ParsedDocument:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileRejected(f"invalid JSON: line {exc.lineno}") from exc
    builder = _TextBuilder()
    metadata: dict[str, object] = {}
    if isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
        for item in data:
            builder.add("row", _record_line((key, _json_value(value)) for key, value in item.items()))
        metadata["records"] = len(data)
    elif isinstance(data, dict):
        for key, value in data.items():
            if rendered := _json_value(value):
                builder.add("row", f"{key}: {rendered}")
    elif data not in ([], "", None):
        builder.add("paragraph", json.dumps(data, ensure_ascii=False, indent=2))
    return _make_doc(path, "json", _humanise(path.stem), builder.text, builder.blocks, _filename_date(path), metadata)


_TEXT_PARSERS = {
    ".txt": _parse_text,
    ".md": _parse_markdown,
    ".markdown": _parse_markdown,
    ".rst": _parse_rst,
    ".html": _parse_html,
    ".htm": _parse_html,
    ".csv": _parse_csv,
    ".json": _parse_json,
}
