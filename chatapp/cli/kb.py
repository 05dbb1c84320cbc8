"""`chatapp kb search`, `kb stats` and `kb remove`: look into the knowledge base, and take documents out."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from chatapp.cli.app import app
from chatapp.cli.options import (
    DataLocation, JsonOption, UserError, console, data_command, err_console, print_json, print_note,
)
from chatapp.input_limits import unread_note
from chatapp.terminal_text import markup_safe

kb_app = typer.Typer(help="Search, inspect and prune the knowledge base.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")

SEARCH_MODES = ("hybrid", "dense", "keyword")
SNIPPET_CHARS = 400
REMOVED_PATHS_SHOWN = 20


@data_command(kb_app, "search")
def kb_search(
    data: DataLocation,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option("--k", min=1, max=100, help="How many results.")] = 5,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, dense or keyword.")] = "hybrid",
    as_json: JsonOption = False,
):
    """Hybrid (dense + BM25) search over the ingested documents."""
    if mode not in SEARCH_MODES:
        raise UserError(f"--mode must be hybrid, dense or keyword, not {mode!r}")
    if not query.strip():
        raise UserError("the query is empty")
    engine = data.open_engine()
    print_note(unread_note(query, what="The query", use="searched for"))
    results = engine.search(query, k=k, mode=mode)
    if as_json:
        print_json({"query": query, "mode": mode, "results": results})
        return
    if not results:
        hint = " (the knowledge base is empty: run `chatapp ingest PATH`)" if engine.kb.is_empty() else ""
        console.print(f"No results{hint}.")
        return
    from rich.panel import Panel

    for n, chunk in enumerate(results, start=1):
        snippet = " ".join(chunk.content.split())
        snippet = snippet[:SNIPPET_CHARS] + ("…" if len(snippet) > SNIPPET_CHARS else "")
        dated = f" · {chunk.date[:10]}" if chunk.date else ""  # an undated note has no empty field
        console.print(
            Panel(  # a document's text, title and path are its own words, not Rich markup
                markup_safe(snippet),
                title=f"{n}. {markup_safe(chunk.title or Path(chunk.source).name)}",
                subtitle=f"{markup_safe(chunk.source)}{dated} · relevance {chunk.relevance:.2f}",
                title_align="left",
                subtitle_align="left",
            )
        )


@data_command(kb_app, "stats")
def kb_stats(data: DataLocation, as_json: JsonOption = False):
    """Documents, chunks, entities, facts and index size."""
    stats = data.open_engine().kb.stats()
    if as_json:
        print_json(stats)
        return
    from rich.table import Table

    table = Table(show_header=False, box=None)
    for key, value in stats.items():
        if key.endswith("_bytes"):
            value = f"{value / 1e6:.1f} MB"
        table.add_row(key.replace("_", " "), str(value))
    console.print(table)


@data_command(kb_app, "remove")
def kb_remove(
    data: DataLocation,
    paths: Annotated[Optional[list[Path]], typer.Argument(
        help="Files and folders whose documents to remove (the files may be gone already).", show_default=False)] = None,
    sample: Annotated[bool, typer.Option("--sample", help="Remove the bundled sample knowledge base.")] = False,
    as_json: JsonOption = False,
):
    """Remove documents (a file, or every document under a folder) or the sample, with their chunks
    and what was learnt from them. Exit code 1 when nothing matched."""
    if not paths and not sample:
        raise UserError("name the files or folders to remove, or --sample to remove the sample knowledge base")
    report = data.open_engine().kb.remove_documents(paths, sample=sample)
    removed_anything = report.files or report.entities or report.facts
    if as_json:
        print_json(report)
    elif not removed_anything:
        named = [markup_safe(str(p)) for p in paths or []] + (["the sample knowledge base"] if sample else [])
        console.print(f"Nothing to remove: the knowledge base holds no document from {', '.join(named)}.",
                      highlight=False)
    else:
        _print_removal(report)
    if not removed_anything:
        raise typer.Exit(1)


def _print_removal(report) -> None:
    parts = [f"{len(report.documents)} documents ({report.chunks} chunks)"]
    if report.registry_files or report.entities or report.facts:
        parts.append(f"{len(report.registry_files)} registry files ({report.entities} entities, {report.facts} facts)")
    learnt = f"; forgot {report.observations} things learnt from them" if report.observations else ""
    console.print(f"Removed {' and '.join(parts)}{learnt}.", highlight=False)
    paths = report.documents + report.registry_files
    for path in paths[:REMOVED_PATHS_SHOWN]:
        console.print(f"  [dim]{markup_safe(path)}[/]", highlight=False, soft_wrap=True)
    if len(paths) > REMOVED_PATHS_SHOWN:
        console.print(f"  [dim]… and {len(paths) - REMOVED_PATHS_SHOWN} more[/]")


@data_command(kb_app, "rebuild")
def kb_rebuild(data: DataLocation, as_json: JsonOption = False):
    """Re-embed and re-index every document the database lists, reading its file again (after the
    vector index was deleted or damaged). Exit code 1 when some could not be rebuilt."""
    from chatapp.cli.ingest_view import IngestView

    engine = data.open_engine()
    view = IngestView(err_console, interactive=err_console.is_terminal and not as_json)
    with view:
        report = engine.kb.rebuild(on_event=view.on_event)
    if as_json:
        print_json(report)
    else:
        _print_rebuild(report, view)
    if report.documents_missing or report.files_failed:
        raise typer.Exit(1)


def _print_rebuild(report, view) -> None:
    if report.moved_aside:
        console.print(f"The old vector index could not be opened; it was moved to {markup_safe(report.moved_aside)}.",
                      highlight=False)
    changed = f" ({len(report.documents_reindexed)} indexed as their files are now)" if report.documents_reindexed else ""
    console.print(f"Rebuilt {report.documents_rebuilt} documents, {report.chunks} chunks{changed} "
                  f"in {report.seconds:.1f}s.", highlight=False)
    view.print_files(report, console)
    if report.documents_missing:
        console.print(f"[yellow]{len(report.documents_missing)} documents could not be rebuilt: their files are "
                      "gone.[/] Restore them and run `chatapp ingest PATH`, or forget them with "
                      "`chatapp kb remove PATH`:", highlight=False)
        for path in report.documents_missing[:REMOVED_PATHS_SHOWN]:
            console.print(f"  [dim]{markup_safe(path)}[/]", highlight=False, soft_wrap=True)
        if len(report.documents_missing) > REMOVED_PATHS_SHOWN:
            console.print(f"  [dim]… and {len(report.documents_missing) - REMOVED_PATHS_SHOWN} more[/]")
