"""Which pronoun a person is referred to by, so "his" after "John Smith … and
Sarah Chen?" is John's.

A person's own `pronouns` (or `gender`) attribute in the registry decides. Without
one, the first name is looked up in the 1990 US census first-name tables that the
`names` package ships (MIT): a name at least four times as common for one sex as
for the other reads as that; any other name (rare, shared, or absent, as many
non-US names are) says nothing, and nothing is ruled out.
"""

from __future__ import annotations

import functools
from importlib import resources

# he/him → "m", she/her → "f"; "they" and "it" say nothing about this.
PRONOUN_GENDER = {**dict.fromkeys(("he", "him", "his", "himself"), "m"),
                  **dict.fromkeys(("she", "her", "hers", "herself"), "f")}
_ATTRIBUTE_GENDER = {"he": "m", "him": "m", "male": "m", "man": "m", "m": "m",
                     "she": "f", "her": "f", "female": "f", "woman": "f", "f": "f"}
CLEAR_RATIO = 4.0  # how much more common for one sex a first name must be to say which
COMMON_SURNAME_SHARE = 40.0  # percent of people whose surnames count as common


def person_gender(name: str, attributes: dict | None = None) -> tuple[str | None, bool]:
    """("m" | "f" | None, whether the person said so themselves in the registry)."""
    for key in ("pronouns", "gender"):
        value = str((attributes or {}).get(key) or "").strip().lower()
        if value:
            first = value.replace("/", " ").split()[0]
            return _ATTRIBUTE_GENDER.get(first), True  # "they/them" and anything else: None, but said
    words = name.split()
    return (first_name_gender(words[0]) if words else None), False


@functools.lru_cache(maxsize=4096)
def first_name_gender(first: str) -> str | None:
    male, female = _census().get(first.strip(".").upper(), (0.0, 0.0))
    if male >= CLEAR_RATIO * female and male > 0:
        return "m"
    if female >= CLEAR_RATIO * male and female > 0:
        return "f"
    return None


def is_first_name(word: str) -> bool:
    """Whether `word` (any case) is a first name of the census tables: "dana", "Rob"."""
    return word.strip(".").upper() in _census()


@functools.lru_cache(maxsize=1)
def _common_surnames() -> frozenset[str]:
    """The census surnames borne by the first COMMON_SURNAME_SHARE percent of people ("williams", "peters")."""
    try:
        text = (resources.files("names") / "dist.all.last").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):  # pragma: no cover - a broken install
        return frozenset()
    common = set()
    for line in text.splitlines():
        parts = line.split()  # name, percent, cumulative percent, rank
        if len(parts) >= 3:
            if float(parts[2]) > COMMON_SURNAME_SHARE:
                break
            common.add(parts[0].lower())
    return frozenset(common)


def is_common_surname(word: str) -> bool:
    """Whether `word` is a common surname of the census tables: "Williams" is no William's."""
    return word.lower() in _common_surnames()


@functools.lru_cache(maxsize=1)
def _census() -> dict[str, tuple[float, float]]:
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
