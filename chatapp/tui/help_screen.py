"""The help screen (F1 or /help): every key and command of the chat, from the tables below, which
the unknown-command notice and the README's "In the chat" section follow."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

KEYS = [
    ("Enter", "send the message"),
    ("Shift+Enter, Ctrl+J", "new line in the message (Shift+Enter where the terminal reports it)"),
    ("Up / Down", "earlier messages you sent (on the first / last line of the box)"),
    ("Tab", "take the correction shown under the box into the message"),
    ("Ctrl+G", "keep the message as typed: it is sent without correction"),
    ("Esc", "stop the answer (what arrived is kept)"),
    ("Ctrl+L", "next correction level"),
    ("Ctrl+N", "new session"),
    ("Ctrl+O", "sessions: open, rename, delete, export"),
    ("Ctrl+T", "choose the model"),
    ("Ctrl+B", "show or hide the side panel (hidden below 100 columns)"),
    ("PageUp / PageDown", "scroll the conversation (it stops following the answer until you are back at the end)"),
    ("Ctrl+P", "command palette: levels, profiles, model, theme, sessions, export, ingest, panel"),
    ("F1", "this help"),
    ("Ctrl+Q", "quit"),
]

COMMANDS = [
    ("/help", "this help"),
    ("/new", "start a new session"),
    ("/sessions", "the sessions screen"),
    ("/resume NAME", "open a session by its name, the start of it, or words of its first question"),
    ("/export md|json|html", "write this session to data_dir/exports"),
    ("/ingest PATH", "add a file or folder to the knowledge base"),
    ("/level off|minimal|standard|aggressive", "how boldly your input is corrected"),
    ("/profile default|compact|standard|extended", "the token budget profile"),
    ("/model [NAME]", "choose the model (with a name: use it now)"),
]

HELP = "Commands: " + ", ".join(name.split(" ")[0] for name, _ in COMMANDS) + ". F1 or /help lists keys and commands."


def _table(title: str, rows: list[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left", box=None, show_header=False, padding=(0, 2, 0, 0))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, what in rows:
        table.add_row(key, what)
    return table


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 100; max-width: 95%; height: auto; max-height: 90%;
                                  border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(_table("Keys", KEYS), id="help-keys")
            yield Static(_table("Commands", COMMANDS), id="help-commands")
        yield Footer()

    def on_mount(self) -> None:
        # Focused, so the arrows and PageUp/PageDown scroll it: on a small terminal it is taller than the screen.
        self.query_one(VerticalScroll).focus()
