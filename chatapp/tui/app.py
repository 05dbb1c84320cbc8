"""The chat screen: conversation on the left, what chatapp did on the right
(resolved entities, token budget per section), the live correction diff
under the input. Heavy work runs in threads so the screen paints at once.

Started from settings (as `chatapp chat` does), the chat paints first and opens the engine after
(the data dir's database, the knowledge base, the correction tiers): what is typed meanwhile is
kept, a message sent meanwhile waits for the engine with a notice, and a data dir that cannot be
used ends the chat with its one-line error (`startup_error`, raised again by `run_tui`). The
answer view, the palette's commands and the rest load on first use, not before the first frame."""

from __future__ import annotations

import sys
import threading
import time
import tomllib
from collections import deque
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.theme import Theme
from textual.widgets import Footer, Header, Static

from chatapp.config import BUDGET_PROFILE_NAMES, CORRECTION_LEVEL_NAMES
from chatapp.terminal_text import clean, plain_text
from chatapp.tui.draft_preview import DraftPreview
from chatapp.tui.frozen_heap import FrozenWhileOpen
from chatapp.tui.input_history import InputHistory
from chatapp.tui.laid_out_once import Conversation
from chatapp.tui.prompt_input import PromptInput
from chatapp.tui.startup import KnowledgeStatus
from chatapp.tui.status_bar import StatusBar
from chatapp.tui.theme_setting import apply_saved_theme
from chatapp.tui.turn_view import TurnView
from chatapp.tui.widgets import BudgetPanel, CorrectionDiff, EntityPanel, UserMessage

# How often a worker waiting for the engine looks whether opening it failed instead.
_ENGINE_POLL_SECONDS = 0.1
# How long the start-up waits for the diff of a draft typed while it opened, before loading what only a
# sent message needs (spaCy, the resolver, the knowledge base's stats): loaded at once, they competed
# with that diff for the CPU.
_FIRST_DIFF_WAIT_SECONDS = 3.0

LEVELS = CORRECTION_LEVEL_NAMES
# Installed: chatapp/themes; in a source checkout: themes/ beside the package.
_PACKAGE = Path(__file__).resolve().parent.parent
THEMES_DIR = next((p for p in (_PACKAGE / "themes", _PACKAGE.parent / "themes") if p.is_dir()), _PACKAGE / "themes")
NOTICES_KEPT = 50
# Below this many columns the side panel gives its room to the conversation (Ctrl+B shows it).
SIDE_PANEL_MIN_WIDTH = 100


def load_themes() -> list[Theme]:
    themes = []
    for path in sorted(THEMES_DIR.glob("*.toml")) if THEMES_DIR.is_dir() else []:
        try:
            themes.append(Theme(**tomllib.loads(path.read_text(encoding="utf-8"))))
        except (tomllib.TOMLDecodeError, TypeError, ValueError):
            continue  # a broken theme file must not stop the chat
    return themes


def _chat_commands():
    from chatapp.tui.commands import ChatCommands  # textual.command is not needed for the first frame

    return ChatCommands


class ChatApp(App):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: a subclass elsewhere still finds it
    TITLE = "chatapp"
    COMMANDS = App.COMMANDS | {_chat_commands}
    BINDINGS = [
        Binding("ctrl+l", "cycle_level", "Correction level"),
        Binding("escape", "stop", "Stop answer"),
        Binding("ctrl+n", "new_session", "New session"),
        Binding("ctrl+o", "sessions", "Sessions"),
        Binding("ctrl+t", "pick_model", "Model"),
        Binding("ctrl+b", "toggle_side_panel", "Side panel"),
        Binding("f1", "help", "Help"),
        # Ahead of the message box (which would move its cursor): the pages are the conversation's.
        Binding("pageup", "scroll_conversation(-1)", "Scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_conversation(1)", "Scroll down", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(self, engine=None, session_name: str | None = None, model: str | None = None,
                 api_base: str | None = None, level: str | None = None, profile: str | None = None,
                 *, settings=None, session_key: str | None = None):
        """With an open `engine`, or with `settings` only: then the engine is opened after the first
        paint, and `session_key` (a name, its start or words of its first question) is looked up then."""
        super().__init__()
        self.engine = engine  # None until opened (see start_up)
        self.settings = engine.settings if engine is not None else settings
        self.engine_ready = threading.Event()
        self._quitting = threading.Event()  # exit() called: workers waiting for the engine give up
        # Bumped whenever the conversation on screen is replaced (Ctrl+N, /new, a resume): the start-up
        # shows the --session's history only into the conversation it opened.
        self._conversation_generation = 0
        # The conversation whose stored history has been shown (or is being shown, under the lock):
        # the start-up, a resume and the first message sent race to show it, and it is shown once,
        # before that message is stored (else the message came back as history, after itself).
        self._history_lock = threading.Lock()
        self._history_shown_for: int | None = None
        if engine is not None:
            self.engine_ready.set()
        self.startup_error: Exception | None = None  # opening the engine failed: the chat ended with it
        self.session_name = session_name
        self._session_key = session_key
        # What the next turn is asked with: the flags given, else the config.
        self.level = level or self.settings.correction_level
        self.profile = profile or self.settings.budget_profile
        self.model = model or self.settings.model
        self.api_base = api_base or self.settings.api_base
        self.busy = False  # the turn shown on screen is still running
        self._live_generation = 0
        self._turn: TurnView | None = None  # the turn on screen, while it runs
        # One turn at a time in the engine: a turn left running by Ctrl+N finishes before the next starts.
        self._engine_turn = threading.Lock()
        self._side_panel_choice: bool | None = None  # None: shown when the window is wide enough
        self.live_ready = False  # the correction tiers the diff uses are loaded
        self._live_shown = threading.Event()  # a live diff has been shown
        # The text of the latest notifications shown, oldest first: what the user was told.
        self.notices: deque[str] = deque(maxlen=NOTICES_KEPT)
        self.draft_preview = DraftPreview(self)  # the side panel: the last turn's, or the draft's while typed
        self._loaded_heap = FrozenWhileOpen()  # what start_up loads: no full collection walks it
        # The themes and the saved choice before the first frame: set after it, the theme would style
        # every widget a second time (a missing theme is said in on_mount).
        for theme in load_themes():
            self.register_theme(theme)
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="body"):
            yield Conversation(id="conversation")
            with VerticalScroll(id="sidebar"):
                yield Static("Correction level", classes="sidebar-title")
                yield Static(self.level, id="level")
                yield Static("Entities", classes="sidebar-title", id="entities-title")
                yield EntityPanel(id="entities")
                yield Static("Token budget", classes="sidebar-title", id="budget-title")
                yield BudgetPanel(id="budget")
                yield Static("Knowledge", classes="sidebar-title")
                yield KnowledgeStatus(id="status")
        yield PromptInput(history=InputHistory.for_data_dir(self.settings.data_dir),
                          placeholder="Ask anything — Enter sends, Ctrl+J new line, F1 help", id="prompt")
        yield CorrectionDiff(id="diff")  # under the box, as the eye goes from typing to its correction
        yield StatusBar(id="status-bar")
        yield Footer()

    def on_mount(self) -> None:
        apply_saved_theme(self, self.settings)
        self.query_one(EntityPanel).show([])
        self.query_one(BudgetPanel).show(None)
        self.query_one("#prompt", PromptInput).focus()
        self.refresh_status_bar()
        # Follow the conversation's end while the user is there; scrolling up (PageUp, the wheel)
        # releases it, and it follows again once they are back at the bottom.
        self.query_one("#conversation", VerticalScroll).anchor()
        self._apply_side_panel()
        # After the first frame: nothing the engine needs delays it.
        self.call_after_refresh(self.start_up)

    def on_resize(self) -> None:
        self._apply_side_panel()

    def on_unmount(self) -> None:
        self._loaded_heap.release()

    def notify(self, message: str, **options) -> None:
        """Show a notification, and keep its text in `notices`. Notifications quote paths, session
        names and error messages: they are shown as plain text, cleaned, never read as markup."""
        message = clean(message)
        self.notices.append(message)
        options.pop("markup", None)
        super().notify(message, **{**options, "markup": False})

    # --- start-up and resume ------------------------------------------------------

    @work(thread=True, exclusive=True, group="startup")
    def start_up(self) -> None:
        """In order of need: the engine, the live diff's tiers (no spaCy), the knowledge base (the
        sample on a first start, with its progress shown), then what only a sent message needs."""
        if self.engine is None and not self._open_engine():
            return
        if self._quitting.is_set():  # quit before it opened: nothing more to load
            return
        conversation = self._conversation_generation
        self.engine.live_correct("warm up")
        if self.call_from_thread(self._live_diff_ready):
            self._wait_for_first_diff()
            # Its preview (a full preprocess) only now: started with the diff, it slowed the diff down.
            self.call_from_thread(self._preview_draft)
        # The known names are rated as the diff meets them (rating them all first delayed it): the rest now.
        self.engine.turns.correction.names.rate_all()
        def show_progress(event, **data):
            if not self._quitting.is_set():  # after a quit there is no screen to show it on
                self.call_from_thread(self._knowledge_event, event, data)

        report = self.engine.ensure_sample_kb(on_event=show_progress)
        if self._quitting.is_set():
            return
        if report is not None:
            self.call_from_thread(self.notify, f"Loaded the sample knowledge base ({report.files_ingested} files, "
                                  f"{report.chunks_added} chunks). Turn this off with load_sample_kb = false.",
                                  timeout=8)
        self._refresh_status()
        # A session opened meanwhile (/resume while the sample loaded) has shown its own history.
        if self.session_name and self._show_history_once(conversation):
            self.call_from_thread(self._show_session, self.session_name)
        if self._quitting.is_set():
            return
        self.engine.turns.stages  # noqa: B018 - spaCy and the resolver, before the first message
        from chatapp.nlp import load_pipeline

        load_pipeline()
        if self.model != "offline":
            from chatapp.llm.client import load_client_library

            load_client_library(self.model, self.api_base)  # seconds: paid now, not on the first message
        self._loaded_heap.freeze()  # out of the collector's full passes while the chat is open

    def _open_engine(self) -> bool:
        """Open the engine from the settings, and find the session asked for; on failure the chat
        ends and `startup_error` holds what `chatapp chat` shows as its one line."""
        try:
            engine, found = open_for_chat(self.settings, self._session_key)
            self.session_name = found or self.session_name
        except Exception as exc:  # noqa: BLE001 - whatever it is, it is shown once the screen is closed
            self.startup_error = exc
            self.call_from_thread(self.exit, return_code=1)
            return False
        self.engine = engine
        self.engine_ready.set()
        self.call_from_thread(self._engine_opened)
        return True

    def _engine_opened(self) -> None:
        # A draft typed meanwhile is previewed once its diff is shown (start_up): a full preprocess
        # started now would compete with the correction tiers' loading for the CPU.
        self.refresh_status_bar()

    def wait_for_engine(self) -> bool:
        """In a worker thread: wait until the engine is open; False if opening it failed or the chat
        is closing (a worker still waiting would keep the process from ending)."""
        while not self.engine_ready.wait(_ENGINE_POLL_SECONDS):
            if self.startup_error is not None or self._quitting.is_set():
                return False
        return True

    def exit(self, *args, **kwargs) -> None:
        self._quitting.set()
        super().exit(*args, **kwargs)

    def _engine_missing(self) -> bool:
        """On the UI thread: True (and said) if the engine is still being opened."""
        if self.engine is not None:
            return False
        self.notify("Still opening the data dir — try again in a moment.", severity="warning")
        return True

    def _live_diff_ready(self) -> bool:
        """The correction tiers are loaded: True when a draft typed meanwhile is being corrected now."""
        self.live_ready = True
        text = self.query_one("#prompt", PromptInput).value
        if not text.strip() or text.startswith("/"):
            return False
        self._live_generation += 1
        self.live_correct(text, self._live_generation)
        return True

    def _wait_for_first_diff(self) -> None:
        """In the start-up worker: until the draft's diff is shown (or the chat closes, or it takes too long)."""
        deadline = time.monotonic() + _FIRST_DIFF_WAIT_SECONDS
        while not self._live_shown.wait(_ENGINE_POLL_SECONDS):
            if self._quitting.is_set() or time.monotonic() > deadline:
                return

    def _refresh_status(self) -> None:
        stats = self.engine.kb.stats()
        self.call_from_thread(self.query_one(KnowledgeStatus).show_stats, stats, self.model)

    def _show_history_once(self, conversation: int) -> bool:
        """In a worker: show the stored history of the session on screen, unless conversation
        `conversation` is no longer the one on screen or its history was shown already. Waits while
        another worker shows it. True if it was shown here."""
        with self._history_lock:
            if conversation != self._conversation_generation or self._history_shown_for == conversation:
                return False
            self._history_shown_for = conversation
            if self.session_name:
                self._show_history()
            return True

    def _show_history(self) -> None:
        store = self.engine.sessions
        session = store.find(self.session_name)
        if session is None:
            return
        from chatapp.tui.annotations import stored_review
        from chatapp.tui.answer_view import AssistantMessage

        question_id = None
        for row in store.turns(session):
            if row["role"] == "user":
                question_id = row["id"]
                self.call_from_thread(self._add_message, UserMessage(row["content"], row["meta"].get("corrected")))
                continue
            # A first answer the checks sent back is shown with the note it had live.
            status = "superseded" if row["meta"].get("superseded") else row["status"]
            # The review it got then (verdict, flagged claims with their evidence), as it was shown then.
            review = stored_review(store, row["id"], question_id, self.engine.kb.registry)
            self.call_from_thread(self._add_message, AssistantMessage(row["content"], status=status, review=review))

    def _add_message(self, widget) -> None:
        self.query_one("#conversation", VerticalScroll).mount(widget)

    # --- the live correction diff ---------------------------------------------------------

    @on(PromptInput.Changed, "#prompt")
    def live_preview(self, event: PromptInput.Changed) -> None:
        self._live_generation += 1
        if self.engine is None:  # shown once it is open (_live_diff_ready)
            return
        self.draft_preview.draft_changed(event.value)
        if event.value.startswith("/"):
            self.query_one(CorrectionDiff).show("", None)
            return
        self.live_correct(event.value, self._live_generation)

    @work(thread=True, exclusive=True, group="live")
    def live_correct(self, text: str, generation: int) -> None:
        result = self.engine.live_correct(text, level=self.level) if text.strip() else None
        if generation == self._live_generation:  # a newer keystroke supersedes this one
            self.call_from_thread(self._show_live, text, result)

    def _show_live(self, text: str, result) -> None:
        """On the UI thread (widgets are queried there): the diff and the suggestion offered."""
        try:
            diff, prompt = self.query_one(CorrectionDiff), self.query_one(PromptInput)
        except NoMatches:  # the chat is closing: nothing left to show it in
            return
        diff.show(text, result)
        prompt.offer(text, result and result.corrected_input)
        self._live_shown.set()

    @on(PromptInput.CorrectionDismissed, "#prompt")
    def keep_as_typed(self) -> None:
        self.query_one(CorrectionDiff).update(plain_text("kept as typed: sent without correction"))

    # --- sending ---------------------------------------------------------------------

    @on(PromptInput.Submitted, "#prompt")
    def submit(self, event: PromptInput.Submitted) -> None:
        text = event.value
        if not text.strip():
            self.notify("Nothing to send: the input is empty.", severity="warning")
            return
        if text.startswith("/"):  # commands run mid-answer too: /new moves on as Ctrl+N does
            event.input.value = ""
            self.run_command(text)
            return
        if self.busy:
            self.notify("Still answering — press Esc to stop it first.", severity="warning")
            return
        event.input.value = ""
        self.busy = True
        self.draft_preview.turn_started()
        self._turn = TurnView(text, session_name=self.session_name, conversation=self._conversation_generation)
        self.query_one("#conversation", VerticalScroll).anchor()  # sending brings the end into view
        self.run_turn(self._turn, "off" if event.as_typed else self.level)

    @work(thread=True, group="turn")
    def run_turn(self, turn: TurnView, level) -> None:
        def on_event(stage: str, data: dict) -> None:
            if stage == "delta":  # many a second: handed over without waiting for the screen
                self._on_delta(turn, data["text"])
            else:
                self.call_from_thread(self._on_stage, turn, stage, data)

        try:
            if not self.engine_ready.is_set():
                self.call_from_thread(self.notify, "Opening the data dir — your message is sent as soon as it is open …")
                if not self.wait_for_engine():
                    return
                if turn.session_name is None and turn.attached:  # sent before --session was looked up
                    turn.session_name = self.session_name
            # What the session held before is shown above this question, and only that: read once
            # this turn is stored, the history would show the turn again, after itself.
            self._show_history_once(turn.conversation)
            if not self._engine_turn.acquire(blocking=False):
                if not self.draft_preview.running:  # a draft's preview holds it a moment: nothing to say
                    self.call_from_thread(self.notify, "Waiting for the answer still running in the other session …")
                self._engine_turn.acquire()
            try:
                result = self.engine.ask(turn.text, session=turn.session_name, level=level, profile=self.profile,
                                         model=self.model, api_base=self.api_base, on_event=on_event,
                                         cancel=turn.cancel)
                review = None
                if result.response is not None:  # read here: naming sources reads the registry
                    from chatapp.tui.annotations import review_of

                    review = review_of(result.response, result.preprocessed.rag_chunks, self.engine.kb.registry)
            finally:
                self._engine_turn.release()
            self.call_from_thread(self._finish, turn, result, review)
        except Exception as exc:  # noqa: BLE001 - shown to the user, never a crash of the chat
            self.call_from_thread(self.notify, f"{type(exc).__name__}: {exc}", severity="error", timeout=10)
        finally:
            self.call_from_thread(self._turn_ended, turn)

    async def _on_stage(self, turn: TurnView, stage: str, data: dict) -> None:
        if stage == "error":
            self.notify(data["message"], severity="error", timeout=10)
        if not turn.attached:  # Ctrl+N moved on: the turn goes on in its session, off screen
            return
        if stage == "correction":
            self._add_message(UserMessage(turn.text, data["result"].corrected_input))
            self.query_one(CorrectionDiff).show("", None)
        elif stage == "entities":
            self.draft_preview.show_turn_entities(data["resolved"])
        elif stage == "assembly":
            self.draft_preview.show_turn_budget(data["prompt"])
        elif stage == "regenerate" and turn.message is not None:
            await turn.message.finish("", "superseded")
        elif stage == "model":
            from chatapp.tui.answer_view import AssistantMessage

            turn.message = AssistantMessage("", status="streaming")
            self._add_message(turn.message)

    def _on_delta(self, turn: TurnView, piece: str) -> None:
        """In the turn's thread: a piece of the answer, for the message to draw with the next batch."""
        if turn.attached and turn.message is not None:
            turn.message.receive(piece)

    async def _finish(self, turn: TurnView, result, review) -> None:
        if not turn.attached:
            self.notify(f"The answer you left is complete in session {result.session_name}.", timeout=8)
            return
        self.session_name = result.session_name
        self._show_session(result.session_name)
        self.refresh_status_bar()
        if turn.message is not None:
            final = result.response.delivered if result.response else ""
            await turn.message.finish(final, result.status, review)

    async def _turn_ended(self, turn: TurnView) -> None:
        message = turn.message
        if turn.attached and message is not None and message.is_attached and message.status == "streaming":
            # The turn failed midway (an exception, not a model error the engine reported).
            await message.finish("", "failed")
        if turn is self._turn:
            self._turn = None
            self.busy = False
            # Typed while the answer ran: the draft's preview waited for the engine until now.
            self._preview_draft()

    def _preview_draft(self) -> None:
        self.draft_preview.draft_changed(self.query_one("#prompt", PromptInput).value)

    def _show_session(self, name: str) -> None:
        self.sub_title = f"session {clean(name)}"

    @work(thread=True, exclusive=True, group="status")
    def refresh_status_bar(self) -> None:
        if not self.wait_for_engine():
            return
        store = self.engine.sessions
        session = store.find(self.session_name) if self.session_name else None
        usage = store.usage_totals(session) if session is not None else None
        self.call_from_thread(self.query_one(StatusBar).show, self.model, str(self.level), self.profile, usage)

    # --- commands and keys ---------------------------------------------------------------

    def run_command(self, line: str) -> None:
        from chatapp.tui.help_screen import HELP

        command, _, argument = line[1:].partition(" ")
        argument = argument.strip()
        if command == "help":
            self.action_help()
        elif command == "level" and argument in LEVELS:
            self.set_level(argument)
        elif command == "profile" and argument in BUDGET_PROFILE_NAMES:
            self.set_profile(argument)
        elif command == "model":
            self.use_model(argument) if argument else self.action_pick_model()
        elif command == "new":
            self.action_new_session()
        elif command == "sessions":
            self.action_sessions()
        elif command == "resume" and argument:
            self.resume(argument)
        elif command == "ingest" and argument:
            self.ingest(argument)
        elif command == "export" and argument in ("md", "json", "html", ""):
            self.export(argument or "md")
        else:
            self.notify(f"Unknown command {line!r}. {HELP}", severity="warning", timeout=10)

    def resume(self, key: str) -> None:
        """Open the session `key` names: exactly, by the start of its name, or by a clear fuzzy match."""
        from chatapp.storage.sessions import SessionNotFound

        if self.busy:
            self.notify("Still answering — press Esc to stop it first.", severity="warning")
            return
        if self._engine_missing():
            return
        try:
            session = self.engine.sessions.resolve(key)
        except SessionNotFound as exc:
            self.notify(f"{str(exc)[0].upper()}{str(exc)[1:]}. Ctrl+O lists the sessions.", severity="warning")
            return
        self.action_new_session()
        self.session_name = session.name
        self._show_session(session.name)
        self.refresh_status_bar()
        self.show_history(self._conversation_generation)

    @work(thread=True, exclusive=True, group="history")
    def show_history(self, conversation: int) -> None:
        self._show_history_once(conversation)

    @work(thread=True, group="ingest")
    def ingest(self, path: str) -> None:
        self.call_from_thread(self.notify, f"Ingesting {path} …")
        if not self.wait_for_engine():
            return
        report = self.engine.ingest(Path(path).expanduser(),
                                    on_event=lambda event, **data: self.call_from_thread(self._knowledge_event, event, data))
        first = report.files_failed[0] if report.files_failed else None
        failed = (f", {len(report.files_failed)} failed ({first.path}: {first.reason}"
                  + (", …" if len(report.files_failed) > 1 else "") + ")") if first else ""
        self.call_from_thread(self.notify, f"Ingested {report.files_ingested} files ({report.chunks_added} chunks)"
                              f"{failed}, {report.files_unchanged} unchanged.",
                              severity="warning" if failed else "information", timeout=10)
        if report.sample_removed:
            self.call_from_thread(self.notify, "Removed the sample knowledge base now that your own documents are "
                                  "here (keep_sample_kb = true keeps it).", timeout=10)
        self._refresh_status()

    def _knowledge_event(self, event: str, data: dict) -> None:
        """An ingest's progress, in the side panel; on the status bar too while the panel is hidden."""
        status = self.query_one(KnowledgeStatus)
        status.ingest_event(event, data)
        self._show_loading()

    def _show_loading(self) -> None:
        status = self.query_one(KnowledgeStatus)
        hidden = not self.query_one("#sidebar").display
        self.query_one(StatusBar).show_loading(status.progress if status.in_progress and hidden else "")

    def export(self, fmt: str) -> None:
        """Write the session to data_dir/exports, in a file named after it (made safe: a session may be
        called anything, `../../x` included, and its export still lands in that folder)."""
        from chatapp.storage.export import write_export
        from chatapp.storage.filenames import UnsafePath

        if not self.session_name:
            self.notify("Nothing to export yet.", severity="warning")
            return
        if self._engine_missing():
            return
        store = self.engine.sessions
        folder = self.engine.settings.data_dir / "exports"
        try:
            path = write_export(store, store.get(self.session_name), folder, fmt)
        except (OSError, UnsafePath) as exc:
            self.notify(f"Cannot export to {folder}: {exc}", severity="error", timeout=10)
            return
        self.notify(f"Exported to {path}", timeout=10)

    def set_level(self, level: str) -> None:
        self.level = level
        self.query_one("#level", Static).update(level)
        self.live_preview(PromptInput.Changed(self.query_one("#prompt", PromptInput)))
        self.refresh_status_bar()

    def action_cycle_level(self) -> None:
        # A level given as a number (--level 0.3) steps on to the first named one.
        after = LEVELS.index(self.level) + 1 if self.level in LEVELS else 0
        self.set_level(LEVELS[after % len(LEVELS)])

    def action_stop(self) -> None:
        if self.stop_answer():
            self.notify("Stopping — what arrived is kept.")

    def stop_answer(self) -> bool:
        """Stop the answer on screen (safe from any thread or a signal handler); False if none runs."""
        turn = self._turn
        if not self.busy or turn is None:
            return False
        turn.cancel.set()
        return True

    def action_new_session(self) -> None:
        if self._turn is not None:
            # The running answer stays in its own session (and is finished and checked there);
            # the screen, and the next message, belong to the new one.
            self._turn.attached = False
            self._turn = None
            self.busy = False
            self.notify("The answer still coming goes on in its own session; your next message starts a new one.")
        self.session_name = None
        self._conversation_generation += 1
        self.query_one("#conversation", VerticalScroll).remove_children()
        self.draft_preview.reset()
        self.sub_title = "new session"
        self.refresh_status_bar()
        self.query_one("#conversation", VerticalScroll).anchor()
    # --- sessions, model, profile, help: the screens and commands of chatapp/tui ------------------

    def action_help(self) -> None:
        from chatapp.tui.help_screen import HelpScreen

        self.push_screen(HelpScreen())

    def action_sessions(self) -> None:
        from chatapp.tui.sessions_screen import SessionsScreen, follow_sessions_screen

        if self._engine_missing():
            return
        screen = SessionsScreen(self.engine.sessions, self.engine.settings.data_dir / "exports", self.session_name)
        self.push_screen(screen, lambda result: follow_sessions_screen(self, result))

    def action_pick_model(self) -> None:
        from chatapp.tui.model_picker import ModelPicker

        picker = ModelPicker(self.model, self.settings.model, self.api_base)
        self.push_screen(picker, lambda chosen: chosen and self.use_model(*chosen))

    def use_model(self, model: str, save: bool = False) -> None:
        """Answer with `model` from the next message on; with `save`, also in later chats (config).
        A name no provider can take is refused here, in one line, as `--model` is on the command line."""
        from chatapp.config import ConfigError, checked_value

        try:
            model = checked_value("model", model, "/model")
        except ConfigError as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        self._check_and_use_model(model, save)

    @work(thread=True, group="model")
    def _check_and_use_model(self, model: str, save: bool) -> None:
        # In a worker: telling whether litellm can route a name may import it (seconds).
        from chatapp.llm.client import model_problem

        problem = model_problem(model, self.api_base)
        if problem:
            self.call_from_thread(self.notify, f"{problem}; still answering with {self.model}.",
                                  severity="error", timeout=10)
            return
        self.call_from_thread(self._switch_model, model, save)
        from chatapp.llm.client import load_client_library

        load_client_library(model, self.api_base)  # paid now, not on the next message

    def _switch_model(self, model: str, save: bool) -> None:
        from chatapp.config import ConfigError
        from chatapp.config_file import save_settings

        self.model = model
        try:
            if save:
                extra = {"api_base": self.api_base} if self.api_base and model != "offline" else {}
                path = save_settings(self.settings, model=self.model, **extra)
                self.notify(f"Model {self.model} saved to {path}.")
        except ConfigError as exc:
            self.notify(str(exc), severity="error", timeout=10)
        self.refresh_status_bar()

    def set_profile(self, profile: str) -> None:
        self.profile = profile
        self.draft_preview.draft_changed(self.query_one("#prompt", PromptInput).value)  # budgets differ
        self.refresh_status_bar()

    def fill_prompt(self, text: str) -> None:
        prompt = self.query_one("#prompt", PromptInput)
        prompt.value = text
        prompt.focus()


    def action_toggle_side_panel(self) -> None:
        self._side_panel_choice = not self.query_one("#sidebar").display
        self._apply_side_panel()

    def _apply_side_panel(self) -> None:
        wide = self.size.width >= SIDE_PANEL_MIN_WIDTH
        shown = wide if self._side_panel_choice is None else self._side_panel_choice
        if self._side_panel_choice is not None and self._side_panel_choice == wide:
            self._side_panel_choice = None  # the choice now matches the default: follow the width again
        sidebar = self.query_one("#sidebar")
        sidebar.display = shown
        sidebar.set_class(not wide, "narrow")
        self._show_loading()

    def on_key(self, event) -> None:
        # Typing is for the message: a character typed with the focus elsewhere in the chat (after a
        # click in the conversation, on a claim or on Sources) that the widget there did not take goes
        # into the box, which takes the focus. Keys of the same burst already handed to that widget
        # arrive here after it; the box takes them too.
        if self.screen is not self.screen_stack[0] or not (event.is_printable and event.character):
            return
        prompt = self.query_one("#prompt", PromptInput)
        self.screen.set_focus(prompt)
        prompt.insert(event.character)
        event.stop()

    def check_action(self, action: str, parameters) -> bool | None:
        # PageUp/PageDown scroll the conversation from anywhere in it; over help, sessions or the
        # model picker they are that screen's own keys (the conversation is hidden under it).
        if action == "scroll_conversation" and self.screen is not self.screen_stack[0]:
            return False
        return super().check_action(action, parameters)

    def action_scroll_conversation(self, direction: int) -> None:
        conversation = self.query_one("#conversation", VerticalScroll)
        if direction < 0:
            conversation.scroll_page_up()
        else:
            conversation.scroll_page_down()


def open_for_chat(settings, session_key: str | None):
    """The engine for `settings`, and the name of the session `session_key` names (SessionStore.resolve;
    a key that names none is the name of a new session). AmbiguousSession if it names several."""
    from chatapp.engine import ChatEngine
    from chatapp.storage.sessions import AmbiguousSession, SessionNotFound

    engine = ChatEngine(settings)
    if not session_key:
        return engine, None
    try:
        return engine, engine.sessions.resolve(session_key).name
    except AmbiguousSession:  # (a kind of SessionNotFound) which one is the user's to say
        engine.close()
        raise
    except SessionNotFound:
        return engine, session_key


def run_tui(settings, session_key: str | None = None, **choices) -> None:
    """The chat on this terminal, from `settings`: it paints, then opens the engine. A data dir that
    cannot be used is raised here, after the screen is closed, for the caller's one-line error."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        engine, _ = open_for_chat(settings, session_key)  # its problems are still said first
        engine.close()
        print("chatapp: the chat needs a terminal. From scripts use `chatapp ask \"…\" [--json]`; "
              "see `chatapp --help`.")
        return
    from chatapp.tui.termination import stopped_cleanly_on_termination

    app = ChatApp(settings=settings, session_key=session_key, **choices)
    with stopped_cleanly_on_termination(app):  # SIGTERM/SIGHUP: the answer is stored, then the app exits
        app.run()
    if app.startup_error is not None:
        raise app.startup_error
