"""Stage 2, entity resolution: mentions → candidates → linking.

The resolver owns an AliasIndex over the registry (names, aliases, profiles)
and composes the parts that read it: mention detection (mentions.py), name
candidates and their scores (here), reference resolution for pronouns and
definite descriptions (references.py) and linking (linking.py). Each name-like
mention gets candidates from the registry (exact, name-part and fuzzy matches)
and from the dialogue state, and each candidate a score (see linking.py) whose
context part is how well the name and the surrounding words fit the candidate:
its description, entities related to it that are mentioned too, and whether it
has the attribute the text asks for ("email", "budget", "who leads" — matched
to its own attribute keys through chatapp.lexicon, whatever they are called).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Callable

from rapidfuzz import fuzz

from chatapp import lexicon
from chatapp.dates.anchoring import years_named
from chatapp.preprocess.dialogue import DialogueState, keywords_of
from chatapp.preprocess.entities.aliases import AliasIndex, name_tokens
from chatapp.preprocess.entities.linking import Linker, ResolutionSettings
from chatapp.preprocess.entities.mentions import find_mentions
from chatapp.preprocess.entities.references import ReferenceResolver
from chatapp.preprocess.entities.spans import Mention
from chatapp.records import ResolvedEntity

__all__ = ["EntityResolver", "ResolutionSettings"]

_NAME_KINDS = ("marker", "alias", "ner")
_NER_TYPES = {"PERSON": {"person"}, "ORG": {"organization", "department", "project"}}


@dataclass
class _TextContext:
    """What one text says around its names, for scoring their candidates."""

    asked: frozenset[str]  # attribute concepts the text asks for (lexicon.concepts_asked)
    text_words: set[str]
    recent_words: set[str]  # words of the last few turns
    co_mentioned: Callable[[str, dict], bool]  # (entity id, this mention's candidates) → named elsewhere too?


class EntityResolver:
    def __init__(self, registry, nlp=None, settings: ResolutionSettings | None = None):
        self.registry = registry
        self._nlp = nlp
        self.settings = settings or ResolutionSettings()
        self.index = AliasIndex(registry)
        self._linker = Linker(self.index, self.settings)
        self._references = ReferenceResolver(self.index, self.settings)

    def refresh(self) -> None:
        """Rebuild the alias index from the registry (after an ingest)."""
        self.index.refresh()

    @property
    def nlp(self):
        if self._nlp is None:
            from chatapp.nlp import load_pipeline

            self._nlp = load_pipeline()[0]
        return self._nlp

    def _parse(self, text: str):
        nlp = self.nlp
        # Only NER is needed here: the sm pipeline's NER has its own tok2vec,
        # so the rest can be skipped (about 3x faster).
        skip = [name for name in nlp.pipe_names if name != "ner"] if "ner" in nlp.pipe_names else []
        return nlp(text, disable=skip)

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
        if doc is None or doc.text != text:
            doc = self._parse(text[: self.settings.max_ner_chars])
        context_years = _conversation_years(state) if state else ()
        mentions = find_mentions(text, self.index, doc, now, markers, context_years)
        named = [m for m in mentions if m.kind in _NAME_KINDS]
        candidates = {id(m): self._name_candidates(m, state) for m in named}
        # How many mentions could mean each entity: co-mentioned related
        # entities ("John" beside "Atlas") support each other.
        mentioned = Counter(e for m in named for e in candidates[id(m)])
        salient_ids = {e for e, _ in state.salient(0.5)} if state else set()
        context = _TextContext(
            asked=_attributes_asked(text),
            text_words=set(keywords_of(text)),
            recent_words=set(keywords_of(state.recent_text(4))) if state else set(),
            co_mentioned=lambda entity_id, own: entity_id in salient_ids or mentioned[entity_id] > (entity_id in own),
        )
        results: list[ResolvedEntity] = []
        for mention in mentions:
            if mention.kind in _NAME_KINDS:
                own = candidates[id(mention)]
                scored = [(eid, self._score(eid, match, own, context, state)) for eid, match in own.items()]
                resolved = self._linker.link(mention, scored, state, own)
            elif mention.kind == "date":
                resolved = _date(mention)
            elif mention.kind == "time":
                resolved = ResolvedEntity(mention.text, mention.span, None, mention.value.time, "TIME", 0.9,
                                          {"time": mention.value.time})
            else:  # a pronoun or a definite description ("the meeting", "the email")
                resolved = self._references.resolve(mention, results[-12:], state)
            if resolved is not None:
                results.append(resolved)
        return results

    def _name_candidates(self, mention: Mention, state: DialogueState | None) -> dict[str, float]:
        """entity_id → how well the mention's words match one of its names (0..1)."""
        tokens = name_tokens(mention.text)
        folded = " ".join(tokens)
        found: dict[str, float] = {}
        if mention.entity_id:
            found[mention.entity_id] = 0.95  # the correction stage already matched it
        for alias in self.index.names_at(tokens, mention.text):
            found[alias.entity_id] = max(found.get(alias.entity_id, 0.0), alias.exactness)
        if len(folded) >= 3 and not re.search(r"[@/\\]|\d{3}", folded):  # addresses and ids are exact or nothing
            hits = self.index.near_names(folded, self.settings.fuzzy_cutoff)
            for entity_id, info in (state.entity_info.items() if state else ()):
                if entity_id not in self.index.profiles and info.get("name"):
                    name = " ".join(name_tokens(info["name"]))
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
                if self._linker.type_of(entity_id, state) not in allowed:
                    found[entity_id] *= 0.8
        return found

    def _fuzzy_strength(self, score: float) -> float:
        """rapidfuzz ratio → 0.3 at the cutoff … 1.0 for an exact match."""
        cutoff = self.settings.fuzzy_cutoff
        return 0.3 + 0.7 * (score - cutoff) / (100.0 - cutoff)

    def _score(self, entity_id: str, name_match: float, own: dict, context: _TextContext, state) -> float:
        profile = self.index.profiles.get(entity_id)
        if profile is not None:
            # Asked for an attribute this candidate has, under whatever key its documents use.
            attribute_hit = bool(context.asked & profile.concepts)
            overlap = (
                len(context.text_words & profile.vocabulary)
                + 0.5 * len(context.recent_words & profile.vocabulary)
                + sum(1 for related in profile.related if context.co_mentioned(related, own))
            )
            prior = profile.entity.prior
        else:  # known only from the conversation, perhaps from an unverified answer
            attribute_hit, overlap, prior = False, 0.0, 0.3
        # 0.5 is "no evidence either way"; matching words and asked-for attributes raise it.
        fit = 0.5 + 0.25 * attribute_hit + 0.25 * min(1.0, overlap / 2)
        name_fit = 0.75 * name_match + 0.25 * fit
        return self._linker.combine(name_fit, state.salience.get(entity_id, 0.0) if state else 0.0, prior)


def _attributes_asked(text: str) -> frozenset[str]:
    """The attribute concepts `text` asks for, and its own words: a key no concept
    knows ("pager") holds only itself (lexicon.concepts_of_key), so naming it asks for it."""
    return frozenset(lexicon.concepts_asked(text)) | {word.lower() for word in re.findall(r"[\w-]+", text)}


def _conversation_years(state: DialogueState, turns: int = 4) -> list[int]:
    """Years the last few turns named, oldest first, for a date the new turn
    writes without one ("the March review" after talk of 2027 plans): years
    written out in either side's words ("the 2027 budget"), and the year of a
    month, quarter or year an earlier question resolved to ("Q1" → date:2027-01-01..2027-03-31).
    A single day or a week ("yesterday", "last week") dates the question, not its subject."""
    years: list[int] = []
    for turn in state.turns[-turns:]:
        for entity_id in turn.entity_ids:
            year = _year_of_whole_months(entity_id)
            if year is not None:
                years.append(year)
        years += [year for _, year in years_named(turn.content)]
    return years


def _year_of_whole_months(entity_id: str) -> int | None:
    """2027 for "date:2027-01-01..2027-03-31" (whole months of one year), else None."""
    first, _, last = entity_id.removeprefix("date:").partition("..")
    if not entity_id.startswith("date:") or not last:
        return None
    try:
        start, end = date.fromisoformat(first), date.fromisoformat(last)
    except ValueError:
        return None
    whole_months = start.day == 1 and (end + timedelta(days=1)).day == 1 and (end - start).days >= 27
    return start.year if whole_months and start.year == end.year else None


def _date(mention: Mention) -> ResolvedEntity:
    expression = mention.value
    if expression is None:
        return ResolvedEntity(mention.text, mention.span, None, mention.text, "DATE", 0.3, {})
    entity_id = f"date:{expression.canonical}"
    # A close call between two occurrences lists the other as a weaker candidate, like a name's.
    others = [(f"date:{other}", round(1 - expression.certainty, 2)) for other in expression.attributes().get("alternatives", ())]
    return ResolvedEntity(
        mention.text, mention.span, entity_id, expression.canonical, "DATE",
        expression.confidence, expression.attributes(), [(entity_id, expression.confidence), *others] if others else [],
    )
