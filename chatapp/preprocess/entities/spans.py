"""Stretches of one text that may refer to something (Mention), and choosing
among overlapping ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, TypeVar

Spanned = TypeVar("Spanned")  # anything with a `.span` of (start, end) characters
MentionKind = Literal["marker", "alias", "date", "time", "ner", "description", "pronoun"]


@dataclass
class Mention:
    """A stretch of text that may refer to something. `kind` says how it was
    found: marker, alias, date, time, ner, description or pronoun."""

    text: str
    span: tuple[int, int]
    kind: MentionKind
    label: str = ""  # spaCy label, pronoun, or the noun of a description
    entity_id: str | None = None  # a marker's entity
    value: object = None  # a TemporalExpression / TimeExpression


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
