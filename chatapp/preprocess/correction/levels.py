"""Correction levels: how sure a correction must be before it is applied.

A level is a number from 0.0 (never change the user's text) to 1.0 (apply
anything plausible), with four named steps. Every correction carries a
confidence; it is applied when the confidence reaches the level's threshold
and otherwise kept as a suggestion the user can accept by hand.

    level        threshold   what gets applied
    off     0.0     never    nothing (every correction is a suggestion)
    minimal 0.25    0.85     near-certain fixes: chat-speak, "i" -> "I", known names
    standard 0.5    0.70     ordinary typos, a question's "?", fuzzy KB names
    aggressive 0.85 0.49     guesses: a statement's ".", common words that are KB names

The threshold falls linearly with the level (1 - 0.6 x level) so that any
number between the steps behaves in between.
"""

from __future__ import annotations

import math

LEVELS: dict[str, float] = {
    "off": 0.0,
    "minimal": 0.25,
    "standard": 0.5,
    "aggressive": 0.85,
}
DEFAULT_LEVEL = LEVELS["standard"]


def parse_level(value: str | float | int) -> float:
    """A level name ("standard") or number ("0.7", 0.7) as a float in [0, 1]."""
    if isinstance(value, bool):
        raise ValueError(_message(value))
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = str(value).strip().lower()
        if text in LEVELS:
            return LEVELS[text]
        try:
            number = float(text)
        except ValueError:
            raise ValueError(_message(value)) from None
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise ValueError(_message(value))
    return number


def _message(value: object) -> str:
    names = ", ".join(LEVELS)
    return f"invalid correction level {value!r}: use one of {names}, or a number from 0.0 to 1.0"


def threshold(level: float) -> float:
    """The confidence a correction needs at `level` (inf at "off": nothing passes)."""
    if level <= 0.0:
        return math.inf
    return 1.0 - 0.6 * min(level, 1.0)


def is_applied(confidence: float, level: float) -> bool:
    # A hair of tolerance so a confidence computed as 0.7000000001 below 0.7
    # is not lost to float rounding.
    return confidence >= threshold(level) - 1e-9


def level_name(level: float) -> str:
    """The named step at or below `level` ("standard" for 0.6)."""
    name = "off"
    for step, value in LEVELS.items():
        if level >= value:
            name = step
    return name
