"""Word tables built once and kept on disk: the correction dictionary, its near-word index and the
word-frequency table are derived from data files in installed packages, and deriving them costs
more than a whole turn. Each is stored as plain numpy arrays (one .npy file each, never pickled
objects) in the data dir's cache folder and memory-mapped by later processes, so the operating
system pages in only what a look-up touches and processes share those pages.

A table's folder name carries a key made from everything it is built from: this package's
version, the source files of the modules that build it, and the versions and file stamps of its
input data. A changed input gives a new key, hence a rebuild; an old folder is removed when its
replacement is written. A folder that cannot be read back as what its manifest promises is
rebuilt, never trusted and never a crash. Writes go to a temporary folder renamed into place, so
a reader never sees half a table and two processes building at once both end with a whole one.

Without a cache folder (a library user who never opened a data dir, most tests) tables are
built in memory as before.

A mapped table is a look-up table: a binary search touches a page here and a page there. The kernel is
told so (madvise MADV_RANDOM), or each page fault would read the pages around it as well and map them
all (a turn's few hundred word-frequency look-ups held 6–8 MiB of that 11 MB table resident instead of
1–2). An array its reader turns whole into Python objects is named in `read_whole` and read into
memory instead, in one read.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is loaded with the first table, not by every command that opens a data dir
    import numpy as np

FORMAT = 1  # bump when the layout of the folders changes
MANIFEST = "manifest.json"

Arrays = dict[str, "np.ndarray"]

_lock = threading.Lock()
_directory: Path | None = None
# What happened to each table in this process: "built", "built (cached)", "from cache",
# "rebuilt (unreadable cache)"; shown by `doctor --timings` and read by tests.
_outcomes: dict[str, str] = {}


def use_directory(directory: Path | str | None) -> None:
    """Keep tables under `directory` (the data dir's cache folder) from now on; None: in memory only."""
    global _directory
    with _lock:
        _directory = Path(directory) if directory is not None else None


def directory() -> Path | None:
    """The cache folder in use (None: in memory only), for caches of other kinds of file."""
    with _lock:
        return _directory


def outcome(name: str) -> str | None:
    """How this process got table `name`, or None if it has not asked for it."""
    return _outcomes.get(name)


def note(name: str, how: str) -> None:
    """Record how a cache of another kind of file served `name` (see `outcome`)."""
    _outcomes[name] = how


def file_stamp(path: Path | str) -> str:
    """A file's identity for a cache key: path, size and modification time (no read needed)."""
    try:
        info = os.stat(path)
    except OSError:
        return f"{path}:missing"
    return f"{path}:{info.st_size}:{info.st_mtime_ns}"


def cache_key(parts: Iterable[str]) -> str:
    # The package's version, read from the loaded package (importing it here would be a cycle).
    version = getattr(sys.modules.get(__package__ or "chatapp"), "__version__", "unknown")
    digest = hashlib.sha256(f"format {FORMAT}\nchatapp {version}".encode())
    for part in parts:
        digest.update(b"\n" + part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


def load_or_build(name: str, key_parts: Iterable[str], build: Callable[[], Arrays],
                  read_whole: Iterable[str] = ()) -> Arrays:
    """The arrays of table `name`: read from the cache when a folder with this key is whole, else
    built by `build()` and written there for the next process. Read from the cache, each array is
    memory-mapped for look-ups, except those named in `read_whole`, which are read into memory."""
    with _lock:
        directory = _directory
    if directory is None:
        _outcomes[name] = "built"
        return build()
    folder = directory / f"{name}-{cache_key(key_parts)}"
    unreadable = False
    if folder.is_dir():
        arrays = _read(folder, frozenset(read_whole))
        if arrays is not None:
            _outcomes[name] = "from cache"
            return arrays
        unreadable = True
        shutil.rmtree(folder, ignore_errors=True)
    arrays = build()
    written = _write(directory, folder, arrays)
    _remove_stale(directory, name, keep=folder)
    _outcomes[name] = "rebuilt (unreadable cache)" if unreadable else ("built (cached)" if written else "built")
    return arrays


def _read(folder: Path, read_whole: frozenset[str] = frozenset()) -> Arrays | None:
    """The folder's arrays, memory-mapped (but those of `read_whole`), or None when anything differs
    from its manifest."""
    import numpy as np

    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        arrays = {}
        for name, (dtype, shape) in manifest["arrays"].items():
            if not name.isidentifier():
                return None
            # allow_pickle=False: a folder someone else wrote can hold data, never code. A
            # single number is read whole (numpy maps one as a 1-element array).
            mapped = bool(shape) and name not in read_whole
            array = np.load(folder / f"{name}.npy", mmap_mode="r" if mapped else None, allow_pickle=False)
            if array.dtype.str != dtype or list(array.shape) != shape:
                return None
            if mapped:
                _for_look_ups(array)
            arrays[name] = array
        return arrays
    except (OSError, ValueError, KeyError, TypeError, AttributeError, json.JSONDecodeError):
        return None


def _for_look_ups(array) -> None:
    """Tell the kernel that `array`'s pages will be read at random (see the module's docstring)."""
    mapping = getattr(array, "_mmap", None)  # numpy's memmap keeps its mmap.mmap there
    if mapping is not None and hasattr(mmap, "MADV_RANDOM"):
        try:
            mapping.madvise(mmap.MADV_RANDOM)
        except (OSError, ValueError):
            pass  # only advice: the table reads the same without it


def advise_random_reads(path: Path) -> int:
    """Advise random access (as for the tables above) on every mapping of `path` in this process, made
    by a library that maps a cached file itself: onnxruntime maps the embedder's weights, of which a
    text reads a few rows of the word-embedding table. Linux only (read from /proc/self/maps); returns
    how many mappings were advised."""
    if not hasattr(mmap, "MADV_RANDOM"):
        return 0
    try:
        import ctypes

        madvise = ctypes.CDLL(None, use_errno=True).madvise
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            ranges = [line.split(None, 5) for line in maps]
    except (OSError, AttributeError):
        return 0
    name, advised = str(path), 0
    for fields in ranges:
        if len(fields) == 6 and fields[5].rstrip("\n") == name:
            start, end = (int(address, 16) for address in fields[0].split("-"))
            # Only advice: a mapping gone meanwhile (ENOMEM) reads the same without it.
            advised += madvise(start, end - start, mmap.MADV_RANDOM) == 0
    return advised


def _write(directory: Path, folder: Path, arrays: Arrays) -> bool:
    """Write the table beside its final place and rename it there; False if the disk refused."""
    import numpy as np

    try:
        directory.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=directory))
    except OSError:
        return False
    try:
        for name, array in arrays.items():
            np.save(staging / f"{name}.npy", np.asarray(array), allow_pickle=False)
        manifest = {"arrays": {name: [np.asarray(a).dtype.str, list(np.shape(a))] for name, a in arrays.items()}}
        # The manifest last: a folder without one is never read as whole.
        (staging / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        settle(staging)
        os.rename(staging, folder)
        return True
    except OSError:
        # Another process renamed its copy into place first (fine: it is the same table), or the
        # disk is full or read-only (fine: this process has its table in memory).
        shutil.rmtree(staging, ignore_errors=True)
        return folder.is_dir()


def settle(folder: Path) -> None:
    """Put the files of `folder` on disk and out of the page cache, so that a process mapping them later
    holds only the pages it reads. A file just written sits in the page cache in large blocks (up to
    megabytes each on Linux 6) and mapping any byte of a block maps all of it: a turn's look-ups in the
    word-frequency table and the embedder's word-embedding rows held 29 MiB of it resident instead of 5
    (a whole cold turn's peak 23 MiB higher) until the kernel dropped those blocks. Read back from disk, a file comes in as small
    blocks of what is read. Synced first, which also means a folder is never renamed into place with
    its contents still unwritten. Without posix_fadvise (not Linux) or on an error: left as it is."""
    if not hasattr(os, "posix_fadvise"):
        return
    try:
        for path in folder.iterdir():
            descriptor = os.open(path, os.O_RDONLY)
            try:
                os.fdatasync(descriptor)  # only pages already written can be dropped
                os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(descriptor)
    except OSError:
        pass


def _remove_stale(directory: Path, name: str, keep: Path) -> None:
    """Drop this table's folders under older keys: their inputs have changed."""
    try:
        for old in directory.glob(f"{name}-*"):
            if old != keep and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass
