"""The `chatapp` typer app and its top-level options; without a command it opens the chat.

The commands live one group per module beside this one and register themselves on `app`;
chatapp/cli/__init__.py imports them all, so `from chatapp.cli import app` has every command.
"""

from __future__ import annotations

from typing import Annotated

import typer

import chatapp
from chatapp.cli.options import ConfigOption, DataDirOption, DataLocation, console

DEFAULT_COMMAND = "chat"

app = typer.Typer(
    help="A terminal chat assistant that corrects your input, grounds the model in your documents "
    "and checks its answers. Offline by default.",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode="rich",
)


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
):
    """Without a command, opens the chat."""
    if version:
        console.print(f"chatapp {chatapp.__version__}")
        raise typer.Exit()
    ctx.obj = DataLocation(data_dir, config)  # what the command inherits unless it is given its own
    if ctx.invoked_subcommand is None:
        # Looked up by name, so that this module needs no import of the module defining it.
        ctx.invoke(ctx.command.get_command(ctx, DEFAULT_COMMAND))


def main() -> None:
    app()
