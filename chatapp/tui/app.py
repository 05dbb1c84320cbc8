"""The chat screen: conversation on the left, what chatapp did on the right
(resolved entities, token budget per section), the live correction diff
under the input. Heavy work runs in threads so the screen paints at once."""

from __future__ import annotations

import sys
import threading
import tomllib
from collections import deque
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.theme import Theme
from textual.widgets import Footer, Header, Input, Static

from chatapp.terminal_text import clean, plain_text
from chatapp.tui.widgets import AssistantMessage, BudgetPanel, CorrectionDiff, EntityPanel, UserMessage

LEVELS = ("off", "minimal", "standard", "aggressive")
# Installed: chatapp/themes; in a source checkout: themes/ beside the package.
_PACKAGE = Path(__file__).resolve().parent.parent
THEMES_DIR = next((p for p in (_PACKAGE / "themes", _PACKAGE.parent / "themes") if p.is_dir()), _PACKAGE / "themes")
HELP = (
    "Type a message and press Enter. Commands: /ingest PATH, /level off|minimal|standard|aggressive, "
    "/new, /sessions, /resume NAME, /export md|json|html, /help. Esc stops an answer; Ctrl+L changes "
    "the correction level."
)
SESSIONS_SHOWN = 10
NOTICES_KEPT = 50


def verdict_line(recommendation: str, confidence: float, flags: list[tuple[str, bool]]) -> str:
    """"AcceptWithFlags · confidence 0.72 · UnsupportedClaim, WrongAttribute (corrected)"."""
    kinds = ", ".join(sorted({kind + (" (corrected)" if corrected else "") for kind, corrected in flags}))
    return f"{recommendation} · confidence {confidence:.2f} · {kinds or 'no flags'}"


def load_themes() -> list[Theme]:
    themes = []
    for path in sorted(THEMES_DIR.glob("*.toml")) if THEMES_DIR.is_dir() else []:
        try:
            themes.append(Theme(**tomllib.loads(path.read_text(encoding="utf-8"))))
        except (tomllib.TOMLDecodeError, TypeError, ValueError):
            continue  # a broken theme file must not stop the chat
    return themes


class ChatApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "chatapp"
    BINDINGS = [
        Binding("ctrl+l", "cycle_level", "Correction level"),
        Binding("escape", "stop", "Stop answer"),
        Binding("ctrl+n", "new_session", "New session"),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(self, engine, session_name: str | None = None):
        super().__init__()
        self.engine = engine
        self.session_name = session_name
        level = engine.settings.correction_level
        self.level = level if level in LEVELS else "standard"
        self.cancel = threading.Event()
        self.busy = False
        self._live_generation = 0
        self._current: AssistantMessage | None = None
        # The text of the latest notifications shown, oldest first: what the user was told.
        self.notices: deque[str] = deque(maxlen=NOTICES_KEPT)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="body"):
            yield VerticalScroll(id="conversation")
            with Vertical(id="sidebar"):
                yield Static("Correction level", classes="sidebar-title")
                yield Static(self.level, id="level")
                yield Static("Entities", classes="sidebar-title")
                yield EntityPanel(id="entities")
                yield Static("Token budget", classes="sidebar-title")
                yield BudgetPanel(id="budget")
                yield Static("Knowledge", classes="sidebar-title")
                yield Static("loading…", id="status")
        yield CorrectionDiff(id="diff")
        yield Input(placeholder="Ask anything — /help for commands", id="prompt")
        yield Footer()

    def on_mount(self) -> None:
        for theme in load_themes():
            self.register_theme(theme)
        if "chatapp-dark" in self.available_themes:
            self.theme = "chatapp-dark"
        self.query_one(EntityPanel).show([])
        self.query_one(BudgetPanel).show(None)
        self.query_one("#prompt", Input).focus()
        self.start_up()

    def notify(self, message: str, **options) -> None:
        """Show a notification, and keep its text in `notices`. Notifications quote paths, session
        names and error messages: they are shown as plain text, cleaned, never read as markup."""
        message = clean(message)
        self.notices.append(message)
        super().notify(message, **{**options, "markup": False})

    # --- start-up and resume ------------------------------------------------------

    @work(thread=True, exclusive=True, group="startup")
    def start_up(self) -> None:
        report = self.engine.ensure_sample_kb()
        if report is not None:
            self.call_from_thread(self.notify, f"Loaded the sample knowledge base ({report.files_ingested} files). "
                                  "Turn this off with load_sample_kb = false.", timeout=8)
        self._refresh_status()
        if self.session_name:
            self._show_history()
            self.call_from_thread(self._show_session, self.session_name)
        self.engine.live_correct("warm up")  # load the correction models before the first keystroke
        if self.engine.settings.model != "offline":
            from chatapp.llm.client import load_litellm

            load_litellm()  # its import takes seconds: pay it now, not on the first message

    def _refresh_status(self) -> None:
        stats = self.engine.kb.stats()
        text = (f"{stats['documents']} documents · {stats['chunks']} chunks\n{stats['entities']} entities · "
                f"{stats['facts']} facts\nmodel: {self.engine.settings.model}")
        self.call_from_thread(self.query_one("#status", Static).update, plain_text(text))

    def _show_history(self) -> None:
        store = self.engine.sessions
        session = store.find(self.session_name)
        if session is None:
            return
        for row in store.turns(session):
            if row["role"] == "user":
                self.call_from_thread(self._add_message, UserMessage(row["content"], row["meta"].get("corrected")))
                continue
            self.call_from_thread(self._add_message, AssistantMessage(row["content"], status=row["status"]))
            verdict = store.verdict(row["id"])
            if verdict is not None:  # the verdict it got then, as it was shown then
                self.call_from_thread(self._add_message, Static(plain_text(verdict_line(*verdict)), classes="verdict"))

    def _add_message(self, widget) -> None:
        conversation = self.query_one("#conversation", VerticalScroll)
        conversation.mount(widget)
        conversation.scroll_end(animate=False)

    # --- the live correction diff ---------------------------------------------------------

    @on(Input.Changed, "#prompt")
    def live_preview(self, event: Input.Changed) -> None:
        self._live_generation += 1
        if event.value.startswith("/"):
            self.query_one(CorrectionDiff).show("", None)
            return
        self.live_correct(event.value, self._live_generation)

    @work(thread=True, exclusive=True, group="live")
    def live_correct(self, text: str, generation: int) -> None:
        result = self.engine.live_correct(text, level=self.level) if text.strip() else None
        if generation == self._live_generation:  # a newer keystroke supersedes this one
            self.call_from_thread(self.query_one(CorrectionDiff).show, text, result)

    # --- sending ---------------------------------------------------------------------

    @on(Input.Submitted, "#prompt")
    def submit(self, event: Input.Submitted) -> None:
        text = event.value
        if not text.strip():
            self.notify("Nothing to send: the input is empty.", severity="warning")
            return
        if self.busy:
            self.notify("Still answering — press Esc to stop it first.", severity="warning")
            return
        event.input.value = ""
        if text.startswith("/"):
            self.run_command(text)
            return
        self.busy = True
        self.cancel.clear()
        self._current = None
        self.run_turn(text)

    @work(thread=True, exclusive=True, group="turn")
    def run_turn(self, text: str) -> None:
        def on_event(stage: str, data: dict) -> None:
            self.call_from_thread(self._on_stage, stage, data, text)

        try:
            result = self.engine.ask(text, session=self.session_name, level=self.level, on_event=on_event,
                                     cancel=self.cancel)
            self.session_name = result.session_name
            final = result.response.delivered if result.response else (self._current.text if self._current else "")
            self.call_from_thread(self._finish, final, result.status, result)
        except Exception as exc:  # noqa: BLE001 - shown to the user, never a crash of the chat
            self.call_from_thread(self.notify, f"{type(exc).__name__}: {exc}", severity="error", timeout=10)
        finally:
            self.busy = False

    def _on_stage(self, stage: str, data: dict, text: str) -> None:
        if stage == "correction":
            self._add_message(UserMessage(text, data["result"].corrected_input))
            self.query_one(CorrectionDiff).show("", None)
        elif stage == "entities":
            self.query_one(EntityPanel).show(data["resolved"])
        elif stage == "assembly":
            self.query_one(BudgetPanel).show(data["prompt"])
        elif stage == "model":
            self._current = AssistantMessage("", status="streaming")
            self._add_message(self._current)
        elif stage == "delta" and self._current is not None:
            self._current.append(data["text"])
            self.query_one("#conversation", VerticalScroll).scroll_end(animate=False)
        elif stage == "error":
            self.notify(data["message"], severity="error", timeout=10)

    def _finish(self, text: str, status: str, result) -> None:
        if self._current is not None:
            self._current.finish(text, status)
        if result.response is not None:
            response = result.response
            flags = [(f.hallucination_type, f.corrected) for f in response.hallucination_flags]
            self._add_message(Static(plain_text(verdict_line(response.recommendation, response.confidence, flags)),
                                     classes="verdict"))
        self._show_session(result.session_name)

    def _show_session(self, name: str) -> None:
        self.sub_title = f"session {clean(name)}"

    # --- commands and keys ---------------------------------------------------------------

    def run_command(self, line: str) -> None:
        command, _, argument = line[1:].partition(" ")
        argument = argument.strip()
        if command == "help":
            self.notify(HELP, timeout=15)
        elif command == "level" and argument in LEVELS:
            self._set_level(argument)
        elif command == "new":
            self.action_new_session()
        elif command == "sessions":
            self.list_sessions()
        elif command == "resume" and argument:
            self.resume(argument)
        elif command == "ingest" and argument:
            self.ingest(argument)
        elif command == "export" and argument in ("md", "json", "html", ""):
            self.export(argument or "md")
        else:
            self.notify(f"Unknown command {line!r}. {HELP}", severity="warning", timeout=10)

    def list_sessions(self) -> None:
        rows = self.engine.sessions.list()
        if not rows:
            self.notify("No sessions yet: the first message starts one.")
            return
        lines = [f"{row['name']} · {row['turns']} turns · {row['updated_at'][:16].replace('T', ' ')}"
                 for row in rows[:SESSIONS_SHOWN]]
        more = f"\n… and {len(rows) - SESSIONS_SHOWN} more (chatapp sessions list)" if len(rows) > SESSIONS_SHOWN else ""
        self.notify("Recent sessions — /resume NAME:\n" + "\n".join(lines) + more, timeout=20)

    def resume(self, key: str) -> None:
        if self.busy:
            self.notify("Still answering — press Esc to stop it first.", severity="warning")
            return
        session = self.engine.sessions.find(key)
        if session is None:
            self.notify(f"No session called {key!r}: /sessions lists them.", severity="warning")
            return
        self.action_new_session()
        self.session_name = session.name
        self._show_session(session.name)
        self.show_history()

    @work(thread=True, exclusive=True, group="history")
    def show_history(self) -> None:
        self._show_history()

    @work(thread=True, group="ingest")
    def ingest(self, path: str) -> None:
        self.call_from_thread(self.notify, f"Ingesting {path} …")
        report = self.engine.ingest(Path(path).expanduser())
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

    def export(self, fmt: str) -> None:
        """Write the session to data_dir/exports, in a file named after it (made safe: a session may be
        called anything, `../../x` included, and its export still lands in that folder)."""
        from chatapp.storage.export import FORMATS, export_file, session_transcript
        from chatapp.storage.filenames import UnsafePath

        if not self.session_name:
            self.notify("Nothing to export yet.", severity="warning")
            return
        store = self.engine.sessions
        session = store.get(self.session_name)
        folder = self.engine.settings.data_dir / "exports"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = export_file(folder, session, fmt)
            path.write_text(FORMATS[fmt](session_transcript(store, session)), encoding="utf-8")
        except (OSError, UnsafePath) as exc:
            self.notify(f"Cannot export to {folder}: {exc}", severity="error", timeout=10)
            return
        self.notify(f"Exported to {path}", timeout=10)

    def _set_level(self, level: str) -> None:
        self.level = level
        self.query_one("#level", Static).update(level)
        self.live_preview(Input.Changed(self.query_one("#prompt", Input), self.query_one("#prompt", Input).value))

    def action_cycle_level(self) -> None:
        self._set_level(LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)])

    def action_stop(self) -> None:
        if self.busy:
            self.cancel.set()
            self.notify("Stopping — what arrived is kept.")

    def action_new_session(self) -> None:
        self.session_name = None
        self.query_one("#conversation", VerticalScroll).remove_children()
        self.query_one(EntityPanel).show([])
        self.query_one(BudgetPanel).show(None)
        self.sub_title = "new session"


def run_tui(engine, session_name: str | None = None) -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("chatapp: the chat needs a terminal. From scripts use `chatapp ask \"…\" [--json]`; "
              "see `chatapp --help`.")
        return
    from chatapp.tui.termination import stopped_cleanly_on_termination

    app = ChatApp(engine, session_name)
    with stopped_cleanly_on_termination(app):  # SIGTERM/SIGHUP: the answer is stored, then the app exits
        app.run()
