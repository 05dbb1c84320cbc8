"""Where the registry's knowledge came from: for each entity its origin (the user's own records,
learnt from documents, or the sample's), its sources and how sure we are; for each attribute the
documents that gave its value and the values it had before. What `chatapp kb entities` and
`chatapp kb entity` show."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from chatapp.knowledge.registry import Registry, normalize_alias
from chatapp.records import Entity, Fact

# Records the user (or the sample) wrote by hand are taken as certain.
WRITTEN_CONFIDENCE = 1.0
WRITTEN_ORIGINS = frozenset({"user", "sample"})
# How alike a name must be (rapidfuzz WRatio, 0–100) to be offered as a close match.
CLOSE_MATCH_SCORE = 70
CLOSE_MATCHES = 5


@dataclass
class EntitySummary:
    id: str
    type: str
    name: str
    origin: str
    sources: list[str]
    confidence: float | None  # None: learnt, but no value of it records one


@dataclass
class AttributeSource:
    source: str
    confidence: float | None = None
    method: str | None = None
    position: int | None = None
    doc_date: str | None = None


@dataclass
class AttributeValue:
    value: str
    sources: list[AttributeSource] = field(default_factory=list)


@dataclass
class AttributeProvenance:
    key: str
    value: str
    confidence: float | None
    sources: list[AttributeSource] = field(default_factory=list)
    superseded: list[AttributeValue] = field(default_factory=list)
    # Newer readings that lost to a surer source (a signature's guess against the directory): kept to
    # be seen, never used, since nothing says the value ever was this.
    disputed: list[AttributeValue] = field(default_factory=list)


@dataclass
class EntityProvenance:
    id: str
    type: str
    name: str
    origin: str
    aliases: list[str]
    description: str
    sources: list[str]
    confidence: float | None
    attributes: list[AttributeProvenance]
    facts: list[Fact]


@dataclass
class EntityLookup:
    """The entities a name found: one, several (ambiguous), or none with the closest names."""

    matches: list[Entity]
    close_matches: list[str] = field(default_factory=list)


def value_text(value: Any) -> str:
    """An attribute value as one line: text as it is, lists and objects as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _confidence(origin: str, history: list[dict]) -> float | None:
    if origin in WRITTEN_ORIGINS:
        return WRITTEN_CONFIDENCE
    known = [row["confidence"] for row in history if row["confidence"] is not None]
    return max(known) if known else None


def _sources(entity_source: str, history: list[dict]) -> list[str]:
    found = [entity_source] if entity_source else []
    found += [row["source"] for row in history if row["source"]]
    return list(dict.fromkeys(found))


def _history_by_entity(registry: Registry) -> dict[str, list[dict]]:
    rows = registry.database.query(
        "SELECT entity_id, source, confidence FROM attribute_history ORDER BY entity_id, rowid"
    )
    grouped: dict[str, list[dict]] = {}
    for row in rows:
        grouped.setdefault(row["entity_id"], []).append(row)
    return grouped


def entity_summaries(registry: Registry, entity_type: str | None = None) -> list[EntitySummary]:
    """Every entity (of `entity_type`, case-insensitive, when given), by type then name."""
    rows = registry.database.query("SELECT id, type, name, origin, source FROM entities ORDER BY type, name, id")
    if entity_type:
        rows = [r for r in rows if r["type"].casefold() == entity_type.casefold()]
    history = _history_by_entity(registry)
    return [
        EntitySummary(
            id=row["id"], type=row["type"], name=row["name"], origin=row["origin"],
            sources=_sources(row["source"] or "", history.get(row["id"], [])),
            confidence=_confidence(row["origin"], history.get(row["id"], [])),
        )
        for row in rows
    ]


def entity_types(registry: Registry) -> list[str]:
    return [r["type"] for r in registry.database.query("SELECT DISTINCT type FROM entities ORDER BY type")]


def _source_of(row: dict) -> AttributeSource:
    return AttributeSource(source=row["source"] or "", confidence=row["confidence"], method=row["method"],
                           position=row["position"], doc_date=row["doc_date"])


def _attribute(entity: Entity, key: str, current: Any, rows: list[dict]) -> AttributeProvenance:
    """One attribute: its value now, the sources that give it, the values it had before (newest
    first, each with the sources that gave it) and the other readings that lost to it."""
    value = value_text(current) if current is not None else None
    if value is None:  # in the history only: its newest current value, else its newest value
        value = next((r["value"] for r in rows if r["status"] == "current"), rows[0]["value"])
    giving = [r for r in rows if r["status"] == "current" and r["value"] == value]
    sources = [_source_of(r) for r in giving]
    if not sources and entity.origin in WRITTEN_ORIGINS and entity.source:
        sources = [AttributeSource(source=entity.source, confidence=WRITTEN_CONFIDENCE)]
    others: dict[str, dict[str, AttributeValue]] = {"superseded": {}, "disputed": {}}
    for row in rows:
        if row["status"] in others and row["value"] != value:
            others[row["status"]].setdefault(row["value"], AttributeValue(row["value"])).sources.append(_source_of(row))
    known = [s.confidence for s in sources if s.confidence is not None]
    return AttributeProvenance(key=key, value=value, confidence=max(known) if known else None, sources=sources,
                               superseded=list(others["superseded"].values()),
                               disputed=list(others["disputed"].values()))


def entity_provenance(registry: Registry, entity: Entity) -> EntityProvenance:
    history = registry.attribute_history(entity.id)
    by_key: dict[str, list[dict]] = {}
    for row in history:
        by_key.setdefault(row["key"], []).append(row)
    keys = list(dict.fromkeys([*entity.attributes, *by_key]))
    return EntityProvenance(
        id=entity.id, type=entity.type, name=entity.name, origin=entity.origin, aliases=entity.aliases,
        description=entity.description, sources=_sources(entity.source, history),
        confidence=_confidence(entity.origin, history),
        attributes=[_attribute(entity, key, entity.attributes.get(key), by_key.get(key, [])) for key in keys],
        facts=registry.facts_about(entity.id),
    )


def find_entity(registry: Registry, name: str) -> EntityLookup:
    """Entities whose id, name or alias is `name` (case- and accent-insensitive); when none is,
    the names and aliases most like it."""
    exact = registry.get(name.strip())
    if exact is not None:
        return EntityLookup([exact])
    matches = registry.find_by_alias(name)
    if matches:
        return EntityLookup(matches)
    from rapidfuzz import fuzz, process

    rows = registry.database.query(
        "SELECT a.alias, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id ORDER BY e.name, a.alias"
    )
    # Every name and alias is scored; each entity is offered once, by its name, at its best alias's score.
    scored = process.extract(normalize_alias(name), [r["alias"] for r in rows], scorer=fuzz.WRatio,
                             processor=normalize_alias, limit=None, score_cutoff=CLOSE_MATCH_SCORE)
    names = dict.fromkeys(rows[index]["name"] for _, _, index in scored)
    return EntityLookup([], close_matches=list(names)[:CLOSE_MATCHES])
