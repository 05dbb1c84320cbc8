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

# The turns a session's memory keeps word for word: as many as the prompt's summary reads
# (context.SUMMARISED_TURNS). Older ones are folded into `earlier`, a few sentences of each stretch,
# so the memory stored and re-read every turn stays the same size however long the chat runs.
REMEMBERED_TURNS = 120
# Folding runs once this many turns past the bound, not every turn: summarising is the costly part.
FOLD_EVERY = 30
# How much less present each entity an answer names after its first is (down to four steps).
ORDER_FADE = 0.1
# Each fold keeps this many tokens of its turns' most distinctive sentences, chosen on their own so
# a stretch of the chat about one thing is not outvoted by a longer stretch about another.
FOLD_SUMMARY_TOKENS = 60
# What `earlier` may hold, in tokens: the opening fold's sentences (what the chat set out to do) and
# the latest folds'; the ones between give way first.
EARLIER_BUDGET_TOKENS = 240

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
    # The latest turns, at most REMEMBERED_TURNS + FOLD_EVERY of them.
    turns: list[DialogueTurn] = field(default_factory=list)
    # How many turns came before turns[0]: the counters below count every turn of the session.
    folded_turns: int = 0
    # The sentences kept of the folded turns, as short turns, oldest first; the first
    # `earlier_opening` of them are from the first fold.
    earlier: list[DialogueTurn] = field(default_factory=list)
    earlier_opening: int = 0
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
    # Turn index (counting folded turns) at which each entity was last mentioned: breaks salience ties.
    last_mentioned: dict[str, int] = field(default_factory=dict)
    # Turn index at which the current topic started.
    topic_start: int = 0
    # turn_count when note_documents last ran: how fresh "the email" is.
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

    @property
    def turn_count(self) -> int:
        """Turns in the whole session, folded ones included."""
        return self.folded_turns + len(self.turns)

    def _next_turn_id(self) -> int:
        return (self.turns[-1].turn_id + 1) if self.turns and self.turns[-1].turn_id is not None else self.turn_count

    def _append(self, turn: DialogueTurn) -> None:
        self.turns.append(turn)
        if len(self.turns) > REMEMBERED_TURNS + FOLD_EVERY:
            self._fold(len(self.turns) - REMEMBERED_TURNS)

    def _fold(self, count: int) -> None:
        """The oldest `count` turns leave the memory; their most distinctive sentences join `earlier`."""
        from chatapp.preprocess.context import central_turns
        from chatapp.token_count import token_counter

        count_tokens = token_counter(None)
        folded, self.turns = self.turns[:count], self.turns[count:]
        said = {t.content for t in self.earlier}
        summary = [t for t in central_turns(folded, FOLD_SUMMARY_TOKENS, count_tokens, distinctive=True)
                   if t.content not in said]  # a question asked again says nothing new
        if not self.earlier:
            self.earlier_opening = len(summary)
        self.earlier += summary
        costs = [count_tokens(t.content) + 3 for t in self.earlier]
        while sum(costs) > EARLIER_BUDGET_TOKENS and len(self.earlier) > self.earlier_opening + 1:
            del self.earlier[self.earlier_opening], costs[self.earlier_opening]
        self.folded_turns += count

    def _decay(self) -> None:
        self.salience = {
            entity: value * self.decay
            for entity, value in self.salience.items()
            if value * self.decay >= self.min_salience
        }

    def _boost(self, entity_ids, value: float, fading: bool = False,
               link_confidence: dict[str, float] | None = None) -> None:
        index = self.turn_count
        for rank, entity in enumerate(entity_ids):
            if not _is_referent(entity):
                continue
            boost = value * max(1.0 - ORDER_FADE * rank, 1.0 - 4 * ORDER_FADE) if fading else value
            # Named only doubtfully (a first name two people share), it is that much less present.
            boost *= min(1.0, (link_confidence or {}).get(entity, 1.0))
            self.salience[entity] = max(self.salience.get(entity, 0.0), boost)
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
        self._append(DialogueTurn("user", text, timestamp, entity_ids, self._next_turn_id()))
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
        link_confidence: dict[str, float] | None = None,
    ) -> None:
        """`link_confidence`: how surely the answer's words name each entity (1 when not given)."""
        text = remembered_part(text)
        unverified = set(unverified_entity_ids)
        quoted = [e for e in quoted_entity_ids if e not in entity_ids and e not in unverified]
        entity_ids = list(dict.fromkeys([*entity_ids, *unverified_entity_ids, *quoted]))
        self._decay()
        # The user's own words set the focus; the answer's entities follow it, and unconfirmed ones
        # (perhaps invented) and those only in quoted passages weakly.
        # Within an answer, the first named is what it is about ("Priya will run the training …", then a
        # list of who was present): each later one a little less present, so "her" next turn is Priya.
        self._boost([e for e in entity_ids if e not in unverified and e not in quoted], self.assistant_boost,
                    fading=True, link_confidence=link_confidence)
        self._boost([e for e in entity_ids if e in unverified], self.unverified_boost, fading=True)
        self._boost(quoted, self.quoted_boost, fading=True, link_confidence=link_confidence)
        self.unverified.update(unverified)
        self.unverified.difference_update(e for e in entity_ids if e not in unverified)
        self._remember_info(entity_info)
        self._append(DialogueTurn("assistant", text, timestamp, entity_ids, self._next_turn_id()))
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
        self.documents_noted_at = self.turn_count

    def document_salience(self) -> float:
        """How present the last noted documents still are: decays per turn like entities."""
        if self.last_document is None or self.documents_noted_at < 0:
            return 0.0
        return self.decay ** max(0, self.turn_count - self.documents_noted_at)

    # --- topic --------------------------------------------------------------------

    def _update_topic_on_user_turn(self, text: str, continuing: bool) -> None:
        words = keywords_of(text)
        current = set(self.topic.get("keywords") or [])
        if not current:
            self.topic_start = self.turn_count
            self.topic = {"label": self._label(words), "keywords": []}
            return
        unique = set(words)
        overlap = len(unique & current) / len(unique) if unique else 1.0
        if not continuing and len(unique) >= 2 and overlap < self.topic_shift_threshold:
            self.topic_history.append(
                {**self.topic, "start_turn": self.topic_start, "end_turn": self.turn_count - 1}
            )
            del self.topic_history[:-20]
            self.topic_start = self.turn_count
            self.topic = {"label": self._label(words), "keywords": []}

    @staticmethod
    def _label(words: list[str]) -> str:
        ranked = [w for w, _ in Counter(words).most_common()]
        return " / ".join(ranked[:3])

    def _refresh_keywords(self) -> None:
        """Term frequency over the current topic's recent turns: newer turns and
        the user's own words count more (answers are long and would drown them)."""
        window = self.turns[max(0, self.topic_start - self.folded_turns, len(self.turns) - self.keyword_window):]
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
            "folded_turns": self.folded_turns,
            "earlier": [{"role": t.role, "content": t.content, "timestamp": t.timestamp, "turn_id": t.turn_id}
                        for t in self.earlier],
            "earlier_opening": self.earlier_opening,
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
        state.folded_turns = int(data.get("folded_turns") or 0)
        state.earlier = [DialogueTurn(t["role"], t["content"], t.get("timestamp", ""), [], t.get("turn_id"))
                         for t in data.get("earlier") or []]
        state.earlier_opening = int(data.get("earlier_opening") or 0)
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
