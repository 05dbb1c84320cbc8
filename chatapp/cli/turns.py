"""`chatapp preprocess`, `ask` and `check`: one turn, or one of its halves, without the TUI."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer

from chatapp.cli.app import app
from chatapp.cli.options import (
    DataLocation,
    JsonOption,
    ModelChoice,
    TurnSettings,
    check_routable,
    UserError,
    console,
    data_command,
    err_console,
    print_json,
    print_note,
)
from chatapp.input_limits import unread_note
from chatapp.termination_signals import on_termination
from chatapp.terminal_text import StreamCleaner, markup_safe


EXPLAIN_HELP = ("Show each claim's support score, the evidence sentence closest to it with its source, and why it "
                "was or was not flagged.")


def _check_text(text: str) -> None:
    if not text or not text.strip():
        raise UserError("nothing to send: the input is empty")


def _engine_for(text: str, data: DataLocation):
    """The engine, opened once `text` is known to be worth sending."""
    _check_text(text)
    return data.open_engine()


def preprocess_json(pre) -> dict:
    """What `--json` prints of a preprocessed turn (its records made plain by print_json)."""
    return {
        "original_input": pre.original_input,
        "corrected_input": pre.corrected_input,
        "corrections": pre.corrections,
        "suggestions": pre.suggestions,
        "correction_confidence": pre.correction_confidence,
        "resolved_entities": pre.resolved_entities,
        "rag_chunks": pre.rag_chunks,
        "prompt": pre.prompt,
        "context": pre.context,
        "timings_ms": pre.timings_ms,
        "notes": pre.notes,
    }


@data_command(app)
def preprocess(
    data: DataLocation,
    text: Annotated[str, typer.Argument(help="What you would type to the model.")],
    session: Annotated[Optional[str], typer.Option("--session", help="Session name (records are stored there).")] = None,
    settings: TurnSettings = TurnSettings(),
    as_json: JsonOption = False,
):
    """Show what chatapp would send: corrections, entities, knowledge and the budgeted prompt."""
    pre = _engine_for(text, data).preprocess(text, session=session, **settings.checked())
    if as_json:
        print_json(preprocess_json(pre))
        return
    from chatapp.views import preprocess_view

    console.print(preprocess_view(pre))


@contextmanager
def _termination_as_interrupt():
    """SIGTERM (`kill`) and SIGHUP (the terminal closed) unwind like Ctrl+C, so the streaming turn
    saves what arrived and is marked interrupted before the program ends."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    with on_termination(interrupt):
        yield


@data_command(app)
def ask(
    data: DataLocation,
    text: Annotated[str, typer.Argument(help="Your question or message.")],
    session: Annotated[Optional[str], typer.Option("--session", help="Session name: created if new, continued if it exists.")] = None,
    choice: ModelChoice = ModelChoice(),
    settings: TurnSettings = TurnSettings(),
    explain: Annotated[bool, typer.Option("--explain", help=EXPLAIN_HELP)] = False,
    as_json: JsonOption = False,
):
    """Ask once, without the TUI: the answer streams with its \\[corrected] and \\[unverified] annotations."""
    # A flag that cannot work is refused before anything is stored or sent (ConfigError: one line, rc 2).
    chosen = choice.checked()
    model, api_base = chosen["model"], chosen["api_base"]
    engine = _engine_for(text, data)
    check_routable(model or engine.settings.model, api_base or engine.settings.api_base)
    loaded = engine.ensure_sample_kb()
    if loaded is not None:
        err_console.print(f"Loaded the sample knowledge base ({loaded.files_ingested} files) into an empty data dir. "
                          "Turn this off with load_sample_kb = false.")

    streaming = not as_json
    print_note(unread_note(text))
    streamed: list[str] = []  # the text of the last attempt, as it arrived
    shown = StreamCleaner()  # the model's text, without what would drive the terminal

    def on_event(stage: str, details: dict) -> None:
        if not streaming:
            return
        if stage == "delta":
            streamed.append(details["text"])
            console.print(shown.feed(details["text"]), end="", markup=False, emoji=False, highlight=False,
                          soft_wrap=True)
        elif stage == "regenerate":
            streamed.clear()
            shown.flush()
            console.print("\n[dim]regenerating: the first answer had problems…[/]")

    try:
        with _termination_as_interrupt():
            result = engine.ask(text, session=session, model=model, api_base=api_base, on_event=on_event,
                                **settings.checked())
    except KeyboardInterrupt:
        err_console.print("\nstopped — what arrived is saved in the session.")
        raise typer.Exit(130) from None
    if as_json:
        payload = {
            "session": {"id": result.session_id, "name": result.session_name},
            **preprocess_json(result.preprocessed),
            "response": result.response,
            "usage": result.usage,
            "status": result.status,
            "error": result.error,
        }
        print_json(payload)
    else:
        console.print(shown.flush(), markup=False, emoji=False, highlight=False, soft_wrap=True)
        if result.response is not None:
            from chatapp.views import response_view

            # The answer is on screen already unless checking changed it ([corrected], [unverified]).
            changed = result.response.delivered.strip() != "".join(streamed).strip()
            if changed:
                console.rule(style="dim")
            console.print(response_view(result.response, include_answer=changed))
            if explain:
                from chatapp.views import explain_view

                console.print(explain_view(result.response))
        console.print(f"[dim]session {markup_safe(result.session_name)} · {markup_safe(result.usage.model)} · "
                      f"{result.usage.prompt_tokens}+{result.usage.completion_tokens} tokens · "
                      f"{result.usage.latency_ms:.0f} ms[/]")
    if result.error:
        err_console.print(f"[bold red]error:[/] {markup_safe(result.error)}")
        raise typer.Exit(1)


@data_command(app)
def check(
    data: DataLocation,
    response: Annotated[str, typer.Option("--response", help="The answer to check.")],
    question: Annotated[str, typer.Option("--question", help="The question it answers.")] = "",
    evidence: Annotated[Optional[list[Path]], typer.Option("--evidence", help="A file of evidence: text, Markdown, HTML, PDF, mail, CSV, JSON, Word or Excel (repeatable).")] = None,
    explain: Annotated[bool, typer.Option("--explain", help=EXPLAIN_HELP)] = False,
    as_json: JsonOption = False,
):
    """Check an answer from any source against the knowledge base and evidence files."""
    _check_text(response)
    texts = [_evidence_text(path) for path in evidence or []]
    print_note(unread_note(question, what="The question", use="read"))
    labels = [f"evidence file {path.name}" for path in evidence or []]
    # Without evidence files, the answer is held to your own documents, as a chat turn's would be.
    result = data.open_engine().postprocess(response, question=question, evidence=texts, evidence_labels=labels,
                                            search_documents=not texts)
    if as_json:
        print_json({"response": result})
        return
    from chatapp.views import explain_view, response_view

    console.print(response_view(result))
    if explain:
        console.print(explain_view(result))


def _evidence_text(path: Path) -> str:
    """An evidence file's text, read by the ingest parser for its format (HTML without its markup,
    PDF text, a mail's body); a file of no format ingest knows is read as plain text."""
    from chatapp.knowledge.parsers import SUPPORTED_SUFFIXES, FileRejected, parse_file

    suffix = path.suffix.lower() if path.suffix.lower() in SUPPORTED_SUFFIXES else ".txt"
    try:
        return parse_file(path, suffix=suffix).text
    except FileRejected as exc:
        raise UserError(f"cannot read evidence file {path}: {exc.reason}") from None
