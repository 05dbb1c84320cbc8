"""Excel workbooks (.xlsx), read with openpyxl: each sheet a table, as a CSV file is read.

A sheet is a heading (its name, the section title of its rows) and a line per row, "column: value;
…", under the sheet's first row as the header. Values read as Excel shows them, near enough: dates
as dates, numbers without float noise, percentages as percentages, a formula as its last computed
value. The rows kept (max_rows over the whole workbook) are also handed over as tables, so
extraction reads a sheet of people or suppliers as records, as it reads a CSV file's.
"""

from __future__ import annotations

import io
import re
import warnings
from datetime import date, datetime, time, timedelta
from pathlib import Path

from .base import FileRejected, ParsedDocument, _filename_date, _humanise, _make_doc, _short, _TextBuilder
from .office_package import check_package
from .tabular import DEFAULT_MAX_ROWS, _record_line, _rows_note, _title_rows

# A workbook's main part, as openpyxl opens it: a workbook, a template, either with macros.
_EXCEL_CONTENT_TYPES = (b"spreadsheetml.sheet.main+xml", b"spreadsheetml.template.main+xml",
                        b"ms-excel.sheet.macroEnabled.main+xml", b"ms-excel.template.macroEnabled.main+xml")
_DECIMALS = re.compile(r"0\.(0+)")
_QUOTED = re.compile(r'"[^"]*"|\\.')
_CURRENCY = re.compile(r"\[\$([^\]-]*)[^\]]*\]|([£$€¥₹₦₵])")


def _parse_xlsx(data: bytes, path: Path, max_rows: int = DEFAULT_MAX_ROWS) -> ParsedDocument:
    check_package(data, "Excel workbook", ".xlsx", ".xls", _EXCEL_CONTENT_TYPES)
    import openpyxl  # imported here: most ingests never meet a workbook

    try:
        with warnings.catch_warnings():  # "no default style", unsupported extensions: not the user's concern
            warnings.simplefilter("ignore")
            # read_only streams each sheet's rows instead of building every cell; data_only gives a
            # formula's value as Excel last computed it, not the formula.
            workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
            try:
                sheets = [(sheet.title, *_sheet_rows(sheet, max_rows)) for sheet in workbook.worksheets]
            finally:
                workbook.close()
    except FileRejected:
        raise
    except Exception as exc:  # openpyxl, zipfile and the XML parser raise many types for damaged parts
        raise FileRejected(f"broken Excel workbook: {_short(exc)}") from exc
    builder = _TextBuilder()
    tables: list[list[list[str]]] = []
    kept_total = total = 0
    for name, rows, counted in sheets:
        notes = _title_rows(rows)
        total += max(counted - len(notes) - 1, 0)
        rows = rows[:max(max_rows - kept_total, 0) + 1]  # the workbook's rows share one limit
        if not rows and not notes:
            continue
        builder.add("heading", "# " + " ".join(name.split()), 1)
        for note in notes:
            builder.add("paragraph", note)
        if not rows:
            continue
        kept_total += len(rows) - 1
        header = [cell or f"column {n}" for n, cell in enumerate(rows[0], 1)]
        for row in rows[1:]:
            names = header + [f"column {n}" for n in range(len(header) + 1, len(row) + 1)]
            builder.add("row", _record_line(zip(names, row)))
        if len(rows) == 1:  # a header with no data still says what the sheet is about
            builder.add("paragraph", "Columns: " + ", ".join(header))
        tables.append(rows)
    if not tables:
        raise FileRejected("empty: no values in any sheet")
    metadata: dict[str, object] = {"sheets": ", ".join(" ".join(name.split()) for name, _, _ in sheets)}
    _rows_note(metadata, kept_total, total)
    doc = _make_doc(path, "xlsx", _humanise(path.stem), builder.text, builder.blocks, _filename_date(path), metadata)
    doc.record_tables = tables
    return doc


def _sheet_rows(sheet, max_rows: int) -> tuple[list[list[str]], int]:
    """The sheet's first non-empty rows (its header and up to max_rows more) as shown, trailing empty
    cells dropped, and how many non-empty rows it has in all."""
    rows: list[list[str]] = []
    counted = 0
    # The size a sheet declares can be wrong (some programs write "A1"); read-only mode would cut its
    # rows to it.
    sheet.reset_dimensions()
    for row in sheet.iter_rows():
        if counted > max_rows:  # past the limit only counted, not formatted
            if any(cell.value not in (None, "") for cell in row):
                counted += 1
            continue
        cells = [_shown(cell) for cell in row]
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            counted += 1
            rows.append(cells)
    return rows, counted


def _shown(cell) -> str:
    """A cell's value as Excel shows it, near enough to read and quote."""
    value = getattr(cell, "value", None)
    if value is None:
        return ""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, datetime):
        if value.time() == time(0):
            return value.date().isoformat()
        return value.strftime("%Y-%m-%d %H:%M:%S" if value.second else "%Y-%m-%d %H:%M")
    if isinstance(value, (date, time)):
        return value.isoformat(timespec="minutes") if isinstance(value, time) else value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    if isinstance(value, (int, float)):
        try:
            number_format = cell.number_format or "General"
        except (IndexError, KeyError, AttributeError):  # a style the workbook does not define: shown plain
            number_format = "General"
        return _number(value, number_format)
    return " ".join(str(value).split())


def _number(value: float, number_format: str) -> str:
    """A number under its cell's format: its percent sign, decimal places, thousands separator and
    currency symbol. Other formats (fractions, scientific, conditions) show the plain number."""
    section = _QUOTED.sub("", number_format.split(";")[0])
    currency = _CURRENCY.search(number_format.split(";")[0])
    symbol = (currency.group(1) or currency.group(2) or "") if currency else ""
    percent = "%" in section
    if percent:
        value *= 100
    decimals = _DECIMALS.search(section)
    if decimals or "0" in section:
        places = len(decimals.group(1)) if decimals else 0
        grouping = "," if "#,#" in section else ""
        from decimal import ROUND_HALF_UP, Decimal, InvalidOperation  # here: only formatted numbers need it

        try:
            # Halves round away from zero, as Excel shows them (0.125 as 13%, not Python's 12%).
            rounded = Decimal(repr(abs(value))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
        except InvalidOperation:  # more digits than a Decimal holds (1e30 to two places)
            rounded = abs(value)
        shown = f"{rounded:{grouping}.{places}f}"
    elif isinstance(value, int):
        shown = str(abs(value))
    else:
        # General: at most 15 significant digits, as Excel keeps; 0.1 + 0.2 shows as 0.3.
        shown = f"{abs(value):.15g}"
        if "e" in shown and abs(value) >= 1:
            shown = f"{abs(value):.0f}"
    sign = "-" if value < 0 and float(shown.replace(",", "")) != 0 else ""
    return f"{sign}{symbol}{shown}{'%' if percent else ''}"
