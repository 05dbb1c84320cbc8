"""HTML: an extractor that collects headings, paragraphs, lists and table rows."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from .base import ParsedDocument, _clip_title, _filename_date, _make_doc, _TextBuilder



_HTML_SKIP = {"script", "style", "noscript", "template", "svg", "nav"}
# A mail link's address: "<a href="mailto:kirsty@…">Email Kirsty</a>" says it only in the link.
_MAILTO = re.compile(r"mailto:([\w.+'-]+@[\w-]+(?:\.[\w-]+)+)", re.IGNORECASE)
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
        self._row_headed = False  # the open row has header cells (<th>)
        self.tables: list[list[tuple[list[str], bool]]] = []  # each table's rows, and whether each is a header row
        self._table_depth = 0
        self._mailto: tuple[str, int] | None = None  # the open mail link's address, and where its text starts

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "a" and not self._skip and (address := _MAILTO.match(dict(attrs).get("href") or "")):
            self._mailto = (address.group(1), len(self._buffer))
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
            self._row_headed = False
        elif tag in ("td", "th"):
            self._end_cell()
            self._row_headed = self._row_headed or tag == "th"
        elif tag == "table":
            self._table_depth += 1
            self.tables.append([])
        else:
            if tag == "li" or tag in _HTML_BREAKS:
                self._flush()
            if tag == "pre":
                self._pre += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._mailto is not None:
            address, start = self._mailto
            self._mailto = None
            if address.lower() not in "".join(self._buffer[start:]).lower():
                self._buffer.append(f" ({address})")  # "Email Kirsty (kirsty.menzies@…)"
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
            if tag == "table":
                self._table_depth = max(0, self._table_depth - 1)
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
            if self._table_depth and self.tables:
                self.tables[-1].append((self._row, self._row_headed))
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
    doc = _make_doc(path, "html", title, builder.text, builder.blocks, _filename_date(path))
    doc.record_tables = _headed_tables(html.tables) or None
    return doc


def _headed_tables(tables: list[list[tuple[list[str], bool]]]) -> list[list[list[str]]]:
    """The tables of a page that are lists of records, as a CSV file is: a header row of <th> cells, then
    two rows or more of <td> cells as wide ("Week | Primary | Secondary" over an on-call rota). A layout
    table, or one whose rows each carry their own label, is left to the text."""
    found = []
    for rows in tables:
        if len(rows) < 3 or not rows[0][1] or any(headed for _, headed in rows[1:]):
            continue
        width = len(rows[0][0])
        if width >= 2 and all(len(cells) == width for cells, _ in rows[1:]):
            found.append([cells for cells, _ in rows])
    return found
