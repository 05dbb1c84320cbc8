"""A project's or firm's name cut short in talk: "the Harnwell routing study" for Harnwell Foods.

A rare word of a thing's name that no other entity's name has (and that is no given name) names the
thing alone, as a part of a person's name names them. Used where names are looked for: in the user's
message (preprocess/entities/aliases.py) and in the model's answer (postprocess/knowledge_view.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from chatapp import lexicon
from chatapp.accents import strip_accents
from chatapp.records import Entity

# How rare a word of a name must be to name the thing alone (a coined name, not an English word):
# "Harnwell" in "Harnwell Foods" does, "Foods" or "Soldering" does not.
DISTINCTIVE_ZIPF = 2.0
_WORD = re.compile(r"[^\W\d_]+")


def distinctive_words(entities: Iterable[Entity]) -> list[tuple[str, str]]:
    """(word as the name writes it, entity id) for each rare word of a non-person's name of two
    words or more that no other entity's name or alias has."""
    entities = list(entities)
    owners: dict[str, set[str]] = {}
    for entity in entities:
        for name in (entity.name, *entity.aliases):
            for word in _WORD.findall(name):
                owners.setdefault(_fold(word), set()).add(entity.id)
    found = []
    for entity in entities:
        words = _WORD.findall(entity.name)
        if entity.type == "person" or len(entity.name.split()) < 2:
            continue
        for word in words:
            folded = _fold(word)
            if (len(folded) >= 4 and word[:1].isupper() and owners.get(folded) == {entity.id}
                    and not lexicon.is_common(folded, DISTINCTIVE_ZIPF) and not lexicon.is_first_name(folded)):
                found.append((word, entity.id))
    return found


def _fold(word: str) -> str:
    return strip_accents(word).casefold()
