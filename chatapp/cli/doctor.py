"""`chatapp doctor`: what chatapp can use on this machine, checked for real."""

from __future__ import annotations

import os
import time
from typing import Annotated

import typer

from chatapp.cli.app import app
from chatapp.cli.options import DataLocation, JsonOption, console, data_command, print_json
from chatapp.terminal_text import markup_safe

STATUS_COLOURS = {"ok": "green", "warn": "yellow", "fail": "red"}


def _check(name: str, status: str, detail: str) -> dict:
    return {"name": name, "status": status, "detail": detail}


def _version(package: str) -> str | None:
    import importlib.metadata  # not at the top: `chatapp --help` imports this module, and would pay for it

    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def check_packages() -> list[dict]:
    packages = ["textual", "rich", "typer", "litellm", "rapidfuzz", "spacy", "chromadb", "tiktoken",
                "sqlite-utils", "dateparser", "bm25s", "onnxruntime", "tokenizers", "pypdf",
                "python-docx", "openpyxl"]
    missing = [p for p in packages if _version(p) is None]
    found = ", ".join(f"{p} {_version(p)}" for p in packages if p not in missing)
    if missing:
        return [_check("packages", "fail", f"missing: {', '.join(missing)} — reinstall chatapp")]
    return [_check("packages", "ok", found)]


def check_spacy() -> dict:
    from chatapp.nlp import load_pipeline

    started = time.perf_counter()
    nlp, description = load_pipeline()
    ms = (time.perf_counter() - started) * 1000
    status = "ok" if "blank" not in description else "warn"
    return _check("spaCy pipeline", status, f"{description} (loaded in {ms:.0f} ms)")


def check_embeddings(engine) -> dict:
    from chatapp.knowledge.embeddings import MODEL_NAME, EmbeddingModelMissing, model_file

    try:
        started = time.perf_counter()
        vector = engine.kb.embedder.embed(["doctor check"])
        ms = (time.perf_counter() - started) * 1000
        return _check("embeddings", "ok", f"{MODEL_NAME} from {model_file()} ({vector.shape[1]}-d, {ms:.0f} ms)")
    except EmbeddingModelMissing as exc:
        return _check("embeddings", "fail", str(exc))


def check_tokens() -> dict:
    try:
        import tiktoken

        tiktoken.get_encoding("cl100k_base")
        return _check("token counts", "ok", f"tiktoken BPE files from {os.environ.get('TIKTOKEN_CACHE_DIR')}")
    except Exception as exc:  # noqa: BLE001 - any failure here means counts will be estimates
        return _check("token counts", "warn", f"tiktoken cannot load its BPE files offline: {exc}")


def check_storage(engine) -> list[dict]:
    settings = engine.settings
    stats = engine.kb.stats()
    checks = [
        _check("data dir", "ok", str(settings.data_dir)),
        _check("config", "ok", str(settings.config_file) if settings.config_file else "defaults (no config.toml)"),
        _check("database", "ok", f"{settings.database_path} (schema v{engine.database.schema_version})"),
        _check(
            "knowledge base",
            "ok" if stats["documents"] else "warn",
            f"{stats['documents']} documents, {stats['chunks']} chunks, {stats['entities']} entities, "
            f"{stats['facts']} facts" + ("" if stats["documents"] else " — run `chatapp ingest PATH`"),
        ),
    ]
    where = settings.chroma_url or str(settings.chroma_dir)
    try:
        count = engine.kb.vector.count()
        if count < stats["chunks"]:
            checks.append(_check("vector index", "fail", f"Chroma at {where}: {count} chunks, but the database "
                                 f"lists {stats['chunks']} (deleted or damaged?) — run `chatapp kb rebuild`"))
        else:
            checks.append(_check("vector index", "ok", f"Chroma at {where}: {count} chunks"))
    except Exception as exc:  # noqa: BLE001 - report whatever Chroma says
        checks.append(_check("vector index", "fail", f"Chroma at {where}: {exc}"))
    return checks


def check_provider(engine) -> dict:
    """Ask the configured provider for one token: the only network use of doctor."""
    settings = engine.settings
    if settings.model == "offline":
        return _check("model", "ok", "offline responder (answers from the knowledge base; no network)")
    from chatapp.llm.client import LLMClient, LLMError, LLMSettings

    where = f" at {settings.api_base}" if settings.api_base else ""
    client = LLMClient(LLMSettings(model=settings.model, api_base=settings.api_base, max_tokens=1,
                                   first_byte_timeout=20, total_timeout=30, max_retries=0))
    try:
        result = client.stream([{"role": "user", "content": "Reply with OK."}])
    except LLMError as exc:
        return _check("model", "fail", f"{settings.model}{where}: {exc.message}")
    return _check("model", "ok", f"{settings.model}{where} answers (first byte in {result.first_byte_ms or 0:.0f} ms)")


def run_checks(engine) -> list[dict]:
    return [
        *check_packages(),
        check_spacy(),
        check_embeddings(engine),
        check_tokens(),
        *check_storage(engine),
        check_provider(engine),
    ]


TimingsOption = Annotated[bool, typer.Option(
    "--timings", help="First measure where start-up time goes, stage by stage, in this process.")]


@data_command(app)
def doctor(data: DataLocation, as_json: JsonOption = False, timings: TimingsOption = False):
    """What is installed, which models load, where the data lives, and whether the provider answers."""
    stage_timings = None
    if timings:
        # Before the checks, which would load the same models and leave nothing to measure.
        from chatapp.startup_timings import measure_startup

        stage_timings, engine = measure_startup(data.open_engine)
        if engine is None:
            engine = data.open_engine()  # fails with the data dir's own message
    else:
        engine = data.open_engine()
    checks = run_checks(engine)
    if as_json:
        print_json({"checks": checks} | ({"timings": stage_timings} if stage_timings is not None else {}))
    else:
        if stage_timings is not None:
            _print_timings(stage_timings)
        from rich.table import Table

        table = Table(title="chatapp doctor", show_lines=False)
        table.add_column("check")
        table.add_column("status")
        table.add_column("detail", overflow="fold")
        for check in checks:
            colour = STATUS_COLOURS[check["status"]]
            # A detail quotes paths, config values and error messages: not markup.
            table.add_row(check["name"], f"[{colour}]{check['status']}[/]", markup_safe(check["detail"]))
        console.print(table)
    if any(c["status"] == "fail" for c in checks):
        raise typer.Exit(1)


def _print_timings(stage_timings) -> None:
    from rich.table import Table

    total = sum(t.ms for t in stage_timings)
    table = Table(title="start-up, stage by stage (each given the stages above it)", show_lines=False)
    table.add_column("stage")
    table.add_column("ms", justify="right")
    table.add_column("share", justify="right")
    table.add_column("peak MiB", justify="right")
    table.add_column("detail", overflow="fold")
    for t in stage_timings:
        status = {"fail": "[red]failed:[/] ", "cached": "[dim]"}.get(t.status, "")
        closing = "[/]" if t.status == "cached" else ""
        # A detail may quote a path or an exception's message: not markup.
        table.add_row(t.stage, f"{t.ms:.0f}", f"{t.ms / total:.0%}" if total else "", f"{t.peak_mib:.0f}",
                      f"{status}{markup_safe(t.detail)}{closing}")
    table.add_row("[bold]total[/]", f"[bold]{total:.0f}[/]", "", "", "")
    console.print(table)
