"""Stretches of one text that may refer to something (Mention). Choosing among
overlapping ones is chatapp.overlaps.keep_unclaimed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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
