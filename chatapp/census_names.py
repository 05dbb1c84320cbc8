"""The first names and surnames of the 1990 US census tables that the `names` package ships (MIT).

Shared by what reads names: the pronoun a first name suggests (name_gender) and whether a phrase
in a document reads as a person's name (knowledge extraction).
"""

from __future__ import annotations

import functools
from importlib import resources


@functools.lru_cache(maxsize=1)
def census() -> dict[str, tuple[float, float]]:
    """First name → (share of men, share of women) bearing it, in percent."""
    table: dict[str, list[float]] = {}
    try:
        data = resources.files("names")
        files = (("dist.male.first", 0), ("dist.female.first", 1))
        for filename, column in files:
            for line in (data / filename).read_text(encoding="utf-8").splitlines():
                parts = line.split()
                if len(parts) >= 2:
                    table.setdefault(parts[0], [0.0, 0.0])[column] = float(parts[1])
    except (ModuleNotFoundError, FileNotFoundError, ValueError):  # pragma: no cover - a broken install
        return {}
    return {name: (male, female) for name, (male, female) in table.items()}


def is_given_name(word: str) -> bool:
    """A first name the census tables list ("Dana", "Rob"), whatever its sex ratio."""
    return word.strip(".").upper() in census()


@functools.lru_cache(maxsize=1)
def _census_surnames() -> frozenset[str]:
    try:
        text = (resources.files("names") / "dist.all.last").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):  # pragma: no cover - a broken install
        return frozenset()
    return frozenset(line.split()[0] for line in text.splitlines() if line.split())


def is_surname(word: str) -> bool:
    """A surname the census tables list ("Hartley", "Williams")."""
    return word.strip(".").upper() in _census_surnames()
