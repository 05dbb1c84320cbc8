"""The `chatapp` command line: chat (default), ingest, kb, doctor, …

Every command takes --data-dir and --config; --json prints one object for
scripts. A user's mistake gets one clear line and exit code 2, never a
traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

import chatapp  # noqa: F401 - sets the offline environment before anything heavy loads
from chatapp.config import ConfigError
from chatapp.records import to_jsonable

app = typer.Typer(
    help="A terminal chat assistant that corrects your input, grounds the model in your documents "
    "and checks its answers. Offline by default.",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode="rich",
)
kb_app = typer.Typer(help="Search and inspect the knowledge base.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")

console = Console()
err_console = Console(stderr=True)

DataDirOption = Annotated[
    Optional[Path],
    typer.Option("--data-dir", help="Where chatapp keeps everything (env CHATAPP_HOME).", show_default=False),
]
ConfigOption = Annotated[
    Optional[Path], typer.Option("--config", help="A config TOML file (default: config.toml in the data dir).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the readable view.")]


class UserError(Exception):
    """Something the user can fix; printed as one line."""


def _fail(message: str, code: int = 2) -> None:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def user_errors(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (ConfigError, UserError) as exc:
            _fail(str(exc))
        except KeyboardInterrupt:
            err_console.print("interrupted — what was finished is saved; run the command again to continue.")
            raise typer.Exit(130) from None

    return wrapper


def open_engine(data_dir: Path | None, config: Path | None, **overrides):
    from chatapp.engine import ChatEngine

    return ChatEngine.open(data_dir, config, **overrides)


def print_json(data) -> None:
    sys.stdout.write(json.dumps(to_jsonable(data), ensure_ascii=False, indent=2) + "\n")


# --- chat (default) -----------------------------------------------------------


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
    ctx.obj = {"data_dir": data_dir, "config": config}
    if ctx.invoked_subcommand is None:
        chat(ctx=None, session=None, data_dir=data_dir, config=config)


def _inherit(ctx: typer.Context, data_dir: Path | None, config: Path | None):
    """--data-dir/--config given before the command apply unless repeated after it."""
    parent = (ctx.find_root().obj or {}) if ctx else {}
    return data_dir or parent.get("data_dir"), config or parent.get("config")


@app.command()
@user_errors
def chat(
    ctx: typer.Context = None,
    session: Annotated[Optional[str], typer.Option("--session", help="Resume (or start) the session with this name.")] = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
):
    """Open the chat in the terminal UI (the default command)."""
    data_dir, config = _inherit(ctx, data_dir, config)
    from chatapp.tui.app import run_tui

    run_tui(open_engine(data_dir, config), session_name=session)


# --- ingest -------------------------------------------------------------------


@app.command()
@user_errors
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files and folders to index (folders recursively).")],
    prune: Annotated[bool, typer.Option("--prune", help="Remove documents under PATHS whose files are gone.")] = False,
    as_json: JsonOption = False,
    ctx: typer.Context = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
):
    """Add documents to the knowledge base: .txt .md .rst .html .eml .pdf .csv .json,
    plus entities.jsonl and facts.jsonl for the registry. Unchanged files are skipped."""
    from chatapp.cli.ingest_view import IngestView

    data_dir, config = _inherit(ctx, data_dir, config)
    engine = open_engine(data_dir, config)
    view = IngestView(err_console, interactive=err_console.is_terminal and not as_json)
    with view:
        report = engine.ingest(*paths, prune=prune, on_event=view.on_event)
    if as_json:
        data = to_jsonable(report)
        print_json(data)
    else:
        view.print_summary(report, console)
    if report.files_failed:
        raise typer.Exit(1)


# --- kb -------------------------------------------------------------------------


@kb_app.command("search")
@user_errors
def kb_search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option("--k", min=1, max=100, help="How many results.")] = 5,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, dense or keyword.")] = "hybrid",
    as_json: JsonOption = False,
    ctx: typer.Context = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
):
    """Hybrid (dense + BM25) search over the ingested documents."""
    if mode not in ("hybrid", "dense", "keyword"):
        raise UserError(f"--mode must be hybrid, dense or keyword, not {mode!r}")
    if not query.strip():
        raise UserError("the query is empty")
    data_dir, config = _inherit(ctx, data_dir, config)
    engine = open_engine(data_dir, config)
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
        snippet = snippet[:400] + ("…" if len(snippet) > 400 else "")
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


@kb_app.command("stats")
@user_errors
def kb_stats(
    as_json: JsonOption = False,
    ctx: typer.Context = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
):
    """Documents, chunks, entities, facts and index size."""
    data_dir, config = _inherit(ctx, data_dir, config)
    stats = open_engine(data_dir, config).kb.stats()
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


# --- doctor -----------------------------------------------------------------------


@app.command()
@user_errors
def doctor(
    as_json: JsonOption = False,
    ctx: typer.Context = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
):
    """What is installed, which models load, where the data lives, and whether the provider answers."""
    from chatapp.cli.doctor import run_checks

    data_dir, config = _inherit(ctx, data_dir, config)
    engine = open_engine(data_dir, config)
    checks = run_checks(engine)
    if as_json:
        print_json({"checks": checks})
    else:
        from rich.table import Table

        table = Table(title="chatapp doctor", show_lines=False)
        table.add_column("check")
        table.add_column("status")
        table.add_column("detail", overflow="fold")
        colours = {"ok": "green", "warn": "yellow", "fail": "red"}
        for check in checks:
            table.add_row(check["name"], f"[{colours[check['status']]}]{check['status']}[/]", check["detail"])
        console.print(table)
    if any(c["status"] == "fail" for c in checks):
        raise typer.Exit(1)


def main() -> None:
    import chatapp.cli.turns  # noqa: F401 - registers ask, preprocess, check, sessions, export

    app()
