"""The side panel's knowledge section: a progress bar with files and chunks while a knowledge
base loads (the sample on a first start, or an /ingest), then what the knowledge base holds."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static

from chatapp.terminal_text import plain_text


class KnowledgeStatus(Vertical):
    def __init__(self, id: str | None = None):
        super().__init__(id=id)
        self.files_done = 0
        self.chunks = 0
        self.total = 0

    def compose(self) -> ComposeResult:
        yield ProgressBar(total=None, show_eta=False, id="kb-progress")
        yield Static("loading…", id="kb-text")

    def on_mount(self) -> None:
        self.query_one(ProgressBar).display = False

    def ingest_event(self, event: str, data: dict) -> None:
        """One event of an ingest (chatapp.knowledge.ingest): the bar and line follow it."""
        bar = self.query_one(ProgressBar)
        if event == "start":
            self.files_done, self.chunks, self.total = 0, 0, int(data.get("total", 0))
            bar.update(total=self.total or None, progress=0)
            bar.display = True
        elif event == "progress":
            self.files_done += 1
            self.chunks = int(data.get("chunks", self.chunks))  # the ingest's running total
            bar.update(progress=self.files_done)
        elif event == "done":
            bar.display = False
            return
        self._say(event, data)

    @property
    def in_progress(self) -> bool:
        """A load under way (its bar shown)."""
        return self.query_one(ProgressBar).display

    @property
    def progress(self) -> str:
        """How far the load has got, in one line."""
        return f"loading: {self.files_done}/{self.total} files · {self.chunks} chunks"

    def _say(self, event: str, data: dict) -> None:
        line = self.progress
        if event in ("file", "embedding") and data.get("path"):
            line += f"\n{Path(str(data['path'])).name}"
            if event == "embedding":
                line += f" ({data.get('done', 0)}/{data.get('total', 0)} chunks)"
        elif event == "keyword_index":
            line += "\nbuilding the keyword index"
        elif event == "learning":
            line += "\nlearning names and facts"
        elif event == "waiting":
            line += "\nwaiting for another process's ingest"
        self.query_one("#kb-text", Static).update(plain_text(line))

    def show_stats(self, stats: dict, model: str) -> None:
        self.query_one(ProgressBar).display = False
        self.query_one("#kb-text", Static).update(plain_text(
            f"{stats['documents']} documents · {stats['chunks']} chunks\n{stats['entities']} entities · "
            f"{stats['facts']} facts\nmodel: {model}"))
