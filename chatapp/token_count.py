"""Counting tokens with tiktoken, the unit every budget and usage figure is in.

Models tiktoken does not know (offline, ollama/llama3, claude-…) are counted
with cl100k_base: close enough for budgeting, and always available offline.
"""

from __future__ import annotations

import functools
from typing import Callable

FALLBACK_ENCODING = "cl100k_base"

CountTokens = Callable[[str], int]


@functools.lru_cache(maxsize=16)
def encoding_for(model: str | None):
    """The tiktoken encoding for a model name, cached: loading one takes ~100 ms."""
    # TIKTOKEN_CACHE_DIR already points at the bundled BPE files: chatapp/__init__ ran first.
    import tiktoken

    if model:
        # litellm names carry a provider prefix: "openai/gpt-4o-mini".
        for candidate in (model, model.rsplit("/", 1)[-1]):
            try:
                return _without_python_ranks(tiktoken.encoding_for_model(candidate))
            except (KeyError, ValueError):
                continue
    return _without_python_ranks(tiktoken.get_encoding(FALLBACK_ENCODING))


def _without_python_ranks(encoding):
    """`encoding` without the Python dict of its 100,000 ranks (14 MiB of a cold `ask`'s peak).
    tiktoken keeps that dict beside its Rust encoder's own copy, which does all the encoding and
    decoding, only to pickle the Encoding; chatapp never pickles one. (The object is tiktoken's
    shared one: another user in the process encodes as before.)"""
    if isinstance(getattr(encoding, "_mergeable_ranks", None), dict):
        encoding._mergeable_ranks = {}
    return encoding


def _encode(encoding, text: str) -> list[int]:
    # Special-token text in a user's paste ("<|endoftext|>") is counted as
    # plain text instead of raising.
    return encoding.encode(text, disallowed_special=())


@functools.lru_cache(maxsize=16)
def token_counter(model: str | None = None) -> CountTokens:
    encoding = encoding_for(model)
    return lambda text: len(_encode(encoding, text)) if text else 0


def count_tokens(text: str, model: str | None = None) -> int:
    return token_counter(model)(text)


# Encodings whose pre-tokenizer (the regex that splits text into pieces
# before BPE) never puts a line break and a following letter, digit or "<" in
# one piece, and never lets what follows a line break change the pieces before
# it. See TokenTally.of_parts.
_SPLIT_AFTER_LINE_BREAK = frozenset({"cl100k_base", "o200k_base"})


def _starts_piece(text: str) -> bool:
    return text[:1].isalnum() or text[:1] == "<"


class TokenTally:
    """Token counts for the texts of one prompt. Each distinct text is
    encoded once; a text made of parts already counted (the user message is
    the RAG section and the query, the flat prompt ends with the user
    message) is counted from its parts where that is exact (of_parts)."""

    def __init__(self, model: str | None = None):
        self.encoding = encoding_for(model)
        self._counts: dict[str, int] = {}
        self._splits_after_line_break = self.encoding.name in _SPLIT_AFTER_LINE_BREAK

    def __call__(self, text: str) -> int:
        count = self._counts.get(text)
        if count is None:
            count = self._counts[text] = len(_encode(self.encoding, text)) if text else 0
        return count

    def of_parts(self, parts: list[str]) -> int:
        """The tokens of "".join(parts), remembered under the joined text.

        Counted from the parts where no token can span a join: the part
        before ends in a line break and the part after starts with a letter,
        a digit or "<" (a piece never holds a line break and the character
        after it). A part of line breaks alone after a part that ends in a
        letter or digit and ">" (a fenced chunk) only extends the piece of
        that ">". Anywhere else, and for other encodings, the joined text is
        encoded."""
        text = "".join(parts)
        known = self._counts.get(text)
        if known is not None:
            return known
        parts = [part for part in parts if part]
        if not self._splits_after_line_break or len(parts) < 2:
            return self(text)
        total, previous, index = 0, "", 0
        while index < len(parts):
            part = parts[index]
            if previous and not (previous.endswith("\n") and _starts_piece(part)):
                return self(text)
            breaks = parts[index + 1] if index + 1 < len(parts) and not parts[index + 1].strip("\n") else ""
            if breaks and part.endswith(">") and part[-2:-1].isalnum():
                total += self(part) - self(">") + self(">" + breaks)
                previous, index = part + breaks, index + 2
            else:
                total += self(part)
                previous, index = part, index + 1
        self._counts[text] = total
        return total


def _decode(encoding, tokens: list[int]) -> str:
    # A cut can split a multi-byte character; drop the partial bytes rather
    # than show a replacement character.
    return encoding.decode_bytes(tokens).decode("utf-8", errors="ignore")


def truncate_tokens(text: str, limit: int, model: str | None = None, keep: str = "start") -> str:
    """`text` cut to at most `limit` tokens at a token boundary.

    keep="start" keeps the beginning (a pasted query), keep="end" keeps the
    most recent text (dialogue history).
    """
    if limit <= 0 or not text:
        return ""
    encoding = encoding_for(model)
    # A huge paste is cut by characters first so that only the part that can
    # survive is encoded; no token is longer than this many characters in
    # practice, and the slice is encoded whole if it comes up short.
    window = max(limit * 32, 4096)
    piece = text[:window] if keep == "start" else text[-window:]
    tokens = _encode(encoding, piece)
    if len(tokens) < limit and len(piece) < len(text):
        piece, tokens = text, _encode(encoding, text)
    if len(tokens) <= limit:
        return piece
    kept = tokens[:limit] if keep == "start" else tokens[-limit:]
    cut = _decode(encoding, kept)
    # Decoding then re-encoding can merge differently at the cut; shave until it fits.
    while cut and len(_encode(encoding, cut)) > limit:
        cut = cut[:-1] if keep == "start" else cut[1:]
    return cut
