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
    engine = data.open_engine()
    check_routable(chosen["model"] or engine.settings.model, chosen["api_base"] or engine.settings.api_base)
    session_name = _session_to_open(engine, session) if session else None
    from chatapp.tui.app import run_tui

    run_tui(engine, session_name=session_name, model=chosen["model"], api_base=chosen["api_base"],
            level=turn["level"], profile=turn["profile"])


def _session_to_open(engine, key: str) -> str:
    """The name of the session `key` names (SessionStore.resolve); a key that names none is the name of
    a new session, unless it is ambiguous between several (then which one is the user's to say)."""
    from chatapp.storage.sessions import AmbiguousSession, SessionNotFound

    try:
        return engine.sessions.resolve(key).name
    except AmbiguousSession as exc:
        raise UserError(str(exc)) from None
    except SessionNotFound:
        return key
