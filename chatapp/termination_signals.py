"""SIGTERM (`kill`) and SIGHUP (the terminal closed) handled for the length of a block, then the
previous handlers restored. `ask` and the chat both use it so that nothing streamed is lost."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

TERMINATION_SIGNALS = ("SIGTERM", "SIGHUP")


@contextmanager
def on_termination(handler):
    """Call `handler(signum, frame)` on SIGTERM/SIGHUP inside the block. Signal handlers can only be
    set from the main thread; elsewhere (a library caller's worker) the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = [name for name in TERMINATION_SIGNALS if hasattr(signal, name)]
    previous = {name: signal.signal(getattr(signal, name), handler) for name in names}
    try:
        yield
    finally:
        for name, old in previous.items():
            signal.signal(getattr(signal, name), old)
