"""The zip package a Word (.docx) or Excel (.xlsx) file is: checked before a library opens it, so a
file that is no such package fails with a reason a user can act on rather than a library's error."""

from __future__ import annotations

import io
import zipfile
import zlib

from .base import FileRejected, _human_size

# An OLE compound file: a password-protected .docx/.xlsx (Office wraps the encrypted package in one),
# or an old binary .doc/.xls given the newer suffix.
_OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_STREAM = "EncryptionInfo".encode("utf-16-le")
# The libraries hold a whole part in memory; a package declaring more than this unpacked is a zip bomb
# or a dump, not a document (a 25 MB workbook unpacks to a few hundred MB at most).
MAX_UNPACKED_BYTES = 1 << 30
_CONTENT_TYPES = "[Content_Types].xml"
_RELATIONSHIPS = "_rels/.rels"
# The namespace of ISO/IEC 29500 Strict, which neither python-docx nor openpyxl reads (a workbook
# would open with no sheets, and seem empty).
_STRICT_NAMESPACE = b"http://purl.oclc.org/ooxml/"


def check_package(data: bytes, kind: str, suffix: str, old_suffix: str, content_types: tuple[bytes, ...]) -> None:
    """Raise FileRejected unless `data` is an Office package whose main part is of one of
    `content_types`; `kind` names the file for the reason ("Word document"), `suffix` its format,
    `old_suffix` the binary format it may really be."""
    if data.startswith(_OLE_SIGNATURE):
        if _ENCRYPTION_STREAM in data:
            raise FileRejected(f"password-protected {kind}: save a copy without the password to index it")
        raise FileRejected(f"an old-format {old_suffix} file under a new suffix: save it in the new format")
    if not data.startswith(b"PK"):
        raise FileRejected(f"broken {kind}: not a zip package")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            entries = package.infolist()
            unpacked = sum(entry.file_size for entry in entries)
            if unpacked > MAX_UNPACKED_BYTES:  # before any part is read
                raise FileRejected(f"unpacks to {_human_size(unpacked)} (over {_human_size(MAX_UNPACKED_BYTES)})")
            names = {entry.filename for entry in entries}
            if _CONTENT_TYPES not in names or _RELATIONSHIPS not in names:
                raise FileRejected(f"broken {kind}: a zip file, but not an Office package")
            # Where the main part lives is the package's to say (not always word/ or xl/): what it
            # declares is what the libraries go by too.
            declared = package.read(_CONTENT_TYPES)
            strict = _STRICT_NAMESPACE in package.read(_RELATIONSHIPS)
    # Truncated, a damaged central directory, or a zip feature Python cannot read (a later version).
    except (zipfile.BadZipFile, ValueError, EOFError, NotImplementedError, zlib.error):
        raise FileRejected(f"broken {kind}: damaged zip package") from None
    if strict:
        raise FileRejected(f"saved as Strict Open XML, which is not read: save it as an ordinary {suffix}")
    if not any(content_type in declared for content_type in content_types):
        raise FileRejected(f"not a {kind}: an Office package of another kind")
