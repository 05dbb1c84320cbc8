"""Small widgets of the chat screen: messages, the live correction diff,
the entity list and the token-budget bars."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from chatapp.views import annotated_answer, budget_bars, correction_diff, entity_table


class UserMessage(Static):
    def __init__(self, text: str, corrected: str | None = None):
        body = Text(text)
        if corrected and corrected != text:
            body.append("\n→ " + corrected, style="italic green")
        super().__init__(body, classes="message user")


class AssistantMessage(Static):
    """Grows as the answer streams; then shows the delivered, annotated text."""

    def __init__(self, text: str = "", status: str = "complete"):
        self.text = text
        classes = "message assistant" + (" interrupted" if status in ("interrupted", "failed") else "")
        super().__init__(self._render(status), classes=classes)
        self.status = status

    def _render(self, status: str) -> Text:
        body = annotated_answer(self.text or "…")
        if status == "interrupted":
            body.append("\n[interrupted — the answer stopped here]", style="bold yellow")
        elif status == "failed":
            body.append("\n[failed]", style="bold red")
        return body

    def append(self, piece: str) -> None:
        self.text += piece
        self.update(self._render("streaming"))

    def finish(self, text: str, status: str = "complete") -> None:
        self.text = text
        self.status = status
        if status != "complete":
            self.add_class("interrupted")
        self.update(self._render(status))


class CorrectionDiff(Static):
    def show(self, original: str, result) -> None:
        if not original.strip() or result is None:
            self.update("")
            return
        if not result.corrections:
            self.update(Text("no corrections", style="dim"))
            return
        line = correction_diff(original, result.corrections)
        line.append(f"   confidence {result.confidence:.2f}", style="dim")
        self.update(line)


class EntityPanel(Static):
    def show(self, entities) -> None:
        self.update(entity_table(entities) if entities else Text("none yet", style="dim"))


class BudgetPanel(Static):
    def show(self, prompt) -> None:
        if prompt is None:
            self.update(Text("no prompt yet", style="dim"))
            return
        self.update(budget_bars(prompt, width=18))
