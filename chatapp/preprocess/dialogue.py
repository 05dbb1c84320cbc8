"""DialogueState: what the conversation is about, turn by turn.

Entity resolution reads it (who is "he", which John, which email is "the
email"), context injection reads it (history, salient entities, topic), and
the engine updates it after each turn and stores it with the session as JSON.
It is plain data with small update rules; it never touches the knowledge base.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from chatapp.input_limits import remembered_part
from chatapp.records import DialogueTurn, KnowledgeChunk

STATE_VERSION = 1

# Function words plus the filler of chat requests ("can you help me find"):
# neither says what a conversation is about. Kept here, not taken from spaCy,
# because the state is loaded before spaCy is.
STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been before being
    below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
    during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here
    here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself
    let's me more most mustn't my myself no nor not of off on once only or other ought our ours ourselves
    out over own same shan't she she'd she'll she's should shouldn't so some such than that that's the their
    theirs them themselves then there there's these they they'd they'll they're they've this those through
    to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when when's
    where where's which while who who's whom why why's with won't would wouldn't you you'd you'll you're
    you've your yours yourself yourselves
    yes yeah ok okay please pls thanks thank hi hello hey just really actually maybe also still well
    help find show tell give get know want need like look looking let see said say says make made think
    thing things something anything everything one ones lot lots bit sure right now go going got
    will shall may might must much many us via per etc
    today yesterday tomorrow tonight week weeks month months year years day days ago last next
    monday tuesday wednesday thursday friday saturday sunday
    """.split()
)

_WORD = re.compile(r"[^\W\d_][\w'&-]*[^\W_]|[^\W\d_]{2}")


def keywords_of(text: str) -> list[str]:
    """Content words of a text, lowercased, in order (possessive 's dropped)."""
    words = []
    for match in _WORD.finditer(text):
        word = match.group(0).lower()
        if word.endswith(("'s", "’s")):
            word = word[:-2]
        if len(word) >= 3 and word not in STOPWORDS:
            words.append(word)
    return words


def _is_referent(entity_id: str) -> bool:
    # Dates are not things one refers back to with "it" or "he".
    return not entity_id.startswith("date:")


@dataclass
class DialogueState:
    turns: list[DialogueTurn] = field(default_factory=list)
    salience: dict[str, float] = field(default_factory=dict)
    topic: dict[str, Any] = field(default_factory=lambda: {"label": "", "keywords": []})
    qud: list[str] = field(default_factory=list)
    last_document: dict | None = None
    # Most recent first; last_document is recent_documents[0].
    recent_documents: list[dict] = field(default_factory=list)
    # Earlier topics: {"label", "keywords", "start_turn", "end_turn"}.
    topic_history: list[dict] = field(default_factory=list)
    # Entities named in answers that the knowledge base could not confirm.
    unverified: set[str] = field(default_factory=set)
    # Name and type of entities that are not in the registry (from answers, say),
    # so a later "she" can still find them: {entity_id: {"name", "type"}}.
    entity_info: dict[str, dict] = field(default_factory=dict)
    # Turn index at which each entity was last mentioned: breaks salience ties.
    last_mentioned: dict[str, int] = field(default_factory=dict)
    # Turn index at which the current topic started.
    topic_start: int = 0
    # len(turns) when note_documents last ran: how fresh "the email" is.
    documents_noted_at: int = -1
    # Tuning (persisted with the state, so a session keeps its behaviour).
    decay: float = 0.8
    assistant_boost: float = 0.9
    unverified_boost: float = 0.5
    # Named only inside a passage the answer quoted ("Hi David, Sarah, Emma, Tom,"): referable, but
    # not the focus — "his" next turn means the person asked about, not a name in an email greeting.
    quoted_boost: float = 0.35
    topic_shift_threshold: float = 0.2
    keyword_window: int = 8
    max_keywords: int = 10
    min_salience: float = 0.05

    # --- updates ----------------------------------------------------------------

    def _next_turn_id(self) -> int:
        return (self.turns[-1].turn_id + 1) if self.turns and self.turns[-1].turn_id is not None else len(self.turns)

    def _decay(self) -> None:
        self.salience = {
            entity: value * self.decay
            for entity, value in self.salience.items()
            if value * self.decay >= self.min_salience
        }

    def _boost(self, entity_ids, value: float) -> None:
        index = len(self.turns)
        for entity in entity_ids:
            if not _is_referent(entity):
                continue
            self.salience[entity] = max(self.salience.get(entity, 0.0), value)
            self.last_mentioned[entity] = index

    def _remember_info(self, entity_info: dict | None) -> None:
        for entity, info in (entity_info or {}).items():
            self.entity_info[entity] = {"name": str(info.get("name", "")), "type": str(info.get("type", ""))}

    def add_user_turn(
        self,
        text: str,
        timestamp: str,
        entity_ids=(),
        is_question: bool = False,
        entity_info: dict | None = None,
    ) -> None:
        text = remembered_part(text)
        entity_ids = list(dict.fromkeys(entity_ids))
        # Entity continuity means the same topic even when the words change.
        continuing = any(self.salience.get(e, 0.0) >= 0.5 for e in entity_ids if _is_referent(e))
        self._decay()
        self._update_topic_on_user_turn(text, continuing)
        self._boost(entity_ids, 1.0)
        self._remember_info(entity_info)
        self.turns.append(DialogueTurn("user", text, timestamp, entity_ids, self._next_turn_id()))
        if is_question and text.strip():
            self.qud.append(text.strip())
            del self.qud[:-10]  # an unanswered backlog this deep is no longer "under discussion"
        self._refresh_keywords()

    def add_assistant_turn(
        self,
        text: str,
        timestamp: str,
        entity_ids=(),
        unverified_entity_ids=(),
        answered: bool = True,
        entity_info: dict | None = None,
        quoted_entity_ids=(),
    ) -> None:
        text = remembered_part(text)
        unverified = set(unverified_entity_ids)
        quoted = [e for e in quoted_entity_ids if e not in entity_ids and e not in unverified]
        entity_ids = list(dict.fromkeys([*entity_ids, *unverified_entity_ids, *quoted]))
        self._decay()
        # The user's own words set the focus; the answer's entities follow it, and unconfirmed ones
        # (perhaps invented) and those only in quoted passages weakly.
        self._boost([e for e in entity_ids if e not in unverified and e not in quoted], self.assistant_boost)
        self._boost([e for e in entity_ids if e in unverified], self.unverified_boost)
        self._boost(quoted, self.quoted_boost)
        self.unverified.update(unverified)
        self.unverified.difference_update(e for e in entity_ids if e not in unverified)
        self._remember_info(entity_info)
        self.turns.append(DialogueTurn("assistant", text, timestamp, entity_ids, self._next_turn_id()))
        if answered and self.qud:
            self.qud.pop()
        self._refresh_keywords()

    def note_documents(self, chunks: list[KnowledgeChunk]) -> None:
        """Remember the documents just discussed (best first) for "the email"."""
        seen: list[dict] = []
        for chunk in chunks:
            document_id = chunk.document_id or chunk.source
            if not document_id or any(d["document_id"] == document_id for d in seen):
                continue
            seen.append(
                {"document_id": document_id, "source": chunk.source, "title": chunk.title, "date": chunk.date}
            )
        if not seen:
            return
        older = [d for d in self.recent_documents if d["document_id"] not in {s["document_id"] for s in seen}]
        self.recent_documents = (seen + older)[:8]
        self.last_document = self.recent_documents[0]
        self.documents_noted_at = len(self.turns)

    def document_salience(self) -> float:
        """How present the last noted documents still are: decays per turn like entities."""
        if self.last_document is None or self.documents_noted_at < 0:
            return 0.0
        return self.decay ** max(0, len(self.turns) - self.documents_noted_at)

    # --- topic --------------------------------------------------------------------

    def _update_topic_on_user_turn(self, text: str, continuing: bool) -> None:
        words = keywords_of(text)
        current = set(self.topic.get("keywords") or [])
        if not current:
            self.topic_start = len(self.turns)
            self.topic = {"label": self._label(words), "keywords": []}
            return
        unique = set(words)
        overlap = len(unique & current) / len(unique) if unique else 1.0
        if not continuing and len(unique) >= 2 and overlap < self.topic_shift_threshold:
            self.topic_history.append(
                {**self.topic, "start_turn": self.topic_start, "end_turn": len(self.turns) - 1}
            )
            del self.topic_history[:-20]
            self.topic_start = len(self.turns)
            self.topic = {"label": self._label(words), "keywords": []}

    @staticmethod
    def _label(words: list[str]) -> str:
        ranked = [w for w, _ in Counter(words).most_common()]
        return " / ".join(ranked[:3])

    def _refresh_keywords(self) -> None:
        """Term frequency over the current topic's recent turns: newer turns and
        the user's own words count more (answers are long and would drown them)."""
        window = self.turns[max(self.topic_start, len(self.turns) - self.keyword_window):]
        scores: Counter = Counter()
        first_seen: dict[str, int] = {}
        for age, turn in enumerate(reversed(window)):
            weight = (0.85 ** age) * (1.0 if turn.role == "user" else 0.5)
            for word in keywords_of(turn.content):
                scores[word] += weight
                first_seen.setdefault(word, -age)
        ranked = sorted(scores, key=lambda w: (-scores[w], first_seen[w]))
        self.topic["keywords"] = ranked[: self.max_keywords]
        if not self.topic.get("label") and ranked:
            self.topic["label"] = " / ".join(ranked[:3])

    # --- reading ------------------------------------------------------------------

    def salient(self, min_salience: float = 0.0) -> list[tuple[str, float]]:
        """(entity_id, salience), most salient first; ties go to the latest mention."""
        items = [(e, s) for e, s in self.salience.items() if s >= min_salience]
        return sorted(items, key=lambda item: (-item[1], -self.last_mentioned.get(item[0], -1), item[0]))

    def recent_text(self, turns: int = 4) -> str:
        return "\n".join(t.content for t in self.turns[-turns:])

    @property
    def open_question(self) -> str | None:
        return self.qud[-1] if self.qud else None

    # --- persistence ----------------------------------------------------------------

    def to_json(self) -> dict:
        return {
            "version": STATE_VERSION,
            "turns": [
                {"role": t.role, "content": t.content, "timestamp": t.timestamp,
                 "entity_ids": list(t.entity_ids), "turn_id": t.turn_id}
                for t in self.turns
            ],
            "salience": dict(self.salience),
            "topic": {"label": self.topic.get("label", ""), "keywords": list(self.topic.get("keywords", []))},
            "qud": list(self.qud),
            "last_document": dict(self.last_document) if self.last_document else None,
            "recent_documents": [dict(d) for d in self.recent_documents],
            "topic_history": [dict(t) for t in self.topic_history],
            "unverified": sorted(self.unverified),
            "entity_info": {k: dict(v) for k, v in self.entity_info.items()},
            "last_mentioned": dict(self.last_mentioned),
            "topic_start": self.topic_start,
            "documents_noted_at": self.documents_noted_at,
            "settings": {
                "decay": self.decay,
                "assistant_boost": self.assistant_boost,
                "unverified_boost": self.unverified_boost,
                "quoted_boost": self.quoted_boost,
                "topic_shift_threshold": self.topic_shift_threshold,
                "keyword_window": self.keyword_window,
                "max_keywords": self.max_keywords,
                "min_salience": self.min_salience,
            },
        }

    @classmethod
    def from_json(cls, data: dict | None) -> "DialogueState":
        """The state stored by to_json; an empty state for None or {} (a new session)."""
        data = data or {}
        state = cls(**{k: v for k, v in (data.get("settings") or {}).items() if k in _SETTING_NAMES})
        state.turns = [
            DialogueTurn(t["role"], t["content"], t["timestamp"], list(t.get("entity_ids") or []), t.get("turn_id"))
            for t in data.get("turns") or []
        ]
        state.salience = {str(k): float(v) for k, v in (data.get("salience") or {}).items()}
        topic = data.get("topic") or {}
        state.topic = {"label": topic.get("label", ""), "keywords": list(topic.get("keywords") or [])}
        state.qud = list(data.get("qud") or [])
        state.last_document = data.get("last_document")
        state.recent_documents = list(data.get("recent_documents") or ([state.last_document] if state.last_document else []))
        state.topic_history = list(data.get("topic_history") or [])
        state.unverified = set(data.get("unverified") or [])
        state.entity_info = dict(data.get("entity_info") or {})
        state.last_mentioned = {str(k): int(v) for k, v in (data.get("last_mentioned") or {}).items()}
        state.topic_start = int(data.get("topic_start") or 0)
        state.documents_noted_at = int(data.get("documents_noted_at", -1))
        return state


_SETTING_NAMES = frozenset(
    {"decay", "assistant_boost", "unverified_boost", "quoted_boost", "topic_shift_threshold", "keyword_window",
     "max_keywords", "min_salience"}
)
