"""Widgets that grow while an answer streams, laid out once per draw instead of twice.

A screen layout gives each widget its new size, and Textual then sets the widget's `virtual_size`,
a reactive that asks for another layout of that widget. For a widget sized by the layout itself
(auto height: the conversation's messages and Markdown blocks, and the conversation's scrollable
area) that second layout finds nothing to move, yet it costs a full reflow and repaint of the screen:
each streamed draw was two layouts. Here `virtual_size` is the same reactive without the layout and
repaint requests, as Textual itself does when it only scrolls (its reflow of the visible part sets the
value without them). Scrollbars still appear and disappear: that is a reactive of its own.

Likewise a Markdown block built for a draw is given its text before it is mounted, and that asked for
a layout too, delivered only once the block had been mounted and laid out with its parent: a widget
not mounted yet asks for no layout of its own.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.reactive import Reactive


class LaidOutOnce:
    """Mixed in before a Textual widget class whose size only ever comes from the layout."""

    virtual_size = Reactive(Size(0, 0), layout=False, repaint=False)

    def refresh(self, *regions, layout: bool = False, **options):
        return super().refresh(*regions, layout=layout and self.is_mounted, **options)


class Conversation(LaidOutOnce, VerticalScroll):
    """The chat's scrolling column of messages."""
