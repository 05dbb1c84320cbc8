"""Stage 2, entity resolution: mentions → candidates → linking.

Mentions come from the registry's names and aliases (matched over the text's
word n-grams), spaCy's named entities, temporal expressions, pronouns,
definite descriptions ("the email", "the meeting") and the markers the
correction stage hands over (found by chatapp.preprocess.entities.mentions). Each name-like
mention gets candidates from the registry (exact, name-part and fuzzy
matches) and from the dialogue state, and each candidate a score:

    context_weight × context + salience_weight × salience + prior_weight × prior

where context is how well the name and the surrounding words fit the
candidate, salience comes from the DialogueState and prior from the registry.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from rapidfuzz import fuzz, process

from chatapp.preprocess.dialogue import DialogueState, keywords_of
from chatapp.preprocess.entities.mentions import (  # noqa: F401 - Mention and the name rules stay importable from here
    _TOKEN,
    AMBIGUOUS_NAMES,
    NER_NAME_LABELS,
    Mention,
    MentionDetection,
    _fold,
)
from chatapp.records import Entity, ResolvedEntity
from chatapp.preprocess.entities.references import (  # noqa: F401 - PRONOUNS, DOCUMENT_NOUNS, TYPE_NOUNS re-exported
    DOCUMENT_NOUNS,
    PRONOUNS,
    TYPE_NOUNS,
    ReferenceResolution,
)


@dataclass
class ResolutionSettings:
    context_weight: float = 0.4
    salience_weight: float = 0.4
    prior_weight: float = 0.2
    min_confidence: float = 0.35
    max_candidates: int = 3
    fuzzy_cutoff: float = 75.0  # rapidfuzz ratio below which a name is not a candidate
    pronoun_min_salience: float = 0.3  # "he" links only to someone still in the conversation
    max_ner_chars: int = 10_000  # spaCy reads only this much of a long paste; the rules read it all


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
_NER_TYPES = {"PERSON": {"person"}, "ORG": {"organization", "department", "project"}}


def _decode(value):
    # The registry stores non-string attribute values as JSON text.
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


@dataclass
class _Profile:
    """What the resolver knows about one registry entity, precomputed."""

    entity: Entity
    attributes: dict
    vocabulary: set[str]
    related: set[str] = field(default_factory=set)


class EntityResolver(MentionDetection, ReferenceResolution):
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
            for name, exactness in [(entity.name, 1.0), *((a, 0.97) for a in entity.aliases)]:
                tokens = tuple(_TOKEN.findall(_fold(name)))
                if tokens:
                    phrases.setdefault(tokens, []).append((entity.id, exactness, name))
                    keys.append((" ".join(tokens), entity.id, exactness))
            for key in ("email", "phone"):  # an address typed in full names its owner
                value = attributes.get(key)
                if isinstance(value, str) and _TOKEN.findall(_fold(value)):
                    phrases.setdefault(tuple(_TOKEN.findall(_fold(value))), []).append((entity.id, 1.0, value))
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

    # --- linking -------------------------------------------------------------------------

    def resolve(
        self,
        text: str,
        state: DialogueState | None = None,
        now: datetime | None = None,
        markers=(),
        doc=None,
    ) -> list[ResolvedEntity]:
        """Resolved mentions of `text`, left to right. Names below
        min_confidence are left out; dates are always kept (entity_id None when
        unreadable). `doc` is an optional spaCy Doc of `text` to reuse."""
        if not text or not text.strip():
            return []
        mentions = self.detect_mentions(text, now, markers, doc)
        lowered = re.findall(r"[\w-]+", text.lower())
        requested = {a for w in lowered for a in ATTRIBUTE_WORDS.get(w, ())}
        text_words = set(keywords_of(text))
        recent_words = set(keywords_of(state.recent_text(4))) if state else set()
        named = [m for m in mentions if m.kind in ("marker", "alias", "ner")]
        candidates = {id(m): self._name_candidates(m, state) for m in named}
        # How many mentions could mean each entity: co-mentioned related
        # entities ("John" beside "Atlas") support each other.
        mentioned = Counter(e for m in named for e in candidates[id(m)])
        salient_ids = {e for e, v in state.salient(0.5)} if state else set()
        results: list[ResolvedEntity] = []
        for mention in mentions:
            if mention.kind in ("marker", "alias", "ner"):
                own = candidates[id(mention)]

                def elsewhere(entity_id: str, own=own) -> bool:
                    return entity_id in salient_ids or mentioned[entity_id] > (entity_id in own)

                scored = [
                    (eid, self._score(eid, match, requested, text_words, recent_words, elsewhere, state))
                    for eid, match in own.items()
                ]
                resolved = self._link(mention, scored, state, own)
            elif mention.kind == "date":
                resolved = self._date(mention)
            elif mention.kind == "time":
                resolved = ResolvedEntity(mention.text, mention.span, None, mention.value.time, "TIME", 0.9,
                                          {"time": mention.value.time})
            else:  # a pronoun or a definite description ("the meeting", "the email")
                resolved = self._resolve_reference(mention, results[-12:], state)
            if resolved is not None:
                results.append(resolved)
        return results

    def _name_candidates(self, mention: Mention, state: DialogueState | None) -> dict[str, float]:
        """entity_id → how well the mention's words match one of its names (0..1)."""
        folded = " ".join(_TOKEN.findall(_fold(mention.text)))
        found: dict[str, float] = {}
        if mention.entity_id:
            found[mention.entity_id] = 0.95  # the correction stage already matched it
        for entity_id, exactness, name in self._phrases.get(tuple(folded.split()), ()):
            if self._alias_allowed(name, mention.text, entity_id):
                found[entity_id] = max(found.get(entity_id, 0.0), exactness)
        if len(folded) >= 3 and not re.search(r"[@/\\]|\d{3}", folded):  # addresses and ids are exact or nothing
            hits = [(self._keys[index][1], self._keys[index][2], score) for _, score, index in process.extract(
                folded, self._key_strings, scorer=fuzz.ratio, score_cutoff=self.settings.fuzzy_cutoff, limit=20)]
            for entity_id, info in (state.entity_info.items() if state else ()):
                if entity_id not in self.profiles and info.get("name"):
                    name = " ".join(_TOKEN.findall(_fold(info["name"])))
                    hits += [(entity_id, 0.97, fuzz.ratio(folded, name)), *((entity_id, 0.75, fuzz.ratio(folded, t)) for t in name.split())]
            # A name typed exactly makes near-misses ("John" ~ "Johnny") unlikely readings.
            exact_exists = bool(found) or any(score == 100 for _, _, score in hits)
            for entity_id, exactness, score in hits:
                if score < self.settings.fuzzy_cutoff:
                    continue
                value = exactness * self._fuzzy_strength(score)
                if score < 100 and exact_exists:
                    value *= 0.6
                found[entity_id] = max(found.get(entity_id, 0.0), value)
        allowed = _NER_TYPES.get(mention.label)
        if allowed:  # spaCy's label disagrees with the candidate's type: weaker match
            for entity_id in found:
                if self._type_of(entity_id, state) not in allowed:
                    found[entity_id] *= 0.8
        return found

    def _fuzzy_strength(self, score: float) -> float:
        """rapidfuzz ratio → 0.3 at the cutoff … 1.0 for an exact match."""
        cutoff = self.settings.fuzzy_cutoff
        return 0.3 + 0.7 * (score - cutoff) / (100.0 - cutoff)

    def _score(self, entity_id, name_match, requested, text_words, recent_words, co_mentioned, state) -> float:
        profile = self.profiles.get(entity_id)
        if profile is not None:
            attribute_hit = any(key in profile.attributes for key in requested)
            overlap = (
                len(text_words & profile.vocabulary)
                + 0.5 * len(recent_words & profile.vocabulary)
                + sum(1 for related in profile.related if co_mentioned(related))
            )
            prior = profile.entity.prior
        else:  # known only from the conversation, perhaps from an unverified answer
            attribute_hit, overlap, prior = False, 0.0, 0.3
        # 0.5 is "no evidence either way"; matching words and asked-for attributes raise it.
        fit = 0.5 + 0.25 * attribute_hit + 0.25 * min(1.0, overlap / 2)
        context = 0.75 * name_match + 0.25 * fit
        return self._combine(context, state.salience.get(entity_id, 0.0) if state else 0.0, prior)

    def _combine(self, context: float, salience: float, prior: float) -> float:
        s = self.settings
        return s.context_weight * context + s.salience_weight * salience + s.prior_weight * prior

    def _type_of(self, entity_id: str, state: DialogueState | None) -> str:
        if entity_id in self.profiles:
            return self.profiles[entity_id].entity.type
        if entity_id.startswith("doc:"):
            return "document"
        info = state.entity_info.get(entity_id) if state else None
        return (info or {}).get("type", "").lower()

    def _link(self, mention: Mention, scored, state, matches: dict[str, float] | None = None) -> ResolvedEntity | None:
        """The best-scoring candidate, if it scores at least min_confidence. Its confidence is how
        sure the link is, not its score, scaled by its share of all the candidates' scores: for a name,
        how well the words match the name times that share — an exact full name with no rival is near
        1 even on first mention (when it has no salience yet), "John" among three Johns much less; for
        a pronoun or description, its score (salience included) times that share. `matches`: entity
        id → how well the words match its name; None for pronouns and descriptions."""
        if not scored:
            return None
        scored = sorted(scored, key=lambda item: (-item[1], item[0]))[: self.settings.max_candidates]
        best_id, best = scored[0]
        best = min(best, 1.0)
        if best < self.settings.min_confidence:
            return None
        candidates = [(entity_id, round(min(score, 1.0), 3)) for entity_id, score in scored]
        share = best / sum(min(score, 1.0) for _, score in scored)
        if matches is None:
            # A pronoun or description: its score already weighs how salient the referent is; a rival
            # nearly as salient ("she" after Sarah and Emma) makes the link that much less sure.
            certainty = round(best * share, 3)
        else:
            certainty = round(min(1.0, matches.get(best_id, 1.0)) * share, 3)
        if best_id.startswith("doc:") and state is not None:
            return self._document_entity(mention, best_id[4:], state, certainty, candidates)
        profile = self.profiles.get(best_id)
        if profile is not None:
            name, entity_type, attributes = profile.entity.name, profile.entity.type, dict(profile.attributes)
        else:
            info = state.entity_info.get(best_id, {}) if state else {}
            name, entity_type, attributes = info.get("name") or mention.text, info.get("type") or "entity", {}
        if state is not None and best_id in state.unverified:
            attributes["unverified"] = True
        return ResolvedEntity(mention.text, mention.span, best_id, name, entity_type.upper(), certainty, attributes,
                              candidates)

    @staticmethod
    def _date(mention: Mention) -> ResolvedEntity:
        expression = mention.value
        if expression is None:
            return ResolvedEntity(mention.text, mention.span, None, mention.text, "DATE", 0.3, {})
        return ResolvedEntity(
            mention.text, mention.span, f"date:{expression.canonical}", expression.canonical, "DATE",
            expression.confidence, expression.attributes(),
        )
