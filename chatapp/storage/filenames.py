"""Names that chatapp did not choose (a session's name, above all) turned into file names, and
files written only where they were meant to go.

A session may be called `../../../../tmp/x`, `con`, `.bashrc` or `[/b]`: used as it is in a path it
would write outside the data dir, create folders or hide a file. `slug` keeps the readable part of
a name and nothing that means something to a file system; `file_under` joins a slug to a folder
and refuses any result that is not directly inside it.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from chatapp.terminal_text import clean

SLUG_MAX_CHARS = 80
# Letters and digits of any script, and - _ . inside a name; everything else is a separator.
_SEPARATORS = re.compile(r"[^\w.\-]+")
_REPEATED = re.compile(r"[-_.]{2,}")
# Names that Windows keeps for devices, whatever the extension: an export called `con.md` cannot be written there.
_DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                           *(f"lpt{i}" for i in range(1, 10))})


class UnsafePath(ValueError):
    """A file name that would land outside the folder it was meant for."""


def slug(name: str, fallback: str = "untitled") -> str:
    """`name` as one safe file name component: no separators, no leading dot (no hidden files, no
    `..`), no control characters, at most SLUG_MAX_CHARS characters; `fallback` when nothing is left."""
    text = unicodedata.normalize("NFKC", clean(name))  # fullwidth ／ and ． become / and . and then go
    text = _REPEATED.sub("-", _SEPARATORS.sub("-", text))
    text = text[:SLUG_MAX_CHARS].strip("-_.")
    if not text or text.split(".")[0].lower() in _DEVICE_NAMES:
        return fallback if not text else f"{text}-"
    return text


def file_under(folder: Path, stem: str, suffix: str) -> Path:
    """folder/slug(stem).suffix, guaranteed to be a direct child of `folder` (UnsafePath otherwise)."""
    folder = Path(folder)
    path = folder / f"{slug(stem)}.{slug(suffix, fallback='txt')}"
    if path.resolve().parent != folder.resolve():
        raise UnsafePath(f"{path} is not inside {folder}")
    return path
