"""The knowledge registry: entities (with aliases and attributes) and facts,
loaded from entities.jsonl / facts.jsonl and kept in SQLite.

These are what the correction tiers treat as known vocabulary, what entity
resolution links mentions to, and what postprocessing checks answers against.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from chatapp.accents import strip_accents
from chatapp.knowledge.word_forms import consistent_forms
from chatapp.records import Entity, Fact
from chatapp.storage.database import Database

ENTITY_FILE_NAMES = frozenset({"entities.jsonl"})
FACT_FILE_NAMES = frozenset({"facts.jsonl"})


class RegistryFileError(ValueError):
    """A data file with a broken line; the message names the line."""


def normalize_alias(text: str) -> str:
    """Case-, accent- and punctuation-insensitive key for alias lookup."""
    text = strip_accents(text)
    return re.sub(r"[^\w@.]+", " ", text.casefold()).strip()


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise RegistryFileError("not valid UTF-8") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RegistryFileError(f"invalid JSON on line {number}: {exc.msg}") from None
        except RecursionError:
            raise RegistryFileError(f"line {number} is nested too deeply to read") from None
        except ValueError as exc:  # e.g. a number of more than 4,300 digits, which Python refuses
            raise RegistryFileError(f"invalid JSON on line {number}: {str(exc).split(';')[0][:80]}") from None
        if not isinstance(row, dict):
            raise RegistryFileError(f"line {number} is not a JSON object")
        rows.append(row)
    return rows


def _number(row: dict, key: str, default: float, owner: str) -> float:
    """A numeric field of a data-file row; `owner` names the row in the error ("entity x")."""
    try:
        return float(row.get(key, default))
    except (TypeError, ValueError):
        raise RegistryFileError(f"{owner}: '{key}' must be a number") from None


def parse_entities(path: Path) -> list[Entity]:
    entities = []
    for number, row in enumerate(_read_jsonl(path), start=1):
        if not row.get("id") or not row.get("name"):
            raise RegistryFileError(f"entity {number} needs an 'id' and a 'name'")
        aliases = row.get("aliases") or []
        attributes = row.get("attributes") or {}
        if not isinstance(aliases, list) or not isinstance(attributes, dict):
            raise RegistryFileError(f"entity {row['id']}: 'aliases' must be a list, 'attributes' an object")
        prior = _number(row, "prior", 0.5, f"entity {row['id']}")
        entities.append(
            Entity(
                id=str(row["id"]),
                type=str(row.get("type") or "thing"),
                name=str(row["name"]),
                aliases=[str(a) for a in aliases if str(a).strip()],
                description=str(row.get("description") or ""),
                attributes=attributes,
                prior=min(max(prior, 0.0), 1.0),
                source=str(path),
            )
        )
    return entities


def parse_facts(path: Path) -> list[Fact]:
    facts = []
    for number, row in enumerate(_read_jsonl(path), start=1):
        missing = [k for k in ("subject", "predicate", "object") if row.get(k) in (None, "")]
        if missing:
            raise RegistryFileError(f"fact {number} is missing {', '.join(missing)}")
        fact_id = str(row.get("id") or f"{row['subject']}|{row['predicate']}|{row['object']}")
        confidence = _number(row, "confidence", 1.0, f"fact {fact_id}")
        facts.append(
            Fact(
                id=fact_id,
                subject=str(row["subject"]),
                predicate=str(row["predicate"]),
                object=str(row["object"]),
                source=str(row.get("source") or path.name),
                confidence=confidence,
            )
        )
    return facts


# The columns a Fact record has (the table also keeps updated_at).
_FACT_COLUMNS = "id, subject, predicate, object, source, confidence"


def _attribute_text(value: Any) -> str:
    """How an attribute value is stored: text as it is, lists and objects as JSON
    (decode_attribute reads them back)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class Registry:
    def __init__(self, database: Database):
        self.database = database

    # --- writing (callers hold a transaction) ---------------------------------

    def store_entities(self, db, entities: list[Entity]) -> None:
        now = datetime.now(timezone.utc).isoformat()
        for entity in entities:
            db.execute("DELETE FROM entity_aliases WHERE entity_id = ?", (entity.id,))
            db.execute("DELETE FROM entity_attributes WHERE entity_id = ?", (entity.id,))
            db["entities"].upsert(
                {
                    "id": entity.id,
                    "type": entity.type,
                    "name": entity.name,
                    "description": entity.description,
                    "prior": entity.prior,
                    "source": entity.source,
                    "origin": entity.origin,
                    "updated_at": now,
                },
                pk="id",
            )
            names = dict.fromkeys([entity.name, *entity.aliases])
            db["entity_aliases"].insert_all(
                [{"entity_id": entity.id, "alias": a, "alias_norm": normalize_alias(a)} for a in names],
                replace=True,
            )
            db["entity_attributes"].insert_all(
                [
                    {"entity_id": entity.id, "key": k, "value": _attribute_text(v)}
                    for k, v in entity.attributes.items()
                ],
                replace=True,
            )

    def store_facts(self, db, facts: list[Fact]) -> None:
        now = datetime.now(timezone.utc).isoformat()
        db["facts"].upsert_all(
            [
                {
                    "id": f.id,
                    "subject": f.subject,
                    "predicate": f.predicate,
                    "object": f.object,
                    "source": f.source,
                    "confidence": f.confidence,
                    "updated_at": now,
                }
                for f in facts
            ],
            pk="id",
        )

    def replace_extracted(self, db, entities: list[Entity], history: list[dict]) -> int:
        """Put the entities learnt from documents in place of the previous ones. A user's own
        record (entities.jsonl) wins: an extracted entity with one of its names, or its id, is
        left out. Returns how many were stored."""
        extracted = "SELECT id FROM entities WHERE origin = 'extracted'"
        db.execute(f"DELETE FROM entity_aliases WHERE entity_id IN ({extracted})")
        db.execute(f"DELETE FROM entity_attributes WHERE entity_id IN ({extracted})")
        db.execute("DELETE FROM entities WHERE origin = 'extracted'")
        db.execute("DELETE FROM attribute_history")
        user_ids = {r["id"] for r in db.query("SELECT id FROM entities")}
        user_names = {
            r["alias_norm"] for r in db.query(
                "SELECT a.alias_norm FROM entity_aliases a JOIN entities e ON e.id = a.entity_id "
                "WHERE e.name = a.alias"
            )
        }
        kept = [e for e in entities if e.id not in user_ids and normalize_alias(e.name) not in user_names]
        self.store_entities(db, kept)
        kept_ids = {e.id for e in kept}
        db["attribute_history"].insert_all([h for h in history if h["entity_id"] in kept_ids])
        return len(kept)

    # --- reading --------------------------------------------------------------

    def _entity_from_row(self, row: dict) -> Entity:
        aliases = [
            r["alias"]
            for r in self.database.query(
                "SELECT alias FROM entity_aliases WHERE entity_id = ? ORDER BY rowid", (row["id"],)
            )
            if r["alias"] != row["name"]
        ]
        attributes = {
            r["key"]: decode_attribute(r["value"])
            for r in self.database.query(
                "SELECT key, value FROM entity_attributes WHERE entity_id = ? ORDER BY rowid", (row["id"],)
            )
        }
        return Entity(
            id=row["id"],
            type=row["type"],
            name=row["name"],
            aliases=aliases,
            description=row["description"] or "",
            attributes=attributes,
            prior=row["prior"],
            source=row["source"] or "",
            origin=row.get("origin") or "user",
        )

    def get(self, entity_id: str) -> Entity | None:
        rows = self.database.query("SELECT * FROM entities WHERE id = ?", (entity_id,))
        return self._entity_from_row(rows[0]) if rows else None

    def all_entities(self) -> list[Entity]:
        return [self._entity_from_row(r) for r in self.database.query("SELECT * FROM entities ORDER BY id")]

    def find_by_alias(self, text: str) -> list[Entity]:
        """Entities whose name or an alias equals `text` (normalised)."""
        rows = self.database.query(
            "SELECT DISTINCT e.* FROM entities e JOIN entity_aliases a ON a.entity_id = e.id "
            "WHERE a.alias_norm = ? ORDER BY e.prior DESC",
            (normalize_alias(text),),
        )
        return [self._entity_from_row(r) for r in rows]

    def attribute_history(self, entity_id: str) -> list[dict]:
        """Every value an extracted entity's attributes had: key, value, status ("current" or
        "superseded" by a newer document's value, "disputed": newer but outweighed by a surer
        reading, or "also": held beside the current value — a second phone or address its document
        gives, or a second role no dated document orders against it), source (document path), position
        (character offset in it), doc_date,
        confidence and method (how it was read: mail_header, signature, directory, key_value…).
        Newest first within a key."""
        return self.database.query(
            "SELECT key, value, status, source, position, doc_date, confidence, method FROM attribute_history "
            "WHERE entity_id = ? ORDER BY key, status != 'current', status, doc_date DESC",
            (entity_id,),
        )

    def all_attribute_history(self) -> list[dict]:
        """attribute_history for every entity at once (entity_id added to each row), in the same
        order: what a reader that checks answers loads in one query rather than one per entity."""
        return self.database.query(
            "SELECT entity_id, key, value, status, source, position, doc_date, confidence, method "
            "FROM attribute_history ORDER BY entity_id, key, status != 'current', status, doc_date DESC"
        )

    def facts_about(self, entity_id: str) -> list[Fact]:
        rows = self.database.query(
            f"SELECT {_FACT_COLUMNS} FROM facts WHERE subject = ? OR object = ? ORDER BY id", (entity_id, entity_id)
        )
        return [Fact(**r) for r in rows]

    def all_facts(self) -> list[Fact]:
        return [Fact(**r) for r in self.database.query(f"SELECT {_FACT_COLUMNS} FROM facts ORDER BY id")]

    def vocabulary(self) -> set[str]:
        """Words the knowledge base knows: names, aliases, attribute values and the labels of those values.

        The correction tiers never "fix" these, and use them to repair
        misspelled names.
        """
        words: set[str] = set()
        texts = [r["alias"] for r in self.database.query("SELECT alias FROM entity_aliases")]
        texts += [r["value"] for r in self.database.query("SELECT value FROM entity_attributes")]
        # A key is a label as the documents write it ("rego", "fleet_no"): the user asks with it.
        texts += [r["key"].replace("_", " ") for r in self.database.query("SELECT DISTINCT key FROM entity_attributes")]
        for text in texts:
            words.update(w for w in re.findall(r"[\w'@.\-]+", text or "") if any(c.isalpha() for c in w))
        return words

    def document_word_uses(self) -> list[tuple[str, str, int]]:
        """(lower-case word, form, uses) summed over the ingested documents (knowledge/word_forms.py):
        what preprocessing reads both the documents' capitals and their known words from."""
        rows = self.database.query("SELECT lower, form, sum(uses) AS uses FROM word_forms GROUP BY lower, form")
        return [(r["lower"], r["form"], r["uses"]) for r in rows]

    def document_word_forms(self) -> dict[str, str]:
        """{lower-case word: form} for the words the ingested documents write with capitals mid-sentence
        and never in lower case ("abuja" → "Abuja", "nitda" → "NITDA")."""
        return consistent_forms(self.document_word_uses())

    def stamp(self) -> tuple:
        """Changes whenever an entity or fact is added, removed or stored again, or the values
        learnt from documents are redone, so a reader can tell its cached view of the registry is stale."""
        row = self.database.conn.execute(
            "SELECT (SELECT count(*) FROM entities), (SELECT max(updated_at) FROM entities), "
            "(SELECT count(*) FROM facts), (SELECT max(updated_at) FROM facts), "
            "(SELECT count(*) FROM attribute_history)"
        ).fetchone()
        return tuple(row)

    def counts(self) -> dict[str, int]:
        return {
            "entities": self.database.conn.execute("SELECT count(*) FROM entities").fetchone()[0],
            "facts": self.database.conn.execute("SELECT count(*) FROM facts").fetchone()[0],
        }


def decode_attribute(value):
    """An attribute value as Python data: the registry stores lists and objects as JSON text."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
