"""`chatapp chat`: the terminal UI, also what `chatapp` without a command opens."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from chatapp.cli.app import DEFAULT_COMMAND, app
from chatapp.cli.options import DataLocation, ModelChoice, TurnSettings, UserError, check_routable, data_command


@data_command(app, DEFAULT_COMMAND)
def chat(
    data: DataLocation,
    session: Annotated[Optional[str], typer.Option(
        "--session", help="Resume the session with this name, the start of it, or words of its first question; "
                          "a name no session has starts a new one.")] = None,
    choice: ModelChoice = ModelChoice(),
    settings: TurnSettings = TurnSettings(),
):
    """Open the chat in the terminal UI (the default command)."""
    # The same checks as `chatapp ask`: a flag that cannot work is one line before the screen opens.
    chosen = choice.checked()
    turn = settings.checked()
    # The settings only: the chat paints first and opens the data dir after; a data dir that cannot
    # be used, or a --session that names several, is raised by run_tui once the screen is closed.
    loaded = data.load_settings()
    check_routable(chosen["model"] or loaded.model, chosen["api_base"] or loaded.api_base)
    from chatapp.tui.app import run_tui

    try:
        run_tui(loaded, session_key=session, model=chosen["model"], api_base=chosen["api_base"],
                level=turn["level"], profile=turn["profile"])
    except Exception as exc:
        from chatapp.storage.sessions import AmbiguousSession

        if isinstance(exc, AmbiguousSession):  # which one is the user's to say
            raise UserError(str(exc)) from None
        raise
