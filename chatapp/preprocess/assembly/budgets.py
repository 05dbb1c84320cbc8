"""Token budgets: the profiles that split a prompt between its sections
(tokens are counted by chatapp.token_count).

The "default" profile is the seed's 4,096-token split (system 500, dialogue
1,000, entities 500, rag 1,500, query 596); compact, standard and extended
keep that shape, scaled to about 4K, 8K and 16K tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SECTION_NAMES = ("system", "dialogue", "entities", "rag", "query")

SEED_SPLIT = {"system": 500, "dialogue": 1000, "entities": 500, "rag": 1500, "query": 596}


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
