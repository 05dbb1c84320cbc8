"""The sessions screen: every session, most recent first, with its first question as title, how many
questions it holds and when it was last used. Type to filter (by name, prefix or words of the first
question); Enter opens the highlighted session, R renames it, D deletes it (press D twice), E exports
it as Markdown into data_dir/exports. Esc closes.

It returns what the chat must follow: {"open": name or None, "renamed": {old: new}, "deleted": [names]}.
"""

from __future__ import annotations

from rapidfuzz import fuzz
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Static

from chatapp.storage.sessions import SessionNameTaken, SessionStore
from chatapp.storage.titles import session_title
from chatapp.terminal_text import clean, plain_text

TITLE_WIDTH = 60
# What the other columns take (question count, date, the gaps between): a narrow terminal cuts the
# title shorter so that the date still shows; the name, last, may then run off to the right.
OTHER_COLUMNS = 38
# How well a filter must match a session's name or first question (0–100) for the row to stay.
FILTER_SCORE = 70


def filtered(rows: list[dict], text: str) -> list[dict]:
    """The rows `text` matches: every row for no text; otherwise those whose name starts with it or
    that match it closely by name or first question, best first."""
    wanted = text.strip().casefold()
    if not wanted:
        return rows
    scored = []
    for row in rows:
        name = row["name"].casefold()
        score = 100.0 if name.startswith(wanted) else max(
            fuzz.partial_ratio(wanted, name), fuzz.partial_ratio(wanted, (row.get("title") or "").casefold()))
        if score >= FILTER_SCORE:
            scored.append((score, row))
    return [row for _, row in sorted(scored, key=lambda pair: pair[0], reverse=True)]


class SessionsScreen(ModalScreen[dict]):
    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    SessionsScreen > Vertical { width: 90%; height: 80%; border: round $accent; background: $surface; padding: 0 1; }
    SessionsScreen DataTable { height: 1fr; }
    SessionsScreen #sessions-note { color: $text-muted; height: auto; }
    SessionsScreen #rename { display: none; }
    SessionsScreen #rename.renaming { display: block; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("enter", "open", "Open", priority=False),
        Binding("r", "rename", "Rename"),
        Binding("d", "delete", "Delete"),
        Binding("e", "export", "Export"),
    ]

    def __init__(self, store: SessionStore, exports_folder, current: str | None = None):
        super().__init__()
        self.store, self.exports_folder, self.current = store, exports_folder, current
        self.rows: list[dict] = []
        self.shown: list[dict] = []
        self.result: dict = {"open": None, "renamed": {}, "deleted": []}
        self._delete_armed: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Sessions — type to filter · Enter open · R rename · D delete · E export · Esc close",
                         classes="sidebar-title")
            yield Input(placeholder="filter by name or first question", id="filter", select_on_focus=False)
            yield Input(placeholder="new name, then Enter (Esc: keep the name)", id="rename")
            yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
            yield Static("", id="sessions-note")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("first question", "questions", "updated", "name")
        self.reload()
        table.focus()

    def reload(self) -> None:
        self.rows = self.store.list()
        self._show(filtered(self.rows, self.query_one("#filter", Input).value))

    def _show(self, rows: list[dict]) -> None:
        # The row the cursor was on stays under it (a session just renamed is the one E then exports).
        highlighted = self._highlighted()
        self.shown = rows
        table = self.query_one(DataTable)
        table.clear()
        width = max(20, min(TITLE_WIDTH, self.app.size.width * 9 // 10 - OTHER_COLUMNS))
        for row in rows:
            marker = "● " if row["name"] == self.current else ""
            table.add_row(plain_text(marker + session_title(row, width)), str(row["questions"]),
                          row["updated_at"][:16].replace("T", " "), plain_text(row["name"]), key=row["id"])
        kept = [i for i, row in enumerate(rows) if highlighted and row["id"] == highlighted["id"]]
        if kept:
            table.move_cursor(row=kept[0])
        self.note("No sessions yet: the first message starts one." if not self.rows else
                  "No session matches the filter." if not rows else "")

    def note(self, text: str) -> None:
        self.query_one("#sessions-note", Static).update(plain_text(text))

    def _highlighted(self) -> dict | None:
        table = self.query_one(DataTable)
        if not self.shown or table.cursor_row is None or table.cursor_row >= len(self.shown):
            return None
        return self.shown[table.cursor_row]

    # --- filter and keys -----------------------------------------------------------------

    @on(Input.Changed, "#filter")
    def _filter(self, event: Input.Changed) -> None:
        self._show(filtered(self.rows, event.value))

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one(DataTable).focus()

    def on_key(self, event) -> None:
        # A letter typed over the list goes to the filter (R, D and E are the list's own keys), and so
        # does the rest of the word: keys typed in one burst (a fast typist, a paste) were all handed
        # to the list before the first moved the focus, and reach here after it, where a "d" is a
        # letter of the filter, not the list's Delete. (The box takes what is typed in it itself.)
        if not (event.is_printable and event.character):
            return
        box = self.query_one("#filter", Input)
        typing = self.focused is box
        if typing or (self.focused is self.query_one(DataTable) and event.character not in "rde"
                      and not event.character.isspace()):
            self.set_focus(box)  # now, not after this message, for the keys of the same burst
            box.insert_text_at_cursor(event.character)
            event.stop()
            event.prevent_default()

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        row = self._highlighted()
        if row is not None:
            self.result["open"] = row["name"]
            self.dismiss(self.result)

    def action_close(self) -> None:
        rename = self.query_one("#rename", Input)
        if rename.has_class("renaming"):
            rename.remove_class("renaming")
            self.query_one(DataTable).focus()
            return
        self.dismiss(self.result)

    def action_rename(self) -> None:
        row = self._highlighted()
        if row is None:
            return
        box = self.query_one("#rename", Input)
        box.value = row["name"]
        box.add_class("renaming")
        box.focus()

    @on(Input.Submitted, "#rename")
    def _renamed(self, event: Input.Submitted) -> None:
        row = self._highlighted()
        event.input.remove_class("renaming")
        self.query_one(DataTable).focus()
        if row is None:
            return
        try:
            session = self.store.rename(self.store.get(row["id"]), event.value)
        except (SessionNameTaken, ValueError) as exc:
            self.note(f"Not renamed: {exc}.")
            return
        self.result["renamed"][row["name"]] = session.name
        if self.current == row["name"]:
            self.current = session.name
        self.reload()
        self.note(f"Renamed to {clean(session.name)}.")

    def action_delete(self) -> None:
        row = self._highlighted()
        if row is None:
            return
        if self._delete_armed != row["id"]:
            self._delete_armed = row["id"]
            self.note(f"Press D again to delete {clean(row['name'])} and everything recorded in it.")
            return
        self._delete_armed = None
        self.store.delete(self.store.get(row["id"]))
        self.result["deleted"].append(row["name"])
        self.reload()
        self.note(f"Deleted {clean(row['name'])}.")

    def action_export(self) -> None:
        from chatapp.storage.export import write_export
        from chatapp.storage.filenames import UnsafePath

        row = self._highlighted()
        if row is None:
            return
        try:
            path = write_export(self.store, self.store.get(row["id"]), self.exports_folder, "md")
        except (OSError, UnsafePath) as exc:
            self.note(f"Cannot export to {self.exports_folder}: {exc}")
            return
        self.note(f"Exported to {path}")


def follow_sessions_screen(app, result: dict | None) -> None:
    """Bring the chat in line with what was done on the sessions screen: the open session renamed
    follows its new name, deleted it leaves a new session, and a session chosen is opened."""
    if not result:
        return
    current = app.session_name
    if current in result["renamed"]:
        app.session_name = result["renamed"][current]
        app._show_session(app.session_name)
    elif current in result["deleted"]:
        app.action_new_session()
        app.notify("The open session was deleted: this is a new one.")
    if result["open"] and result["open"] != app.session_name:
        app.resume(result["open"])
