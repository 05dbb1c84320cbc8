"""Linking a mention to the best of its scored candidates, with how sure the
link is; and the weights and thresholds stage 2 runs on (ResolutionSettings).

A candidate's score is

    weights.context × context + weights.salience × salience + weights.prior × prior

where context is how well the mention fits the candidate, salience comes from
the DialogueState and prior from the registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chatapp.preprocess.dialogue import DialogueState
from chatapp.preprocess.entities.aliases import AliasIndex
from chatapp.preprocess.entities.spans import Mention
from chatapp.records import ResolvedEntity


@dataclass(frozen=True)
class ScoreWeights:
    """How a candidate's score weighs its three parts (see the module docstring)."""

    context: float = 0.4
    salience: float = 0.4
    prior: float = 0.2


@dataclass
class ResolutionSettings:
    weights: ScoreWeights = field(default_factory=ScoreWeights)
    min_confidence: float = 0.35  # a candidate scoring less is no link at all
    max_candidates: int = 3
    fuzzy_cutoff: float = 75.0  # rapidfuzz ratio below which a name is not a candidate
    pronoun_min_salience: float = 0.3  # "he" links only to someone still in the conversation
    max_ner_chars: int = 10_000  # spaCy reads only this much of a long paste; the rules read it all


class Linker:
    """Scores and links candidates for mentions, over one alias index."""

    def __init__(self, index: AliasIndex, settings: ResolutionSettings):
        self.index = index
        self.settings = settings

    def combine(self, context: float, salience: float, prior: float) -> float:
        w = self.settings.weights
        return w.context * context + w.salience * salience + w.prior * prior

    def type_of(self, entity_id: str, state: DialogueState | None) -> str:
        """The entity's type, lowercase: from the registry, else from the conversation."""
        profile = self.index.profiles.get(entity_id)
        if profile is not None:
            return profile.entity.type
        if entity_id.startswith("doc:"):
            return "document"
        info = state.entity_info.get(entity_id) if state else None
        return (info or {}).get("type", "").lower()

    def link(self, mention: Mention, scored, state: DialogueState | None,
             matches: dict[str, float] | None = None) -> ResolvedEntity | None:
        """The best-scoring candidate, if it scores at least min_confidence. Its confidence is how
        sure the link is, not its score, scaled by its share of all the candidates' scores: for a name,
        how well the words match the name times that share — an exact full name with no rival is near
        1 even on first mention (when it has no salience yet), "John" among three Johns much less; for
        a pronoun or description, its score (salience included) times that share. `scored`: (entity id,
        score) pairs; `matches`: entity id → how well the words match its name; None for pronouns and
        descriptions."""
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
            return _document_entity(mention, best_id[4:], state, certainty, candidates)
        profile = self.index.profiles.get(best_id)
        if profile is not None:
            name, entity_type, attributes = profile.entity.name, profile.entity.type, dict(profile.attributes)
        else:
            info = state.entity_info.get(best_id, {}) if state else {}
            name, entity_type, attributes = info.get("name") or mention.text, info.get("type") or "entity", {}
        if state is not None and best_id in state.unverified:
            attributes["unverified"] = True
        return ResolvedEntity(mention.text, mention.span, best_id, name, entity_type.upper(), certainty, attributes,
                              candidates)


def _document_entity(mention: Mention, document_id: str, state: DialogueState, confidence: float,
                     candidates) -> ResolvedEntity:
    document = next((d for d in state.recent_documents if d["document_id"] == document_id), None) or {
        "document_id": document_id, "source": "", "title": "", "date": None,
    }
    return ResolvedEntity(
        mention.text, mention.span, f"doc:{document_id}", document.get("title") or document.get("source") or document_id,
        "DOCUMENT", round(confidence, 3), dict(document), candidates,
    )
