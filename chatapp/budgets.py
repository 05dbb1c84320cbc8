"""Token budgets: the profiles that split a prompt between its sections, and
the tiktoken counter that every budget is measured in.

The "default" profile is the seed's 4,096-token split (system 500, dialogue
1,000, entities 500, rag 1,500, query 596); compact, standard and extended
keep that shape, scaled to about 4K, 8K and 16K tokens.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

SECTION_NAMES = ("system", "dialogue", "entities", "rag", "query")

SEED_SPLIT = {"system": 500, "dialogue": 1000, "entities": 500, "rag": 1500, "query": 596}

# Models tiktoken does not know (offline, ollama/llama3, claude-…) are counted
# with cl100k_base: close enough for budgeting, and always available offline.
FALLBACK_ENCODING = "cl100k_base"

CountTokens = Callable[[str], int]


@dataclass(frozen=True)
class BudgetProfile:
    name: str
    sections: dict[str, int] = field(default_factory=dict)
    total: int = 0
    description: str = ""


def _scaled(name: str, total: int, description: str) -> BudgetProfile:
    """The seed's split scaled to `total`; rounding leftovers go to the query,
    so the sections always add up to the total exactly."""
    seed_total = sum(SEED_SPLIT.values())
    sections = {k: int(v * total / seed_total) for k, v in SEED_SPLIT.items()}
    sections["query"] += total - sum(sections.values())
    return BudgetProfile(name, sections, total, description)


PROFILES: dict[str, BudgetProfile] = {
    "default": BudgetProfile("default", dict(SEED_SPLIT), sum(SEED_SPLIT.values()), "the seed's 4,096-token split"),
    "compact": _scaled("compact", 4000, "about 4K tokens, for small context windows"),
    "standard": _scaled("standard", 8000, "about 8K tokens"),
    "extended": _scaled("extended", 16000, "about 16K tokens, for long documents and conversations"),
}


def get_profile(name: str | None) -> BudgetProfile:
    key = (name or "default").strip().lower()
    if key not in PROFILES:
        raise ValueError(f"unknown budget profile {name!r}; valid profiles: {', '.join(PROFILES)}")
    return PROFILES[key]


# --- tokens -------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def encoding_for(model: str | None):
    """The tiktoken encoding for a model name, cached: loading one takes ~100 ms."""
    import chatapp  # noqa: F401  (points tiktoken at the bundled BPE files first)
    import tiktoken

    if model:
        # litellm names carry a provider prefix: "openai/gpt-4o-mini".
        for candidate in (model, model.rsplit("/", 1)[-1]):
            try:
                return tiktoken.encoding_for_model(candidate)
            except (KeyError, ValueError):
                continue
    return tiktoken.get_encoding(FALLBACK_ENCODING)


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
