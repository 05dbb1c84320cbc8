"""Pronouns, definite descriptions and document references: finding them and linking them to entities."""

from __future__ import annotations

import re
from pathlib import Path

from chatapp.preprocess.dialogue import STOPWORDS, DialogueState
from chatapp.preprocess.entities.aliases import AliasIndex
from chatapp.preprocess.entities.linking import Linker, ResolutionSettings
from chatapp.preprocess.entities.name_gender import PRONOUN_GENDER, person_gender
from chatapp.preprocess.entities.spans import Mention
from chatapp.records import ResolvedEntity

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
    "memo": (), "attachment": (), "page": (), "meeting notes": (), "meeting note": (),
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


def reference_mentions(text: str) -> list[Mention]:
    """Definite descriptions and pronouns in `text`. An "it" or "its" whose own sentence names a thing
    before it, a clause earlier ("how much was the shed quote and who sent it"), carries that noun
    phrase's span as its `value`: the likeliest thing it means."""
    found: list[Mention] = []
    for m in _DESCRIPTION_RE.finditer(text):
        end = m.end("plural") if m.group("plural") else m.end("noun")
        # "+" marks a restrictive phrase ("the email from Sarah"): likely a new
        # description rather than a pointer back to the last one.
        label = m.group("noun").lower() + ("+" if m.group("restrict") else "")
        about = m.group("restrict") and m.group("restrict").split()[0].lower() in _ABOUT
        topic = _topic_words(text, m.end("restrict")) if about and label[:-1] in DOCUMENT_NOUNS else ()
        found.append(Mention(text[m.start():end], (m.start(), end), "description", label=label, value=topic or None))
    expletive = [m.span() for m in _EXPLETIVE_IT.finditer(text)]
    for m in _PRONOUN_RE.finditer(text):
        label = m.group(1).lower()
        if label == "it" and any(s <= m.start() < e for s, e in expletive):
            continue
        antecedent = _thing_named_before(text, m.start()) if PRONOUNS[label] == "thing" else None
        found.append(Mention(m.group(0), m.span(), "pronoun", label=label, value=antecedent))
    return found


# "the email about the opening date": what the document is about, up to where the phrase ends.
_TOPIC_PHRASE = re.compile(r"[^,;.?!]*")
_TOPIC_END = re.compile(r"\s(?:and|but|or|so|who|what|when|where|which|why|how|did|does|do|is|was|were|are|say|said|"
                        r"says|from|to|sent|with)\b", re.IGNORECASE)
_ABOUT = frozenset({"about", "regarding", "on", "for", "of"})  # not "from", "by", "sent", "with": a sender
_NOT_A_TOPIC = STOPWORDS | {"new", "latest"}  # "the email about the new oven": the oven


def _topic_words(text: str, start: int) -> tuple[str, ...]:
    """The content words of the phrase after "about", "on", "regarding", … (up to five)."""
    phrase = _TOPIC_PHRASE.match(text, start).group(0)
    if end := _TOPIC_END.search(phrase):
        phrase = phrase[: end.start()]
    words = [w.lower() for w in re.findall(r"[^\W_]+", phrase)]
    return tuple(w for w in words if w not in _NOT_A_TOPIC and (len(w) > 2 or any(c.isdigit() for c in w)))[:5]


def _shares_a_word(topic: tuple[str, ...], title: str) -> bool:
    """Whether a title has one of the topic's words, loosely ("opening" ~ "opens": the first five letters)."""
    stems = {w.lower()[:5] for w in re.findall(r"[^\W_]+", title)}
    return any(word[:5] in stems for word in topic)


# Where a noun phrase starts: a determiner and the word after it ("the shed" of "the shed quote").
_NOUN_PHRASE = re.compile(r"\b(?:the|a|an|this|that|my|our|your|their)\s+[A-Za-z][\w'-]*", re.IGNORECASE)
# Where one clause of a sentence ends and the next begins: "…the invoice, when is it due?",
# "…the quote and who sent it".
_CLAUSE_BREAK = re.compile(r",|;|\s(?:and|but|so|then|or|because|since|until|when|while|before|after)\s", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.?!]\s")
# "thanks for the help, when does it start?": courtesy names no thing the rest is about.
_COURTESY_BEFORE = re.compile(r"\b(?:thanks|thank\s+you|cheers)\s+(?:for|about)\s*$", re.IGNORECASE)


def _thing_named_before(text: str, at: int) -> tuple[int, int] | None:
    """The span of the last noun phrase in the sentence before position `at` that a clause break
    separates from it, if any: what a pronoun in the next clause most likely points back to. A phrase
    right before the pronoun's own clause ("the status of it") is what is asked of it, not its
    antecedent, so only one a clause earlier counts."""
    start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, at)), default=0)
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(text, start, at)]
    if not breaks:
        return None
    last = None
    for phrase in _NOUN_PHRASE.finditer(text, start, breaks[-1]):
        if not _COURTESY_BEFORE.search(text, start, phrase.start()):
            last = phrase.span()
    return last


class ReferenceResolver:
    """Links pronouns, definite descriptions ("the meeting") and document
    references ("the email") to what they point back to."""

    def __init__(self, index: AliasIndex, settings: ResolutionSettings):
        self.index = index
        self.settings = settings
        self._linker = Linker(index, settings)

    def resolve(self, mention: Mention, earlier: list[ResolvedEntity], state: DialogueState | None) -> ResolvedEntity | None:
        """A pronoun, "the meeting" or "the email" → what it points back to."""
        if mention.kind == "pronoun":
            return self._linker.link(mention, self._referents(PRONOUNS[mention.label], mention, earlier, state, 0.8), state)
        if mention.label.rstrip("+") in TYPE_NOUNS:
            wanted = TYPE_NOUNS[mention.label.rstrip("+")]
            context = 0.85 * (0.6 if mention.label.endswith("+") else 1.0)  # "the meeting with Sarah" may be another
            return self._linker.link(mention, self._referents(wanted, mention, earlier, state, context), state)
        return self._document(mention, state)

    def _referents(self, wanted: str, mention: Mention, earlier: list[ResolvedEntity], state, context: float):
        """Candidates for a pronoun or "the meeting": entities of a compatible
        type, mentioned earlier in this text (most present of all) or salient
        in the conversation."""
        def compatible(entity_type: str) -> bool:
            if wanted == "person":
                return entity_type == "person"
            if wanted == "group":
                return entity_type in ("person", "organization", "department")
            if wanted == "thing":
                return entity_type not in ("person", "", "date", "time")
            return entity_type == wanted

        present: dict[str, float] = {}
        has_antecedent = any(r.entity_id and r.span[1] <= mention.span[0] for r in earlier)
        own = mention.value if mention.kind == "pronoun" else None
        if own and not any(r.entity_id and own[0] <= r.span[1] and r.span[0] <= mention.span[0] for r in earlier):
            # The sentence named the thing before ("the shed quote and who sent it") and it is nothing
            # known: "it" is that, not whatever the conversation left salient.
            return []
        # Something named earlier in this very text is newer than anything in
        # past turns: those count as one turn older then.
        age = state.decay if (state and has_antecedent) else 1.0
        if state:
            for entity_id, value in state.salient(self.settings.pronoun_min_salience):
                present[entity_id] = value * age
            if wanted == "thing" and state.last_document:
                doc_id = f"doc:{state.last_document['document_id']}"
                present.setdefault(doc_id, state.document_salience() * age)
        for order, resolved in enumerate(earlier):
            if resolved.entity_id and resolved.span[1] <= mention.span[0]:
                present[resolved.entity_id] = 1.0 + 0.01 * (order + 1)  # nearer antecedent first
        scored = []
        said_gender = PRONOUN_GENDER.get(mention.label) if mention.kind == "pronoun" else None
        for entity_id, salience in present.items():
            if salience >= self.settings.pronoun_min_salience and compatible(self._linker.type_of(entity_id, state)):
                agreement = self._gender_agreement(entity_id, said_gender, state) if said_gender else 1.0
                if agreement == 0.0:
                    continue
                prior = self.index.profiles[entity_id].entity.prior if entity_id in self.index.profiles else 0.5
                # How often the documents name someone says little about who "he" is now: the prior
                # counts only as far as the candidate is present, so a name the folder repeats
                # does not outweigh the one the last answer gave first.
                present_prior = prior * min(salience, 1.0)
                score = self._linker.combine(context, min(salience, 1.0), present_prior) + (salience - min(salience, 1.0))
                scored.append((entity_id, score * agreement))
        return scored

    def _gender_agreement(self, entity_id: str, said: str, state) -> float:
        """1 when "he"/"she" fits the person or nothing says otherwise; 0 when their own registry
        pronouns are the other ones; ½ when only their first name says otherwise (names mislead now
        and then) or their own pronouns are neither."""
        profile = self.index.profiles.get(entity_id)
        if profile is not None:
            name, attributes = profile.entity.name, profile.entity.attributes
        else:
            name, attributes = ((state.entity_info.get(entity_id) or {}).get("name") or "") if state else "", {}
        gender, own = person_gender(name, attributes)
        if gender == said or (gender is None and not own):
            return 1.0
        return 0.0 if own and gender is not None else 0.5  # own pronouns "they/them": "he" is a weak fit

    def _document(self, mention: Mention, state: DialogueState | None) -> ResolvedEntity | None:
        """"the email", "that spreadsheet": the most recently discussed document of that kind."""
        if state is None or not state.recent_documents:
            return None
        noun, restricted = mention.label.rstrip("+"), mention.label.endswith("+")
        kinds = DOCUMENT_NOUNS.get(noun, ())
        # "the email about the opening": one whose title says so, or none of those discussed (a document
        # not discussed yet is retrieval's to find, not the last email's to stand in for); restricted so,
        # it is no less likely to be that one.
        topic = mention.value if isinstance(mention.value, tuple) else ()
        context = (0.9 if kinds else 0.7) * (0.6 if restricted and not topic else 1.0)
        scored = []
        freshness = state.document_salience()
        for rank, document in enumerate(state.recent_documents):
            source = str(document.get("source") or "").lower()
            if kinds and not source.endswith(kinds):
                continue
            if topic and not _shares_a_word(topic, f"{document.get('title') or ''} {Path(source).stem}"):
                continue
            scored.append((f"doc:{document['document_id']}", self._linker.combine(context, freshness * state.decay ** rank, 0.5)))
        return self._linker.link(mention, scored, state)
