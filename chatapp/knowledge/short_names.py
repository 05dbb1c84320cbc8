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


# Words for the kind of thing a piece of work is, said after words of its name: "the Amboseli water
# project", "the signage project", "the soil microbiome grant".
KIND_WORDS = frozenset("project job works programme program initiative scheme grant study campaign pilot".split())
# A building job is named for what is built, then what is done to it ("Riverglen Day Clinic extension"): said
# without that last word it still names the job ("the Riverglen Day Clinic").
_WORK_DONE = frozenset("extension refurbishment renovation upgrade conversion".split())
# Said before a kind word, these pick a project out by when or how it stands ("the new project", "the
# main job"), never by its name, however many names hold them: a name is told by a word rarer than these.
_EVERYDAY_ZIPF = 5.0
_DETERMINER = re.compile(r"\b(?:the|our|your|their|that|this)\s+", re.IGNORECASE)
_NEXT_WORDS = re.compile(r"[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,3}")
_NOT_NAMED_SO = frozenset({"person", "organization", "location", "department"})


class DescribedThings:
    """The pieces of work a registry holds, by the words of their names, to find "the signage project"
    (Harbour Walk Signage) or "the pool upgrade" (Hydrotherapy pool upgrade) in lowercase talk: words
    of one thing's name, in its order, closed by a word for what kind of thing it is or by the name's
    own last word."""

    def __init__(self, entities: Iterable[Entity]):
        # Each word of a name -> the names holding it: a pasted page has thousands of "the …" to try.
        self._by_word: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for entity in entities:
            if entity.type in _NOT_NAMED_SO:
                continue
            for name in dict.fromkeys([entity.name, *entity.aliases]):
                words = tuple(_fold(w) for w in _WORD.findall(name))
                if len(words) >= 2:
                    for word in set(words):
                        self._by_word.setdefault(word, []).append((words, entity.id))

    def find(self, text: str) -> list[tuple[tuple[int, int], str]]:
        """(span of the words, entity id) for each such description in `text` that names one thing
        only, the most words that do."""
        found = []
        for determiner in _DETERMINER.finditer(text):
            run = _NEXT_WORDS.match(text, determiner.end())
            if not run:
                continue
            words = [(m.group(0), m.end()) for m in _WORD.finditer(text, run.start(), run.end())]
            if _fold(words[0][0]) not in self._by_word:
                continue  # its first word is in no name
            for n in range(len(words), 0, -1):
                said = tuple(_fold(w) for w, _ in words[:n])
                telling = [w for w in said if w not in KIND_WORDS]
                if not telling or any(w not in self._by_word for w in telling):
                    continue
                # The names holding the said word fewest names hold ("signage", not "project").
                names = min((self._by_word[w] for w in telling), key=len)
                ids = {entity_id for name, entity_id in names if _describes(said, name)}
                if len(ids) == 1:
                    found.append(((run.start(), words[n - 1][1]), ids.pop()))
                    break
        return found


def _closing_words(name: tuple[str, ...]) -> set[str]:
    """The words a description of the name may end on: its last, and the last of each part a title joins
    with "and" ("the Kya Sand warehouse re-roof" of "Kya Sand warehouse re-roof and slab repair"), and the
    word before a last word for its kind ("the Riverglen Day Clinic" of "Riverglen Day Clinic extension")."""
    return ({name[-1]} | {word for word, after in zip(name, name[1:]) if after == "and"}
            | ({name[-2]} if len(name) > 2 and name[-1] in KIND_WORDS | _WORK_DONE else set()))


def _describes(said: tuple[str, ...], name: tuple[str, ...]) -> bool:
    """Whether the said words are words of the name in its order, leaving some of it out (a name said
    whole is found as itself), closed by a word for its kind or by the name's own last word, with a
    word among them rarer than everyday words."""
    if said[-1] in KIND_WORDS and said[-1] != name[-1]:
        said = said[:-1]
    elif said[-1] not in _closing_words(name) or len(said) < 2:
        return False
    if not said or len(said) >= len(name) - (said[-1] == name[-1] and name[-1] in KIND_WORDS):
        return False
    if not any(len(w) >= 3 and not lexicon.is_common(w, _EVERYDAY_ZIPF) for w in said if w not in KIND_WORDS):
        return False
    rest = iter(name)
    return all(word in rest for word in said)
