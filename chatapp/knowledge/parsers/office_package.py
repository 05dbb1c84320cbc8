"""The zip package a Word (.docx) or Excel (.xlsx) file is: checked before a library opens it, so a
file that is no such package fails with a reason a user can act on rather than a library's error."""

from __future__ import annotations

import io
import zipfile

from .base import FileRejected, _human_size

# An OLE compound file: a password-protected .docx/.xlsx (Office wraps the encrypted package in one),
# or an old binary .doc/.xls given the newer suffix.
_OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_STREAM = "EncryptionInfo".encode("utf-16-le")
# The libraries hold a whole part in memory; a package declaring more than this unpacked is a zip bomb
# or a dump, not a document (a 25 MB workbook unpacks to a few hundred MB at most).
MAX_UNPACKED_BYTES = 1 << 30


def check_package(data: bytes, kind: str, old_suffix: str, main_part: str) -> None:
    """Raise FileRejected unless `data` is a zip holding `main_part` ("word/document.xml"); `kind`
    names the file for the reason ("Word document"), `old_suffix` the binary format it may really be."""
    if data.startswith(_OLE_SIGNATURE):
        if _ENCRYPTION_STREAM in data:
            raise FileRejected(f"password-protected {kind}: save a copy without the password to index it")
        raise FileRejected(f"an old-format {old_suffix} file under a new suffix: save it in the new format")
    if not data.startswith(b"PK"):
        raise FileRejected(f"broken {kind}: not a zip package")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            entries = package.infolist()
    # Truncated, a damaged central directory, or a zip feature Python cannot read (a later version).
    except (zipfile.BadZipFile, ValueError, EOFError, NotImplementedError):
        raise FileRejected(f"broken {kind}: damaged zip package") from None
    names = {entry.filename for entry in entries}
    if main_part not in names:
        raise FileRejected(f"broken {kind}: no {main_part} in the package")
    unpacked = sum(entry.file_size for entry in entries)
    if unpacked > MAX_UNPACKED_BYTES:
        raise FileRejected(f"unpacks to {_human_size(unpacked)} (over {_human_size(MAX_UNPACKED_BYTES)})")

