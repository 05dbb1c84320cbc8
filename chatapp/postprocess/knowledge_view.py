"""An in-memory view of the knowledge registry, shaped for checking answers.

The registry lives in SQLite and answers one entity at a time; checking an
answer needs every alias (to find mentions), every attribute value by its
shape (to compare an email with an email, a date with a date) and every
profile value (to see that "Sarah from marketing" names a department). The
view is built once and rebuilt only when the registry's counts change.

Values learnt from documents keep their history: a value an older document
gave and a newer one replaced is kept beside the entity's values, as a
superseded KnownValue pointing at the one that replaced it, so an answer that
repeats the old value can be told what it changed to, and where.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from chatapp import lexicon
from chatapp.knowledge.extraction.people import role_parts
from chatapp.knowledge.registry import decode_attribute, normalize_alias
from chatapp.knowledge.short_names import DescribedThings, distinctive_words
from chatapp.postprocess import values as V
from chatapp.knowledge.extraction.people import sole_holders
from chatapp.postprocess.evidence import date_covers, is_stop, stem, words
from chatapp.records import Entity

# A word of a thing's name at most this common in English tells it apart ("chiller", "Osprey",
# "renovation"); "project", "website", "launch" do not.
DISTINCTIVE_ZIPF = 4.0
# Attribute keys whose values describe who someone is; a different value of the
# same key next to the entity's name is a wrong attribute, not a new fact.
PROFILE_KEYS = frozenset({"department", "role", "location", "organization", "headquarters", "relationship"})

# What kind of stored value could a value found in text be compared with?
COMPATIBLE_SHAPES = {
    "email": {"email"}, "phone": {"phone"}, "url": {"url"}, "code": {"code"}, "date": {"date"}, "weekday": {"date"},
    "relative": {"date"}, "year": {"date"}, "decade": set(), "time": {"time"}, "amount": {"amount"},
    "quantity": {"quantity"}, "number": {"number", "amount", "quantity"},
}


@dataclass
class KnownValue:
    """One attribute or fact object of an entity, parsed by its shape."""

    key: str
    raw: str
    shape: str  # email | phone | url | code | date | time | amount | quantity | entity | text
    parsed: Any
    source: str = "registry"
    confidence: float = 1.0
    # Learnt from documents: "current", or "superseded" by a newer document's value.
    status: str = "current"
    superseded_by: KnownValue | None = None
    document: str | None = None  # the document that states it (attribute_history's source)
    doc_date: str | None = None

    @property
    def key_words(self) -> set[str]:
        return {w for w in re.split(r"[_\W]+", self.key.lower()) if w}

    def matches(self, value: V.FoundValue) -> bool:
        """Does a value found in text say this value (a date said less precisely counts)?"""
        if self.shape != value.vtype and self.shape not in COMPATIBLE_SHAPES.get(value.vtype, ()):
            return False  # an amount is never a date
        if value.vtype in ("date", "weekday", "year"):
            return isinstance(self.parsed, V.DateValue) and date_covers(value.parsed, self.parsed)
        if value.vtype == "number" and self.shape == "quantity":
            return V.same_value("number", value.parsed, self.parsed[0])
        if value.vtype == "number" and self.shape == "amount":
            return V.same_value("number", value.parsed, self.parsed)
        return V.same_value(value.vtype, value.parsed, self.parsed)


@dataclass
class EntityMention:
    span: tuple[int, int]
    surface: str
    entity_ids: list[str]  # candidates, best first
    exact_name: bool  # the full canonical name, not a first name or nickname


@dataclass
class KnowledgeView:
    entities: dict[str, Entity] = field(default_factory=dict)
    alias_index: dict[str, list[str]] = field(default_factory=dict)
    # (a rare word of a thing's name, its id): "Harnwell" for Harnwell Foods (knowledge/short_names.py)
    short_names: list[tuple[str, str]] = field(default_factory=list)
    # pieces of work by words of their names: "the signage project" (knowledge/short_names.py)
    described_things: DescribedThings | None = None
    values: dict[str, list[KnownValue]] = field(default_factory=dict)
    # normalised profile value -> [(entity_id, key)], e.g. "marketing" -> department of Priya
    profile_index: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # entity_id -> the values documents gave its attributes before newer ones replaced them
    superseded: dict[str, list[KnownValue]] = field(default_factory=dict)
    # entity_id -> values held beside the current ones ("also": a second number, an undated second role)
    held_too: dict[str, list[KnownValue]] = field(default_factory=dict)
    # stem of a distinctive word of a non-person's name -> the entities named with it ("chiller" ->
    # Chiller replacement), for a sentence that speaks of the thing without its whole name
    name_words: dict[str, list[str]] = field(default_factory=dict)
    alias_pattern: re.Pattern | None = None
    profile_pattern: re.Pattern | None = None
    stamp: tuple = ()
    _role_holders: dict[str, str] | None = None
    _role_pattern: re.Pattern | None = None

    @classmethod
    def empty(cls) -> "KnowledgeView":
        return cls()

    @classmethod
    def build(cls, registry) -> "KnowledgeView":
        view = cls()
        if registry is None:
            return view
        view.stamp = _stamp(registry)
        for entity in registry.all_entities():
            view.entities[entity.id] = entity
        for entity in view.entities.values():
            for alias in dict.fromkeys([entity.name, *entity.aliases]):
                view.alias_index.setdefault(normalize_alias(alias), []).append(entity.id)
            view.values[entity.id] = [view._known_value(k, v) for k, v in entity.attributes.items()]
        for fact in registry.all_facts():
            if fact.subject in view.entities:
                known = view._known_value(fact.predicate, fact.object, source=fact.source)
                known.confidence = fact.confidence
                existing = view.values.setdefault(fact.subject, [])
                if not any(e.key == known.key and e.raw == known.raw for e in existing):
                    existing.append(known)
        view.short_names = distinctive_words(view.entities.values())
        view.described_things = DescribedThings(view.entities.values())
        for ids in view.alias_index.values():
            ids.sort(key=lambda i: -view.entities[i].prior)
        view._load_history(registry)
        view._index_profiles()
        view._index_name_words()
        view._compile()
        return view

    def is_current(self, registry) -> bool:
        return registry is None or self.stamp == _stamp(registry)

    # --- building ---------------------------------------------------------------

    def _known_value(self, key: str, value: Any, source: str = "registry") -> KnownValue:
        raw = value if isinstance(value, str) else json.dumps(value)
        items = decode_attribute(value)  # stored as JSON text, or already decoded by the registry
        if isinstance(items, list):
            return KnownValue(key, raw, "list", [str(i) for i in items], source)
        if raw in self.entities:
            return KnownValue(key, raw, "entity", raw, source)
        shape, parsed = V.classify(raw)
        if shape == "number" and "budget" in lexicon.concepts_of_key(key) and re.fullmatch(r"\d{3,}(?:\.\d+)?", raw.strip()):
            # A register's bare figure under a money key ("approved_budget": 640000) is a sum, in whatever
            # currency the register keeps: "$460,000" said of it is compared as an amount.
            shape, parsed = "amount", float(raw)
        elif shape == "number" and (labelled := V.LABELLED_UNIT_RE.fullmatch(f"{key}: {raw.strip()}")) and (
                read := V.labelled_unit_value(labelled)):
            # A register's bare figure under a key that ends with its unit ("mtb_tonnes": 3900) is a
            # measure in that unit, written with it: "4 200 tonnes" said of it is corrected to "3900 tonnes".
            raw, shape, parsed = read[0], read[1], read[2]
        return KnownValue(key, raw, shape, parsed, source)

    def _load_history(self, registry) -> None:
        """Where each learnt value comes from, and the values newer documents replaced."""
        reader = getattr(registry, "all_attribute_history", None)
        if reader is None:  # a registry-like object without history
            return
        for row in reader():
            entity_id, key = row["entity_id"], row["key"]
            current = next((v for v in self.values.get(entity_id, []) if v.key == key), None)
            if current is None:
                continue  # the entity is the user's own, or the key was dropped
            if row["status"] == "current":
                if current.document is None and row["value"] == current.raw:
                    current.document, current.doc_date = row["source"], row["doc_date"]
                continue
            if row["value"] == current.raw:
                continue
            if row["status"] == "also":  # held beside the current value, not an old one
                self.held_too.setdefault(entity_id, []).append(self._known_value(key, row["value"], row["source"]))
                continue
            old = self._known_value(key, row["value"])
            old.status, old.superseded_by = "superseded", current
            old.document, old.doc_date = row["source"], row["doc_date"]
            old.confidence = row["confidence"] if row["confidence"] is not None else 1.0
            self.superseded.setdefault(entity_id, []).append(old)

    def _index_profiles(self) -> None:
        # A title someone held before a newer document gave them another is still looked for: "Dana is
        # the Finance Lead" after Dana became Head of Finance is said of her profile, and out of date.
        olds = {entity_id: [v for v in values if v.key in PROFILE_KEYS] for entity_id, values in self.superseded.items()}
        for entity_id, known in [*self.values.items(), *olds.items()]:
            for value in known:
                if value.key not in PROFILE_KEYS or value.shape != "text":
                    continue
                # "Austin, TX" is also "Austin"; "Secretary (Sekretariat)" is also "Secretary".
                forms = {value.raw, value.raw.split(",")[0], re.sub(r"\s*\([^()]*\)\s*$", "", value.raw)}
                if value.key == "role":  # "Dentist, DDS — Clinical Director" is also each job it names
                    forms.update(role_parts(value.raw))
                for form in forms:
                    norm = normalize_alias(form)
                    if len(norm) >= 3:
                        self.profile_index.setdefault(norm, []).append((entity_id, value.key))
        # A department is named by its entity too ("Mktg"), and its aliases mean the same value.
        for entity in self.entities.values():
            if entity.type != "department":
                continue
            for alias in [entity.name, *entity.aliases]:
                norm = normalize_alias(alias)
                if len(norm) >= 2 and norm not in self.profile_index:
                    self.profile_index[norm] = [(entity.id, "department")]

    def _index_name_words(self) -> None:
        for entity in self.entities.values():
            if entity.type == "person":
                continue  # a person is named by a name, not by one of its words
            for word in {w.lower() for w in words(entity.name) if len(w) > 3 and not is_stop(w)}:
                if lexicon.zipf(word) < DISTINCTIVE_ZIPF:
                    self.name_words.setdefault(stem(word), []).append(entity.id)

    def named_by_word(self, stems: set[str], only_one: bool = True) -> list[str]:
        """The entities a distinctive word of whose name is among `stems`, each word naming only one
        (`only_one`), or every entity such a word names."""
        return list(dict.fromkeys(i for s in stems if (ids := self.name_words.get(s, ())) and (
            len(ids) == 1 or not only_one) for i in ids))

    def _compile(self) -> None:
        aliases = sorted({a for e in self.entities.values() for a in [e.name, *e.aliases]}, key=len, reverse=True)
        if aliases:
            self.alias_pattern = re.compile(
                r"(?<![\w@.])(" + "|".join(re.escape(a) for a in aliases) + r")(?![\w@])", re.IGNORECASE
            )
        profiles = sorted(self.profile_index, key=len, reverse=True)
        if profiles:
            # A profile is indexed without its punctuation: "Office & Operations Manager", "Co-founder" and
            # "Finance/People" are looked for with their "&", hyphen or slash between the words.
            self.profile_pattern = re.compile(
                r"(?<![\w@.])(" + "|".join(re.escape(p).replace(r"\ ", r"[\s,&/-]+") for p in profiles) + r")(?![\w@])",
                re.IGNORECASE,
            )

    # --- reading ----------------------------------------------------------------

    def name(self, entity_id: str | None) -> str:
        entity = self.entities.get(entity_id or "")
        return entity.name if entity else (entity_id or "")

    def display(self, value: KnownValue) -> str:
        """A known value as a person would write it (entity ids become names)."""
        if value.shape == "entity":
            return self.name(value.raw)
        if value.shape == "list":
            return ", ".join(self.name(i) if i in self.entities else i for i in value.parsed)
        return value.raw

    def values_of(self, entity_id: str | None, shape: str | None = None) -> list[KnownValue]:
        known = self.values.get(entity_id or "", [])
        return [v for v in known if shape is None or v.shape == shape]

    def lookup(self, text: str) -> list[str]:
        return list(self.alias_index.get(normalize_alias(text), []))

    def find_mentions(self, text: str) -> list[EntityMention]:
        """Names and aliases of known entities in `text`, longest match first.

        A one-word alias counts only when written like a name (capitalised or
        with symbols): "atlas" in prose is a word, "Atlas" is the project.
        """
        if self.alias_pattern is None:
            return []
        mentions = []
        for match in self.alias_pattern.finditer(text):
            surface = match.group(1)
            if " " not in surface and surface.isalpha() and not surface[0].isupper():
                continue
            if surface.lower() in _COMMON_ALIASES and not surface[0].isupper():
                continue
            ids = self.lookup(surface)
            if not ids:
                continue
            exact = any(normalize_alias(self.entities[i].name) == normalize_alias(surface) for i in ids) or (
                # "Michelle Tan" for Tan Hui Min (Michelle): the name they go by with their family name, one
                # person's alone, names them as surely as the full name does.
                len(ids) == 1 and len(words := surface.split()) >= 2 and self.entities[ids[0]].type == "person"
                and normalize_alias(words[-1]) in normalize_alias(self.entities[ids[0]].name).split())
            mentions.append(EntityMention(match.span(1), surface, ids, exact))
        return mentions

    def short_mentions(self, text: str, entity_ids, taken: list[tuple[int, int]]) -> list[EntityMention]:
        """ "the Harnwell routing study" in an answer about Harnwell Foods: the rare word of the name of
        a thing the question is about, or words of its name before what kind of thing it is ("the
        signage project"). Only of those: a word dropped in passing ("Claimsworth would cost
        more than £55,000 with migration") would otherwise be held to every value of "Claimsworth
        Practice"."""
        found = []
        for word, entity_id in self.short_names:
            if entity_id not in entity_ids:
                continue
            for match in re.finditer(rf"(?<![\w'’-]){re.escape(word)}(?![\w-])", text):
                if not any(a < match.end() and match.start() < b for a, b in taken):
                    found.append(EntityMention(match.span(), word, [entity_id], False))
        for (start, end), entity_id in self.described_things.find(text) if self.described_things else ():
            if entity_id in entity_ids and not any(a < end and start < b for a, b in taken):
                found.append(EntityMention((start, end), text[start:end], [entity_id], False))
        return found

    def profile_mentions(self, text: str) -> list[tuple[tuple[int, int], str, list[tuple[str, str]]]]:
        if self.profile_pattern is None:
            return []
        found = []
        # The pattern is of accent-free forms: "Café Manager" is looked for as "Cafe Manager".
        for match in self.profile_pattern.finditer(_without_accents(text)):
            surface = text[match.start(1):match.end(1)]
            norm = re.sub(r"\s+", " ", normalize_alias(surface))
            if norm in self.profile_index:
                found.append((match.span(1), surface, self.profile_index[norm]))
        return found

    def also_held(self, entity_id: str, key: str) -> list[str]:
        """The values, as shown, that `entity_id` holds under `key` beside its current one."""
        return [self.display(k) for k in self.held_too.get(entity_id, []) if k.key == key]

    def profile_value(self, entity_id: str, key: str) -> KnownValue | None:
        for value in self.values_of(entity_id):
            if value.key == key and value.shape in ("text", "entity"):
                return value
        return None

    def role_holders(self) -> dict[str, str]:
        """A role as the documents write it, lower-cased ("managing director"), -> the one person who
        holds it; a role two people share names neither."""
        if self._role_holders is None:
            roles = ((entity.id, role) for entity in self.entities.values() if entity.type == "person"
                     and isinstance(role := decode_attribute(entity.attributes.get("role")), str)
                     and 0 < len(role.split()) <= 5)
            self._role_holders = sole_holders(roles, lambda form: " ".join(form.lower().split()))
        return self._role_holders

    def role_holders_in(self, text: str) -> set[str]:
        """The people `text` names by a role only they hold, said with a determiner ("the managing
        director", "our treasurer")."""
        holders = self.role_holders()
        if not holders:
            return set()
        if self._role_pattern is None:
            roles = sorted(holders, key=len, reverse=True)
            self._role_pattern = re.compile(r"\b(?:the|our|your|its)\s+(" + "|".join(map(re.escape, roles)) + r")\b")
        return {holders[m.group(1)] for m in self._role_pattern.finditer(" ".join(text.lower().split()))}

    def first_name_matches(self, first: str) -> list[str]:
        """Entities whose canonical first name is `first` (for "did you mean")."""
        first = first.casefold()
        return [e.id for e in self.entities.values() if e.type == "person" and e.name.split()[0].casefold() == first]


# Aliases that are ordinary lower-case words; they mean the entity only when capitalised.
_COMMON_ALIASES = frozenset({"the company", "company", "office", "people", "workplace"})


def _stamp(registry) -> tuple:
    """Changes whenever entities or facts are added, removed or re-ingested."""
    try:
        return (*registry.stamp(), id(registry))
    except Exception:  # a registry-like object without a stamp: build once
        return (id(registry),)


def _without_accents(text: str) -> str:
    """`text` with each accented letter as its base letter, one character for one, so spans hold."""
    if text.isascii():  # no accents to take off (most answers): the text as it is
        return text
    return "".join(base if len(base := "".join(c for c in unicodedata.normalize("NFKD", ch)
                                                if not unicodedata.combining(c))) == 1 else ch
                   for ch in text)

