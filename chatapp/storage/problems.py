"""A data dir chatapp cannot use — a damaged database, a read-only folder, a full disk — told in
one line that says what to do, instead of a traceback from deep inside SQLite or Chroma."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path


class StorageError(Exception):
    """The data dir cannot be used as it is; the message is one line saying what to do."""


_FULL = "no space left on device for the data dir {dir}: free some space and run the command again " \
        "(what was finished is saved)"
_READ_ONLY = "the data dir {dir} is read-only: make it writable, or choose another with --data-dir " \
             "(or CHATAPP_HOME)"


def _chain(exc: BaseException):
    """`exc` and the exceptions it was raised from or while handling (Chroma wraps SQLite's)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _within(filename, data_dir: Path) -> bool:
    """Whether an OSError's file is the data dir or inside it (or its parent, which making it needs):
    a file of the user's that cannot be read is not the data dir's problem."""
    if not filename:
        return False
    path, data_dir = Path(os.fsdecode(filename)).absolute(), Path(data_dir).absolute()
    return path == data_dir or data_dir in path.parents or path in data_dir.parents


# Less free space than this beside the data dir reads as a full disk: SQLite's journal needs room.
NEARLY_FULL_BYTES = 1 << 20


def _nearly_full(data_dir: Path) -> bool:
    folder = Path(data_dir)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return shutil.disk_usage(folder).free < NEARLY_FULL_BYTES
    except OSError:
        return False


def describe(exc: BaseException, data_dir: Path, database: Path | None = None) -> str | None:
    """One line for a failure of the data dir's storage, or None when `exc` is something else.
    `database`: the SQLite file being opened, when the failure came from opening it."""
    for error in _chain(exc):
        message = str(error).lower()
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT) \
                or "database or disk is full" in message or "no space left" in message:
            return _FULL.format(dir=data_dir)
        if isinstance(error, OSError) and error.errno in (errno.EROFS, errno.EACCES, errno.EPERM) \
                and _within(error.filename, data_dir) or "readonly database" in message:
            return _READ_ONLY.format(dir=data_dir)
        if "file is not a database" in message or "malformed" in message:
            if database is None:
                return (f"a database in the data dir {data_dir} is damaged ({error}): if `chatapp doctor` "
                        "names the vector index, run `chatapp kb rebuild`")
            return (f"{database} is not a database (corrupt?): move it aside (`sqlite3 MOVED_FILE .recover` may "
                    "save its sessions) and run `chatapp ingest` again")
        if isinstance(error, sqlite3.OperationalError) and "unable to open database file" in message:
            if not os.access(data_dir, os.W_OK):
                return _READ_ONLY.format(dir=data_dir)
            return f"cannot open {database or 'the database'} in {data_dir}: check the folder's permissions"
        if "disk i/o error" in message:
            # SQLite says "disk I/O error", not "full", when a full disk stops its journal files.
            if _nearly_full(data_dir):
                return _FULL.format(dir=data_dir)
            return f"a disk error reading the data dir {data_dir}: check the disk, then run the command again"
    return None
