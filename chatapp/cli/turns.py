"""CLI commands for turns and sessions: ask, preprocess, check, sessions, export."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from chatapp.cli.app import (
    ConfigOption,
    DataDirOption,
    JsonOption,
    UserError,
    _inherit,
    app,
    console,
    err_console,
    open_engine,
    print_json,
    user_errors,
)
from chatapp.records import to_jsonable

sessions_app = typer.Typer(help="List and show chat sessions.", no_args_is_help=True)
app.add_typer(sessions_app, name="sessions")

LevelOption = Annotated[
    Optional[str], typer.Option("--level", help="Correction level: off, minimal, standard, aggressive or 0.0–1.0.")
]
ProfileOption = Annotated[
    Optional[str], typer.Option("--profile", help="Token budget profile: default, compact, standard, extended.")
]


def _check_text(text: str) -> str:
    if not text or not text.strip():
        raise UserError("nothing to send: the input is empty")
    return text


def _validated(value: str | None, check) -> str | None:
    """`value` if `check` accepts it; its ValueError becomes the user's one-line error."""
    if value is None:
        return None
    try:
        check(value)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return value


def _level(level: str | None) -> str | None:
    from chatapp.preprocess.correction.levels import parse_level

    return _validated(level, parse_level)


def _profile(profile: str | None) -> str | None:
    from chatapp.preprocess.assembly.budgets import get_profile

    return _validated(profile, get_profile)


def preprocess_json(pre) -> dict:
    return {
        "original_input": pre.original_input,
        "corrected_input": pre.corrected_input,
        "corrections": to_jsonable(pre.corrections),
        "suggestions": to_jsonable(pre.suggestions),
        "correction_confidence": pre.correction_confidence,
        "resolved_entities": to_jsonable(pre.resolved_entities),
        "rag_chunks": to_jsonable(pre.rag_chunks),
        "prompt": to_jsonable(pre.prompt),
        "context": to_jsonable(pre.context),
        "timings_ms": pre.timings_ms,
    }


@app.command()
@user_errors
def preprocess(
    text: Annotated[str, typer.Argument(help="What you would type to the model.")],
    session: Annotated[Optional[str], typer.Option("--session", help="Session name (records are stored there).")] = None,
    level: LevelOption = None,
    profile: ProfileOption = None,
    as_json: JsonOption = False,
    ctx: typer.Context = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
):
    """Show what chatapp would send: corrections, entities, knowledge and the budgeted prompt."""
    _check_text(text)
    data_dir, config = _inherit(ctx, data_dir, config)
    engine = open_engine(data_dir, config)
    pre = engine.preprocess(text, session=session, level=_level(level), profile=_profile(profile))
    if as_json:
        print_json(preprocess_json(pre))
        return
    from chatapp.views import preprocess_view

    console.print(preprocess_view(pre))


@app.command()
@user_errors
def ask(
    text: Annotated[str, typer.Argument(help="Your question or message.")],
    session: Annotated[Optional[str], typer.Option("--session", help="Session name: created if new, continued if it exists.")] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="Model, e.g. gpt-4o-mini, ollama/llama3, offline.")] = None,
    api_base: Annotated[Optional[str], typer.Option("--api-base", help="Base URL of an OpenAI-compatible server.")] = None,
    level: LevelOption = None,
    profile: ProfileOption = None,
    as_json: JsonOption = False,
    ctx: typer.Context = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
):
    """Ask once, without the TUI: the answer streams with its \\[corrected] and \\[unverified] annotations."""
    _check_text(text)
    data_dir, config = _inherit(ctx, data_dir, config)
    engine = open_engine(data_dir, config)
    loaded = engine.ensure_sample_kb()
    if loaded is not None:
        err_console.print(f"Loaded the sample knowledge base ({loaded.files_ingested} files) into an empty data dir. "
                          "Turn this off with load_sample_kb = false.")

    streaming = not as_json
    streamed: list[str] = []  # the text of the last attempt, as shown while it arrived

    def on_event(stage: str, data: dict) -> None:
        if not streaming:
            return
        if stage == "delta":
            streamed.append(data["text"])
            console.print(data["text"], end="", markup=False, highlight=False, soft_wrap=True)
        elif stage == "regenerate":
            streamed.clear()
            console.print("\n[dim]regenerating: the first answer had problems…[/]")

    try:
        result = engine.ask(text, session=session, level=_level(level), profile=_profile(profile), model=model,
                            api_base=api_base, on_event=on_event)
    except KeyboardInterrupt:
        err_console.print("\nstopped — what arrived is saved in the session.")
        raise typer.Exit(130) from None
    if as_json:
        payload = {
            "session": {"id": result.session_id, "name": result.session_name},
            **preprocess_json(result.preprocessed),
            "response": to_jsonable(result.response),
            "usage": to_jsonable(result.usage),
            "status": result.status,
            "error": result.error,
        }
        print_json(payload)
    else:
        console.print()
        if result.response is not None:
            from chatapp.views import response_view

            # The answer is on screen already unless checking changed it ([corrected], [unverified]).
            changed = result.response.delivered.strip() != "".join(streamed).strip()
            if changed:
                console.rule(style="dim")
            console.print(response_view(result.response, include_answer=changed))
        console.print(f"[dim]session {result.session_name} · {result.usage.model} · "
                      f"{result.usage.prompt_tokens}+{result.usage.completion_tokens} tokens · "
                      f"{result.usage.latency_ms:.0f} ms[/]")
    if result.error:
        err_console.print(f"[bold red]error:[/] {result.error}")
        raise typer.Exit(1)


@app.command()
@user_errors
def check(
    response: Annotated[str, typer.Option("--response", help="The answer to check.")],
    question: Annotated[str, typer.Option("--question", help="The question it answers.")] = "",
    evidence: Annotated[Optional[list[Path]], typer.Option("--evidence", help="A file of evidence: text, Markdown, HTML, PDF, mail, CSV or JSON (repeatable).")] = None,
    as_json: JsonOption = False,
    ctx: typer.Context = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
):
    """Check an answer from any source against the knowledge base and evidence files."""
    _check_text(response)
    texts = [_evidence_text(path) for path in evidence or []]
    data_dir, config = _inherit(ctx, data_dir, config)
    engine = open_engine(data_dir, config)
    result = engine.postprocess(response, question=question, evidence=texts)
    if as_json:
        print_json({"response": result})
        return
    from chatapp.views import response_view

    console.print(response_view(result))


@sessions_app.command("list")
@user_errors
def sessions_list(as_json: JsonOption = False, ctx: typer.Context = None, data_dir: DataDirOption = None,
                  config: ConfigOption = None):
    """All sessions, most recent first."""
    data_dir, config = _inherit(ctx, data_dir, config)
    rows = open_engine(data_dir, config).sessions.list()
    if as_json:
        print_json({"sessions": rows})
        return
    if not rows:
        console.print("No sessions yet: `chatapp ask \"…\" --session NAME` or open the chat.")
        return
    from rich.table import Table

    table = Table("id", "name", "turns", "updated", "model", box=None, header_style="dim")
    for row in rows:
        table.add_row(row["id"], row["name"], str(row["turns"]), row["updated_at"], row["model"] or "offline")
    console.print(table)


@sessions_app.command("show")
@user_errors
def sessions_show(session_id: Annotated[str, typer.Argument(help="Session id or name.")], as_json: JsonOption = False,
                  ctx: typer.Context = None, data_dir: DataDirOption = None, config: ConfigOption = None):
    """One session's transcript with its annotations."""
    from chatapp.storage.export import session_transcript, to_markdown
    from chatapp.storage.sessions import SessionNotFound

    data_dir, config = _inherit(ctx, data_dir, config)
    store = open_engine(data_dir, config).sessions
    try:
        session = store.get(session_id)
    except SessionNotFound as exc:
        raise UserError(str(exc)) from None
    transcript = session_transcript(store, session)
    if as_json:
        print_json(transcript)
    else:
        from rich.markdown import Markdown

        console.print(Markdown(to_markdown(transcript)))


@app.command()
@user_errors
def export(
    session_id: Annotated[str, typer.Argument(help="Session id or name.")],
    fmt: Annotated[str, typer.Option("--format", help="md, json or html.")] = "md",
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Write here instead of standard output.")] = None,
    ctx: typer.Context = None,
    data_dir: DataDirOption = None,
    config: ConfigOption = None,
):
    """Export a session transcript with annotations, corrections and sources (never a secret)."""
    from chatapp.storage.export import FORMATS, session_transcript
    from chatapp.storage.sessions import SessionNotFound

    if fmt not in FORMATS:
        raise UserError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    data_dir, config = _inherit(ctx, data_dir, config)
    store = open_engine(data_dir, config).sessions
    try:
        session = store.get(session_id)
    except SessionNotFound as exc:
        raise UserError(str(exc)) from None
    text = FORMATS[fmt](session_transcript(store, session))
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {output}: {exc.strerror}") from None
        err_console.print(f"wrote {output}")


def _evidence_text(path: Path) -> str:
    """An evidence file's text, read by the ingest parser for its format (HTML without its markup,
    PDF text, a mail's body); a file of no format ingest knows is read as plain text."""
    from chatapp.knowledge.parsers import SUPPORTED_SUFFIXES, FileRejected, parse_file

    suffix = path.suffix.lower() if path.suffix.lower() in SUPPORTED_SUFFIXES else ".txt"
    try:
        return parse_file(path, suffix=suffix).text
    except FileRejected as exc:
        raise UserError(f"cannot read evidence file {path}: {exc.reason}") from None
