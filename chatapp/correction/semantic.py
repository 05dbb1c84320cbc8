"""Tier 3, semantic: corrections that need to know who and what exists.

- Possessives: "johns email" -> "John's email" when "John" names a known
  person and a noun follows.
- Entity names fuzzily matched to the registry: "Jon Smth" -> "John Smith"
  (rapidfuzz over the registry's proper names; every word must be close, and
  the whole name closer still).
- Markers for stage 2: where the corrected text names a known entity or a
  date, with spans in the ORIGINAL input.

Spans follow the convention in syntactic.py: `record.original` is always
`original_input[span[0]:span[1]]`, and `record.corrected` is what that span
becomes.

KnownNames (the registry's names, prepared once per vocabulary refresh) also
lives here: tier 2 uses it to capitalise names.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from chatapp.correction.syntactic import (
    FUNCTION_WORDS,
    is_editable_word,
    next_word,
    render_with_owners,
    zipf,
)
from chatapp.correction.tokens import TokenizedInput, tokenize
from chatapp.records import CorrectionRecord, Entity

TIER = "semantic"
Tagger = Callable[[tuple[str, ...]], tuple[str, ...]]  # words -> spaCy POS tags
PLACE_ATTRIBUTES = ("location", "headquarters", "offices", "city")
# Given names that are also ordinary words: "I will", "mark it", "the rose".
AMBIGUOUS_NAME_WORDS = frozenset(
    "will mark bill rose grace hope joy faith jack frank art bob pat sue dawn ray may june april "
    "august summer amber ruby jade iris lily violet holly ivy daisy rob guy gene sky river brook drew "
    "chase hunter carter mason cash max sage miles penny chip sandy don gay noel sunny victor "
    "page bishop king young white black brown green long price stone wood hill hall".split()
)


@dataclass
class NameForm:
    """One way of writing a known name, e.g. ("Project", "Atlas")."""

    words: tuple[str, ...]  # canonical spelling, one per token
    entity_type: str
    entity_ids: list[str] = field(default_factory=list)  # most likely first
    # How sure we are that this name, typed in lower case, means the entity
    # (0: never capitalise, e.g. the alias "the company").
    capitalize_confidence: float = 0.0
    explicit: bool = True  # a registry name or alias, not a part of one


@dataclass
class NameMatch:
    indices: list[int]  # token indices in the doc
    canonical: list[str]  # replacement text per token, possessive "'s" kept
    form: NameForm


def _capitalize_confidence(words: tuple[str, ...], entity_type: str, explicit: bool) -> float:
    letters = [w for w in words if any(c.isalpha() for c in w)]
    if not letters or not any(any(c.isupper() for c in w) for w in letters):
        return 0.0
    if len(letters) >= 2:
        return 0.9
    lower = letters[0].lower()
    frequency = zipf(lower)
    if lower in AMBIGUOUS_NAME_WORDS or frequency >= 5.5 or len(lower) < 2:
        return 0.5
    if entity_type in ("person", "place"):
        if explicit:
            return 0.9
        return 0.8 if frequency < 3.0 else 0.6
    # Projects, teams, departments: "Atlas", "Sales", "People" are also common words.
    return 0.88 if frequency < 3.0 else 0.5


class KnownNames:
    """Registry names and aliases as token sequences, for exact and fuzzy lookup."""

    def __init__(self, entities: Iterable[Entity] = ()):
        self.forms: dict[tuple[str, ...], NameForm] = {}
        self._weights: dict[tuple[tuple[str, ...], str], float] = {}
        for entity in entities:
            self._add_entity(entity)
        # First word -> the word counts of names starting with it, longest first.
        self.lengths_by_first: dict[str, list[int]] = {}
        for key in self.forms:
            self.lengths_by_first.setdefault(key[0], []).append(len(key))
        for lengths in self.lengths_by_first.values():
            lengths.sort(reverse=True)
        self._fuzzy: dict[tuple[int, str], list[tuple[str, NameForm]]] = {}
        for form in self.forms.values():
            if self._fuzzy_eligible(form):
                key = (len(form.words), form.words[0][0].lower())
                self._fuzzy.setdefault(key, []).append((" ".join(form.words).lower(), form))
        self.fuzzy_lengths = sorted({length for length, _ in self._fuzzy}, reverse=True)

    @classmethod
    def from_registry(cls, registry) -> "KnownNames":
        return cls(registry.all_entities() if registry is not None else ())

    def __len__(self) -> int:
        return len(self.forms)

    # --- building ------------------------------------------------------------------

    def _add_entity(self, entity: Entity) -> None:
        for text in dict.fromkeys([entity.name, *entity.aliases]):
            self._add(text, entity.type, entity.id, entity.prior + 1.0, explicit=True)
        if entity.type == "person":
            for part in entity.name.split():
                if len(part) > 1 and part[0].isalpha():
                    self._add(part, "person", entity.id, entity.prior, explicit=False)
        for key in PLACE_ATTRIBUTES:
            for place in _place_names(entity.attributes.get(key)):
                self._add(place, "place", None, 0.0, explicit=True)

    def _add(self, text: str, entity_type: str, entity_id: str | None, weight: float, explicit: bool) -> None:
        words = tuple(t.original for t in tokenize(text).tokens)
        if not words or not any(any(c.isalpha() for c in w) for w in words):
            return
        key = tuple(w.lower() for w in words)
        form = self.forms.get(key)
        if form is None:
            form = self.forms[key] = NameForm(words, entity_type, explicit=explicit)
        elif explicit and not form.explicit:
            form.words, form.entity_type, form.explicit = words, entity_type, True
        if entity_id is not None and entity_id not in form.entity_ids:
            self._weights[(key, entity_id)] = weight
            form.entity_ids.append(entity_id)
            form.entity_ids.sort(key=lambda e: -self._weights[(key, e)])
        form.capitalize_confidence = max(
            form.capitalize_confidence, _capitalize_confidence(form.words, form.entity_type, form.explicit)
        )

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
        return self.forms.get(tuple(t.original.lower() for t in tokenize(text).tokens))

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
        first = tokens[sequence[position]].text.lower()
        lengths = self.lengths_by_first.get(first) or self.lengths_by_first.get(_strip_possessive(first))
        if not lengths:
            return None
        for length in lengths:
            if length > len(sequence) - position:
                continue
            indices = sequence[position : position + length]
            texts = [tokens[i].text.lower() for i in indices]
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
        form = self.forms.get((word.lower(),))
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
    """ "San Francisco, CA" -> ["San Francisco"]; lists arrive as JSON text."""
    if value is None:
        return []
    if isinstance(value, str) and value.startswith("["):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            pass
    values = value if isinstance(value, list) else [value]
    places = []
    for item in values:
        for part in re.split(r"[,;]", str(item)):
            part = part.strip()
            # Proper place names: capitalised words, not state codes ("CA").
            if len(part) > 2 and part[0].isupper() and not part.isupper() and not part[0].isdigit():
                places.append(part)
    return places


# --- dates ---------------------------------------------------------------------------

_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_NUMBER = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of)"
_UNIT = r"(?:days?|weeks?|months?|years?|hours?)"
DATE_PATTERN = re.compile(
    "|".join(
        [
            r"\bthe\s+day\s+(?:before\s+yesterday|after\s+tomorrow)\b",
            rf"\b(?:yesterday|today|tonight|tomorrow)(?:\s+(?:morning|afternoon|evening|night))?\b",
            rf"\b(?:this|last|next|past|coming)\s+(?:week(?:end)?|month|year|quarter|{_DAY}|"
            r"morning|afternoon|evening|night)\b",
            rf"\b{_NUMBER}\s+{_UNIT}\s+(?:ago|from\s+now)\b",
            rf"\b(?:in|within)\s+{_NUMBER}\s+{_UNIT}\b",
            r"\b(?:end|start|beginning|middle)\s+of\s+(?:the\s+)?(?:week|month|year|quarter)\b",
            r"\b\d{4}-\d{2}-\d{2}\b",
            rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b",
            rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:\s+\d{{4}})?",
            rf"\b(?:on\s+)?{_DAY}\b",
            r"\b(?:january|february|april|june|july|september|october|november|december)(?:\s+\d{4})?\b",
            r"\bq[1-4](?:\s+\d{4})?\b",
        ]
    ),
    re.IGNORECASE,
)


class SemanticCorrector:
    def __init__(self, names: KnownNames | None = None, tagger: Tagger | None = None):
        """`tagger`: words -> their spaCy POS tags, to tell "johns email" (a
        possessive) from "johns said"; without one, a simpler word test."""
        self.names = names or KnownNames()
        self.tagger = tagger

    def correct(self, doc: TokenizedInput) -> list[CorrectionRecord]:
        """Fix possessives of known people and misspelled known names; sets token texts."""
        known: set[int] = set()
        whole_names: set[int] = set()
        for match in self.names.find(doc):
            known.update(match.indices)  # already a known name: nothing to fix
            if len(match.indices) > 1:
                whole_names.update(match.indices)
        records = self._fix_possessives(doc, known)
        # A known single word may still be half of a misspelled full name ("jon Smith").
        fixed = {i for r in records for i in _indices_in(doc, r.span)}
        records += self._fix_names(doc, whole_names | fixed, known)
        return sorted(records, key=lambda r: r.span)

    def _fix_possessives(self, doc: TokenizedInput, claimed: set[int]):
        records = []
        for index, token in enumerate(doc.tokens):
            if index in claimed or not is_editable_word(token):
                continue
            for written in dict.fromkeys([token.text, token.original]):
                lower = written.lower()
                if len(lower) < 4 or not lower.endswith("s") or not written.isalpha():
                    continue
                form = self.names.person_word(lower[:-1])
                if form is None or form.capitalize_confidence <= 0.5 or self.names.exact(lower) is not None:
                    continue
                confidence = self._possessive_confidence(doc, index, form.words[0])
                if confidence is None:
                    continue
                if not form.explicit:
                    confidence -= 0.15  # "smiths" may be a plural or a surname
                confidence = round(confidence, 3)
                corrected = form.words[0] + "'s"
                records.append(_record(doc, [index], [corrected], "EntityCorrection", confidence, [
                    (corrected, confidence), (token.text, round(1 - confidence, 3))]))
                claimed.add(index)
                break
        return records

    def _possessive_confidence(self, doc: TokenizedInput, index: int, name: str) -> float | None:
        """How sure "<name>s <next>" is a possessive: a noun must follow."""
        following = next_word(doc, index)
        if following is None:
            return None
        noun = doc.tokens[following].text.lower()
        if noun in FUNCTION_WORDS:
            return None
        if self.tagger is None:
            return 0.75
        # Tag "John 's email" alone: the answer then cannot change when the
        # words around it are corrected (so correcting twice is stable).
        _, marker, tag = self.tagger((name, "'s", noun))
        if marker != "PART":
            return None  # spaCy reads "'s" as "is" / "has": "John's going"
        return {"NOUN": 0.85, "PROPN": 0.85, "ADJ": 0.6}.get(tag)

    def _fix_names(self, doc: TokenizedInput, claimed: set[int], known: set[int]) -> list[CorrectionRecord]:
        """Misspelled known names. `claimed` tokens are left alone; a `known`
        single name may still be half of a misspelled full one."""
        records = []
        for run in _word_runs(doc):
            position = 0
            while position < len(run):
                accepted = None
                first = doc.tokens[run[position]]
                for length in self.names.fuzzy_lengths:
                    if length > len(run) - position or not (
                        self.names.has_fuzzy_candidates(length, first.text)
                        or self.names.has_fuzzy_candidates(length, first.original)
                    ):
                        continue
                    window = run[position : position + length]
                    if any(i in claimed for i in window) or (length == 1 and window[0] in known):
                        continue
                    accepted = self._best_name(doc, window)
                    if accepted is not None:
                        break
                if accepted is None:
                    position += 1
                    continue
                window, form, score, others, suffix = accepted
                confidence = min(0.9, 0.75 + (score - 85) / 100)
                correction_type = "EntityCorrection"
                if others and others[0][1] >= score - 5:
                    # Two known names nearly as close: picked by prior, say so.
                    confidence -= 0.15
                    correction_type = "AmbiguityResolution"
                confidence = round(confidence, 3)
                alternatives = [(" ".join(form.words), confidence)] + [
                    (" ".join(f.words), round(s / 100 - 0.1, 3)) for f, s in others
                ]
                texts = [*form.words[:-1], form.words[-1] + suffix]  # "Jon Smth's" -> "John Smith's"
                records.append(_record(doc, window, texts, correction_type, confidence, alternatives))
                claimed.update(window)
                position += len(window)
        return records

    def _best_name(self, doc: TokenizedInput, window: list[int]):
        tokens = doc.tokens
        current = [tokens[i].text for i in window]
        variants = [current]
        original = [tokens[i].original for i in window]
        if original != current:
            variants.append(original)  # tier 1 may have "fixed" a name into another word
        best = None
        for words in variants:
            if any("'" in w or "’" in w for w in words[:-1]):
                return None  # "John's smith" is no misspelled "John Smith"
            bare = _strip_possessive(words[-1])
            suffix = words[-1][len(bare) :]
            words = [*words[:-1], bare]
            if self.names.forms.get(tuple(w.lower() for w in words)):
                return None  # the window is itself a known name
            if not self.names.has_fuzzy_candidates(len(words), words[0]):
                continue
            found = self.names.fuzzy(words)
            if found and (best is None or found[0][1] > best[2]):
                form, score = found[0]
                others = [(f, s) for f, s in found[1:] if f.entity_ids != form.entity_ids]
                best = (window, form, score, others, suffix)
        if best is None or current == [*best[1].words[:-1], best[1].words[-1] + best[4]]:
            return None
        return best

    # --- markers for stage 2 -------------------------------------------------------------

    def markers(self, doc: TokenizedInput) -> list[dict]:
        """Known entities and dates in the doc's current text, spans in the original."""
        markers: list[dict] = []
        for match in self.names.find(doc):
            first, last = doc.tokens[match.indices[0]], doc.tokens[match.indices[-1]]
            form = match.form
            surface = doc.original[first.start : last.end]
            written_as_name = [doc.tokens[i].text for i in match.indices] == match.canonical
            confidence = form.capitalize_confidence or 0.7
            if written_as_name:
                confidence = max(confidence, 0.9)
            markers.append({
                "kind": "entity",
                "span": (first.start, last.end),
                "text": _current_text(doc, match.indices),
                "original": surface,
                "entity_id": form.entity_ids[0] if form.entity_ids else None,
                "candidates": list(form.entity_ids),
                "entity_type": form.entity_type,
                "confidence": round(confidence, 3),
            })
        text, owners = render_with_owners(doc)
        for found in DATE_PATTERN.finditer(text):
            owned = [o for o in owners[found.start() : found.end()] if o >= 0]
            if not owned:
                continue
            first, last = doc.tokens[owned[0]], doc.tokens[owned[-1]]
            markers.append({
                "kind": "date",
                "span": (first.start, last.end),
                "text": found.group(),
                "original": doc.original[first.start : last.end],
                "entity_id": None,
            })
        return sorted(markers, key=lambda m: m["span"])


def _indices_in(doc: TokenizedInput, span: tuple[int, int]) -> list[int]:
    return [i for i, t in enumerate(doc.tokens) if t.start < span[1] and span[0] < t.end]


def _word_runs(doc: TokenizedInput) -> list[list[int]]:
    """Stretches of editable words separated only by spaces (names live inside one)."""
    runs: list[list[int]] = []
    current: list[int] = []
    for index, token in enumerate(doc.tokens):
        if token.text == "":
            continue
        if is_editable_word(token):
            if current and doc.original[doc.tokens[current[-1]].end : token.start].strip() == "":
                current.append(index)
                continue
            if current:
                runs.append(current)
            current = [index]
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def _current_text(doc: TokenizedInput, indices: list[int]) -> str:
    pieces = []
    for position, index in enumerate(indices):
        token = doc.tokens[index]
        if position:
            pieces.append(doc.original[doc.tokens[indices[position - 1]].end : token.start])
        pieces.append(token.text)
    return "".join(pieces)


def _record(doc, indices, texts, correction_type, confidence, alternatives) -> CorrectionRecord:
    """Set the tokens' texts and describe the change of their whole span."""
    for index, text in zip(indices, texts):
        doc.tokens[index].text = text
    start, end = doc.tokens[indices[0]].start, doc.tokens[indices[-1]].end
    return CorrectionRecord(
        tier=TIER,
        span=(start, end),
        original=doc.original[start:end],
        corrected=_current_text(doc, indices),
        correction_type=correction_type,
        confidence=round(confidence, 3),
        alternatives=alternatives,
    )
