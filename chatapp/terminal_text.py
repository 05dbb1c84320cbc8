"""Untrusted text made safe to show in a terminal: the one sanitiser every output path uses.

Untrusted is anything chatapp did not write itself: a model's answer, a document's text or title, a
file name, a session name, a registry value, an exception's message. Shown raw, such text can drive
the terminal: `ESC]52;c;…` writes the user's clipboard, `ESC]8;;url` hides a link behind harmless
words, `ESC[2J` clears the screen, a carriage return overwrites what was shown, a bidi override
makes text read in a different order than it runs. Printed through Rich, `[link=…]` or `[/b]`
would be read as markup (a hidden link, or a crash).

`clean` removes all of that and keeps what a reader sees (letters, newlines, tabs); `markup_safe`
is `clean` plus Rich markup escaping, for text placed in a Rich markup string; `plain_text` is a
Rich `Text` of the cleaned string, for widgets and tables that take one; `StreamCleaner` cleans text
arriving in pieces, where one escape sequence may be split across two of them.
"""

from __future__ import annotations

import re

from rich.markup import escape
from rich.text import Text

# Escape sequences, 7-bit (ESC + letter) and 8-bit (a C1 introducer), as ECMA-48 defines them:
# - control strings (OSC, DCS, SOS, PM, APC) run to a string terminator (ST, or BEL for OSC);
# - CSI: parameter bytes, intermediate bytes, one final byte;
# - any other escape: intermediate bytes and one final byte.
_STRING_SEQUENCE = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
_CSI_SEQUENCE = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
_OTHER_ESCAPE = r"\x1b[ -/]*[0-~]"
_SEQUENCE = re.compile(f"{_STRING_SEQUENCE}|{_CSI_SEQUENCE}|{_OTHER_ESCAPE}")

# What is left after the sequences: C0 controls but tab and newline, DEL, C1 controls (a lone ESC or
# introducer, or the start of a string never terminated, goes with them), the bidi embeddings,
# overrides and isolates (U+202A–U+202E, U+2066–U+2069), and lone surrogates, which no terminal
# encoding can write (they come from undecodable bytes): those become U+FFFD.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE_PAIR = re.compile(r"[\ud800-\udbff][\udc00-\udfff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
REPLACEMENT = "\ufffd"

# An escape sequence that may still be arriving: its introducer with no end yet, at the end of a piece.
_UNFINISHED = re.compile(r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*\x1b?\Z"
                         r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*\Z|\x1b[ -/]*\Z"
                         r"|[\ud800-\udbff]\Z")  # the first half of a character split in two
# An unfinished sequence longer than this is no sequence worth waiting for: it is cleaned as it stands.
UNFINISHED_HELD_MAX = 4096


def clean(text: object) -> str:
    """`text` as a string with nothing that drives the terminal: escape sequences removed, control
    characters removed except newline and tab (a lone carriage return becomes a newline, so nothing
    can be overwritten), bidi overrides removed, lone surrogates replaced by U+FFFD."""
    text = text if isinstance(text, str) else str(text)
    text = _SEQUENCE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _SURROGATE_PAIR.sub(_joined_pair, _CONTROL.sub("", text))
    return _SURROGATE.sub(REPLACEMENT, text)


def _joined_pair(match: re.Match) -> str:
    """Two UTF-16 halves of one character (an emoji sent in two pieces) as that character."""
    return match.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def markup_safe(text: object) -> str:
    """`clean(text)` escaped so that Rich shows it as it is inside a markup string."""
    return escape(clean(text))


def plain_text(text: object, style: str = "") -> Text:
    """A Rich `Text` of `clean(text)`: never read as markup, nothing that drives the terminal."""
    return Text(clean(text), style=style)


def cleaned_argument(argument: str) -> str:
    """A command-line argument as text: bytes that were not UTF-8 (which Python keeps as lone
    surrogates) become U+FFFD, and control characters go, as `clean` removes them."""
    return clean(argument.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


def escape_json_controls(json_text: str) -> str:
    """JSON written with ensure_ascii=False, with DEL, C1 controls, bidi overrides and lone surrogates
    written as \\uXXXX escapes: the same data, none of it raw on a terminal (json escapes only C0)."""
    return re.sub(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]",
                  lambda m: f"\\u{ord(m.group()):04x}", json_text)


class StreamCleaner:
    """Cleans text that arrives in pieces: an escape sequence split across pieces is held back until
    it ends (then removed whole) instead of leaking its tail as text or its head as a control."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        """The part of what has arrived so far that is safe to show now."""
        text = self._held + piece
        unfinished = _UNFINISHED.search(text)
        if unfinished is not None and len(text) - unfinished.start() <= UNFINISHED_HELD_MAX:
            self._held, text = text[unfinished.start():], text[:unfinished.start()]
        else:
            self._held = ""
        return clean(text)

    def flush(self) -> str:
        """Whatever was held back, cleaned: the stream has ended."""
        held, self._held = self._held, ""
        return clean(held)
