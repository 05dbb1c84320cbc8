"""A turn as the chat screen follows it: the message sent, the session it belongs to, its stop
switch, the answer widget it streams into, and whether the screen still shows it.

Ctrl+N (or /new) while an answer streams detaches the turn: it runs on and is stored, checked and
finished in its own session, while the screen and the next message belong to the new session.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class TurnView:
    text: str
    session_name: str | None = None  # None: the engine starts a new session for it
    conversation: int = 0  # the app's conversation generation it was sent in (Ctrl+N, a resume start another)
    cancel: threading.Event = field(default_factory=threading.Event)
    message: Any = None  # the AssistantMessage, once the model starts
    attached: bool = True
