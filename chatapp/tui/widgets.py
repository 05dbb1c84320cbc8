"""Small widgets of the chat screen: messages, the live correction diff,
the entity list and the token-budget bars. What the user, the model or the
registry wrote is shown cleaned (chatapp.terminal_text), never as markup."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from chatapp.terminal_text import clean, plain_text



def __getattr__(name: str):
    # AssistantMessage was always found here too; loaded on use (its Markdown is not needed to paint).
    if name == "AssistantMessage":
        from chatapp.tui.answer_view import AssistantMessage

        return AssistantMessage
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Past this, the diff lists the corrections with a little context instead of the whole input:
# a pasted page must not fill the screen under the input.
WHOLE_DIFF_MAX_CHARS = 240
CONTEXT_CHARS = 12
CORRECTIONS_LISTED = 6


class UserMessage(Static):
    def __init__(self, text: str, corrected: str | None = None):
        from chatapp.input_limits import unread_note

        body = plain_text(text)
        if corrected and corrected != text:
            body.append("\n→ " + clean(corrected), style="italic green")
        note = unread_note(text)  # a long paste: say that only its opening was read closely
        if note:
            body.append("\n" + clean(note), style="dim italic")
        super().__init__(body, classes="message user")


class CorrectionDiff(Static):
    def show(self, original: str, result) -> None:
        if not original.strip() or result is None:
            self.update("")
            return
        if not result.corrections:
            self.update(Text("no corrections", style="dim"))
            return
        if len(original) > WHOLE_DIFF_MAX_CHARS:
            line = compact_diff(original, result.corrections)
        else:
            from chatapp.views import correction_diff  # the records it shows are not needed to paint

            line = correction_diff(original, result.corrections)
        line.append(f"   confidence {result.confidence:.2f}", style="dim")
        self.update(line)


def compact_diff(original: str, corrections) -> Text:
    """"14 corrections: …the emial→email from… · …"": each correction with a few characters either side."""
    applied = sorted((c for c in corrections if c.applied), key=lambda c: c.span)
    line = Text(f"{len(applied)} correction{'s' if len(applied) != 1 else ''}: ", style="bold")
    for number, record in enumerate(applied[:CORRECTIONS_LISTED]):
        start, end = record.span
        if number:
            line.append(" · ", style="dim")
        line.append("…" + clean(original[max(0, start - CONTEXT_CHARS):start]).replace("\n", " "))
        if record.original:
            line.append(clean(record.original), style="strike red")
            line.append("→", style="dim")
        line.append(clean(record.corrected) or "∅", style="bold green")
        line.append(clean(original[end:end + CONTEXT_CHARS]).replace("\n", " ") + "…")
    if len(applied) > CORRECTIONS_LISTED:
        line.append(f" · and {len(applied) - CORRECTIONS_LISTED} more", style="dim")
    return line


class EntityPanel(Static):
    """One line per thing mentioned: what was said, what it resolved to, how sure; a mention said
    again the same way is counted on its line (×3), not listed again (a pasted page says "Monday"
    thirty times)."""

    def show(self, entities) -> None:
        if not entities:
            self.update(Text("none yet", style="dim"))
            return
        mentions: dict[tuple, list] = {}
        for entity in entities:
            key = (entity.surface.casefold(), entity.canonical_name, entity.entity_id, entity.entity_type)
            mentions.setdefault(key, []).append(entity)
        lines = Text()
        for same in mentions.values():
            entity = same[0]
            lines.append(clean(entity.surface), style="bold")
            lines.append(" → ")
            lines.append(clean(entity.canonical_name or "?"), style="green" if entity.entity_id else "yellow")
            times = f" ×{len(same)}" if len(same) > 1 else ""
            lines.append(clean(f"  {entity.entity_type.lower()} {entity.confidence:.2f}{times}") + "\n", style="dim")
            for candidate, score in entity.candidates[1:3]:
                lines.append(clean(f"    also {candidate} {score:.2f}") + "\n", style="dim")
        self.update(lines)


class BudgetPanel(Static):
    def show(self, prompt) -> None:
        if prompt is None:
            self.update(Text("no prompt yet", style="dim"))
            return
        from chatapp.views import budget_bars

        self.update(budget_bars(prompt, width=12))
