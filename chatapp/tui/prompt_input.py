"""The message box: several lines, the history of what was sent, and the live correction on offer.

Enter sends. A new line is Shift+Enter where the terminal reports it (kitty, WezTerm, foot, Ghostty,
iTerm2 with the kitty keyboard protocol: Textual asks for it) and Ctrl+J everywhere (the line feed
every terminal sends for it; most terminals send plain Enter for Shift+Enter). Up on the first line
and Down on the last walk the history. While the diff below offers a correction, Tab puts the
corrected text in the box and Ctrl+G keeps the text as typed: it is then sent without correction.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from chatapp.tui.input_history import InputHistory

NEWLINE_KEYS = ("shift+enter", "ctrl+j")


class PromptInput(TextArea):
    DEFAULT_CSS = """
    PromptInput { height: auto; min-height: 3; max-height: 25%; }  /* a long paste scrolls inside the box */
    """
    BINDINGS = [
        Binding("up", "history_back", "Previous message", show=False),
        Binding("down", "history_forward", "Next message", show=False),
        Binding("tab", "accept_correction", "Accept correction", show=False),
        Binding("ctrl+g", "keep_as_typed", "Keep as typed", show=False),
    ]

    class Changed(TextArea.Changed):
        """The text changed (typed, recalled, or set by the app)."""

        @property
        def value(self) -> str:
            return self.text_area.text

    @dataclass
    class Submitted(Message):
        """Enter was pressed: send `value` (uncorrected when `as_typed`)."""

        input: "PromptInput"
        value: str
        as_typed: bool = False

        @property
        def control(self) -> "PromptInput":
            return self.input

    @dataclass
    class CorrectionDismissed(Message):
        """Ctrl+G: the correction on offer is declined for this text."""

        input: "PromptInput"

        @property
        def control(self) -> "PromptInput":
            return self.input

    def __init__(self, history: InputHistory | None = None, **options):
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **options)
        self.sent = history or InputHistory(None)
        self._offered: str | None = None  # the corrected text on offer for the text now in the box
        self._as_typed_text: str | None = None  # the text the person chose to send uncorrected

    @property
    def value(self) -> str:
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    @property
    def as_typed(self) -> bool:
        return self._as_typed_text is not None and self._as_typed_text == self.text

    # --- keys ------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        # Runs before TextArea's own key handling, which would insert a new line for Enter.
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.action_send()
        elif event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")

    def action_send(self) -> None:
        text = self.text
        self.sent.add(text)
        self.post_message(self.Submitted(self, text, as_typed=self.as_typed))

    def action_history_back(self) -> None:
        if self.cursor_location[0] > 0:
            self.action_cursor_up()
            return
        recalled = self.sent.back(self.text)
        if recalled is not None:
            self.value = recalled

    def action_history_forward(self) -> None:
        if self.cursor_location[0] < self.document.line_count - 1:
            self.action_cursor_down()
            return
        recalled = self.sent.forward()
        if recalled is not None:
            self.value = recalled

    # --- the correction on offer -------------------------------------------------------------

    def offer(self, text: str, corrected: str | None) -> None:
        """The live correction of `text` is `corrected` (None: nothing to offer). An offer for text
        that has since changed, or that was declined, is not taken."""
        useful = corrected is not None and corrected != text and text == self.text and not self.as_typed
        self._offered = corrected if useful else None

    @property
    def offered(self) -> str | None:
        return self._offered

    def action_accept_correction(self) -> None:
        if self._offered is None:
            raise SkipAction()  # Tab moves the focus as usual
        self.value, self._offered = self._offered, None

    def action_keep_as_typed(self) -> None:
        if self._offered is None:
            raise SkipAction()
        self._offered = None
        self._as_typed_text = self.text
        self.post_message(self.CorrectionDismissed(self))
