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

from chatapp.lexicon import census_first_names, census_spelling

# he/him → "m", she/her → "f"; "they" and "it" say nothing about this.
PRONOUN_GENDER = {**dict.fromkeys(("he", "him", "his", "himself"), "m"),
                  **dict.fromkeys(("she", "her", "hers", "herself"), "f")}
_ATTRIBUTE_GENDER = {"he": "m", "him": "m", "male": "m", "man": "m", "m": "m",
                     "she": "f", "her": "f", "female": "f", "woman": "f", "f": "f"}
CLEAR_RATIO = 4.0  # how much more common for one sex a first name must be to say which


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
    male, female = census_first_names().get(census_spelling(first).upper(), (0.0, 0.0))
    if male >= CLEAR_RATIO * female and male > 0:
        return "m"
    if female >= CLEAR_RATIO * male and female > 0:
        return "f"
    return None
