"""What the next turn will use, shown while the user types: the draft is preprocessed (entities,
retrieval, prompt assembly) off the UI thread a moment after the last keystroke, and the side panel's
entity list and budget bars show the result under "(next turn)" titles until the turn runs.

The draft is never stored: the preview calls the turn runner's preprocess, which only reads the
session (for its dialogue state), never `ChatEngine.preprocess` with a session, which keeps a
"preview" turn in it."""

from __future__ import annotations

from textual.timer import Timer
from textual.widgets import Static

from chatapp.tui.widgets import BudgetPanel, EntityPanel

# Long enough that a word typed at speed runs one preview, short enough that a pause shows it.
DEBOUNCE_SECONDS = 0.35
# How often a preview waiting for the engine looks whether it is still wanted.
_LOCK_POLL_SECONDS = 0.05
ENTITIES_TITLE = "Entities"
BUDGET_TITLE = "Token budget"
NEXT_TURN = " (next turn)"


class DraftPreview:
    """The side panel's entities and budget: those of the last turn, or of the draft while one is typed.

    `app` is the ChatApp: its engine, session, level and profile say how the draft would be asked; its
    `_engine_turn` lock keeps a preview and a turn from running the stages at once."""

    def __init__(self, app):
        self.app = app
        self._generation = 0  # bumped by each keystroke and each sent turn: older previews are dropped
        self._timer: Timer | None = None
        self._turn_entities: list = []  # what the last turn used, shown again when the draft is cleared
        self._turn_prompt = None
        self.showing_preview = False
        self.running = False  # a preview holds the engine now (a turn waiting for it says nothing)

    # --- what the last turn used ------------------------------------------------------------

    def show_turn_entities(self, resolved) -> None:
        self._turn_entities = list(resolved)
        self._drop_preview()
        self.app.query_one(EntityPanel).show(self._turn_entities)

    def show_turn_budget(self, prompt) -> None:
        self._turn_prompt = prompt
        self._drop_preview()
        self.app.query_one(BudgetPanel).show(prompt)

    def reset(self) -> None:
        """A new session: no last turn, no preview."""
        self._turn_entities, self._turn_prompt = [], None
        self.clear()

    # --- the draft ------------------------------------------------------------------------

    def draft_changed(self, text: str) -> None:
        """On each keystroke: the preview runs once the typing pauses; an empty draft or a command clears it."""
        self._generation += 1
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if not text.strip() or text.startswith("/"):
            self.clear()
            return
        generation = self._generation
        self._timer = self.app.set_timer(DEBOUNCE_SECONDS, lambda: self._start(text, generation))

    def turn_started(self) -> None:
        """A message was sent: a preview still on its way is stale; the turn's own stages fill the panel."""
        self.draft_changed("")

    def clear(self) -> None:
        """Back to what the last turn used."""
        self._drop_preview()
        self.app.query_one(EntityPanel).show(self._turn_entities)
        self.app.query_one(BudgetPanel).show(self._turn_prompt)

    def _drop_preview(self) -> None:
        self.showing_preview = False
        self._set_titles("")

    def _set_titles(self, suffix: str) -> None:
        self.app.query_one("#entities-title", Static).update(ENTITIES_TITLE + suffix)
        self.app.query_one("#budget-title", Static).update(BUDGET_TITLE + suffix)

    def _start(self, text: str, generation: int) -> None:
        if generation != self._generation or self.app.busy:
            return
        self.app.run_worker(lambda: self._preprocess(text, generation), thread=True, exclusive=True,
                            group="draft-preview", exit_on_error=False)

    def _wanted(self, generation: int) -> bool:
        return generation == self._generation and not self.app.busy

    def _preprocess(self, text: str, generation: int) -> None:
        """In a worker thread: the draft through the stages, nothing stored, the result shown if still wanted."""
        app = self.app
        lock = app._engine_turn
        # A running turn, or an older preview, holds the engine: wait for it only while this draft is newest.
        while not lock.acquire(timeout=_LOCK_POLL_SECONDS):
            if not self._wanted(generation):
                return
        try:
            if not self._wanted(generation):
                return
            self.running = True
            try:
                session = app.engine.sessions.find(app.session_name) if app.session_name else None
                pre = app.engine.turns.preprocess(text, session=session, level=app.level, profile=app.profile)
            except Exception:  # noqa: BLE001 - a draft that cannot be previewed just shows no preview
                return
        finally:
            self.running = False
            lock.release()
        app.call_from_thread(self._show_preview, pre, generation)

    def _show_preview(self, pre, generation: int) -> None:
        if not self._wanted(generation):  # typed on, cleared or sent meanwhile
            return
        self.showing_preview = True
        self._set_titles(NEXT_TURN)
        self.app.query_one(EntityPanel).show(pre.resolved_entities)
        self.app.query_one(BudgetPanel).show(pre.prompt)
