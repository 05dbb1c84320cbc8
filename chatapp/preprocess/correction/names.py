"""KnownNames: the registry's names and aliases, prepared for exact and fuzzy lookup."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from chatapp.accents import name_tokens, strip_accents, umlauts_spelled_out
from chatapp.knowledge.extraction.people import ROLE_KEYS, sole_holders
from chatapp.lexicon import AMBIGUOUS_NAMES, is_first_name, zipf
from chatapp.preprocess.correction.tokens import TokenizedInput, tokenize
from chatapp.records import Entity

PLACE_ATTRIBUTES = ("location", "headquarters", "offices", "city")


@dataclass
class NameForm:
    """One way of writing a known name, e.g. ("Project", "Atlas")."""

    words: tuple[str, ...]  # canonical spelling, one per token
    entity_type: str
    entity_ids: list[str] = field(default_factory=list)  # most likely first
    explicit: bool = True  # a registry name or alias, not a part of one
    # The (words, type, explicit) it was added as, each time: rated on first need (rating looks words
    # up in wordfreq, whose import alone is a fifth of a second), the best of them counting.
    _added_as: list[tuple[tuple[str, ...], str, bool]] = field(default_factory=list, repr=False)
    _rating: tuple[float, bool] | None = field(default=None, repr=False)

    @property
    def capitalize_confidence(self) -> float:
        """How sure we are that this name, typed in lower case, means the entity
        (0: never capitalise, e.g. the alias "the company")."""
        return self._rated()[0]

    @property
    def common_word(self) -> bool:
        """Also an everyday word ("Atlas"): capitalised with confidence only where it stands bare, as a
        name does ("the tech lead on atlas"), not after an article ("an atlas of the world")."""
        return self._rated()[1]

    def _added(self) -> None:
        self._added_as.append((self.words, self.entity_type, self.explicit))
        self._rating = None

    def _rated(self) -> tuple[float, bool]:
        if self._rating is None:
            confidence = max((_capitalize_confidence(*added) for added in self._added_as), default=0.0)
            common = confidence <= 0.5 and _common_word_name(self.words, self.entity_type)
            self._rating = (confidence, common)
        return self._rating


@dataclass
class NameMatch:
    indices: list[int]  # token indices in the doc
    canonical: list[str]  # replacement text per token, possessive "'s" kept
    form: NameForm


def _sole_role_words(roles: list[tuple[str, str]]) -> frozenset[tuple[str, ...]]:
    """The lower-case words of each role that one entity alone holds ("office manager"): "the office
    managers email" is that one person's email, not several managers'."""
    return frozenset(sole_holders(roles, lambda form: t if (t := name_tokens(form)) and len(t) <= 4 else None))


def _capitalize_confidence(words: tuple[str, ...], entity_type: str, explicit: bool) -> float:
    letters = [w for w in words if any(c.isalpha() for c in w)]
    if not letters or not any(any(c.isupper() for c in w) for w in letters):
        return 0.0
    if len(letters) >= 2:
        return 0.9
    lower = letters[0].lower()
    frequency = zipf(lower)
    if lower in AMBIGUOUS_NAMES or frequency >= 5.5 or len(lower) < 2:
        return 0.5
    if entity_type in ("person", "place"):
        if explicit:
            return 0.9
        return 0.8 if frequency < 3.0 else 0.6
    # Projects, teams, departments: "Atlas", "Sales", "People" are also common words.
    return 0.88 if frequency < 3.0 else 0.5


def _common_word_name(words: tuple[str, ...], entity_type: str) -> bool:
    """A one-word project, team or department name that is also an everyday word ("Atlas",
    "Beacon"), not one of the words too often meant otherwise ("may", "will")."""
    if len(words) != 1 or entity_type in ("person", "place"):
        return False
    lower = words[0].lower()
    # Everyday words used bare all the time ("in office", "to sales") are left as they are.
    return lower not in AMBIGUOUS_NAMES and 3.0 <= zipf(lower) < 4.5


class KnownNames:
    """Registry names and aliases as token sequences, for exact and fuzzy lookup."""

    def __init__(self, entities: Iterable[Entity] = ()):
        self.forms: dict[tuple[str, ...], NameForm] = {}
        self._weights: dict[tuple[tuple[str, ...], str], float] = {}
        self._roles: list[tuple[str, str]] = []  # (entity id, a role as written)
        for entity in entities:
            self._add_entity(entity)
        self.sole_roles = _sole_role_words(self._roles)
        # First word -> the word counts of names starting with it, longest first.
        self.lengths_by_first: dict[str, list[int]] = {}
        for key in self.forms:
            self.lengths_by_first.setdefault(key[0], []).append(len(key))
        for lengths in self.lengths_by_first.values():
            lengths.sort(reverse=True)
        # Built on first need, as the forms are rated: the live diff looks names up exactly.
        self._fuzzy_index: dict[tuple[int, str], list[tuple[str, NameForm]]] | None = None

    @property
    def _fuzzy(self) -> dict[tuple[int, str], list[tuple[str, NameForm]]]:
        """(word count, first letter) → the proper names of that shape, for fuzzy lookup."""
        if self._fuzzy_index is None:
            index: dict[tuple[int, str], list[tuple[str, NameForm]]] = {}
            for form in self.forms.values():
                if self._fuzzy_eligible(form):
                    key = (len(form.words), form.words[0][0].lower())
                    index.setdefault(key, []).append((" ".join(form.words).lower(), form))
            self._fuzzy_lengths = sorted({length for length, _ in index}, reverse=True)
            self._fuzzy_index = index
        return self._fuzzy_index

    @property
    def fuzzy_lengths(self) -> list[int]:
        """The word counts of the names fuzzy lookup knows, longest first."""
        self._fuzzy  # noqa: B018
        return self._fuzzy_lengths

    def rate_all(self) -> None:
        """Rate every form and build the fuzzy index now (in the background, after the first diff),
        so that no later look-up pays for it."""
        for form in self.forms.values():
            form._rated()
        self._fuzzy  # noqa: B018

    @classmethod
    def from_registry(cls, registry) -> "KnownNames":
        return cls(registry.all_entities() if registry is not None else ())

    def __len__(self) -> int:
        return len(self.forms)

    # --- building ------------------------------------------------------------------

    def _add_entity(self, entity: Entity) -> None:
        self._roles += [(entity.id, value) for key in ROLE_KEYS
                        if isinstance(value := entity.attributes.get(key), str) and value.strip()]
        for text in dict.fromkeys([entity.name, *entity.aliases]):
            self._add(text, entity.type, entity.id, entity.prior + 1.0, explicit=True)
        if entity.type == "person":
            for part in entity.name.split():
                if len(part) > 1 and part[0].isalpha():
                    self._add(part, "person", entity.id, entity.prior, explicit=False)
                    if (typed := umlauts_spelled_out(part)) != part:  # "juergens email" is Jürgen's
                        self._add(typed, "person", entity.id, entity.prior, explicit=False, written=part)
        elif entity.type in ("organization", "thing") and (short := _distinctive_first_word(entity.name)):
            # People call a firm by its first word when no one else has it ("at northgate" for
            # Northgate Cycle Works Ltd): a name part, as a person's first name is. A vendor list's
            # firms are things to the registry ("Northgate Leasing Pvt. Ltd"), named the same way.
            self._add(short, "organization", entity.id, entity.prior, explicit=False)
        for key in PLACE_ATTRIBUTES:
            for place in _place_names(entity.attributes.get(key)):
                self._add(place, "place", None, 0.0, explicit=True)

    def _add(self, text: str, entity_type: str, entity_id: str | None, weight: float, explicit: bool,
             written: str | None = None) -> None:
        """`text` as a name is looked up by; `written` when the name is written otherwise."""
        words = tuple(t.original for t in tokenize(text).tokens)
        if not words or not any(any(c.isalpha() for c in w) for w in words):
            return
        key = tuple(map(name_key, words))
        if written is not None:
            words = tuple(t.original for t in tokenize(written).tokens)
            if len(words) != len(key):
                return
        form = self.forms.get(key)
        if form is None:
            form = self.forms[key] = NameForm(words, entity_type, explicit=explicit)
        elif explicit and (not form.explicit or _better_written(words, form.words)):
            form.words, form.entity_type, form.explicit = words, entity_type, True
        if entity_id is not None and entity_id not in form.entity_ids:
            self._weights[(key, entity_id)] = weight
            form.entity_ids.append(entity_id)
            form.entity_ids.sort(key=lambda e: -self._weights[(key, e)])
        form._added()

    @staticmethod
    def _fuzzy_eligible(form: NameForm) -> bool:
        """Proper names only: every word capitalised ("John Smith"), or one
        rare word ("Okafor") — never descriptions like "new customer portal"."""
        if not form.explicit or not all(w[:1].isalpha() for w in form.words):
            return False
        if len(form.words) >= 2:
            return all(w[:1].isupper() for w in form.words)
        word = form.words[0]
        return len(word) >= 5 and word[:1].isupper() and not word.isupper() and zipf(word.lower()) < 3.0

    # --- lookup --------------------------------------------------------------------

    def exact(self, text: str) -> NameForm | None:
        return self.forms.get(tuple(name_key(t.original) for t in tokenize(text).tokens))

    def find(self, doc: TokenizedInput) -> Iterator[NameMatch]:
        """Longest known names in the doc's current text, left to right."""
        if not self.forms:
            return
        sequence = [i for i, t in enumerate(doc.tokens) if t.text != ""]
        position = 0
        while position < len(sequence):
            match = self._match_at(doc, sequence, position)
            if match is None:
                position += 1
                continue
            yield match
            position += len(match.indices)

    def _match_at(self, doc: TokenizedInput, sequence: list[int], position: int) -> NameMatch | None:
        tokens = doc.tokens
        first = name_key(tokens[sequence[position]].text)
        lengths = self.lengths_by_first.get(first) or self.lengths_by_first.get(_strip_possessive(first))
        if not lengths:
            return None
        for length in lengths:
            if length > len(sequence) - position:
                continue
            indices = sequence[position : position + length]
            texts = [name_key(tokens[i].text) for i in indices]
            form = self.forms.get(tuple(texts))
            suffix = ""
            if form is None:
                bare = _strip_possessive(texts[-1])
                if bare != texts[-1]:
                    form = self.forms.get((*texts[:-1], bare))
                    suffix = tokens[indices[-1]].text[len(bare) :]
            if form is None or not _only_spaces_between(doc, indices):
                continue  # a name never spans punctuation or text we skipped
            canonical = list(form.words)
            canonical[-1] += suffix
            return NameMatch(indices, canonical, form)
        return None

    def person_word(self, word: str) -> NameForm | None:
        form = self.forms.get((name_key(word),))
        return form if form is not None and form.entity_type == "person" else None

    def has_fuzzy_candidates(self, length: int, first_word: str) -> bool:
        return bool(first_word) and (length, first_word[0].lower()) in self._fuzzy

    def fuzzy(self, words: list[str]) -> list[tuple[NameForm, float]]:
        """Known names close to `words` (same word count), best first, score 0-100."""
        if not words or not words[0]:
            return []
        candidates = self._fuzzy.get((len(words), words[0][0].lower()), [])
        if not candidates:
            return []
        query = " ".join(words).lower()
        if len(words) == 1:
            return self._fuzzy_single(query, candidates)
        found = process.extract(query, [c[0] for c in candidates], scorer=fuzz.ratio, score_cutoff=85, limit=3)
        results = []
        for _, score, position in found:
            form = candidates[position][1]
            # Every word must be close, not just the whole: "john said" is not "John Smith".
            if all(fuzz.ratio(w.lower(), f.lower()) >= 70 for w, f in zip(words, form.words)):
                results.append((form, score))
        return results

    @staticmethod
    def _fuzzy_single(word: str, candidates: list[tuple[str, NameForm]]) -> list[tuple[NameForm, float]]:
        # A single word only when it is no English word at all: "okafr", not "tally".
        if len(word) < 5 or zipf(word) > 0:
            return []
        allowed = 1 if len(word) < 8 else 2
        results = []
        for text, form in candidates:
            distance = OSA.distance(word, text, score_cutoff=allowed)
            if distance <= allowed:
                results.append((form, 100.0 * (1 - distance / max(len(word), len(text)))))
        return sorted(results, key=lambda r: -r[1])


def _distinctive_first_word(name: str) -> str | None:
    """The first word of a firm's name of several words when it is no everyday word or first name
    ("Northgate" of "Northgate Cycle Works Ltd"; not "United", "The", "Harriet")."""
    words = name.split()
    first = words[0] if len(words) >= 2 else ""
    if len(first) < 4 or not first.isalpha() or not first[0].isupper() or first.isupper():
        return None
    if any(word[:1].islower() and word not in NAME_JOINERS for word in words[1:]):
        # "Cask moves clashing with the bottling run" (a risk table's first cell) is a phrase, not a
        # firm's name: nobody calls it "cask".
        return None
    return first if zipf(first.lower()) < 3.0 and not is_first_name(first) else None


# Lower-case words a firm's name may hold between its capitalised ones: "Bank of Ireland", "Banco de Chile".
NAME_JOINERS = frozenset({"of", "and", "the", "for", "on", "de", "del", "da", "do", "dos", "du", "des", "la", "le",
                          "van", "von", "der", "den", "y", "e", "et", "und", "&"})


def name_key(word: str) -> str:
    """How a name's word is looked up: in lower case without accents, as users type it ("lucja"
    for "Łucja", "doan" for "Đoàn")."""
    return strip_accents(word).lower()


def _better_written(words: tuple[str, ...], than: tuple[str, ...]) -> bool:
    """ "Súilleabháin" over "suilleabhain" (an address's local part): capitals and accents win."""
    def richness(ws):
        return (sum(c.isupper() for w in ws for c in w), sum(not c.isascii() for w in ws for c in w))
    return richness(words) > richness(than)


def _only_spaces_between(doc: TokenizedInput, indices: list[int]) -> bool:
    tokens = doc.tokens
    return all(not doc.original[tokens[a].end : tokens[b].start].strip() for a, b in zip(indices, indices[1:]))


def _strip_possessive(word: str) -> str:
    if "'" not in word and "’" not in word:
        return word
    for suffix in ("'s", "’s", "'", "’"):
        if word.endswith(suffix) and len(word) > len(suffix):
            return word[: -len(suffix)]
    return word


def _place_names(value) -> list[str]:
    """ "San Francisco, CA" -> ["San Francisco"]; a list gives the places of each item."""
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    places = []
    for item in values:
        for part in re.split(r"[,;]", str(item)):
            part = part.strip()
            # Proper place names: capitalised words, not state codes ("CA").
            if len(part) > 2 and part[0].isupper() and not part.isupper() and not part[0].isdigit():
                places.append(part)
    return places
