"""The line above the footer: which model answers, at what correction level and budget profile,
and what the session has used so far (tokens and cost, from its stored model calls); while the
knowledge base loads and the side panel is hidden (a narrow terminal), how far it has got."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from chatapp.terminal_text import clean


def status_text(model: str, level: str, profile: str, usage: dict | None) -> Text:
    """"model gpt-4o-mini · level standard · profile default · 1,204 tokens · $0.0012"."""
    line = Text()
    for label, value in (("model", model), ("level", level), ("profile", profile)):
        if line:
            line.append(" · ", style="dim")
        line.append(f"{label} ", style="dim")
        line.append(clean(value), style="bold")
    if usage:
        tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
        line.append(f" · {tokens:,} tokens · ${float(usage.get('cost') or 0):.4f}", style="dim")
    else:
        line.append(" · new session", style="dim")
    return line


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; padding: 0 1; background: $panel; }
    """

    def __init__(self, id: str | None = None):
        super().__init__(id=id)
        self._line = Text()
        self._loading = ""

    def show(self, model: str, level: str, profile: str, usage: dict | None) -> None:
        self._line = status_text(model, level, profile, usage)
        self._draw()

    def show_loading(self, progress: str) -> None:
        """"knowledge 12/31 files · 40 chunks" ahead of the rest while it loads; "" when done."""
        self._loading = progress
        self._draw()

    def _draw(self) -> None:
        if not self._loading:
            self.update(self._line)
            return
        line = Text(clean(self._loading), style="bold")
        line.append(" · ", style="dim")
        self.update(line + self._line)
