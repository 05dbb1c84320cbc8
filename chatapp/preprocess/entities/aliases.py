"""The alias index: every name, alias and typed-in-full address in the registry
as a folded word phrase, plus what stage 2 knows about each entity (its
profile), built from the registry and rebuilt by refresh() after an ingest.

Mention detection looks phrases up here, candidate generation looks names up
here (exactly or fuzzily), and scoring reads the profiles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from rapidfuzz import fuzz, process

from chatapp import lexicon
from chatapp.accents import TOKEN, fold, name_tokens  # noqa: F401 - the index's keys (TOKEN re-exported)
from chatapp.knowledge.extraction.people import ROLE_KEYS, sole_holders  # "the office manager": its one holder
from chatapp.knowledge.registry import decode_attribute
from chatapp.knowledge.short_names import KIND_WORDS, DescribedThings, distinctive_words, telling_pairs
from chatapp.preprocess.dialogue import keywords_of
from chatapp.records import Entity

FULL_NAME_EXACTNESS, ALIAS_EXACTNESS, NAME_PART_EXACTNESS = 1.0, 0.97, 0.75


class Alias(NamedTuple):
    """One way the registry names an entity."""

    entity_id: str
    exactness: float  # how sure a hit on it is: 1 for the full name, less for an alias
    name: str  # as the registry spells it (case rules read it)


@dataclass
class Profile:
    """What stage 2 knows about one registry entity, precomputed."""

    entity: Entity
    attributes: dict  # decoded: lists and objects as Python data
    vocabulary: set[str]  # words of its description, type, role, department and location
    concepts: frozenset[str]  # the attribute concepts its keys hold (lexicon.concepts_of_key)
    related: set[str] = field(default_factory=set)  # entities its attributes name, and those naming it


class AliasIndex:
    """The registry's names and aliases as phrases, and a Profile per entity.
    Built on first use; refresh() rebuilds it."""

    def __init__(self, registry):
        self.registry = registry
        self._profiles: dict[str, Profile] | None = None
        self._phrases: dict[tuple[str, ...], list[Alias]] = {}
        self._name_keys: list[tuple[str, str, float]] = []  # (folded name or name part, entity_id, exactness)
        self._name_strings: list[str] = []
        self._longest = 1
        self._roles: dict[tuple[str, ...], str] = {}  # a role one entity alone holds -> that entity
        self._ends: dict | None = None  # (first word, last word) -> long names opening and closing so
        self._described: DescribedThings | None = None  # "the signage project": words of one thing's name

    def refresh(self) -> None:
        """Rebuild from the registry (after an ingest)."""
        profiles = {entity.id: _profile(entity) for entity in self.registry.all_entities()}
        phrases: dict[tuple[str, ...], list[Alias]] = {}
        name_keys: list[tuple[str, str, float]] = []
        for entity_id, profile in profiles.items():
            entity = profile.entity
            names = [(entity.name, FULL_NAME_EXACTNESS), *((a, ALIAS_EXACTNESS) for a in entity.aliases)]
            for name, exactness in names:
                tokens = name_tokens(name)
                if tokens:
                    phrases.setdefault(tokens, []).append(Alias(entity_id, exactness, name))
                    name_keys.append((" ".join(tokens), entity_id, exactness))
                if entity.type != "person" and (unyeared := _without_year(tokens)):
                    # "the Spring Youth Production" for "Spring Youth Production 2027" (or "2027 Spring …").
                    phrases.setdefault(unyeared, []).append(Alias(entity_id, ALIAS_EXACTNESS, " ".join(unyeared)))
            for key in ("email", "phone", "mobile"):  # an address or number typed in full names its owner
                value = profile.attributes.get(key)
                if isinstance(value, str) and name_tokens(value):
                    phrases.setdefault(name_tokens(value), []).append(Alias(entity_id, FULL_NAME_EXACTNESS, value))
            if entity.type == "person":  # "Smith" or "John" alone may mean John Smith
                name_keys += [(t, entity_id, NAME_PART_EXACTNESS) for t in name_tokens(entity.name) if len(t) >= 3]
        # "the Harnwell routing study": a rare word of a thing's name that no other name has.
        for word, entity_id in distinctive_words(p.entity for p in profiles.values()):
            phrases.setdefault(name_tokens(word), [Alias(entity_id, NAME_PART_EXACTNESS, word)])
        # "the Ipê migration": a word the customer's and the project's names share, then one only the project's has.
        for shared, telling, entity_id in telling_pairs(p.entity for p in profiles.values()):
            phrases.setdefault((shared, telling), [Alias(entity_id, NAME_PART_EXACTNESS, f"{shared} {telling}")])
        _link_related(profiles)
        self._roles = _sole_holders(profiles)
        self._profiles, self._phrases, self._name_keys, self._ends = profiles, phrases, name_keys, None
        self._described = DescribedThings(p.entity for p in profiles.values())
        self._name_strings = [key for key, _, _ in name_keys]
        self._longest = max((len(p) for p in phrases), default=1)

    @property
    def profiles(self) -> dict[str, Profile]:
        """entity_id → Profile, for every registry entity."""
        self._ensure_built()
        return self._profiles

    def _ensure_built(self) -> None:
        if self._profiles is None:
            self.refresh()

    @property
    def longest_phrase(self) -> int:
        """How many words the longest name has: no longer n-gram can be a name."""
        self._ensure_built()
        return self._longest

    def names_at(self, tokens: tuple[str, ...], surface: str) -> list[Alias]:
        """The registry names spelled by these folded words that `surface` (the
        words as typed) may stand for, by the case rules of `allows`."""
        self._ensure_built()
        return [alias for alias in self._phrases.get(tokens, ()) if self.allows(alias, surface)]

    def allows(self, alias: Alias, surface: str) -> bool:
        """Case rules that keep ordinary words ("office", "sales", "PM" in
        "3 PM", "will") from being read as entity names."""
        name = alias.name
        if " " in name.strip() or not name.isalpha():
            return True
        if name.isupper() and len(name) <= 4:
            return surface == name
        if self.profiles[alias.entity_id].entity.type == "person":
            return fold(name) not in lexicon.AMBIGUOUS_NAMES or surface[:1].isupper()
        return surface[:1].isupper() or not lexicon.is_common(fold(name))

    def shortened_name(self, tokens: tuple[str, ...]) -> str | None:
        """The one project or thing these folded words name with some middle words of its name left
        out: "amboseli borehole project" for "Amboseli Camp Borehole & Water Tank Project". The first and last words
        are its own, the rest in its order; a person's name is never shortened so."""
        self._ensure_built()
        if len(tokens) < 2:
            return None
        if self._ends is None:
            self._ends = {}
            for phrase, aliases in self._phrases.items():
                if len(phrase) > 2:
                    self._ends.setdefault((phrase[0], phrase[-1]), []).append((phrase, aliases))
                    self._ends.setdefault((phrase[0], None), []).append((phrase, aliases))
        # "the Amboseli water project": a word for the kind of thing it is may close the name in place of
        # its own last word ("… Water Tank Upgrade").
        generic = len(tokens) > 2 and tokens[-1] in KIND_WORDS
        found = set()
        for phrase, aliases in self._ends.get((tokens[0], None if generic else tokens[-1]), ()):
            said = tokens[:-1] if generic and phrase[-1] != tokens[-1] else tokens
            if len(phrase) <= len(said):
                continue
            words = iter(phrase)
            if all(token in words for token in said):  # in order, as a subsequence
                found |= {a.entity_id for a in aliases if " " in a.name
                          and self.profiles[a.entity_id].entity.type not in ("person", "organization")}
        return next(iter(found)) if len(found) == 1 else None

    def described_things(self, text: str) -> list[tuple[tuple[int, int], str]]:
        """(span, entity id) of each piece of work `text` calls by words of its name and what kind of
        thing it is, in lowercase or not: "the signage project" for Harbour Walk Signage."""
        self._ensure_built()
        return self._described.find(text)

    def role_holder(self, tokens: tuple[str, ...]) -> str | None:
        """The one entity whose role these folded words are ("office manager"), if only one has it."""
        self._ensure_built()
        return self._roles.get(tokens)

    def near_names(self, folded: str, cutoff: float, limit: int = 20) -> list[tuple[str, float, float]]:
        """Names and person name parts that `folded` (a mention's folded words,
        space-joined) nearly spells, as (entity_id, exactness, rapidfuzz ratio ≥ cutoff)."""
        self._ensure_built()
        found = process.extract(folded, self._name_strings, scorer=fuzz.ratio, score_cutoff=cutoff, limit=limit)
        return [(self._name_keys[index][1], self._name_keys[index][2], score) for _, score, index in found]


def _without_year(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """A name's words without the year that opens or closes it, when two or more words are left."""
    is_year = re.compile(r"(?:19|20)\d\d").fullmatch
    if len(tokens) >= 3 and is_year(tokens[-1]):
        return tokens[:-1]
    if len(tokens) >= 3 and is_year(tokens[0]):
        return tokens[1:]
    return ()


def _profile(entity: Entity) -> Profile:
    attributes = {key: decode_attribute(value) for key, value in entity.attributes.items()}
    name_words = set(keywords_of(" ".join([entity.name, *entity.aliases])))
    described_by = [entity.description, entity.type, *(str(attributes.get(k, "")) for k in ("role", "department", "location"))]
    concepts = frozenset(c for key in attributes for c in lexicon.concepts_of_key(key))
    return Profile(entity, attributes, set(keywords_of(" ".join(described_by))) - name_words, concepts)




def _sole_holders(profiles: dict[str, Profile]) -> dict[tuple[str, ...], str]:
    """Folded role words (five at most) held by exactly one entity."""
    roles = ((entity_id, value) for entity_id, profile in profiles.items() for key in ROLE_KEYS
             if isinstance(value := profile.attributes.get(key), str))
    return sole_holders(roles, lambda form: tokens if (tokens := name_tokens(form)) and len(tokens) <= 5 else None)


def _link_related(profiles: dict[str, Profile]) -> None:
    """Links both ways between entities whose attributes name one another (owner ↔ project, …)."""
    for entity_id, profile in profiles.items():
        for value in profile.attributes.values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str) and item in profiles and item != entity_id:
                    profile.related.add(item)
                    profiles[item].related.add(entity_id)
