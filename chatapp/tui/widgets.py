"""Small widgets of the chat screen: messages, the live correction diff,
the entity list and the token-budget bars. What the user, the model or the
registry wrote is shown cleaned (chatapp.terminal_text), never as markup."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from chatapp.terminal_text import clean, plain_text
from chatapp.views import annotated_answer, budget_bars, correction_diff


class UserMessage(Static):
    def __init__(self, text: str, corrected: str | None = None):
        body = plain_text(text)
        if corrected and corrected != text:
            body.append("\n→ " + clean(corrected), style="italic green")
        super().__init__(body, classes="message user")


class AssistantMessage(Static):
    """Grows as the answer streams; then shows the delivered, annotated text."""

    def __init__(self, text: str = "", status: str = "complete"):
        self.text = text
        classes = "message assistant" + (" interrupted" if status in ("interrupted", "failed") else "")
        super().__init__(self._body(status), classes=classes)
        self.status = status

    def _body(self, status: str) -> Text:
        body = annotated_answer(self.text or "…")
        if status == "interrupted":
            body.append("\n[interrupted — the answer stopped here]", style="bold yellow")
        elif status == "failed":
            body.append("\n[failed]", style="bold red")
        return body

    def append(self, piece: str) -> None:
        self.text += piece
        self.update(self._body("streaming"))

    def finish(self, text: str, status: str = "complete") -> None:
        self.text = text
        self.status = status
        if status != "complete":
            self.add_class("interrupted")
        self.update(self._body(status))


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
    """One line per mention: what was said, what it resolved to, how sure."""

    def show(self, entities) -> None:
        if not entities:
            self.update(Text("none yet", style="dim"))
            return
        lines = Text()
        for entity in entities:
            lines.append(clean(entity.surface), style="bold")
            lines.append(" → ")
            lines.append(clean(entity.canonical_name or "?"), style="green" if entity.entity_id else "yellow")
            lines.append(clean(f"  {entity.entity_type.lower()} {entity.confidence:.2f}") + "\n", style="dim")
            for candidate, score in entity.candidates[1:3]:
                lines.append(clean(f"    also {candidate} {score:.2f}") + "\n", style="dim")
        self.update(lines)


class BudgetPanel(Static):
    def show(self, prompt) -> None:
        if prompt is None:
            self.update(Text("no prompt yet", style="dim"))
            return
        self.update(budget_bars(prompt, width=12))
