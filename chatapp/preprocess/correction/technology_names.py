"""Product and technology names in their usual case ("GraphQL", "macOS").

The names are data (technology_names.txt, shipped inside the package and
read with importlib.resources), so adding one needs no code. Tier 1 uses
them two ways: a lower-case "graphql" is given its case, never respelt into
an English word ("graphic"); and a misspelt "javascrpit" may be respelt to
the name, like any other word near a dictionary word.
"""

from __future__ import annotations

import functools
from importlib import resources

from chatapp.preprocess.correction.dictionary import SmallIndex

DATA_FILE = "technology_names.txt"


@functools.lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    """lower-case -> the name as usually written."""
    text = resources.files(__package__).joinpath(DATA_FILE).read_text(encoding="utf-8")
    names = {}
    for line in text.splitlines():
        name = line.strip()
        if name and not name.startswith("#"):
            names[name.lower()] = name
    return names


def technology_name(lower: str) -> str | None:
    """The usual spelling of a lower-case word that is a technology name, or None."""
    return _names().get(lower)


@functools.lru_cache(maxsize=1)
def technology_index() -> SmallIndex:
    """The names (lower case) for near-word look-ups: candidates for a misspelling."""
    index = SmallIndex()
    for lower in _names():
        index.add(lower)
    return index


def castable(typed: str, name: str) -> bool:
    """Whether `typed` is `name` with only its case lost: all lower case, or
    capitalised on the first letter only ("github", "Github"). Other capitals
    were typed on purpose ("GITHUB" in a heading, "GitHUB")."""
    if typed.lower() != name.lower() or typed == name:
        return False
    return typed.islower() or (typed[:1].isupper() and typed[1:].islower())
