"""A client library imported once, on first need or ahead of it in a worker thread.

litellm takes seconds to import and the openai package about one: a turn starts the import of the
one its model needs while the question is preprocessed, and the model call then waits for that
import to finish rather than starting a second one."""

from __future__ import annotations

import importlib
import threading
from types import ModuleType
from typing import Callable

from chatapp.optional_imports import initialised_on_use, left_out

# One library import at a time: a module one of them leaves out (see `without`) may be one that
# another imports (litellm imports aiohttp, which the openai package is imported without).
_ONE_AT_A_TIME = threading.Lock()


class LibraryImport:
    def __init__(self, name: str, configure: Callable[[ModuleType], None], without: tuple[str, ...] = (),
                 initialised_on_use: tuple[str, ...] = ()):
        self.name = name
        self._configure = configure  # run once, right after the import (quiet its loggers, …)
        self.without = without  # optional modules the library would import for nothing chatapp uses
        # its packages whose `__init__` imports far more of the package than chatapp uses
        self.initialised_on_use = initialised_on_use
        self._module: ModuleType | None = None
        self._lock = threading.Lock()

    def load(self) -> ModuleType:
        """The module, imported now if no one has yet (waiting for an import under way)."""
        with self._lock:
            if self._module is None:
                with _ONE_AT_A_TIME, left_out(*self.without), initialised_on_use(*self.initialised_on_use):
                    module = importlib.import_module(self.name)
                self._configure(module)
                self._module = module
        return self._module

    def start(self) -> None:
        """Import in a background thread, unless it is imported or being imported already."""
        if self._module is None and not self._lock.locked():
            threading.Thread(target=self.load, name=f"{self.name}-import", daemon=True).start()
