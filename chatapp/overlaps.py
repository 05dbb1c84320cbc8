"""Choosing among overlapping stretches of one text: the better one keeps its
characters. Used by the date reader (chatapp.dates) and by stage 2's mention
detection, so it sits below both."""

from __future__ import annotations

from typing import Iterable, TypeVar

Spanned = TypeVar("Spanned")  # anything with a `.span` of (start, end) characters


def keep_unclaimed(ordered: Iterable[Spanned], text_length: int) -> list[Spanned]:
    """Each item in `ordered` (best first) that overlaps no better one already
    kept, returned in text order."""
    taken = bytearray(text_length)  # characters already claimed by a kept item
    kept = []
    for item in ordered:
        start, end = item.span
        if not any(taken[start:end]):
            taken[start:end] = b"\x01" * (end - start)
            kept.append(item)
    return sorted(kept, key=lambda item: item.span[0])
