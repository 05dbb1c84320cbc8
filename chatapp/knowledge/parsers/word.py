"""Word documents (.docx), read with python-docx and written out as the Markdown they amount to.

Headings become "#" lines, lists "-" or "1." items and tables pipe tables, with the blocks the
Markdown parser makes of the same text: chunking, section titles, the people and records a table
states (extraction reads pipe tables) and the offline responder's reading of a row with its header
all behave as they do for a Markdown page. Tracked changes read as if accepted; comments, footnotes,
headers, footers, text boxes, images and a table of contents (its headings are read where they stand)
are not read.
"""

from __future__ import annotations

import io
import re
import warnings
from datetime import datetime, timezone
from pathlib import Path

from .base import (FileRejected, ParsedDocument, _aware, _clip_title, _filename_date, _front_date, _make_doc,
                   _short, _TextBuilder)
from .office_package import check_package
from .tabular import _title_rows

# A paragraph's text: its runs and hyperlinks, and those inside tracked insertions, content controls,
# smart tags and simple fields (python-docx's Paragraph.text leaves these out). Deleted text is in
# w:delText, which a run's text never includes.
_PARAGRAPH_TEXT = ("./w:r | ./w:hyperlink | ./w:ins/w:r | ./w:ins/w:hyperlink | ./w:sdt/w:sdtContent/w:r"
                   " | ./w:smartTag/w:r | ./w:fldSimple/w:r | ./w:customXml/w:r")
_HEADING_STYLE = re.compile(r"heading\s*([1-9])$", re.IGNORECASE)
_MAX_HEADING_LEVEL = 6
# A Word document's main part (python-docx opens no other: not a template, nor a macro-enabled file).
_WORD_CONTENT_TYPES = (b"wordprocessingml.document.main+xml",)
# The creation date of the template python-docx makes every new file from: a file a script wrote with
# it carries this date unless the script set one, and it says nothing of when the file was written.
_LIBRARY_TEMPLATE_DATE = datetime(2013, 12, 23, 23, 15, tzinfo=timezone.utc)


def _parse_docx(data: bytes, path: Path) -> ParsedDocument:
    check_package(data, "Word document", ".docx", ".doc", _WORD_CONTENT_TYPES)
    import docx  # imported here: most ingests never meet a Word file
    from docx.oxml.ns import qn

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            document = docx.Document(io.BytesIO(data))
            reader = _WordReader(document, qn)
            reader.read(document.element.body)
    except Exception as exc:  # python-docx and lxml raise many types for damaged parts
        raise FileRejected(f"broken Word document: {_short(exc)}") from exc
    title = created = None
    try:  # the file's properties are optional and sometimes malformed; they never reject a file
        title, created = document.core_properties.title, document.core_properties.created
    except Exception:  # noqa: BLE001
        pass
    text = reader.builder.text
    if not text.strip():
        raise FileRejected("empty: no text in the document (images only?)")
    # A date the text states first (as for any page), then the one Word recorded when the file was
    # made (as a PDF's creation date is used), then one in the file name.
    if _aware(created) == _LIBRARY_TEMPLATE_DATE:
        created = None
    date = _front_date(text) or _aware(created) or _filename_date(path)
    first_heading = next((h for h in reader.headings if h), None)
    return _make_doc(path, "docx", _clip_title(title) or first_heading, text, reader.builder.blocks, date)


class _WordReader:
    """Walks a document body in reading order into a _TextBuilder of Markdown."""

    def __init__(self, document, qn) -> None:
        self.document = document
        self.qn = qn
        self.builder = _TextBuilder()
        self.headings: list[str] = []
        self._list_items: list[str] = []
        self._counters: dict[tuple[str, int], int] = {}
        self._formats = _numbering_formats(document, qn)

    def read(self, body) -> None:
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        # The body's own children, and those of block-level content controls, in order.
        for child in body.iterchildren():
            if child.tag == self.qn("w:p"):
                self._paragraph(Paragraph(child, self.document))
            elif child.tag == self.qn("w:tbl"):
                self._end_list()
                self._table(Table(child, self.document))
            elif child.tag == self.qn("w:sdt"):
                for content in child.iterchildren(self.qn("w:sdtContent")):
                    self.read(content)
        self._end_list()

    def _paragraph(self, paragraph) -> None:
        text = _paragraph_text(paragraph)
        if not text.strip() or _in_contents(paragraph):
            return
        level = _heading_level(paragraph, self.qn)
        if level:
            self._end_list()
            heading = " ".join(text.split())
            self.headings.append(heading)
            self.builder.add("heading", "#" * level + " " + heading, level)
            return
        item = self._list_item(paragraph)
        if item is None:
            self._end_list()
            self.builder.add("paragraph", "\n".join(line.strip() for line in text.split("\n")))
            return
        depth, ordered, key = item
        # A numbered item counts on from the last at its level of its list; a shallower item restarts
        # the levels below it.
        for other in [k for k in self._counters if k[0] == key and k[1] > depth]:
            del self._counters[other]
        number = self._counters[(key, depth)] = self._counters.get((key, depth), 0) + 1
        marker = f"{number}." if ordered else "-"
        self._list_items.append("  " * depth + f"{marker} " + " ".join(text.split()))

    def _list_item(self, paragraph) -> tuple[int, bool, str] | None:
        """(depth, numbered, list id) when the paragraph is a list item, from its numbering (its own
        or its style's, as Word applies "List Bullet"), else None."""
        numbering = _numbering_properties(paragraph, self.qn)
        if numbering is None:
            return None
        num_id, depth = numbering
        fmt = self._formats.get((num_id, depth))
        if fmt is None:  # no numbering part to ask: the style's name says what kind of list
            style = paragraph.style.name if paragraph.style is not None else ""
            ordered = "number" in (style or "").lower()
        else:
            ordered = fmt not in ("bullet", "none")
        return depth, ordered, num_id

    def _end_list(self) -> None:
        if self._list_items:
            self.builder.add("list", "\n".join(self._list_items))
        self._list_items = []

    def _table(self, table) -> None:
        rows = []
        for row in table.rows:
            cells, seen = [], set()
            for cell in row.cells:
                if cell._tc in seen:
                    # A cell merged across columns is listed once per column: its text goes in the
                    # first, and the others stay empty so the next cells keep their columns.
                    cells.append("")
                    continue
                seen.add(cell._tc)
                # A pipe inside a cell would split it in two when the row is read back.
                cells.append(" ".join(cell.text.split()).replace("|", "¦"))
            if any(cells):
                rows.append(cells)
        for note in _title_rows(rows):
            self.builder.add("paragraph", note)
        if len(rows) < 2 or max(len(r) for r in rows) < 2:
            # One row or one column lays out a page; it holds no records.
            for cells in rows:
                for cell in cells:
                    self.builder.add("paragraph", cell)
            return
        if _label_value_rows(rows):
            # "Contract value | ZAR 3 864 500,00 excl. VAT", "Retention | 10% …": a letter's terms laid out
            # in two columns, with no header row; each row is a "Label: value" line, as a page writes it.
            for label, value in rows:
                self.builder.add("paragraph", f"{label.rstrip(':')}: {value}" if value else label)
            return
        width = len(rows[0])
        self.builder.add("row", _pipe_row(rows[0]))
        self.builder.add(None, _pipe_row(["---"] * width), next_line=True)
        for cells in rows[1:]:
            self.builder.add("row", _pipe_row(cells), next_line=True)


def _label_value_rows(rows: list[list[str]]) -> bool:
    """Two columns of short labels and their values, the first row already a label and a value (a figure,
    an address or a phrase beside it), not a header row ("Item | Amount", "Fee earner | Hourly rate (excl.
    VAT)" over a column of figures)."""
    if any(len(r) != 2 or not r[0] for r in rows):
        return False
    if any(len(label.split()) > 4 or re.match(r"\W*\d", label) for label, _ in rows):
        return False
    value = rows[0][1]
    if re.search(r"[\d@]", value):
        return True
    # "Fee earner | Hourly rate (excl. VAT)" over rows of figures is a header naming what they are.
    figures = sum(bool(re.search(r"[\d@]", v)) for _, v in rows[1:])
    return len(value.split()) > 3 and figures <= len(rows[1:]) / 2


def _pipe_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _paragraph_text(paragraph) -> str:
    return "".join(element.text for element in paragraph._p.xpath(_PARAGRAPH_TEXT))


def _styles(paragraph):
    """The paragraph's style and those it is based on, nearest first."""
    style, seen = paragraph.style, set()
    while style is not None and style.style_id not in seen:
        seen.add(style.style_id)
        yield style
        style = style.base_style


def _in_contents(paragraph) -> bool:
    """A line of a table of contents ("TOC 1", "TOC Heading" styles): the headings it lists, with their
    page numbers, are read where they stand."""
    return any((style.name or "").lower().startswith("toc ") for style in _styles(paragraph))


def _outline_level(properties, qn) -> int | None:
    found = properties.find(qn("w:outlineLvl")) if properties is not None else None
    if found is None:
        return None
    value = found.get(qn("w:val"))
    return int(value) if value and value.isdigit() else None


def _heading_level(paragraph, qn) -> int:
    """1–6 for a heading (by its outline level, or a Title or "Heading N" style, its own or the one it
    is based on, in whatever language Word wrote the style's id), else 0."""
    level = _outline_level(paragraph._p.pPr, qn)
    for style in _styles(paragraph) if level is None else ():
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 1
        if match := _HEADING_STYLE.match(name):
            level = int(match.group(1)) - 1
        else:
            level = _outline_level(style.element.pPr, qn)
        if level is not None:
            break
    # Outline level 9 is body text.
    return min(level + 1, _MAX_HEADING_LEVEL) if level is not None and level < 9 else 0


def _numbering_properties(paragraph, qn) -> tuple[str, int] | None:
    """(numbering id, level) of a list paragraph, from its own properties or its style's."""
    sources = [paragraph._p.pPr] + [style.element.pPr for style in _styles(paragraph)]
    for properties in sources:
        num_pr = properties.find(qn("w:numPr")) if properties is not None else None
        if num_pr is None:
            continue
        num_id = num_pr.find(qn("w:numId"))
        level = num_pr.find(qn("w:ilvl"))
        value = num_id.get(qn("w:val")) if num_id is not None else None
        if not value or value == "0":  # numId 0 takes the numbering away
            return None
        depth = level.get(qn("w:val")) if level is not None else "0"
        return value, min(int(depth), 8) if depth and depth.isdigit() else 0
    return None


def _numbering_formats(document, qn) -> dict[tuple[str, int], str]:
    """(numbering id, level) -> its number format ("bullet", "decimal", …) from the numbering part."""
    try:
        numbering = document.part.numbering_part.element
    except (KeyError, NotImplementedError, AttributeError):  # a document with no lists has no numbering part
        return {}
    abstract = {}
    for definition in numbering.iterchildren(qn("w:abstractNum")):
        levels = {}
        for lvl in definition.iterchildren(qn("w:lvl")):
            fmt = lvl.find(qn("w:numFmt"))
            levels[lvl.get(qn("w:ilvl"))] = fmt.get(qn("w:val")) if fmt is not None else "decimal"
        abstract[definition.get(qn("w:abstractNumId"))] = levels
    formats = {}
    for num in numbering.iterchildren(qn("w:num")):
        ref = num.find(qn("w:abstractNumId"))
        levels = abstract.get(ref.get(qn("w:val")) if ref is not None else None, {})
        for depth, fmt in levels.items():
            if depth and depth.isdigit():
                formats[(num.get(qn("w:numId")), int(depth))] = fmt
    return formats
