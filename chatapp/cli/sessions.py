"""`chatapp sessions list|show` and `chatapp export`: past sessions, read back."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from chatapp.cli.app import app
from chatapp.cli.options import DataLocation, JsonOption, UserError, console, data_command, err_console, print_json
from chatapp.storage.titles import session_title
from chatapp.terminal_text import clean, markup_safe, plain_text

sessions_app = typer.Typer(help="List and show chat sessions.", no_args_is_help=True)
app.add_typer(sessions_app, name="sessions")

SessionArgument = Annotated[str, typer.Argument(help="Session id or name, or the start of one.")]
TITLE_WIDTH = 48


def _transcript(data: DataLocation, session_id: str) -> dict:
    """The transcript of the session with this id or name (or one it clearly names, see
    SessionStore.resolve); an unknown one is the user's mistake."""
    from chatapp.storage.export import session_transcript
    from chatapp.storage.sessions import SessionNotFound

    store = data.open_engine().sessions
    try:
        session = store.resolve(session_id)
    except SessionNotFound as exc:
        raise UserError(str(exc)) from None
    return session_transcript(store, session)


@data_command(sessions_app, "list")
def sessions_list(data: DataLocation, as_json: JsonOption = False):
    """All sessions, most recent first: how many questions each holds and the first one asked."""
    rows = data.open_engine().sessions.list()
    if as_json:
        print_json({"sessions": rows})
        return
    if not rows:
        console.print("No sessions yet: `chatapp ask \"…\" --session NAME` or open the chat.")
        return
    from rich.table import Table

    table = Table("id", "name", "questions", "updated", "model", "first question", box=None, header_style="dim")
    for row in rows:  # a name, a model and a question are whatever the user typed: shown as they are
        table.add_row(plain_text(row["id"]), plain_text(row["name"]), str(row["questions"]),
                      plain_text(row["updated_at"]), plain_text(row["model"] or "offline"),
                      plain_text(session_title(row, TITLE_WIDTH)))
    console.print(table)


@data_command(sessions_app, "show")
def sessions_show(data: DataLocation, session_id: SessionArgument, as_json: JsonOption = False):
    """One session's transcript with its annotations."""
    transcript = _transcript(data, session_id)
    if as_json:
        print_json(transcript)
    else:
        from rich.markdown import Markdown

        from chatapp.storage.export import to_markdown

        # Links stay visible as text with their address: a model's [click](url) hides nothing.
        console.print(Markdown(clean(to_markdown(transcript)), hyperlinks=False))


@data_command(app)
def export(
    data: DataLocation,
    session_id: SessionArgument,
    fmt: Annotated[str, typer.Option("--format", help="md, json or html.")] = "md",
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Write here instead of standard output.")] = None,
):
    """Export a session transcript with annotations, corrections and sources (never a secret)."""
    from chatapp.storage.export import FORMATS

    if fmt not in FORMATS:
        raise UserError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    text = FORMATS[fmt](_transcript(data, session_id))
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {output}: {exc.strerror}") from None
        err_console.print(f"wrote {markup_safe(output)}", highlight=False)
