"""A streaming answer kept on disk while it arrives.

A background thread writes the text that arrived within CHECKPOINT_SECONDS,
whether or not more comes: a stream that stalls and is then killed keeps
everything that was on screen. The same thread beats a heartbeat into the
turn so that another process can tell a live stream from one whose process
died (or whose pid a new process has taken over): see
SessionStore.mark_orphans_interrupted.
"""

from __future__ import annotations

import threading

from chatapp.storage.sessions import HEARTBEAT_SECONDS, SessionStore
from chatapp.surrogates import repair_surrogates

# Text that arrived is on disk at most this long after it arrived.
CHECKPOINT_SECONDS = 0.5


class StreamCheckpoint:
    """Collects the pieces of one assistant turn and saves them from a daemon thread."""

    def __init__(self, store: SessionStore, turn_id: int):
        self.store = store
        self.turn_id = turn_id
        self._pieces: list[str] = []
        self._lock = threading.Lock()
        self._version = 0  # pieces added so far
        self._saved_version = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"checkpoint-turn-{turn_id}", daemon=True)

    def start(self) -> "StreamCheckpoint":
        self._thread.start()
        return self

    def add(self, piece: str) -> None:
        with self._lock:
            self._pieces.append(piece)
            self._version += 1

    @property
    def text(self) -> str:
        """Everything that arrived, halves of split characters joined (a lone half as U+FFFD)."""
        with self._lock:
            return repair_surrogates("".join(self._pieces))

    def stop(self) -> None:
        """Stop the thread (waiting for a write under way); the caller writes the final text and status next."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        # Waking at half the promise leaves the other half for the write itself.
        since_beat = 0.0
        while not self._stop.wait(CHECKPOINT_SECONDS / 2):
            since_beat += CHECKPOINT_SECONDS / 2
            with self._lock:
                version = self._version
            try:
                if version != self._saved_version:
                    self.store.checkpoint(self.turn_id, self.text)
                    self._saved_version, since_beat = version, 0.0
                elif since_beat >= HEARTBEAT_SECONDS:
                    self.store.heartbeat(self.turn_id)
                    since_beat = 0.0
            except Exception:  # noqa: BLE001 - a busy or full disk must not end the stream; the next wake retries
                continue
