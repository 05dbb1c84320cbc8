"""SIGTERM and SIGHUP end the chat the way Esc and Ctrl+Q would: nothing streamed is lost.

Killed by default, the process would leave an answer half-written with the last half second of it
unsaved and the turn 'streaming' until another chatapp noticed the process was gone. Instead the
signal stops the answer (the same cancel event Esc sets, so the turn is stored with what arrived and
marked interrupted) and the app exits once the turn is stored, or after GRACE_SECONDS whatever
happens (the checkpoint thread has saved what arrived by then, and a later start marks the turn).
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

from chatapp.termination_signals import on_termination

GRACE_SECONDS = 5.0
_POLL_SECONDS = 0.05


@contextmanager
def stopped_cleanly_on_termination(app):
    """While the app runs, SIGTERM/SIGHUP stop its answer and then exit it. `app` is the ChatApp:
    `stop_answer()` stops the answer on screen, `busy` is true until its turn is stored. (An answer
    left running in an earlier session by Ctrl+N keeps its checkpoints; the next start marks it.)"""
    def exit_once_stored() -> None:
        deadline = time.monotonic() + GRACE_SECONDS
        while app.busy and time.monotonic() < deadline:
            time.sleep(_POLL_SECONDS)
        try:
            app.call_from_thread(app.exit)
        except RuntimeError:  # the app has stopped already
            pass

    def on_signal(signum, frame) -> None:
        app.stop_answer()
        threading.Thread(target=exit_once_stored, name="exit-on-signal", daemon=True).start()

    with on_termination(on_signal):
        yield
