"""Importing a library without optional modules it would load but chatapp never uses.

Some libraries import an optional dependency whenever it is installed, guarded by `except ImportError`,
even when the caller never uses what it brings: bm25s imports scipy.sparse, sqlite_utils numpy and
pandas, the openai package aiohttp and the HTTP library under it trio and h2. The import system reads None in sys.modules as "not installed", so
while `left_out` holds such a name its import raises ImportError and the library carries on without it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def left_out(*names: str) -> Iterator[None]:
    """For the moment of an import: each of `names` not loaded yet cannot be imported. Names something
    has loaded already are left alone (the library then uses them as before). Afterwards each can be
    imported again. Only for imports nothing chatapp runs beside them needs these modules for."""
    hidden = [name for name in names if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment] - makes `import name` raise ImportError
    try:
        yield
    finally:
        for name in hidden:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]
