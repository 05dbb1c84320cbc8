"""`chatapp ingest`: add files and folders to the knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chatapp.cli.app import app
from chatapp.cli.options import (
    DataLocation,
    JsonOption,
    UserError,
    console,
    data_command,
    err_console,
    print_json,
)


@data_command(app)
def ingest(
    data: DataLocation,
    paths: Annotated[list[Path], typer.Argument(help="Files and folders to index (folders recursively).")],
    prune: Annotated[bool, typer.Option("--prune", help="Remove documents under PATHS whose files are gone.")] = False,
    follow_links: Annotated[bool, typer.Option(
        "--follow-links", help="Follow symlinks that lead outside PATHS (by default they are skipped).")] = False,
    as_json: JsonOption = False,
):
    """Add documents to the knowledge base: .txt .md .rst .html .eml .pdf .csv .json .docx .xlsx,
    plus entities.jsonl and facts.jsonl for the registry. Unchanged files are skipped."""
    from chatapp.cli.ingest_view import IngestView

    # A mistyped path is the user's one-line mistake (exit code 2), unless --prune is to forget it.
    missing = [str(p) for p in paths if not prune and not p.exists() and not p.is_symlink()]
    if missing:
        raise UserError(f"no such file or directory: {', '.join(missing)}")
    engine = data.open_engine()
    view = IngestView(err_console, interactive=err_console.is_terminal and not as_json)
    with view:
        report = engine.ingest(*paths, prune=prune, on_event=view.on_event, follow_links=follow_links)
    if as_json:
        print_json(report)
    else:
        view.print_summary(report, console)
    if report.files_failed or report.index_warning:
        raise typer.Exit(1)
