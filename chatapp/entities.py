"""Stage 2, entity resolution: mentions → candidates → linking.

Mentions come from the registry's names and aliases (matched over the text's
word n-grams), spaCy's named entities, temporal expressions, pronouns,
definite descriptions ("the email", "the meeting") and the markers the
correction stage hands over. Each name-like mention gets candidates from the
registry (exact, name-part and fuzzy matches) and from the dialogue state, and
each candidate a score:

    context_weight × context + salience_weight × salience + prior_weight × prior

where context is how well the name and the surrounding words fit the
candidate, salience comes from the DialogueState and prior from the registry.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime

from rapidfuzz import fuzz, process

from chatapp.dialogue import DialogueState, keywords_of
from chatapp.records import Entity, ResolvedEntity
from chatapp.temporal import find_temporal_expressions, find_time_expressions


@dataclass
class ResolutionSettings:
    context_weight: float = 0.4
    salience_weight: float = 0.4
    prior_weight: float = 0.2
    min_confidence: float = 0.35
    max_candidates: int = 3
    fuzzy_cutoff: float = 75.0  # rapidfuzz ratio below which a name is not a candidate
    pronoun_min_salience: float = 0.3  # "he" links only to someone still in the conversation


@dataclass
class Mention:
    """A stretch of text that may refer to something. `kind` says how it was
    found: marker, alias, date, time, ner, description or pronoun."""

    text: str
    span: tuple[int, int]
    kind: str
    label: str = ""  # spaCy label, pronoun, or the noun of a description
    entity_id: str | None = None  # a marker's entity
    value: object = None  # a TemporalExpression / TimeExpression


# Which attributes a word asks for: "email" in the text favours candidates that have one.
ATTRIBUTE_WORDS = {
    "email": ("email",), "e-mail": ("email",), "mail": ("email",), "address": ("email", "location"),
    "phone": ("phone",), "number": ("phone",), "call": ("phone",), "mobile": ("phone",), "cell": ("phone",),
    "role": ("role",), "title": ("role",), "job": ("role",), "position": ("role",),
    "department": ("department",), "team": ("department",), "office": ("location",),
    "location": ("location",), "based": ("location",), "where": ("location",), "room": ("location",),
    "manager": ("reports_to",), "boss": ("reports_to",), "reports": ("reports_to", "manages"),
    "deadline": ("deadline", "target_date", "go_live"), "due": ("deadline", "target_date"),
    "budget": ("q4_budget", "budget"), "status": ("status",), "owner": ("owner", "product_owner"),
    "lead": ("lead", "tech_lead", "eng_lead"), "when": ("date", "launch_date", "deadline"),
    "date": ("date", "launch_date"), "vendor": ("vendor",), "contract": ("contract_value", "contract_term"),
    "attendees": ("attendees",), "organizer": ("organizer",), "contact": ("contact", "email", "phone"),
}
PRONOUNS = {
    **dict.fromkeys(("he", "him", "his", "himself", "she", "her", "hers", "herself"), "person"),
    **dict.fromkeys(("they", "them", "their", "theirs"), "group"),
    **dict.fromkeys(("it", "its"), "thing"),
}
_PRONOUN_RE = re.compile(r"\b(" + "|".join(PRONOUNS) + r")\b", re.IGNORECASE)
# "it" that points at nothing: "is it possible", "it seems", "make it quick".
_EXPLETIVE_IT = re.compile(
    r"\b(?:is|was|isn't|make|makes|made)\s+it\s+(?:possible|likely|okay|ok|fine|true|necessary|important|clear|worth|quick|easy|hard)\b"
    r"|\bit(?:'s|\s+is|\s+was)?\s+(?:seems|looks|appears|possible|likely|okay|ok|fine|raining|time|worth|hard|easy|necessary|important|true)\b",
    re.IGNORECASE,
)
DOCUMENT_NOUNS = {
    "email": (".eml", ".msg", ".mbox"), "e-mail": (".eml", ".msg", ".mbox"), "mail": (".eml", ".msg", ".mbox"),
    "message": (".eml", ".msg", ".mbox"), "thread": (".eml", ".msg", ".mbox"),
    "spreadsheet": (".csv", ".tsv", ".xlsx", ".xls", ".ods"), "sheet": (".csv", ".tsv", ".xlsx", ".xls", ".ods"),
    "csv": (".csv",), "document": (), "doc": (), "file": (), "note": (), "notes": (), "report": (),
    "memo": (), "attachment": (), "page": (),
}
# A definite noun phrase for an entity type: "the meeting" is the salient event.
TYPE_NOUNS = {
    "meeting": "event", "event": "event", "call": "event", "review": "event", "offsite": "event",
    "incident": "event", "outage": "event", "launch": "event", "project": "project",
    "department": "department", "team": "department", "vendor": "organization",
}
_DESCRIPTION_RE = re.compile(
    r"\b(?:the|that|this|those|these)\s+(?:(?:last|latest|previous|same|above|recent|most\s+recent)\s+)?"
    r"(?P<noun>" + "|".join(sorted({*DOCUMENT_NOUNS, *TYPE_NOUNS}, key=len, reverse=True)) + r")(?P<plural>s)?\b"
    r"(?P<restrict>\s+(?:from|about|with|by|sent|regarding|on|for|of)\b)?",
    re.IGNORECASE,
)
NER_NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"})
_NER_TYPES = {"PERSON": {"person"}, "ORG": {"organization", "department", "project"}}
# First names that are also ordinary words: matched only when capitalised.
AMBIGUOUS_NAMES = frozenset("will may mark bill june april rose grace faith hope joy art pat sue ray jack frank guy max dawn summer eve".split())
_TOKEN = re.compile(r"\w+(?:[.@]\w+)*")
_PRIORITY = {"marker": 0, "alias": 1, "date": 2, "time": 3, "ner": 4, "description": 5, "pronoun": 6}


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


def _decode(value):
    # The registry stores non-string attribute values as JSON text.
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


@functools.lru_cache(maxsize=4096)
def _is_common_word(word: str) -> bool:
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # without frequencies, treat every plain word as common: safer
        return True
    return zipf_frequency(word, "en") >= 3.0


@dataclass
class _Profile:
    """What the resolver knows about one registry entity, precomputed."""

    entity: Entity
    attributes: dict
    vocabulary: set[str]
    related: set[str] = field(default_factory=set)


class EntityResolver:
    def __init__(self, registry, nlp=None, settings: ResolutionSettings | None = None):
        self.registry = registry
        self._nlp = nlp
        self.settings = settings or ResolutionSettings()
        self._profiles: dict[str, _Profile] | None = None

    # --- the index -------------------------------------------------------------------

    def refresh(self) -> None:
        """Rebuild the alias index from the registry (after an ingest)."""
        profiles: dict[str, _Profile] = {}
        phrases: dict[tuple[str, ...], list[tuple[str, float, str]]] = {}
        keys: list[tuple[str, str, float]] = []  # (folded key, entity_id, how exact a hit is)
        for entity in self.registry.all_entities():
            attributes = {k: _decode(v) for k, v in entity.attributes.items()}
            name_words = set(keywords_of(" ".join([entity.name, *entity.aliases])))
            profile_text = " ".join(
                [entity.description, entity.type, *(str(attributes.get(k, "")) for k in ("role", "department", "location"))]
            )
            profiles[entity.id] = _Profile(entity, attributes, set(keywords_of(profile_text)) - name_words)
            for name, exactness in [(entity.name, 1.0), *((a, 0.95) for a in entity.aliases)]:
                tokens = tuple(_TOKEN.findall(_fold(name)))
                if tokens:
                    phrases.setdefault(tokens, []).append((entity.id, exactness, name))
                    keys.append((" ".join(tokens), entity.id, exactness))
            if entity.type == "person":  # "Smith" or "John" alone may mean John Smith
                for token in _TOKEN.findall(_fold(entity.name)):
                    if len(token) >= 3:
                        keys.append((token, entity.id, 0.75))
        for entity_id, profile in profiles.items():  # links both ways: owner ↔ project, …
            for value in profile.attributes.values():
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, str) and item in profiles and item != entity_id:
                        profile.related.add(item)
                        profiles[item].related.add(entity_id)
        self._profiles, self._phrases, self._keys = profiles, phrases, keys
        self._key_strings = [k[0] for k in keys]
        self._max_phrase = max((len(p) for p in phrases), default=1)

    @property
    def profiles(self) -> dict[str, _Profile]:
        if self._profiles is None:
            self.refresh()
        return self._profiles

    @property
    def nlp(self):
        if self._nlp is None:
            from chatapp.nlp import load_pipeline

            self._nlp = load_pipeline()[0]
        return self._nlp

    def _alias_allowed(self, original: str, surface: str, entity_id: str) -> bool:
        """Case rules that keep ordinary words ("office", "sales", "PM" in
        "3 PM") from being read as entity names."""
        if " " in original.strip() or not original.isalpha():
            return True
        if original.isupper() and len(original) <= 4:
            return surface == original
        if self.profiles[entity_id].entity.type == "person":
            return _fold(original) not in AMBIGUOUS_NAMES or surface[:1].isupper()
        return surface[:1].isupper() or not _is_common_word(_fold(original))

    # --- mentions ----------------------------------------------------------------------

    def detect_mentions(self, text: str, now: datetime | None = None, markers=(), doc=None) -> list[Mention]:
        """Every mention in `text`, left to right, overlaps settled (longest
        wins, then the more reliable source). Unlinked names are included."""
        profiles = self.profiles
        now = now or datetime.now()
        found: list[Mention] = []
        date_spans: list[tuple[int, int]] = []
        for marker in markers:
            span = self._marker_span(text, marker)
            if span is None:
                continue
            if marker.get("kind") == "date":
                date_spans.append(span)
            elif marker.get("entity_id") in profiles:
                found.append(Mention(text[span[0]:span[1]], span, "marker", entity_id=marker["entity_id"]))
        tokens = [(m.group(0), _fold(m.group(0)), m.span()) for m in _TOKEN.finditer(text)]
        i = 0
        while i < len(tokens):
            for n in range(min(self._max_phrase, len(tokens) - i), 0, -1):
                key = tuple(t[1] for t in tokens[i:i + n])
                hits = self._phrases.get(key)
                span = (tokens[i][2][0], tokens[i + n - 1][2][1])
                if hits and any(self._alias_allowed(name, text[span[0]:span[1]], eid) for eid, _, name in hits):
                    found.append(Mention(text[span[0]:span[1]], span, "alias"))
                    i += n - 1
                    break
            i += 1
        if doc is None or doc.text != text:
            doc = self._parse(text)
        for ent in getattr(doc, "ents", ()):
            span = (ent.start_char, ent.end_char)
            if ent.label_ in ("DATE", "TIME"):
                date_spans.append(span)
            elif ent.label_ in NER_NAME_LABELS:
                surface = ent.text
                if surface.lower().startswith("the "):
                    span, surface = (span[0] + 4, span[1]), surface[4:]
                found.append(Mention(surface, span, "ner", label=ent.label_))
        for expression in find_temporal_expressions(text, now, date_spans):
            found.append(Mention(expression.text, expression.span, "date", value=expression))
        for expression in find_time_expressions(text):
            found.append(Mention(expression.text, expression.span, "time", value=expression))
        for m in _DESCRIPTION_RE.finditer(text):
            end = m.end("plural") if m.group("plural") else m.end("noun")
            # "+" marks a restrictive phrase ("the email from Sarah"): likely a new
            # description rather than a pointer back to the last one.
            label = m.group("noun").lower() + ("+" if m.group("restrict") else "")
            found.append(Mention(text[m.start():end], (m.start(), end), "description", label=label))
        expletive = [m.span() for m in _EXPLETIVE_IT.finditer(text)]
        for m in _PRONOUN_RE.finditer(text):
            if m.group(1).lower() == "it" and any(s <= m.start() < e for s, e in expletive):
                continue
            found.append(Mention(m.group(0), m.span(), "pronoun", label=m.group(1).lower()))
        found.sort(key=lambda m: (-(m.span[1] - m.span[0]), _PRIORITY[m.kind], m.span[0]))
        kept: list[Mention] = []
        for mention in found:
            if all(mention.span[1] <= k.span[0] or mention.span[0] >= k.span[1] for k in kept):
                kept.append(mention)
        return sorted(kept, key=lambda m: m.span[0])

    def _parse(self, text: str):
        nlp = self.nlp
        # Only NER is needed here: the sm pipeline's NER has its own tok2vec,
        # so the rest can be skipped (about 3x faster).
        skip = [name for name in nlp.pipe_names if name != "ner"] if "ner" in nlp.pipe_names else []
        return nlp(text, disable=skip)

    @staticmethod
    def _marker_span(text: str, marker: dict) -> tuple[int, int] | None:
        surface = str(marker.get("text") or "")
        span = marker.get("span")
        if span and 0 <= span[0] < span[1] <= len(text) and (not surface or text[span[0]:span[1]].lower() == surface.lower()):
            return (int(span[0]), int(span[1]))
        position = text.lower().find(surface.lower()) if surface else -1
        return (position, position + len(surface)) if position >= 0 else None
