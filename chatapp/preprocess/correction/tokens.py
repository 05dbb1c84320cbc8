"""The editable token view of one input that all correction tiers share.

Tiers never edit a string: they change `Token.text` of tokens that map to
fixed spans of the ORIGINAL input, so every correction record keeps an exact
original span however many tiers touched the text, and correcting the
corrected text again finds nothing more to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chatapp.preprocess.correction import abbreviations

# A lower-case run of letters and digits with both in it, standing alone: "v2", "x86", "b4".
_LOWER_CODE = r"(?<![\w@#$€£₹.-])(?=[a-z0-9]*[a-z])(?=[a-z0-9]*\d)[a-z0-9]+(?![\w@-]|\.\w)"

# Order matters: earlier patterns win where they overlap.
PROTECTED_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("code", re.compile(r"```.*?```|`[^`\n]+`", re.S)),
    ("url", re.compile(r"\b(?:https?://|ftp://|www\.)[^\s<>\"']+[^\s<>\"'.,;:!?)\]]", re.I)),
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    ("path", re.compile(r"(?:~|\.{1,2})?/(?:[\w.-]+/)*[\w.-]+|\b[A-Za-z]:\\[^\s]+|\b[\w-]+\.(?:py|js|ts|md|txt|json|csv|pdf|html|eml|toml|yaml|yml|rs|go|java|c|h|cpp|sh|xlsx|docx)\b")),
    # A handle may contain dots and dashes but never ends with one: "@jsmith." is a handle and a full stop.
    ("handle", re.compile(r"(?<![\w@])[@#][A-Za-z_](?:[\w.-]*\w)?")),
    ("id", re.compile(r"\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+\b|\b[A-Z]+\d+[A-Z0-9]*\b")),
    # Lower-case codes that mix letters and digits ("v2", "a1b2", "x86"); "3pm" and "2nd" are numbers.
    ("id", re.compile(r"(?!\d+(?:st|nd|rd|th|am|pm|k|m)\b)" + _LOWER_CODE)),
    ("number", re.compile(r"[$€£₹₦₵]?\d+(?:[.,:/-]\d+)*(?:%|st|nd|rd|th|am|pm|k|m|M|K)?\b")),
]
# Letters, with combining marks kept inside the word (e + U+0301 is one word).
_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
WORD_PATTERN = re.compile(rf"[^\W\d_][^\W\d_{_MARKS}]*(?:[{_MARKS}]+[^\W\d_]*)*(?:['’][^\W\d_]+)*", re.UNICODE)
# Codes whose only fault can be their case: quarters and fiscal years ("q4" -> "Q4", "fy25" -> "FY25").
CASE_CODES = re.compile(r"q[1-4]|fy\d{2}(?:\d{2})?")
# Chat forms that mix letters and digits ("b4", "gr8", "2day") are words when the abbreviation
# table knows them and they were typed in lower case: "B4" and "A4" stay ids (paper sizes, cells).
_LETTERS_AND_DIGITS = re.compile(_LOWER_CODE)


@dataclass
class Token:
    start: int  # span in the original input, [start, end)
    end: int
    original: str
    text: str  # current text after the tiers so far
    kind: str  # word | punct | code | url | email | path | handle | id | number | acronym | other
    protected: bool = False

    @property
    def changed(self) -> bool:
        return self.text != self.original


class TokenizedInput:
    """Tokens plus the original whitespace between them."""

    def __init__(self, original: str, tokens: list[Token]):
        self.original = original
        self.tokens = tokens

    def render(self) -> str:
        """The current text: token texts with the original gaps between them.

        A token whose text became empty takes the gap before it with it, so
        deleting a doubled word leaves single spaces.
        """
        out: list[str] = []
        position = 0
        pending_gap = ""
        for token in self.tokens:
            gap = self.original[position : token.start]
            position = token.end
            if token.text == "":
                pending_gap = pending_gap or gap
                continue
            out.append(gap if gap or not pending_gap else pending_gap)
            pending_gap = ""
            out.append(token.text)
        out.append(self.original[position:])
        return "".join(out)

    def words(self) -> list[Token]:
        return [t for t in self.tokens if t.kind == "word" and not t.protected]


def _is_acronym(word: str) -> bool:
    return len(word) >= 2 and word.isupper()


def tokenize(text: str) -> TokenizedInput:
    protected: list[tuple[int, int, str]] = []
    for match in _LETTERS_AND_DIGITS.finditer(text):
        if match.group() in abbreviations.ALPHANUMERIC_FORMS or CASE_CODES.fullmatch(match.group()):
            protected.append((match.start(), match.end(), "chat"))  # a word after all, not protected
    for kind, pattern in PROTECTED_PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if start == end or any(s < end and start < e for s, e, _ in protected):
                continue
            protected.append((start, end, kind))
    protected.sort()

    tokens: list[Token] = []
    position = 0

    def scan_plain(segment_start: int, segment_end: int) -> None:
        index = segment_start
        while index < segment_end:
            char = text[index]
            if char.isspace():
                index += 1
                continue
            match = WORD_PATTERN.match(text, index, segment_end)
            if match:
                word = match.group()
                kind = "acronym" if _is_acronym(word) else "word"
                tokens.append(Token(index, match.end(), word, word, kind, protected=kind == "acronym"))
                index = match.end()
                continue
            # One non-word, non-space character (punctuation, emoji, a stray mark).
            end = index + 1
            while end < segment_end and not text[end].isspace() and not text[end].isalnum() and text[end] == char:
                end += 1  # runs like "..." or "!!" stay one token
            piece = text[index:end]
            tokens.append(Token(index, end, piece, piece, "punct" if not piece.isalnum() else "other"))
            index = end

    for start, end, kind in protected:
        scan_plain(position, start)
        piece = text[start:end]
        if kind == "chat":
            tokens.append(Token(start, end, piece, piece, "word"))
        else:
            tokens.append(Token(start, end, piece, piece, kind, protected=True))
        position = end
    scan_plain(position, len(text))
    return TokenizedInput(text, tokens)
