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

Others still run, in a package's `__init__`, the import of every module of the package, where the caller
needs one or two of them: the openai package's `openai.types` and `openai.types.responses` import the
types of every endpoint (about 400 modules of pydantic models) for a caller that uses chat completions
alone. `initialised_on_use` imports such a package without running its `__init__`: its modules import
as usual (`from package.module import name`), and the `__init__` runs, once, when something first asks
the package itself for a name it does not yet have (`package.Name`, `from package import Name`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
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


@contextmanager
def initialised_on_use(*packages: str) -> Iterator[None]:
    """For the moment of an import: each of `packages` (and each package below it) imported now is
    imported without running its `__init__`, which runs when the package is first asked for a name it
    lacks. Only for packages whose `__init__` only imports names from the package's own modules (as a
    generated client's types package does): until it runs, `dir(package)` and a `from package import *`
    with no `__all__` see only the modules imported so far."""
    finder = _InitialiseOnUse(packages)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


class _InitialiseOnUse(importlib.abc.MetaPathFinder):
    def __init__(self, packages: tuple[str, ...]):
        self.packages = packages

    def find_spec(self, name, path, target=None):
        if not any(name == package or name.startswith(package + ".") for package in self.packages):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.submodule_search_locations is None or spec.loader is None:
            return spec  # not found here, or a module rather than a package: imported as usual
        spec.loader = _InitOnFirstName(spec.loader)
        return spec


class _InitOnFirstName(importlib.abc.Loader):
    """Makes the package's module (with `__path__`, so its modules import) and leaves its `__init__`
    to a module `__getattr__`, which Python calls only for a name the module does not have."""

    def __init__(self, loader: importlib.abc.Loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        namespace = module.__dict__
        lock = threading.RLock()

        def __getattr__(name: str):
            with lock:
                if namespace.get("__getattr__") is __getattr__:  # first call: run the `__init__` now
                    del namespace["__getattr__"]
                    self.loader.exec_module(module)
            if name in namespace:
                return namespace[name]
            if "__getattr__" in namespace:  # the package's own (PEP 562)
                return namespace["__getattr__"](name)
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

        namespace["__getattr__"] = __getattr__
