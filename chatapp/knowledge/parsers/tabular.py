"""Tabular data: CSV, JSON."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

from .base import FileRejected, ParsedDocument, _filename_date, _front_date, _humanise, _make_doc, _TextBuilder


def _record_line(pairs) -> str:
    """One record as "key: value; key: value", empty values left out."""
    return "; ".join(f"{key}: {value}" for key, value in pairs if value)


# Rows a table is indexed with by default (the max_table_rows setting). A million-row export makes
# tens of thousands of chunks, minutes of embedding and gigabytes of memory; its first rows and its
# columns still say what it holds.
DEFAULT_MAX_ROWS = 100_000
# Deeper JSON is machine state, not a document; the limit also keeps every recursive reader
# (json, the renderer below, extraction) far from Python's recursion limit.
MAX_JSON_DEPTH = 64


def _rows_note(metadata: dict, kept: int, total: int) -> None:
    # A table over the limit is indexed with its first rows rather than failed: a user asking about
    # the file still finds it, the ingest summary says how much was kept, and an unchanged file is
    # not read again on every run only to fail again. rows_indexed lets ingest read it again when
    # the limit is raised.
    metadata["rows"] = total
    if kept < total:
        metadata["rows_indexed"] = kept


def _title_rows(rows: list[list[str]]) -> list[str]:
    """The lines above a table ("Harvest log 2026", a title cell merged across a Word table), taken off
    `rows`: rows of one cell before the first row of several, which is the header."""
    notes: list[str] = []
    while len(rows) > 1 and sum(1 for cell in rows[0] if cell) == 1 and any(
            sum(1 for cell in row if cell) > 1 for row in rows[1:]):
        notes.append(next(cell for cell in rows.pop(0) if cell))
    return notes


def _parse_csv(text: str, path: Path, max_rows: int = DEFAULT_MAX_ROWS) -> ParsedDocument:
    try:
        dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:  # the sniffer gives up on one-column or irregular files
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    rows: list[list[str]] = []
    kept_lines = 0  # physical lines holding the header and the rows kept
    total = 0
    try:
        for row in reader:
            if not any(c.strip() for c in row):
                continue
            total += 1
            if total <= max_rows + 1:  # the header and max_rows rows
                rows.append(row)
                kept_lines = reader.line_num
    except csv.Error as exc:
        raise FileRejected(f"invalid CSV: {exc}") from exc
    header = [" ".join(cell.split()) or f"column {n}" for n, cell in enumerate(rows[0], 1)] if rows else []
    builder = _TextBuilder()
    for row in rows[1:]:
        names = header + [f"column {n}" for n in range(len(header) + 1, len(row) + 1)]
        builder.add("row", _record_line(zip(names, (" ".join(cell.split()) for cell in row))))
    if len(rows) == 1:  # a header with no data still says what the file is about
        builder.add("paragraph", "Columns: " + ", ".join(header))
    metadata: dict[str, object] = {"columns": ", ".join(header)}
    _rows_note(metadata, max(len(rows) - 1, 0), max(total - 1, 0))
    record_text = "\n".join(text.split("\n", kept_lines)[:kept_lines]) if "rows_indexed" in metadata else None
    doc = _make_doc(path, "csv", _humanise(path.stem), builder.text, builder.blocks, _filename_date(path), metadata)
    doc.record_text = record_text
    return doc


# Fields of an object inside a record that name it: {"contact": {"name": "Kari Nilsen", …}} is contact: Kari Nilsen.
_NAME_FIELDS = frozenset({"name", "full_name", "fullname", "display_name", "displayname"})


def spread_record(record: dict) -> dict:
    """A record with each object inside it spread into fields of its own: {"contact": {"name": "Kari Nilsen",
    "email": "kari@…"}} reads as contact: Kari Nilsen and contact_email: kari@… (so Kari Nilsen is the
    contact, and that address hers), as a table with those columns would. Deeper objects and lists stay."""
    spread = {}
    for key, value in record.items():
        if not isinstance(value, dict):
            spread[key] = value
            continue
        inner_fields = [(inner, field) for inner, field in value.items() if not isinstance(field, (dict, list))]
        if len(inner_fields) < len(value):
            spread[key] = value  # an object holding more objects is shown as it is
            continue
        for inner, field in inner_fields:
            named = str(inner).replace(" ", "_").lower() in _NAME_FIELDS
            spread.setdefault(str(key) if named else f"{key}_{inner}", field)
    return spread


def _json_value(value) -> str:
    if isinstance(value, str):
        return " ".join(value.split())
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _depth_over(data, limit: int) -> bool:
    """Whether containers nest deeper than `limit` (walked with a stack: no recursion of our own)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _value_error(exc: ValueError) -> str:
    message = str(exc)
    if "integer string conversion" in message:
        return f"a number longer than {sys.get_int_max_str_digits():,} digits"
    return message.split(";")[0][:80]


def _parse_json(text: str, path: Path, max_rows: int = DEFAULT_MAX_ROWS) -> ParsedDocument:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileRejected(f"invalid JSON: line {exc.lineno}") from exc
    except RecursionError:
        raise FileRejected(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # Python refuses to read integers of more than 4,300 digits
        raise FileRejected(f"invalid JSON: {_value_error(exc)}") from None
    if _depth_over(data, MAX_JSON_DEPTH):
        raise FileRejected(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    builder = _TextBuilder()
    metadata: dict[str, object] = {}
    record_text = None
    if isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
        kept = data[:max_rows]
        for item in kept:
            builder.add("row", _record_line((key, _json_value(value)) for key, value in spread_record(item).items()))
        metadata["records"] = len(data)
        _rows_note(metadata, len(kept), len(data))
        if len(kept) < len(data):
            record_text = json.dumps(kept, ensure_ascii=False)
    elif isinstance(data, dict):
        items = list(data.items())
        for key, value in items[:max_rows]:
            if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
                # {"vehicles": [{…}, {…}]}: each vehicle a line of its own, as a top-level list's records are.
                for item in value[:max_rows]:
                    fields = spread_record(item).items()
                    builder.add("row", f"{key}: " + _record_line((k, _json_value(v)) for k, v in fields))
            elif rendered := _json_value(value):
                builder.add("row", f"{key}: {rendered}")
        if len(items) > max_rows:
            _rows_note(metadata, max_rows, len(items))
            record_text = json.dumps(dict(items[:max_rows]), ensure_ascii=False)
    elif isinstance(data, list) and len(data) > max_rows:
        builder.add("paragraph", json.dumps(data[:max_rows], ensure_ascii=False, indent=2))
        _rows_note(metadata, max_rows, len(data))
        record_text = json.dumps(data[:max_rows], ensure_ascii=False)
    elif data not in ([], "", None):
        builder.add("paragraph", json.dumps(data, ensure_ascii=False, indent=2))
    doc = _make_doc(path, "json", _humanise(path.stem), builder.text, builder.blocks,
                    _own_date(data) or _filename_date(path), metadata)
    doc.record_text = record_text
    return doc


def _own_date(data) -> object:
    """The date a JSON object gives itself in a top-level field, as a document's "Updated:" line does:
    {"register": …, "updated": "2026-11-30", "sites": [ … ]}. A record's own date is no date of the file."""
    if not isinstance(data, dict):
        return None
    lines = [f"{key.replace('_', ' ')}: {value}" for key, value in list(data.items())[:10]
             if isinstance(key, str) and isinstance(value, str)]
    return _front_date("\n".join(lines)) if lines else None
