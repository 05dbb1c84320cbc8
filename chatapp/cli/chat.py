"""`chatapp chat`: the terminal UI, also what `chatapp` without a command opens."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from chatapp.cli.app import DEFAULT_COMMAND, app
from chatapp.cli.options import DataLocation, data_command


@data_command(app, DEFAULT_COMMAND)
def chat(
    data: DataLocation,
    session: Annotated[Optional[str], typer.Option("--session", help="Resume (or start) the session with this name.")] = None,
):
    """Open the chat in the terminal UI (the default command)."""
    from chatapp.tui.app import run_tui

    run_tui(data.open_engine(), session_name=session)
