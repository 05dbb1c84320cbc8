"""Tabular data: CSV, JSON."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from .base import FileRejected, ParsedDocument, _filename_date, _humanise, _make_doc, _TextBuilder


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
