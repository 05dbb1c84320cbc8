"""Stage 3, context injection: what the model should know besides the
question — the recent conversation verbatim, older turns summarised, the
entities in play, the topic, the user's preferences and instructions.

Everything here is offline and deterministic. The summary is extractive: it
keeps the sentences of older turns that are most central to the conversation
(TF-IDF cosine to the centroid of all older sentences), so no model can put
words in the user's mouth.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Callable, Iterable

from chatapp.lexicon import KEY_CONCEPTS_BY_TYPE, keys_for_concept
from chatapp.token_count import token_counter
from chatapp.records import ContextInjection, DialogueTurn, ResolvedEntity

CountTokens = Callable[[str], int]

MAX_TOPIC_KEYWORDS = 10
# Older turns past this many are no longer summarised into the prompt (they stay in the session).
SUMMARISED_TURNS = 120
# Salience below this is background noise, not "in play".
MIN_SALIENCE = 0.2
DATE_TYPES = frozenset({"date", "time", "datetime", "duration"})

MAX_ATTRIBUTES_PER_LINE = 4

_STOPWORDS = frozenset(
    """a an and are as at be but by can could did do does for from had has have he her his how i if in
    into is it its just me my no not of on or our she so than that the their them then there these they
    this to up us was we were what when where which who why will with would you your yes ok okay
    thanks thank welcome hi hello hey sure great cool got please""".split()
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[\w@.'-]+")
_ENTITY_REF = re.compile(r"^[a-z][a-z_]*:[\w.-]+$")


# --- turns ---------------------------------------------------------------------


def _as_turn(turn: Any) -> DialogueTurn:
    """Turns may arrive as DialogueTurn records, other objects with the same
    fields (the dialogue state's own), or plain dicts from JSON."""
    if isinstance(turn, DialogueTurn):
        return turn
    get = turn.get if isinstance(turn, dict) else lambda k, d=None: getattr(turn, k, d)
    return DialogueTurn(
        role=str(get("role", "user") or "user"),
        content=str(get("content", "") or ""),
        timestamp=str(get("timestamp", "") or ""),
        entity_ids=list(get("entity_ids", []) or []),
        turn_id=get("turn_id", None),
    )


def speaker(role: str) -> str:
    return "Assistant" if role == "assistant" else "User" if role == "user" else role.capitalize()


def _content_words(sentence: str) -> list[str]:
    words = (w.strip(".'-").casefold() for w in _WORD.findall(sentence))
    return [w for w in words if w and w not in _STOPWORDS]


def summarise_turns(turns: list[DialogueTurn], budget_tokens: int, count_tokens: CountTokens) -> str:
    """An extractive summary of `turns` within `budget_tokens`: the most
    central sentences, in conversation order, each under its speaker."""
    return "\n".join(f"{speaker(t.role)}: {t.content}" for t in central_turns(turns, budget_tokens, count_tokens))


def central_turns(turns: list[DialogueTurn], budget_tokens: int, count_tokens: CountTokens,
                  distinctive: bool = False) -> list[DialogueTurn]:
    """The turns cut down to their most central sentences within `budget_tokens` (each costed with
    its speaker label), in conversation order; turns with none chosen are left out. `distinctive`:
    the sentences whose words the others use least instead (what a stretch of chat was about
    besides its small talk, when it is folded away)."""
    if budget_tokens <= 0:
        return []
    sentences: list[tuple[int, str]] = []  # (turn index, sentence)
    for index, turn in enumerate(turns):
        sentences += [(index, s.strip()) for s in _SENTENCE_END.split(turn.content) if s.strip()]
    if not sentences:
        return []

    bags = [Counter(_content_words(s)) for _, s in sentences]
    document_frequency = Counter(w for bag in bags for w in bag)
    n = len(bags)
    vectors = [{w: tf * (math.log(n / document_frequency[w]) + 1.0) for w, tf in bag.items()} for bag in bags]
    centroid: Counter = Counter()
    for vector in vectors:
        centroid.update(vector)
    centroid_norm = math.sqrt(sum(v * v for v in centroid.values())) or 1.0

    def centrality(i: int) -> float:
        vector = vectors[i]
        norm = math.sqrt(sum(v * v for v in vector.values()))
        if not norm:
            return 0.0
        if distinctive:  # the rarity of its words, not their share in the whole
            score = sum(math.log(n / document_frequency[w]) for w in vector) / math.sqrt(len(vector)) / 10
        else:
            score = sum(v * centroid[w] for w, v in vector.items()) / (norm * centroid_norm)
        # Names, numbers and addresses are what later questions refer back to;
        # "thanks!" and "ok" carry nothing.
        if re.search(r"\d|@|\b[A-Z][a-z]+ [A-Z][a-z]+", sentences[i][1]):
            score += 0.1
        if len(vector) < 3:
            score *= 0.5
        return score

    scores = [centrality(i) for i in range(n)]
    ranked = sorted(range(n), key=lambda i: (-scores[i], i))
    chosen: set[int] = set()
    seen: set[str] = set()
    used = 0
    for i in ranked:
        key = " ".join(sentences[i][1].casefold().split())
        if scores[i] <= 0.0 or key in seen:  # pleasantries and repeats say nothing new
            continue
        cost = count_tokens(sentences[i][1]) + 3  # the speaker label and line break
        if used + cost <= budget_tokens:
            chosen.add(i)
            seen.add(key)
            used += cost

    kept: dict[int, list[str]] = {}
    for i in sorted(chosen):
        turn_index, sentence = sentences[i]
        kept.setdefault(turn_index, []).append(sentence)
    return [DialogueTurn(turns[index].role, " ".join(parts), turns[index].timestamp, [], turns[index].turn_id)
            for index, parts in kept.items()]


def _summary(earlier: list, older: list[DialogueTurn], budget_tokens: int, count_tokens: CountTokens) -> str:
    """The folded turns' sentences as they are (up to half the budget, oldest first), then the
    summary of the older turns still kept in the remaining budget."""
    lines, used = [], 0
    for turn in (_as_turn(t) for t in earlier):
        line = f"{speaker(turn.role)}: {turn.content}"
        cost = count_tokens(line) + 1
        if used + cost > budget_tokens // 2:
            break
        lines.append(line)
        used += cost
    rest = summarise_turns(older, budget_tokens - used, count_tokens)
    return "\n".join([*lines, rest] if rest else lines)


# --- entities --------------------------------------------------------------------


def _attribute_values(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value.values())
    return list(value) if isinstance(value, (list, tuple)) else [value]


def key_attributes(entity_type: str, attributes: dict) -> list[str]:
    """The keys that say who or what an entity is, most telling first: those holding its type's
    key concepts (a project's status, owner, leads, deadline), or every plain value for a type
    the lexicon does not know."""
    concepts = KEY_CONCEPTS_BY_TYPE.get(entity_type.lower())
    if concepts is None:
        return [k for k, v in attributes.items() if not isinstance(v, (dict, list))]
    return list(dict.fromkeys(k for concept in concepts for k in keys_for_concept(concept, attributes)))


class EntityDescriber:
    """One line per entity: "John Smith (person): Engineering Manager,
    Engineering, john.smith@company.com". References to other entities
    ("person:john-smith") are shown by name."""

    def __init__(self, registry=None):
        self.registry = registry
        self._names: dict[str, str] = {}

    def _lookup(self, entity_id: str):
        if self.registry is None or not entity_id:
            return None
        try:
            return self.registry.get(entity_id)
        except Exception:  # a registry that cannot answer just gives less context
            return None

    def _display(self, value: Any) -> str:
        text = str(value).strip()
        if _ENTITY_REF.match(text):
            if text not in self._names:
                entity = self._lookup(text)
                self._names[text] = entity.name if entity else text
            return self._names[text]
        return text

    def describe(self, name: str, entity_type: str, attributes: dict, description: str = "") -> str:
        values: list[str] = []
        for key in key_attributes(entity_type, attributes):
            if len(values) < MAX_ATTRIBUTES_PER_LINE:
                shown = [self._display(v) for v in _attribute_values(attributes[key]) if str(v).strip()]
                if shown:
                    values.append(" and ".join(shown))
        if not values and description:
            values.append(re.split(r"(?<=[.!?])\s", description.strip(), maxsplit=1)[0])
        return f"{name} ({entity_type.lower()})" + (f": {', '.join(values)}" if values else "")

    def describe_id(self, entity_id: str) -> str | None:
        entity = self._lookup(entity_id)
        if entity is None:
            return None
        return self.describe(entity.name, entity.type, entity.attributes, entity.description)

    def describe_resolved(self, resolved: ResolvedEntity) -> str | None:
        kind = (resolved.entity_type or "").lower()
        if kind in DATE_TYPES:  # stage 2 gives dates ids like "date:2026-11-26"; they are values, not records
            line = f"{resolved.surface} ({kind}): {date_value(resolved)}"
            # A yearless date the turn's time barely placed: the model should see the other reading too.
            others = [str(other).replace("..", " to ") for other in (resolved.attributes or {}).get("alternatives") or ()]
            return line + (f" (or {', '.join(others)})" if others else "")
        if resolved.entity_id:
            line = self.describe_id(resolved.entity_id)
            if line:
                return line
            attributes = {k: v for k, v in (resolved.attributes or {}).items() if k not in ("document_id", "title")}
            return self.describe(resolved.canonical_name or resolved.surface, resolved.entity_type, attributes)
        return None  # an unresolved mention tells the model nothing it cannot read in the question


def date_value(resolved: ResolvedEntity) -> str:
    """The resolved value of a temporal mention, however stage 2 recorded it."""
    attributes = resolved.attributes or {}
    for key in ("date", "value", "iso", "datetime"):
        if attributes.get(key):
            return str(attributes[key])
    if attributes.get("start") and attributes.get("end") and attributes["start"] != attributes["end"]:
        return f"{attributes['start']} to {attributes['end']}"
    value = str(attributes.get("start") or resolved.canonical_name or resolved.surface)
    return value.replace("..", " to ")  # stage 2 writes ranges as "2026-11-23..2026-11-29"


def entity_lines(
    resolved: Iterable[ResolvedEntity],
    salience: dict[str, float],
    registry,
    budget_tokens: int,
    count_tokens: CountTokens,
    min_salience: float = MIN_SALIENCE,
) -> list[str]:
    """Resolved entities first (most confident first), then salient entities
    from the conversation at half weight, cut to `budget_tokens`."""
    describer = EntityDescriber(registry)
    ranked: list[tuple[int, float, int, str]] = []  # (group, -weight, order, line)
    seen: set[str] = set()
    for order, entity in enumerate(resolved or []):
        key = entity.entity_id or f"{entity.entity_type}:{entity.surface}".casefold()
        if key in seen:
            continue
        line = describer.describe_resolved(entity)
        if line:
            seen.add(key)
            ranked.append((0, -float(entity.confidence or 0.0), order, line))
    for order, (entity_id, score) in enumerate((salience or {}).items()):
        weight = 0.5 * float(score)
        if entity_id in seen or float(score) < min_salience:
            continue
        line = describer.describe_id(entity_id)
        if line:
            seen.add(entity_id)
            ranked.append((1, -weight, order, line))
    ranked.sort()

    lines: list[str] = []
    used = 0
    for _, _, _, line in ranked:
        cost = count_tokens(line) + 1  # its line break
        if used + cost > budget_tokens:
            break
        lines.append(line)
        used += cost
    return lines


# --- the stage -------------------------------------------------------------------


def build_context(
    turns: list,
    resolved: list[ResolvedEntity],
    salience: dict[str, float],
    registry,
    topic: dict | None,
    preferences: dict | None,
    system_instructions: str,
    recent_n: int = 4,
    history_budget_tokens: int = 1000,
    count_tokens: CountTokens | None = None,
    entity_budget_tokens: int = 500,
    earlier: list | None = None,
) -> ContextInjection:
    """The context for one turn. `turns` is the conversation before this
    message, oldest first; `earlier`, the sentences kept of turns the
    dialogue state no longer holds (DialogueState.earlier), goes before the
    older turns' summary; `registry` may be None (entities are then described
    from their ResolvedEntity attributes only)."""
    count_tokens = count_tokens or token_counter(None)
    # The summary is drawn from the latest SUMMARISED_TURNS: every turn re-reads them, so an endless
    # session must not make each turn slower than the one before.
    all_turns = [_as_turn(t) for t in (turns or [])[-SUMMARISED_TURNS:]]
    recent_n = max(0, recent_n)
    split = max(0, len(all_turns) - recent_n)
    older, recent = all_turns[:split], all_turns[split:]

    topic = topic or {}
    keywords = [str(k) for k in (topic.get("keywords") or []) if str(k).strip()]
    return ContextInjection(
        recent_turns=recent,
        summary=_summary(earlier or [], older, history_budget_tokens // 2, count_tokens),
        entity_context=entity_lines(resolved, salience, registry, entity_budget_tokens, count_tokens),
        topic={"label": str(topic.get("label") or ""), "keywords": keywords[:MAX_TOPIC_KEYWORDS]},
        preferences=dict(preferences or {}),
        system_instructions=(system_instructions or "").strip(),
    )
