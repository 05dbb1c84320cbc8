"""Importing a library without optional modules it would load but chatapp never uses.

Some libraries import an optional dependency whenever it is installed, guarded by `except ImportError`,
even when the caller never uses what it brings: bm25s imports scipy.sparse, sqlite_utils numpy and
pandas, the openai package aiohttp and the HTTP library under it trio and h2, httpx its command line
(pygments). The import system reads None in sys.modules as "not installed", so while `left_out` holds
such a name its import raises ImportError and the library carries on without it.

Others import, unguarded, a module that only a feature chatapp never calls uses: spaCy its command
line (weasel, requests, jinja2, …) for `spacy.info`, chromadb its OpenTelemetry gRPC exporter (grpc,
protobuf) for sending traces to a collector it is not configured with. `deferred` puts a stand-in in
that module's place for the moment of the import: the library takes the stand-in's functions, and the
real module is imported if one of them is ever called.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterator
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


@contextmanager
def deferred(module: str, *names: str) -> Iterator[None]:
    """For the moment of an import: `module`, if nothing has loaded it yet, is a stand-in whose `names`
    are functions that import the real module when called and call its own (a class's name works too:
    calling it makes an instance). Afterwards `module` imports as usual. Only for a module whose
    importer takes just those names from it and calls them in no code chatapp runs."""
    if module in sys.modules:
        yield
        return
    stand_in = types.ModuleType(module, f"Stands in for {module} until one of its functions is called.")
    for name in names:
        setattr(stand_in, name, _calling_through(module, name, stand_in))
    sys.modules[module] = stand_in
    try:
        yield
    finally:
        if sys.modules.get(module) is stand_in:
            del sys.modules[module]


def _calling_through(module: str, name: str, stand_in: types.ModuleType) -> Callable:
    def call(*args, **kwargs):
        real = importlib.import_module(module)
        if real is stand_in:  # called during the import it stands in for: nothing to call yet
            raise ImportError(f"{module} is deferred while its importer loads")
        return getattr(real, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"{module}.{name}, imported on first call."
    return call
