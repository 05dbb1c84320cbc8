"""PDF, read with pypdf."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

from .base import FileRejected, ParsedDocument, _aware, _clip_title, _filename_date, _make_doc, _short, _TextBuilder

# pypdf logs a warning for every damaged file it meets. With no handler in
# the tree, logging's last resort prints it to stderr, across the TUI. A
# NullHandler keeps stderr clean; the app's own handlers still see records.
logging.getLogger("pypdf").addHandler(logging.NullHandler())


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
