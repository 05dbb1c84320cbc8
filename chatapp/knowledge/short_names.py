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
_SHARED_ZIPF = 3.0


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


def telling_pairs(entities: Iterable[Entity]) -> list[tuple[str, str, str]]:
    """(shared word, telling word, entity id): "the Ipê migration" when the customer Ipê and the project
    "Projeto Ipê — FieldMax → Calçada migration" both have "Ipê" in their names. A rare word several
    things' names share, then a word of one of those things' names that none of the others has, names
    that one thing; the pair is read in that order, as "the <name> <what it is>" is said."""
    entities = [e for e in entities if e.type != "person"]
    words_of: dict[str, set[str]] = {}
    for entity in entities:
        words_of[entity.id] = {_fold(w) for name in (entity.name, *entity.aliases) for w in _WORD.findall(name)}
    owners: dict[str, set[str]] = {}
    for entity in entities:
        for word in _WORD.findall(entity.name):
            # Rarer than once a million words: a pair needs its second word too, so "Osprey" or "Helios" will do.
            if len(word) >= 3 and word[:1].isupper() and not lexicon.is_common(_fold(word), _SHARED_ZIPF):
                owners.setdefault(_fold(word), set()).add(entity.id)
    found = []
    for shared, ids in owners.items():
        if len(ids) < 2:
            continue
        for entity_id in ids:
            others = set().union(*(words_of[o] for o in ids if o != entity_id))
            found += [(shared, word, entity_id) for word in sorted(words_of[entity_id] - others - {shared})
                      if len(word) >= 4]
    return found


def _fold(word: str) -> str:
    return strip_accents(word).casefold()
