"""parse_file: read one file and hand it to the parser for its format."""

from __future__ import annotations

import re
from pathlib import Path

from .base import SUPPORTED_SUFFIXES, FileRejected, ParsedDocument, _decode_text, _human_size, _reject_binary
from .mail import _parse_email
from .markup import _parse_html
from .pdf import _parse_pdf
from .spreadsheet import _parse_xlsx
from .tabular import DEFAULT_MAX_ROWS, _parse_csv, _parse_json
from .text import _parse_markdown, _parse_rst, _parse_text
from .word import _parse_docx


# Mail headers from the first line on: From and at least one more, each "Name: value" on its line.
_MAIL_HEADERS = re.compile(
    rb"\A(?:\xef\xbb\xbf)?(?=(?:[A-Za-z-]+:[^\n]*\n)*From:)(?:(?:From|To|Cc|Bcc|Date|Sent|Subject|Reply-To)[ \t]*:[^\n]*\r?\n){2,}",
    re.IGNORECASE,
)


def parse_file(path: Path, max_bytes: int = 25 * 1024 * 1024, suffix: str | None = None,
               max_rows: int = DEFAULT_MAX_ROWS) -> ParsedDocument:
    """Read and parse one file; `suffix` parses it as that format instead of its own
    (ingest reads README, LICENSE and the like as ".txt"). A table (CSV, JSON records, a workbook) keeps its
    first `max_rows` rows and says in its metadata how many it had."""
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
    elif suffix == ".docx":
        doc = _parse_docx(data, path)
    elif suffix == ".xlsx":
        doc = _parse_xlsx(data, path, max_rows=max_rows)
    elif suffix == ".eml":
        _reject_binary(data)
        doc = _parse_email(data, path)
    elif suffix == ".txt" and _MAIL_HEADERS.match(data):
        # A mail saved as text ("From: …", "Subject: …", a blank line, the body) is the mail it is:
        # its subject is its title, its Date its date, its From and To its people.
        _reject_binary(data)
        doc = _parse_email(_decode_text(data).encode("utf-8"), path)  # a text file's own encoding, as for any .txt
    elif suffix in (".csv", ".json"):
        doc = _TEXT_PARSERS[suffix](_decode_text(data), path, max_rows=max_rows)
    else:
        doc = _TEXT_PARSERS[suffix](_decode_text(data), path)
    if not doc.text.strip():  # e.g. an HTML page that is all script
        raise FileRejected("empty")
    return doc


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
