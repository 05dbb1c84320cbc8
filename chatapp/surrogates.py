"""Surrogate halves in text: rejoined when both arrived, replaced when one is alone.

A model's stream is JSON, and JSON escapes characters outside the Basic
Multilingual Plane as two UTF-16 halves ("\\ud83d\\ude00" for 😀). A server that
cuts its chunks between the halves sends each one alone, and Python decodes
each delta into a string holding a lone surrogate. Such a string cannot be
encoded as UTF-8: SQLite and the terminal refuse it. Arguments decoded with
`surrogateescape` carry lone halves too.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH_AT_END = re.compile("[\ud800-\udbff]$")


def repair_surrogates(text: str) -> str:
    """`text` with each pair of halves joined into its character and each lone half as U+FFFD."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class SurrogateJoiner:
    """Streamed pieces made printable one at a time: a piece that ends in a
    first half keeps it back until the next piece brings the second."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        self._held = ""
        if _HIGH_AT_END.search(text):
            text, self._held = text[:-1], text[-1]
        return repair_surrogates(text)

    def flush(self) -> str:
        """What is still held back (a first half whose partner never came), repaired."""
        held, self._held = self._held, ""
        return repair_surrogates(held)
