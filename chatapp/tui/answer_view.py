"""One assistant answer: Markdown that grows as the model streams (each piece appended, only the
last block parsed again, code fences highlighted), then the delivered text with its [corrected] and
[unverified] markers styled apart and clickable, and the checker's review under it.

While it streams, the answer is a column of Markdown widgets: finished blocks are moved, a few
thousand characters at a time, into a Markdown widget of their own that is laid out once and never
changed again; only the last widget, holding the open tail, grows. A draw then lays out the tail,
not every block of a long answer.

The model's text is untrusted: it is cleaned of terminal sequences as it arrives (a sequence split
across two pieces included) and reaches the screen only through Markdown's own parser, which
builds Textual Content and never reads Rich markup. Links are shown, never opened: a click says
where a link goes.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from textual.containers import Vertical
from textual.content import Content
from textual.style import Style
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from chatapp.terminal_text import StreamCleaner, clean, plain_text
from chatapp.tui.annotations import MARKER_STYLES, Review, TurnReview, marker_targets
from chatapp.tui.laid_out_once import LaidOutOnce

_MARKERS = re.compile("|".join(re.escape(m) for m in MARKER_STYLES))
ANNOTATION_LINK = "#annotation-"
# How often arrived text is drawn: the stream's pieces are gathered off the UI thread and shown in
# batches, so a fast model costs a few redraws a second, not one per piece (and typing stays quick).
# Each draw lays out the open tail (see SETTLE_CHARS) and repaints the view: every 0.4 s at first, a
# little less often for each further 4,000 characters of a long answer, at least once a second. (Each
# draw is a frame of its own since draws wake the screen; at 0.2 s they cost typing its quick diff.)
DRAW_FIRST_SECONDS = 0.4
DRAW_SLOWER_PER_CHARS = (0.1, 4000)
DRAW_LAST_SECONDS = 1.0
# Once the growing Markdown holds this many characters of finished blocks, they move into a widget of
# their own (parsed once more, then left alone): few enough widgets for a long answer, a short tail.
SETTLE_CHARS = 2000
_PARSER = MarkdownIt("gfm-like")  # the parser Textual's Markdown uses: the same blocks
STATUS_NOTES = {"interrupted": ("[interrupted — the answer stopped here]", "bold yellow"),
                "failed": ("[failed]", "bold red"),
                "superseded": ("[replaced by a second attempt: the checker found this one wrong]", "dim")}


class _MarkedBlock:
    """Mixed into Markdown's text blocks: markers in the text are styled and become links to
    their annotation (numbered by their order in the whole answer)."""

    def set_content(self, content: Content) -> None:
        markdown = self._markdown
        if isinstance(markdown, AnswerMarkdown) and markdown.marked and _MARKERS.search(content.plain):
            start_line = self.source_range[0] if self.source_range else 0
            ordinal = sum(len(_MARKERS.findall(line))
                          for line in markdown.source.splitlines()[:start_line])
            for match in _MARKERS.finditer(content.plain):
                style = Style.parse(MARKER_STYLES[match.group()]) + Style.from_meta(
                    {"@click": f"link({ANNOTATION_LINK + str(ordinal)!r})"})
                content = content.stylize(style, match.start(), match.end())
                ordinal += 1
        super().set_content(content)


_answer_classes: dict[type, type] = {}  # a Markdown block class → the answer's own


class AnswerMarkdown(LaidOutOnce, Markdown):
    """Markdown whose text blocks style annotation markers, once the answer has been checked."""

    def __init__(self, markdown: str | None = None, marked: bool = False):
        super().__init__(markdown, open_links=False)
        self.marked = marked

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        base = super().get_block_class(block_name)
        if base not in _answer_classes:
            # Code is shown as written: no markers styled in a fence.
            mixins = (LaidOutOnce,) if issubclass(base, MarkdownFence) else (_MarkedBlock, LaidOutOnce)
            _answer_classes[base] = type(f"Answer{base.__name__}", (*mixins, base), {})
        return _answer_classes[base]


class AssistantMessage(LaidOutOnce, Vertical):
    """Grows as the answer streams; then shows the delivered, annotated text and its review."""

    def __init__(self, text: str = "", status: str = "complete", review: Review | None = None):
        """`review`: the checker's review of an answer read back from storage (a resumed conversation)."""
        classes = "message assistant" + (" interrupted" if status in STATUS_NOTES else "")
        super().__init__(classes=classes)
        self.text = clean(text)
        self.status = status
        self._cleaner = StreamCleaner()
        self._arrived: list[str] = []  # pieces from the turn's thread, not drawn yet
        self._drawing = None
        self._targets = marker_targets(self.text, review.annotations) if review is not None else []
        self.review: TurnReview | None = TurnReview(review) if review is not None else None

    def compose(self):
        yield AnswerMarkdown(self.text, marked=self.status != "streaming")
        yield Static(self._status_note(), classes="status-note")
        if self.review is not None:
            yield self.review

    @property
    def markdown(self) -> AnswerMarkdown:
        """The Markdown widget that grows (the only one, once the answer is finished and checked)."""
        return self.query(AnswerMarkdown).last()

    def _status_note(self):
        note = STATUS_NOTES.get(self.status)
        return plain_text(note[0], style=note[1]) if note else ""

    def receive(self, piece: str) -> None:
        """A piece of the streamed answer, from any thread: drawn with the others that arrived
        within the next fraction of a second."""
        self._arrived.append(piece)  # list.append is atomic: no lock with the UI thread needed

    def on_mount(self) -> None:
        if self.status == "streaming":
            self._schedule_draw()

    def _schedule_draw(self) -> None:
        step, per = DRAW_SLOWER_PER_CHARS
        delay = min(DRAW_LAST_SECONDS, DRAW_FIRST_SECONDS + step * (len(self.text) // per))
        self._drawing = self.set_timer(delay, self._draw_and_reschedule)

    async def _draw_and_reschedule(self) -> None:
        await self._draw_arrived()
        if self._drawing is not None:  # not finished meanwhile
            self._schedule_draw()

    async def _draw_arrived(self) -> None:
        count = len(self._arrived)
        if count:
            pieces = self._arrived[:count]
            del self._arrived[:count]  # what arrived meanwhile stays for the next draw
            with self.app.batch_update():  # one frame per draw, however many steps the Markdown takes
                await self.append("".join(pieces))
            self._show()

    def _show(self) -> None:
        """Have the screen draw what changed. The end of a batch wakes the app, not the screen, which
        idled through the batch with its update pending: without this the text would wait for
        something else to repaint — the prompt's cursor blink, or nothing when the prompt has no focus."""
        self.screen.check_idle()

    async def append(self, piece: str) -> None:
        """Add a piece of the streamed answer (cleaned; a split escape sequence waits for its end)."""
        shown = self._cleaner.feed(piece)
        if not shown:
            return
        self.text += shown
        growing = self.markdown
        await growing.append(shown)
        await self._settle(growing)

    async def _settle(self, growing: AnswerMarkdown) -> None:
        """Move the finished blocks at the start of `growing` into a Markdown widget of their own,
        mounted just before it, once there are SETTLE_CHARS of them."""
        source = growing.source
        if len(source) < SETTLE_CHARS:
            return
        split = settled_length(source)
        if split < SETTLE_CHARS:
            return
        # In the draw's batch: no frame shows these blocks twice or not at all.
        await self.mount(AnswerMarkdown(source[:split]), before=growing)
        await growing.update(source[split:])

    async def finish(self, text: str, status: str = "complete", review: Review | None = None) -> None:
        """The answer as delivered (checked, maybe corrected) and how it ended."""
        if self._drawing is not None:
            self._drawing.stop()
            self._drawing = None
        await self._draw_arrived()
        delivered = clean(text) if text else self.text + self._cleaner.flush()
        self.status = status
        if status in STATUS_NOTES:
            self.add_class("interrupted")
        if review is not None:
            self._targets = marker_targets(delivered, review.annotations)
        if delivered != self.text or review is not None:
            # One Markdown for the whole answer: its markers are numbered through the whole text.
            self.text = delivered
            parts = list(self.query(AnswerMarkdown))
            with self.app.batch_update():
                for settled in parts[:-1]:
                    await settled.remove()
                parts[-1].marked = review is not None
                await parts[-1].update(delivered)
            self._show()
        self.query_one(".status-note", Static).update(self._status_note())
        if review is not None:
            self.review = TurnReview(review)
            await self.mount(self.review)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        if event.href.startswith(ANNOTATION_LINK):
            ordinal = int(event.href[len(ANNOTATION_LINK):])
            if self.review is not None and ordinal < len(self._targets):
                self.review.show(self._targets[ordinal])
            return
        self.app.notify(f"Link (not opened): {clean(event.href)}", timeout=8)


def settled_length(source: str) -> int:
    """How many characters at the start of `source` are finished Markdown blocks that can be shown
    on their own exactly as they are shown now: everything before the start of the last top-level
    paragraph that another block already follows (0 if there is none). A paragraph, because it has
    no top margin to collapse with the block before it; one that is followed, because the last
    block can still change kind (a setext heading's underline, a table's delimiter row)."""
    starts = [token for token in _PARSER.parse(source) if token.level == 0 and token.map and token.nesting >= 0]
    for block in reversed(starts[1:-1]):
        if block.type == "paragraph_open":
            return sum(len(line) + 1 for line in source.split("\n")[:block.map[0]])
    return 0
