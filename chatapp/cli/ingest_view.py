"""How `chatapp ingest` shows its work: a rich progress bar on a terminal
(files, chunks, chunks/s, ETA), plain lines otherwise, and a summary. File names and
failure reasons are the user's, not Rich markup: they go through markup_safe."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from chatapp.records import IngestReport
from chatapp.terminal_text import markup_safe


class IngestView:
    def __init__(self, console: Console, interactive: bool):
        self.console = console
        self.interactive = interactive
        self.progress: Progress | None = None
        self.task = None
        self.started = time.perf_counter()
        self.quiet = False

    def __enter__(self):
        if self.interactive:
            self.progress = Progress(
                TextColumn("[bold]ingest[/]"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("files · {task.fields[chunks]} chunks · {task.fields[rate]} chunks/s"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[current]}", style="dim"),
                console=self.console,
                transient=True,
            )
            self.progress.start()
        return self

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.stop()

    def on_event(self, event: str, **data) -> None:
        if event == "waiting":
            self.console.print(f"waiting for another chatapp process to finish writing to {markup_safe(data['path'])} …",
                               highlight=False)
        elif event == "start":
            self.started = time.perf_counter()
            if self.progress is not None:
                self.task = self.progress.add_task("ingest", total=data["total"], chunks=0, rate="0", current="")
        elif event == "file" and self.progress is not None:
            self.progress.update(self.task, current=markup_safe(Path(data["path"]).name))
        elif event == "progress":
            rate = data["chunks"] / max(time.perf_counter() - self.started, 1e-6)
            if self.progress is not None:
                self.progress.update(self.task, advance=1, chunks=data["chunks"], rate=f"{rate:.0f}")
            else:
                self.console.print(f"ingest: {markup_safe(data['path'])}", highlight=False, soft_wrap=True)
        elif event == "embedding":  # a big file: its chunks embedded so far
            label = f"{Path(data['path']).name}: embedding {data['done']:,}/{data['total']:,} chunks"
            if self.progress is not None:
                self.progress.update(self.task, current=markup_safe(label))
            else:
                self.console.print(f"ingest: {markup_safe(label)}", highlight=False, soft_wrap=True)
        elif event == "pruned" and self.progress is None:
            self.console.print(f"pruned: {markup_safe(data['path'])}", highlight=False)
        elif event == "keyword_index" and self.progress is not None:
            self.progress.update(self.task, current="updating keyword index")
        elif event == "learning" and self.progress is not None:
            self.progress.update(self.task, current="learning people, projects and facts")

    def print_summary(self, report: IngestReport, console: Console) -> None:
        rate = report.chunks_added / report.seconds if report.seconds else 0.0
        console.print(
            f"[bold]{report.files_ingested}[/] ingested, {report.files_unchanged} unchanged, "
            f"[{'red' if report.files_failed else 'green'}]{len(report.files_failed)} failed[/] "
            f"of {report.files_seen} files · {report.chunks_added} chunks added, "
            f"{report.chunks_removed} removed · "
            # Entities and facts read from registry files (entities.jsonl, facts.jsonl): most folders have none.
            + (f"{report.entities} entities, {report.facts} facts from registry files · "
               if report.entities or report.facts else "")
            + f"{report.seconds:.1f}s ({rate:.1f} chunks/s)"
            + (f" · {report.documents_pruned} pruned" if report.documents_pruned else "")
            + (f" · {report.entities_learnt} people, projects and things known from your documents"
               if report.entities_learnt else "")
        )
        if report.sample_removed:
            console.print(
                f"Removed the sample knowledge base ({report.sample_removed} files) now that your own "
                "documents are here; keep_sample_kb = true in the config keeps it.",
                highlight=False,
            )
        self.print_files(report, console)
        if report.index_warning:
            console.print(f"[yellow]warning:[/] {markup_safe(report.index_warning)}", highlight=False, soft_wrap=True)

    @staticmethod
    def print_files(report, console: Console) -> None:
        """The files that failed, were skipped or were indexed with a note, one table each."""
        for title, rows, style in (
            ("Failed", report.files_failed, "red"),
            ("Skipped", getattr(report, "files_skipped", []), "yellow"),
            ("Indexed with a note", report.files_noted, "yellow"),
        ):
            if not rows:
                continue
            table = Table(title=title, title_style=style, title_justify="left")
            table.add_column("file", overflow="fold")
            table.add_column("reason")
            for row in rows:
                table.add_row(markup_safe(row.path), markup_safe(row.reason))
            console.print(table)
