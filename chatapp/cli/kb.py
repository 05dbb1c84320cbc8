"""`chatapp kb search` and `chatapp kb stats`: look into the knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chatapp.cli.app import app
from chatapp.cli.options import DataLocation, JsonOption, UserError, console, data_command, print_json

kb_app = typer.Typer(help="Search and inspect the knowledge base.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")

SEARCH_MODES = ("hybrid", "dense", "keyword")
SNIPPET_CHARS = 400


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
        date = (chunk.date or "")[:10]
        console.print(
            Panel(
                snippet,
                title=f"{n}. {chunk.title or Path(chunk.source).name}",
                subtitle=f"{chunk.source} · {date} · relevance {chunk.relevance:.2f}",
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
