"""The `chatapp` command line. Importing the package registers every command on `app`: each command
module imports app.py and options.py and registers itself; nothing below imports back up."""

from chatapp.cli.app import app, main
from chatapp.cli import chat, ingest, kb, kb_entities, doctor, turns, sessions  # noqa: F401,E402 - registration, in --help order

__all__ = ["app", "main"]
