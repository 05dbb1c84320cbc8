"""What the chat loaded at start-up, kept out of the garbage collector's full passes while the chat is open.

The correction tables, spaCy, the resolver and the model's client live as long as the chat. A full pass
of the collector walks every tracked object, a fifth of a second with all of that loaded, and the
screen's frames allocate enough to start one every few seconds while an answer streams. gc.freeze()
moves what exists now out of those passes; released when the chat closes (gc.unfreeze), so that a
process that opens several chats (the tests) collects each one's leftovers as before.
"""

from __future__ import annotations

import gc
import threading


class FrozenWhileOpen:
    """Freeze once, from any thread, unless the chat has closed already; release on close."""

    def __init__(self):
        self._lock = threading.Lock()
        self._frozen = False
        self._closed = False

    def freeze(self) -> None:
        with self._lock:
            if not (self._frozen or self._closed):
                gc.freeze()
                self._frozen = True

    def release(self) -> None:
        with self._lock:
            self._closed = True
            if self._frozen:
                gc.unfreeze()
                self._frozen = False
