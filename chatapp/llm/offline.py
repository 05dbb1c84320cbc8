"""The offline responder (model name "offline"): answers from the knowledge
base with no network and no language model.

It looks for the entities the question names and the attributes it asks
about ("what is John Smith's email?" → the registry's value), falls back to
the best-matching sentences of the retrieved passages, says up front that it
is offline, cites its sources by file name, and yields the answer in small
pieces so that the UI streams it exactly like a model's.
"""

from __future__ import annotations

import re
import time
from datetime import date
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

from chatapp.accents import strip_accents
from chatapp.dates.expressions import with_days_meant
from chatapp.knowledge.extraction.fields import CHANGE_STATED
from chatapp.knowledge.extraction.values import find_dates
from chatapp.knowledge.parsers.mail import is_reply_attribution
from chatapp.knowledge.extraction.observations import LABEL_SYNONYMS, clean_name, looks_like_person, without_legal_form
from chatapp.intents import NOUN_SUFFIXES, MAX_DOCUMENTS, is_document_request, small_talk_reply
from chatapp.lexicon import (
    ATTRIBUTE_CONCEPTS, CURRENCY_CODES, concepts_asked, concepts_of_key, is_common, key_words, naming_words,
    without_phrase_cues, zipf,
)
from chatapp.preprocess.reference_data import CLOSING_TAG
from chatapp.postprocess.evidence import is_stop
from chatapp.postprocess import values as V
from chatapp.postprocess.values import EMAIL_RE, URL_RE, find_values, measure_pattern

OFFLINE_NOTICE = "(offline — answering from your knowledge base)"
NO_KB_NOTICE = "(offline — no knowledge base is loaded, so there is nothing to answer from)"
HOW_TO_GET_MORE = "Add documents with `chatapp ingest PATH`, or choose a model with --model to ask an LLM."

PRONOUNS = re.compile(r"\b(he|she|his|her|hers|him|they|them|their|it|its)\b", re.I)
TEMPLATE_HEADERS = ("Known entities (from", "Reference data for this message", "Summary of earlier conversation")
STOPWORDS = frozenset(
    "the a an and or of to in on at for is are was were be been what who whom whose which when where why how "
    "does do did can could would should will with about from that this these those it its his her their our "
    "your my me you we they he she him them tell give please any there here have has had not".split()
)
# A key that is a verb and its preposition ("reports_to") reads as a sentence: "John reports to David".
RELATION_PREPOSITIONS = frozenset({"to", "for", "with"})
PIECE_WORDS = 2  # words per streamed piece: small enough to look like a model's tokens
# What a name the question gives, found only in a sentence's passage and not in the sentence, adds to its
# score: less than a word the sentence says itself.
PASSAGE_WORD = 0.3

# A question that asks for a kind of value, and how a sentence giving one looks: "what's the stall fee?"
# is answered by "Stall fee is £85.", not by the sentence that repeats most of its other words.
_MONTH_NAME = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
# Words that name the kind of value a question asks for, not what it is about.
VALUE_KIND_STEMS = frozenset({"date", "day", "time"})
VALUE_ASKED = [
    (re.compile(r"\bhow much\b|\b(?:cost|costs|price|fee|fees|budget|amount|spend|spent|paid|pay|salary|rate|"
                r"charge|invoice|quote|total|totals|sum)\b", re.I),
     re.compile(r"[£$€¥₹₦₵]\s?\d|\bRs\.?\s?\d|\b(?:NGN|GHS)\s?\d|\b\d[\d,.]*\s?(?:k|m|usd|eur|gbp|dollars|pounds|euros|naira)\b",
                re.I)),
    (re.compile(r"\bwhen\b|\b(?:what|which) (?:date|day|time)\b|\b(?:deadline|due)\b", re.I),
     re.compile(rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH_NAME}|\b{_MONTH_NAME}\s+\d{{1,2}}\b"
                r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:today|tomorrow|yesterday|next week)\b", re.I)),
    (re.compile(r"\be-?mail\b", re.I), re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b")),
    (re.compile(r"\b(?:phone|mobile|number to call)\b", re.I), re.compile(r"\+?\d[\d ()-]{7,}\d")),
    # A measure asked for by what it measures: "how powerful?" is answered by "150 kW", "how far?" by "280 km".
    (re.compile(r"\bhow powerful\b|\b(?:power|powered|rated|rating|output)\b", re.I),
     measure_pattern("power", "apparent power")),
    (re.compile(r"\b(?:energy|battery|batteries)\b", re.I), measure_pattern("energy", "charge")),
    (re.compile(r"\bhow far\b|\b(?:range|distance)\b", re.I), measure_pattern("length")),
    (re.compile(r"\bhow fast\b|\b(?:speed|speeds)\b", re.I), measure_pattern("speed")),
    (re.compile(r"\bhow heavy\b|\b(?:weight|weighs?)\b", re.I), measure_pattern("mass")),
    # "who …?": a sentence naming someone in full ("Present: Dana Kim, …") over one naming no one.
    # Particles of a surname count as part of it: "Joost van Leeuwen", "Sanne de Vries".
    (re.compile(r"\bwho(?:m|se)?\b", re.I),
     re.compile(r"\b[A-Z][a-z'’-]+\s+(?:(?:van|von|de|der|den|da|di|du|del|della|la|le|al|bin|ter|ten)\s+)*"
                r"[A-Z][a-z'’-]+")),
]

# Words ending in "s" that name one thing.
_SINGULAR_IN_S = frozenset({"news", "series", "species", "means", "lens", "gas", "yes", "alias", "canvas", "status"})


def _plural(word: str) -> bool:
    """A plural English noun ("terms", "hours", "supplies", "aggregates"), by its singular being a word."""
    word = word.lower()
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "is")) or word in _SINGULAR_IN_S:
        return False
    return is_common(word[:-1]) or (word.endswith("ies") and is_common(word[:-3] + "y"))


def _owner(name: str) -> str:
    """The possessive of a name: "Quarrymount Aggregates'" (a plural word last), "Helios's", "Atlas's"."""
    last = name.split()[-1] if name.split() else name
    return f"{name}'" if _plural(last) else f"{name}'s"


@dataclass
class _KnownEntity:
    entity_id: str | None
    name: str
    attributes: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    source: str = ""

    @classmethod
    def of(cls, entity) -> "_KnownEntity":
        """A registry entity as the responder reads it (its attributes a copy of their own)."""
        return cls(entity.id, entity.name, dict(entity.attributes), entity.description, entity.source)


# "who is X", "what's X", "tell me about X": a question about the thing itself, not one attribute.
# "who is the head of hardware at Voltaic?" -> "head of hardware"
DESCRIPTION_ASKED = re.compile(
    r"\bwho(?:'s|\s+is|\s+are|\s+was)\s+(?:the|our|their|your)\s+([a-z][\w&' -]*?)"
    r"(?=\s+(?:at|in|of the|for|on)\s|\s*[?.!]|$)",
    re.IGNORECASE,
)
# "the athletics director's email", "our office manager": up to five words after the article, to the
# possessive or the end of the phrase.
DESCRIBED = re.compile(r"\b(?:the|our|their|your)\s+((?:[A-Za-z][\w&-]*\s+){0,4}?[A-Za-z][\w&-]*)"
                       r"(?=['’]s\b|\s+(?:is|was|are|at|in|of|for|on|and|to|who|'s)\b|\s*[?.!,]|$)", re.I)
# "Who chairs the committee?": a verb for holding an office, and the office it names.
ROLE_VERBS = {"chairs": "chair", "convenes": "convenor", "coordinates": "coordinator", "supervises": "supervisor",
              "heads": "head", "manages": "manager"}
ROLE_VERB_ASKED = re.compile(rf"\bwho\s+({'|'.join(ROLE_VERBS)})\s+((?:the\s+)?[^?.!]+)", re.IGNORECASE)
# The parts of a role held together: "CEO & Co-founder", "Partner, Commercial Property".
ROLE_PARTS = re.compile(r"\s*(?:[&,/;()]|\band\b)\s*")
IDENTITY_QUESTION = re.compile(r"\b(?:who|what)(?:'s|\s+is|\s+are|\s+was)\b|\btell me about\b", re.IGNORECASE)


# How close the resolver's scores for two people sharing a first name are for the offline answer to name both.
NAMESAKE_MARGIN = 0.05


def file_name(source: str) -> str:
    return Path(source).name if source else ""


def split_into_pieces(text: str, words_per_piece: int = PIECE_WORDS) -> list[str]:
    words = re.findall(r"\S+\s*|\s+", text)
    return ["".join(words[i:i + words_per_piece]) for i in range(0, len(words), words_per_piece)]


def keywords(text: str) -> set[str]:
    """The words that say what a text is about. A hyphenated word is also its parts and their joined
    form: "cut-over" answers "when is the cut over?" and "the cutover". Accents are left out: "cafe" is the
    documents' "café", and "Zürich" is "zurich", not "rich"."""
    found = set()
    for word in re.findall(r"[a-z0-9][a-z0-9@.\-]*[a-z0-9]|[a-z0-9]", strip_accents(text).lower()):
        found.add(word)
        if "-" in word and "@" not in word:
            parts = [part for part in word.split("-") if part]
            found.update(parts)
            found.add("".join(parts))
    return {w for w in found if len(w) > 2 and w not in STOPWORDS}


BULLET = re.compile(r"^\s*(?:[-*•+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")
TABLE_SEPARATOR = re.compile(r"\|?[\s:|-]*-[\s:|-]*\|?")
# "Install date: 9 December 2026" under "Owner: …": a page's fields, a line each, are read one by one.
FIELD_LINE = re.compile(r"^[A-Z][\w /&'’()-]{0,40}:\s+\S")
# A directory's entry a line each, fields set apart by dots or bars: "**Sigrid Aaslund** · Finance Manager · …".
ENTRY_LINE = re.compile(r"^\*\*[^*\n]+\*\*|^[^·•|\n]+(?:\s[·•|]\s[^·•|\n]+){2,}$")
FRONT_MATTER = re.compile(r"\A\s*---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
HEADER_LINE = re.compile(r"^(from|to|cc|bcc|date|sent|subject|message-id|reply-to|in-reply-to)\s*:", re.I)


def passage_sentences(content: str, headings: bool = True) -> list[str]:
    """Readable sentences of a chunk: wrapped lines rejoined, bullets and
    Markdown marks removed, mail headers and scraps dropped (and Markdown
    headings too, unless `headings`)."""
    lines: list[str] = []
    # A mail signature ("-- " on its own line) is contact details, not something to quote.
    content = re.split(r"^--\s*$", content, maxsplit=1, flags=re.MULTILINE)[0]
    # A page's YAML front matter is fields, a line each: "owner: Talulah Brennock" is read as "Owner: …".
    front = FRONT_MATTER.match(content)
    if front:
        lines += [_field_line(raw) for raw in front.group(1).splitlines() if ":" in raw] + [""]
        content = content[front.end():]
    for paragraph in re.split(r"\n\s*\n", content):
        for raw in paragraph.splitlines():
            line = raw.strip().lstrip(">").strip()  # a quoted line of an earlier message is still its text
            if not line or HEADER_LINE.match(line) or is_reply_attribution(line):
                continue
            starts_new = (bool(BULLET.match(line)) or line.startswith(("#", "|")) or not lines or not lines[-1]
                          or bool(FIELD_LINE.match(line)) or bool(ENTRY_LINE.match(line)))
            if starts_new or lines[-1].startswith(("#", "|")) or lines[-1].endswith(":"):
                lines.append(line)
            else:
                lines[-1] += " " + line
        lines.append("")  # a paragraph break ends the last line
    from chatapp.postprocess.evidence import split_sentences  # the checks' own split: "ext. 214" is one

    sentences = []
    header: list[str] = []  # the header of the table being read, once its separator row is seen
    for n, line in enumerate(lines):
        if line.startswith("|"):
            cells = _table_cells(line)
            if TABLE_SEPARATOR.fullmatch(line):
                header = _table_cells(lines[n - 1]) if n else []
            elif header and len(cells) == len(header):
                # A row read with its header: "Service: Hedge trimming; Unit: per hour; Price: $78.00."
                sentences.append("; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells) if c) + ".")
            continue
        header = []
        if not headings and line.startswith("#"):
            continue
        line = BULLET.sub("", line.lstrip("# ")).replace("**", "").replace("__", "")
        for sentence in split_sentences(line):
            sentence = " ".join(sentence.split())
            # Scraps are dropped, but a short whole sentence ("Stall fee is £85.") may be the answer.
            whole = len(sentence.split()) >= 3 and sentence.endswith((".", "!", "?"))
            # A page's field ("Lead: Imre Salo") is short but whole.
            if (len(sentence) >= 20 or whole or FIELD_LINE.match(sentence)) and not sentence.startswith("|"):
                sentences.append(sentence)
    return sentences


def _is_one_date(text: str) -> bool:
    found = find_dates(text)
    return len(found) == 1 and found[0][0].group(0).strip() == text.strip()


def _field_line(raw: str) -> str:
    """A front matter line as a page writes a field: "due_date: 2027-05-21" -> "Due date: 2027-05-21"."""
    key, _, value = raw.partition(":")
    key = key.strip().replace("_", " ")
    return f"{key[:1].upper()}{key[1:]}: {value.strip()}"


def _table_cells(line: str) -> list[str]:
    return [" ".join(cell.replace("**", "").split()) for cell in line.strip("|").split("|")]


def question_from(messages: list[dict], context: dict) -> str:
    """The user's question: given by the caller, or the end of the last user message
    (an assembled prompt puts reference data and entity notes before it)."""
    if context.get("question"):
        return str(context["question"]).strip()
    for message in reversed(messages):
        if message.get("role") == "user":
            text = str(message.get("content") or "").strip()
            if CLOSING_TAG in text:  # no fenced text can hold this tag: it ends our own last fence
                text = text.rsplit(CLOSING_TAG, 1)[1].strip()
            if any(header in text for header in TEMPLATE_HEADERS):
                text = re.split(r"\n\s*\n", text)[-1].strip()
            return text
    return ""


class OfflineResponder:
    def __init__(self, kb, piece_delay: float = 0.0):
        """`kb`: a chatapp.knowledge.base.KnowledgeBase, or None. `piece_delay`:
        seconds between pieces, for a UI that wants the answer to visibly stream."""
        self.kb = kb
        self.piece_delay = piece_delay
        self._index: _RegistryIndex | None = None

    # --- public ----------------------------------------------------------------

    def answer(self, messages: list[dict], context: dict | None = None) -> Iterator[str]:
        for index, piece in enumerate(split_into_pieces(self.compose(messages, context))):
            if index and self.piece_delay:
                time.sleep(self.piece_delay)
            yield piece

    def compose(self, messages: list[dict], context: dict | None = None) -> str:
        """The whole answer as one string (answer() streams it)."""
        context = context or {}
        if self.kb is None:
            return f"{NO_KB_NOTICE}. {HOW_TO_GET_MORE}"
        self._refresh_index()
        question = question_from(messages, context)
        reply = small_talk_reply(question)
        if reply:
            return f"{OFFLINE_NOTICE}\n\n{reply}"
        entities = self._entities_for(question, messages, context)
        namesakes = self._namesakes(context)
        if namesakes:
            # "Who is Ealasaid?" when two people are: both, each with what the documents say, not a guess.
            entities = [*namesakes, *(e for e in entities if e.entity_id not in {n.entity_id for n in namesakes})]
        described = self._described_person(question, entities)
        if described is None and (verb := ROLE_VERB_ASKED.search(question)):
            # "Who chairs The Moreton committee?" asks who is the chair of it.
            described = self._described_person(
                f"who is the {ROLE_VERBS[verb.group(1).lower()]} of {verb.group(2)}", entities)
        if described is not None:
            entity, key, phrase = described
            # The description may also have been resolved to the same entity upstream: once is enough.
            entities = [entity, *(e for e in entities
                                  if e.name != entity.name and e.name.casefold() not in phrase.casefold())]
        lines, sources = self._documents(question, entities, context) if is_document_request(question) else ([], [])
        if not lines:
            # The words of the description are not keys asked for: "the science department chair's
            # phone" asks for the phone, not the department.
            asked = question if described is None else re.sub(re.escape(phrase), " ", question, flags=re.I)
            lines, sources = self._attribute_answers(asked, entities)
            if lines and described is None:
                lines, sources = self._unless_a_sentence_says_it_all(question, entities, context, lines, sources)
            if lines and described is not None and key not in self._asked_keys(asked, entity):
                # "the athletics director's email": say who that is before giving it.
                lines.insert(0, self._sentence(entity, key))
                sources.insert(0, self._source_of(entity, key))
        if not lines and described is not None and re.search(r"\bwho\b", question, re.I):
            # "Who is the chair of the Moreton committee?": the one the description fits is the answer.
            entity, key, _ = described
            lines, sources = [self._sentence(entity, key)], [self._source_of(entity, key)]
        if not lines:
            lines, sources = self._reverse_lookup(question, entities)
        if not lines:
            for entity in entities[:2]:
                summary = self._summary(entity)
                if summary:
                    lines.append(summary)
                    sources.append(file_name(entity.source))
            passage_lines, passage_sources = self._passages(question, entities, context)
            if passage_lines:
                lines += ["", "From your documents:"] if lines else ["From your documents:"]
                lines += passage_lines
                sources += passage_sources
        if lines and namesakes:
            first = namesakes[0].name.split()[0]
            lines.insert(0, f"Your documents name more than one person {first}:")  # each one's summary follows
        elif lines and entities:
            lines, sources = self._with_other_namesakes(question, messages, context, entities[0], lines, sources)
        if not lines:
            return f"{OFFLINE_NOTICE}\n\nI found nothing in your knowledge base about that. {HOW_TO_GET_MORE}"
        cited = ", ".join(dict.fromkeys(s for s in sources if s))
        body = "\n".join(lines)
        return f"{OFFLINE_NOTICE}\n\n{body}" + (f"\n\nSources: {cited}" if cited else "")

    # --- entities --------------------------------------------------------------

    def _refresh_index(self) -> "_RegistryIndex":
        """The registry's names and values, indexed once per version of the knowledge base: a
        turn looks up the few that can match its words instead of scanning every entity."""
        # Rebuilt when the knowledge base changes under a long-running session; checked once a turn.
        stamp = (self.kb.version, *self.kb.registry.stamp())
        if self._index is None or self._index.stamp != stamp:
            self._index = _RegistryIndex(stamp, self.kb.registry.all_entities())
        return self._index

    def _registry_index(self) -> "_RegistryIndex":
        return self._index or self._refresh_index()

    def _mentioned(self, text: str) -> list[str]:
        """Entity ids named in `text`, in order: the longest name wins an overlap,
        then the entity with the higher prior ("John" → John Smith)."""
        hits = []
        for pattern, entity_id, prior in self._registry_index().aliases_in(text):
            for match in pattern.finditer(text):
                hits.append((match.start(), match.end(), entity_id, prior))
        hits.sort(key=lambda h: (-(h[1] - h[0]), -h[3]))
        taken: list[tuple[int, int]] = []
        chosen: list[tuple[int, str]] = []
        for start, end, entity_id, _ in hits:
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            chosen.append((start, entity_id))
        return list(dict.fromkeys(entity_id for _, entity_id in sorted(chosen)))

    def _known(self, entity_id: str) -> _KnownEntity | None:
        entity = self.kb.registry.get(entity_id)
        if entity is None:
            return None
        return _KnownEntity.of(entity)

    def _entities_for(self, question: str, messages: list[dict], context: dict) -> list[_KnownEntity]:
        # A date the question names ("on 30 November") is a value, not a record to summarise.
        resolved = [r for r in context.get("resolved_entities") or []
                    if getattr(r, "entity_id", None) and not r.entity_id.startswith("date:")]
        if resolved:
            found = []
            for r in resolved:
                known = self._known(r.entity_id)
                # A document's record states what it has: no date is no "Date: None".
                stated = {k: v for k, v in (r.attributes or {}).items() if v not in (None, "", [])}
                found.append(known or _KnownEntity(r.entity_id, r.canonical_name, stated))
            return list({e.entity_id: e for e in found}.values())
        ids = self._mentioned(question)
        # A chat turn's resolver has read the pronouns already: one it left alone points at nothing known
        # ("how much was the quote and who sent it"), so only a bare call guesses from earlier messages.
        if not ids and PRONOUNS.search(question) and "resolved_entities" not in context:
            # A follow-up ("and his phone?"): the entity of the latest earlier message that names one.
            earlier = [m for m in messages if m.get("role") in ("user", "assistant")][:-1]
            for message in reversed(earlier[-6:]):
                ids = self._mentioned(str(message.get("content") or ""))[:1]
                if ids:
                    break
        if not ids:
            # "the week of 14-12-2026": the rota's record for the span of days that holds it.
            ids = self._registry_index().dated_records(question)[:1]
        return [e for e in (self._known(i) for i in ids) if e is not None]

    def _bare_first_names(self, context: dict):
        """Each person the question names by a first name alone: (the resolver's record of it, that name, and
        the known people of that first name among its candidates, each with its score, in the resolver's order)."""
        for r in context.get("resolved_entities") or []:
            surface = re.sub(r"['’]s$", "", getattr(r, "surface", "") or "").strip()
            if getattr(r, "entity_type", "") != "PERSON" or len(surface.split()) != 1:
                continue
            people = [(e, score) for i, score in r.candidates if (e := self._known(i)) is not None
                      and e.entity_id.startswith("person:") and e.name.split()[0].casefold() == surface.casefold()]
            yield r, surface, people

    def _namesakes(self, context: dict) -> list[_KnownEntity]:
        """The people a bare first name in the question may be when the resolver could not tell them apart
        (nothing earlier in the session or in the question favours one): "Ealasaid" for Ealasaid Dunlevy and
        Ealasaid Tennent. Empty when the name is whole, the resolver was sure, or one person has that name."""
        for r, _, people in self._bare_first_names(context):
            if not people:
                continue
            best = max(score for _, score in r.candidates)
            close = [e for e, score in people if best - score <= NAMESAKE_MARGIN]
            if len(close) >= 2:
                return close
        return []

    def _with_other_namesakes(self, question: str, messages: list[dict], context: dict, chosen: _KnownEntity,
                              lines: list[str], sources: list[str]) -> tuple[list[str], list[str]]:
        """The answer about the person a bare first name was taken to be, and after it the same of the
        others of that first name, when nothing in the session chose between them: the resolver's pick
        then rests on how often the documents name each ("What is Ealasaid's email?" of a folder naming
        Ealasaid Dunlevy in seven documents and Ealasaid Tennent in three), which the user may not mean.
        Unchanged when an earlier message of the session names one of them in full."""
        others = self._passed_over(context, chosen)
        earlier = " ".join(str(m.get("content") or "") for m in messages[:-1]
                           if m.get("role") in ("user", "assistant")).casefold()
        if not others or any(p.name.casefold() in earlier for p in (chosen, *others)):
            return lines, sources
        keys = self._asked_keys(question, chosen)
        if not keys:  # a summary of the one taken: the others by name
            return [*lines, "", f"Your documents also name {', '.join(o.name for o in others)}."], sources
        more, more_sources = [], []
        for other in others:
            said = [k for k in keys if k in other.attributes]
            more += [self._sentence(other, k) for k in said] or [f"Your documents also name {other.name}."]
            more_sources += [self._source_of(other, k) for k in said] or [file_name(other.source)]
        return [*lines, "", f"If you meant another {chosen.name.split()[0]}:", *more], [*sources, *more_sources]

    def _passed_over(self, context: dict, chosen: _KnownEntity) -> list[_KnownEntity]:
        """The other people of the first name the question gave alone, among the resolver's candidates
        for the mention it took to be `chosen`."""
        for r, surface, people in self._bare_first_names(context):
            if (getattr(r, "entity_id", None) == chosen.entity_id
                    and chosen.name.split()[0].casefold() == surface.casefold()):
                others = [e for e, _ in people if e.entity_id != chosen.entity_id]
                if others:
                    return others
        return []

    # --- attributes ----------------------------------------------------------------

    def _display(self, value: Any) -> str:
        """An attribute value as text: entity ids become names, lists become "A, B and C"."""
        if isinstance(value, list):
            items = [self._display(v) for v in value]
            if len(items) <= 1:
                return "".join(items)
            return ", ".join(items[:-1]) + " and " + items[-1]
        text = str(value)
        if re.fullmatch(r"[a-z]+:[\w\-]+", text):
            entity = self.kb.registry.get(text)
            if entity is not None:
                return _as_usually_named(entity)
        return text

    def _asked_keys(self, question: str, entity: _KnownEntity) -> list[str]:
        lowered = question.lower()
        # A key named in full ("launch date", "cost center") beats a cue word.
        uncued = without_phrase_cues(lowered)
        # "Who is the PI of the P09 beamtime?": the record's own name says none of its keys ("beamtime").
        # "the Irin Cloud Services contract" names "Irin Cloud Services Ltd" without its "Ltd": the longest
        # run of the name's first words the question says (two at least) is the name, not its "service" key.
        name_words = entity.name.lower().split()
        for size in range(len(name_words), min(2, len(name_words)) - 1, -1):
            said_name = rf"(?<!\w){re.escape(' '.join(name_words[:size]))}(?!\w)"
            if re.search(said_name, uncued):
                uncued = re.sub(said_name, " ", uncued)
                break
        naming = {k: naming_words(k) for k in entity.attributes}
        if re.match(r"\s*who\b", lowered):
            # "Who booked the SQUID?" asks for `booked_by`: the "by" goes without saying after "who".
            naming = {k: w[:-1] if len(w) > 1 and w[-1] == "by" else w for k, w in naming.items()}
        # A word of a letter or two is said only as a word: "S/N" (a row's serial number) is no "s" and "n"
        # inside "Danlami's phone number".
        said = {k: set(words) for k, words in naming.items()
                if all(w in uncued if len(w) > 2 else re.search(rf"(?<![^\W\d_]){re.escape(w)}(?![^\W\d_])", uncued)
                       for w in words)}
        if not said:
            # "When did Marisol apply?" asks for the `applied` column: its words said in another form.
            from chatapp.postprocess.evidence import stem

            stems = {stem(w) for w in re.findall(r"[^\W\d_]+", uncued)}
            said = {k: set(words) for k, words in naming.items() if words and all(stem(w) in stems for w in words)}
        if not said and not concepts_asked(question):
            # "Who drives KDJ 482Q?" asks for the `driver_guide` column: the doer of the verb asked
            # about opens the key's name ("drives" -> "driver", "maintains" -> "maintainer").
            doers = _doers_asked(lowered)
            said = {k: {words[0]} for k, words in naming.items() if words and words[0] in doers}
        # The fullest name said wins: "fee agreed" names fee_agreed_gbp, not fee as well.
        named = [k for k in said if not any(said[k] < other for other in said.values())]
        if named and lowered.lstrip().startswith("who") and not any(self._names_someone(entity.attributes[k])
                                                                   for k in named):
            # "Who manages the Harlow engagement?": the key the question says ("engagement") holds no one;
            # the doer of its verb ("manager") does, or the concept its cue word asks for.
            doers = _doers_asked(lowered)
            named = [k for k, words in naming.items() if words and words[0] in doers]
        # "project lead" is a label the documents give the key "lead" (LABEL_SYNONYMS): its "project"
        # asks for no "project" key of its own.
        spoken = [label for label, key in LABEL_SYNONYMS.items() if key in entity.attributes
                  and re.search(rf"\b{re.escape(' '.join(key_words(label)))}\b", lowered)]
        named = [k for k in named if not any(k != LABEL_SYNONYMS[label] and set(key_words(k)) < set(key_words(label))
                                             for label in spoken)]
        if named and not re.search(r"\band\b", lowered):
            return self._someone_if_who(lowered, _owned(lowered, entity, named), entity)
        # A cue word ("who leads", "when") asks for every key holding its concept: eng_lead and marketing_lead.
        asked = concepts_asked(question)
        order = {concept: rank for rank, concept in enumerate(ATTRIBUTE_CONCEPTS)}
        held = {k: [order[c] for c in concepts_of_key(k) if c in asked] for k in entity.attributes}
        cued = sorted((k for k, ranks in held.items() if ranks), key=lambda k: min(held[k]))
        plain = next((k for k in ("lead", "owner") if k in entity.attributes), None)
        if "lead" in asked and "owner" not in asked and plain:
            # "Who leads Project Garuda?" asks who leads it, not who is its tech lead: a page's plain
            # lead or owner answers, and a compound lead ("tech lead") only when the question names it.
            cued = [plain] + [k for k in cued if k != plain and "lead" not in concepts_of_key(k)]
        if "time" in cued and "date" in cued and "what time" not in lowered:
            cued = [k for k in cued if k != "time"] + ["time"]
        if "extension" in asked and not cued and re.fullmatch(r"(?i)(?:ext|extn|x)\.?\s*\d{1,6}",
                                                               str(entity.attributes.get("phone", "")).strip()):
            cued = ["phone"]  # "what's Jolene's extension?" where her only number is "ext. 12"
        # "who works on Atlas and what's the deadline": both parts, the named key too.
        keys = _owned(lowered, entity, list(dict.fromkeys(cued + named)) if named else cued)
        return keys if re.search(r"\band\b", lowered) else self._someone_if_who(lowered, keys, entity)

    def _someone_if_who(self, question: str, keys: list[str], entity: _KnownEntity) -> list[str]:
        """A question of one part that starts "who" is not answered by a key holding an amount, a date or
        another figure: "Who approved the revised X-ray budget?" is not asking for the budget (the
        documents' sentences about its approval answer it instead). A firm the registry does not know
        ("owner: Strathlorne Whisky Club") may still be who is asked for."""
        if not re.match(r"\s*who\b", question):
            return keys
        return [k for k in keys if self._names_someone(entity.attributes[k])
                or not re.search(r"\d", self._display(entity.attributes[k]))]

    def _row_on_the_day_asked(self, question: str, entity: _KnownEntity) -> _KnownEntity:
        """ "How many were sold for the Holiday Cabaret on 12/19?": of a table's rows under one name (one
        show on two nights), the row whose date is the day the question names; else the entity as it is."""
        asked = [f.parsed for f in find_values(question) if f.vtype == "date"]
        if not asked or not entity.entity_id:
            return entity
        rows: dict[tuple[str, int], dict[str, Any]] = {}
        for record in self.kb.registry.attribute_history(entity.entity_id):
            if record["method"] == "record" and record["status"] in ("current", "also"):
                rows.setdefault((record["source"], record["position"]), {})[record["key"]] = record["value"]
        if len(rows) < 2:
            return entity
        on_the_day = [row for row in rows.values() if any(
            V.is_day(wanted, day) for value in row.values() for day in _full_days(str(value)) for wanted in asked)]
        return replace(entity, attributes={**entity.attributes, **on_the_day[0]}) if len(on_the_day) == 1 else entity

    def _names_someone(self, value: Any) -> bool:
        """Whether a value names a person or a body: a link to one, a name's shape, or a person or body the
        registry knows by that name."""
        text = str(value).strip()
        if (linked := self.kb.registry.get(text)) is not None:
            return linked.type != "project"
        name = clean_name(text)  # "Dr. Özlem Yıldız"
        return looks_like_person(name) or any(e.type != "project" for e in self.kb.registry.find_by_alias(name))

    def _source_of(self, entity: _KnownEntity, key: str) -> str:
        if entity.entity_id:
            # What was learnt from documents names the document that states the current value.
            current = [r for r in self.kb.registry.attribute_history(entity.entity_id)
                       if r["key"] == key and r["status"] == "current" and r["source"]]
            stated = str(entity.attributes.get(key))
            current.sort(key=lambda r: r["value"] != stated)  # the reading whose wording is shown first
            if current:
                return file_name(current[0]["source"])
            for fact in self.kb.registry.facts_about(entity.entity_id):
                if fact.subject == entity.entity_id and fact.predicate == key:
                    return file_name(fact.source)
        return file_name(entity.source)

    def _sentence(self, entity: _KnownEntity, key: str) -> str:
        value = self._display(entity.attributes[key])
        words = key_words(key)
        if len(words) == 2 and words[0].endswith("s") and words[1] in RELATION_PREPOSITIONS:
            return f"{entity.name} {' '.join(words)} {value}."  # reports_to, belongs_to, works_for
        # What the header adds after the name in brackets, "Invoiced (GBP)", "Firkin (72 pints)", goes back
        # in brackets; a measure before the name stays where it is ("30l keg").
        naming = naming_words(key)
        cut = len(words)
        while cut > 0 and words[cut - 1] not in naming:
            cut -= 1
        label = re.sub(r"\bq(\d)\b", r"Q\1", " ".join(words[:cut] or words))  # q4_budget → "Q4 budget"
        units = [w.upper() if w in SHOUTED_UNITS else w for w in words[cut:]] if cut else []
        if units:
            label += f" ({' '.join(units)})"
        if len(words) == 1 and words[0].endswith("ed") and _is_one_date(value):
            # An "Applied" or "Joined" column of dates says when someone did it.
            return f"{entity.name} {words[0]} on {value}.{self._change_note(entity, key)}"
        if _days_named(entity.name) is not None:  # a rota's week: "For 14-12-2026 to 20-12-2026, the primary is …"
            return f"For {entity.name}, the {label} is {value}.{self._change_note(entity, key)}"
        verb = "are" if _plural(words[cut - 1] if cut else words[-1]) else "is"  # "terms are", "hours are"
        return f"{_owner(entity.name)} {label} {verb} {value}.{self._change_note(entity, key)}"

    def _change_note(self, entity: _KnownEntity, key: str) -> str:
        """" It was 4 May 2027 before (project-heron.md)" when a newer document changed the value."""
        if not entity.entity_id:
            return ""
        older = [r for r in self.kb.registry.attribute_history(entity.entity_id)
                 if r["key"] == key and r["status"] == "superseded"]
        if not older:
            return ""
        # The file closes the line, as a citation does, so the check reads it as one.
        # A person held the role before: named, not given by the registry's id.
        return f" It was {self._display(older[0]['value'])} before ({file_name(older[0]['source'])})"

    def _attribute_answers(self, question: str, entities: list[_KnownEntity]) -> tuple[list[str], list[str]]:
        lines, sources, summaries = [], [], []
        for entity in entities:
            entity = self._row_on_the_day_asked(question, entity)
            keys = self._asked_keys(question, entity)
            if not keys and IDENTITY_QUESTION.search(question):
                # "who is Sarah Chen and when is the review?": the part asking who she is.
                summary = self._summary(entity)
                if summary:
                    summaries.append((len(lines), summary, file_name(entity.source)))
                continue
            if "date" in keys and "time" in keys:  # "when is the review?" → one sentence
                keys.remove("time")
                lines.append(f"{entity.name} is on {self._display(entity.attributes['date'])} at "
                             f"{self._display(entity.attributes['time'])}.")
                sources.append(self._source_of(entity, "date"))
                keys.remove("date")
            for key in keys:
                lines.append(self._sentence(entity, key))
                sources.append(self._source_of(entity, key))
        if not lines:
            return [], []  # nothing asked of any attribute: summaries and passages answer instead
        for at, summary, source in reversed(summaries):
            lines.insert(at, summary)
            sources.insert(at, source)
        return lines, sources

    def _unless_a_sentence_says_it_all(self, question: str, entities: list[_KnownEntity], context: dict,
                                       lines: list[str], sources: list[str]) -> tuple[list[str], list[str]]:
        """The attribute answers, or the documents' sentences when the answers leave unsaid two or more of
        the question's words that one sentence of the documents says all of: "When are Junction patients
        needing radiographs sent to the Riverdale clinic?" is not asking for the clinics' weekday hours
        ("when" asks for a time of theirs), but for "Patients needing radiographs from December 14 to
        December 18, 2026 are sent to the Riverdale clinic." """
        said = _stems(keywords(" ".join(lines)) | {w for e in entities for n in self._names_of(e) for w in keywords(n)})
        unsaid = _stems(keywords(question)) - said - VALUE_KIND_STEMS
        if len(unsaid) < 2:
            return lines, sources
        passage_lines, passage_sources = self._passages(question, entities, context)
        if passage_lines and unsaid <= _stems(keywords(passage_lines[0])):
            return ["From your documents:", *passage_lines], passage_sources
        return lines, sources

    def _reverse_lookup(self, question: str, asked_about: list[_KnownEntity]) -> tuple[list[str], list[str]]:
        """"Whose email is x@y.com?", "who is the Finance Manager?": an attribute
        value quoted in the question names the entity. Only the longest values
        count, so "Engineering Manager" is not drowned by "Engineering". A value that
        is the name of someone the question is about ("who is Jennifer Tran?", while
        rooms list her as assigned) is that person, not a value to look up."""
        asks_whom = re.search(r"\b(who|whose|which)\b", question, re.I) is not None
        names = {alias.casefold() for e in asked_about for alias in self._names_of(e)}
        matches = [(len(value), entity, key) for pattern, value, entity, key
                   in self._registry_index().values_in(question)
                   if value.casefold() not in names and pattern.search(question)]
        if not asks_whom:
            # "When is the Hadley quilt due back?": a record filed under its loan number is named by the
            # object it holds, when the value quoted is a name of some words and another field is asked.
            matches = [(n, e, k) for n, e, k in matches if len(str(e.attributes.get(k, "")).split()) >= 2
                       and any(a != k for a in self._asked_keys(question, _KnownEntity.of(e)))]
            if not matches:
                # "When does the Glenasmole job start?": the one record whose value that word begins.
                short = [(len(value), entity, key) for pattern, value, entity, key
                         in self._registry_index().short_values_in(question)
                         if value.casefold() not in names and pattern.search(question)
                         and any(a != key for a in self._asked_keys(question, _KnownEntity.of(entity)))]
                if len({entity.id for _, entity, _ in short}) == 1:
                    matches = short
        elif not matches:
            matches = self._described(question)
        if not matches:
            return [], []
        longest = max(m[0] for m in matches)
        chosen = [(e, k) for n, e, k in matches if n == longest]
        # "Who booked the SQUID on 02.12.2026?": of the records holding the value, the one the question names.
        chosen = ([(e, k) for e, k in chosen if re.search(rf"(?<!\w){re.escape(e.name)}(?!\w)", question, re.I)]
                  or chosen)[:3]
        known = [(_KnownEntity.of(e), k) for e, k in chosen]
        # "Which room is the Menai Analytics away day in?": the value quoted names the record, and
        # the question asks for another of its fields — that one, not the value it already holds.
        known = [(e, other) for e, k in known
                 for other in ([a for a in self._asked_keys(question, e) if a != k] or [k])]
        if re.match(r"\s*who\b(?!se)", question, re.I):
            # "Who is the local contact for proposal I-2026…?": a thing's field the question quotes, said
            # back, names nobody; the passages may.
            quoted = {(entity.id, key) for entity, key in chosen if not entity.id.startswith("person:")}
            known = [(e, k) for e, k in known if (e.entity_id, k) not in quoted]
        return [self._sentence(e, k) for e, k in known], [self._source_of(e, k) for e, k in known]

    def _names_of(self, entity: _KnownEntity) -> list[str]:
        known = self.kb.registry.get(entity.entity_id) if entity.entity_id else None
        return [entity.name, *(known.aliases if known is not None else ())]

    def _described(self, question: str) -> list[tuple[int, Any, str]]:
        """"Who is the head of hardware?": the description asked about is part of someone's role
        ("Head of Hardware & Co-founder"). Whole words only, and only profile keys, so "who is the
        lead" does not match every "Firmware Lead"; a description that fits several people fits
        none."""
        match = DESCRIPTION_ASKED.search(question)
        if not match:
            return []
        phrase = match.group(1).strip()
        if len(phrase.split()) < 2:
            return []
        found = []
        wanted = re.compile(rf"(?<!\w){re.escape(phrase)}(?!\w)", re.I)
        for entity, key, value in self._registry_index().profile_values:
            if wanted.search(value):
                found.append((len(phrase), entity, key))
        return found if len({e.id for _, e, _ in found}) == 1 else []

    def _described_person(self, question: str,
                          named: list[_KnownEntity]) -> tuple[_KnownEntity, str, str] | None:
        """(entity, profile key, phrase) when "the …" in the question describes one entity by its
        role: "what is the athletics director's email?" Several words may be part of a role
        ("Athletics Director, Athletics"); one word must be a whole part of it ("the principal", "the
        CEO" of "CEO & Co-founder"). The longest description that fits exactly one entity wins; a name
        the question gives outright wins over a description."""
        for match in DESCRIBED.finditer(question):
            # "the chair of The Moreton committee": a name in the words that say where the role is held
            # is no answer given outright.
            where = re.match(r"\s+(?:of|at|for|on|in)\s+[^?.!]*", question[match.end():])
            qualifier = where.group(0).casefold() if where else ""
            if any(e.entity_id and e.name.casefold() in question.casefold()
                   and e.name.casefold() not in match.group(1).casefold()
                   and e.name.casefold() not in qualifier for e in named):
                return None
            words = match.group(1).split()
            # "the partner for Kinnoull Dental Care LLP": the record named after it has a key of that name,
            # so the question asks for its partner, not for whoever's own title is Partner.
            if qualifier and any(e.name.casefold() in qualifier and any(
                    naming_words(k) == tuple(w.casefold() for w in words) for k in e.attributes) for e in named):
                return None
            # "Who leads the Brannock Foods WRC claim?": a description that is only a name the question
            # gives ("Brannock Foods") is that record, not the "HR Director, Brannock Foods Ltd" it employs.
            given = {n.casefold() for e in named if e.entity_id and not e.entity_id.startswith("person:")
                     for n in self._names_of(e)}
            for size in range(len(words), 0, -1):
                phrase = " ".join(words[:size])
                if phrase.casefold() in given:
                    break
                wanted = re.compile(rf"(?<!\w){re.escape(phrase)}(?!\w)", re.I)
                fits = {}
                for entity, key, value in self._registry_index().profile_values:
                    if (any(wanted.fullmatch(part) for part in ROLE_PARTS.split(value.strip()))
                            if size == 1 else wanted.search(value)):
                        fits.setdefault(entity.id, (entity, key))
                if len(fits) > 1:
                    fits = self._held_where_asked(fits, question[match.end():])
                if len(fits) == 1:
                    entity, key = next(iter(fits.values()))
                    return _KnownEntity.of(entity), key, phrase
                if fits:
                    break  # a description several people fit names none of them
        return None

    def _held_where_asked(self, fits: dict, rest: str) -> dict:
        """ "the chair of the Moreton committee" when two people are a Chair: the one whose role was read
        from a document whose title names what the question goes on to say ("The Moreton — committee
        meeting"), when exactly one such holder's titles share more of those words than any other's."""
        asked = {w.casefold() for w in re.findall(r"[^\W\d_][\w'’-]{2,}", rest) if not is_stop(w)}
        if not asked:
            return fits
        scores = {}
        for entity_id, (entity, key) in fits.items():
            sources = {r["source"] for r in self.kb.registry.attribute_history(entity_id)
                       if r["key"] == key and r["status"] in ("current", "also") and r["source"]}
            titles = " ".join(f"{row['title'] or ''} {Path(row['path']).stem}" for source in sources
                              for row in self.kb.registry.database.query(
                                  "SELECT title, path FROM documents WHERE path = ?", (source,)))
            said = {w.casefold() for w in re.findall(r"[^\W\d_][\w'’]+", titles)}
            scores[entity_id] = len(asked & said)
        best = max(scores.values())
        leaders = [e for e, score in scores.items() if score == best]
        return {leaders[0]: fits[leaders[0]]} if best and len(leaders) == 1 else fits

    def _summary(self, entity: _KnownEntity) -> str:
        """"Name: description. Role: …. Email: …." from the registry, or "" if it knows nothing more."""
        shown = [k for k in ("role", "email", "phone", "mobile", "status", "date", "lead", "owner") if k in entity.attributes]
        # A learnt person's description is often their role: "Glaze Technician. Role: Glaze Technician." says it twice.
        said = entity.description.casefold()
        details = [f"{k.replace('_', ' ').capitalize()}: {value}." for k in shown[:4]
                   for value in [self._display(entity.attributes[k])] if value.casefold() not in said]
        if not entity.description and not details:
            return ""
        description = entity.description.strip()
        if description and not description.endswith((".", "!", "?")):
            description += "."
        return " ".join([f"{entity.name}: {description}" if description else f"{entity.name}:", *details])

    # --- passages ------------------------------------------------------------------

    def _chunks(self, question: str, context: dict) -> list:
        chunks = context.get("rag_chunks")
        if chunks is None:
            try:
                chunks = self.kb.search(question, k=6) if question.strip() else []
            except Exception:  # noqa: BLE001 - no index yet, or it is being rebuilt: answer from the registry
                chunks = []
        return chunks

    def _documents(self, question: str, entities: list[_KnownEntity], context: dict) -> tuple[list[str], list[str]]:
        """A document request answered with the documents: title, file, date and
        the sentence that matches best. Documents of the asked-for day, of the
        asked-for kind (an email is a .eml file) and naming the asked-for
        people come first; otherwise retrieval's order stands."""
        dates = {str(r.canonical_name)[:10] for r in context.get("resolved_entities") or []
                 if str(getattr(r, "entity_type", "")).upper() == "DATE"}
        lowered = question.lower()
        suffixes = tuple(s for noun, found in NOUN_SUFFIXES.items() if noun in lowered for s in found)
        names = {w.lower() for e in entities for w in e.name.split() if len(w) > 2}
        by_document: dict[str, list] = {}
        for chunk in self._chunks(question, context):
            by_document.setdefault(chunk.document_id or chunk.source, []).append(chunk)
        ranked = []
        for rank, chunks in enumerate(by_document.values()):
            first = chunks[0]
            text = " ".join(c.content for c in chunks).lower() + " " + (first.title or "").lower()
            fit = (2 * bool(first.date and first.date[:10] in dates)
                   + bool(suffixes and first.source.lower().endswith(suffixes))
                   + bool(names and any(n in text for n in names)))
            ranked.append((-fit, rank, chunks))
        ranked.sort(key=lambda r: r[:2])
        wanted = keywords(question) | names
        lines, sources = [], []
        for _, _, chunks in ranked[:MAX_DOCUMENTS]:
            first = chunks[0]
            sentences = [s for c in chunks for s in passage_sentences(c.content)]
            best = max(sentences, key=lambda s: len(keywords(s) & wanted), default="")
            when = f", {first.date[:10]}" if first.date else ""
            title = first.title or file_name(first.source)
            lines.append(f"- {title} ({file_name(first.source)}{when})" + (f": {best[:200]}" if best else ""))
            sources.append(file_name(first.source))
        if lines:
            lines.insert(0, "Documents that match:" if len(lines) > 1 else "The document that matches:")
        return lines, sources

    def _passages(self, question: str, entities: list[_KnownEntity], context: dict) -> tuple[list[str], list[str]]:
        """The sentences of the top passages that best answer the question: the question's words they
        share (a word most candidate sentences share counts for less), and the kind of value asked for
        (an amount for "how much", a date for "when"). Headings only when no sentence matches."""
        retrieved = self._chunks(question, context)
        # The four best hits, then the other chunks of their documents that came with them (no search ranks):
        # a sibling adds to a hit's document, never takes another document's place among the four.
        top = ([c for c in retrieved if c.ranks] or retrieved)[:4]
        documents = {c.document_id for c in top if c.document_id}
        chunks = top + [c for c in retrieved if not c.ranks and c.document_id in documents and c not in top]
        # Words match by their stems: "the total" finds "Totals came to …", "who attended" "attending".
        wanted = _stems(keywords(question) | {w for e in entities for w in keywords(e.name)})
        value_shapes = [shape for asked, shape in VALUE_ASKED if asked.search(question)]
        if value_shapes:
            # "when is the break date?": a date is what is asked, "break" what it is about; a sentence
            # with "date" in it is no nearer the answer than one with the date.
            wanted -= VALUE_KIND_STEMS
        if value_shapes and not any(shape.search(c.content) for c in chunks for shape in value_shapes):
            chunks = retrieved  # the top passages give no value of the kind asked for: read the rest too
        # A sentence giving the kind of value asked for counts even without the question's words, when
        # its passage has them: "Present: Dana Kim, …" under "# Standup" answers "who attended?".
        about = [bool(_stems(keywords(chunk.content)) & wanted) for chunk in chunks]
        named_in_passage = [_stems(_names_written(chunk.content)) & wanted for chunk in chunks]
        for headings in (False, True):
            candidates = [(rank, sentence, _stems(keywords(sentence)) & wanted) for rank, chunk in enumerate(chunks)
                          for sentence in dict.fromkeys(_with_antecedents(passage_sentences(chunk.content,
                                                                                            headings=headings)))]
            candidates = [c for c in candidates
                          if c[2] or (about[c[0]] and any(shape.search(c[1]) for shape in value_shapes))]
            if candidates:
                break
        spread = {w: sum(w in shared for _, _, shared in candidates) for w in wanted}
        scored = []
        for rank, sentence, shared in candidates:
            score = sum(1 / spread[w] ** 0.5 for w in shared)
            # A name the question gives that only the sentence's passage says (the project its page's title
            # names) tells "Fee: £48,500" on the Saltmarsh page from another project's fee for "the Saltmarsh fee".
            score += PASSAGE_WORD * len(named_in_passage[rank] - shared)
            if any(shape.search(sentence) for shape in value_shapes):
                score += 1.5  # the value asked for outweighs a place or a name the question also gave
                # "the start moves from 7 to 9 December" is the latest word on that value, if it says a
                # word of what was asked: "the rent review moves to 1 July" does not answer "the break date".
                if shared and _changes_a_value_asked(sentence, value_shapes):
                    score += 1.0
            # "next Tuesday" quoted a week later is the wrong day: the quote gives the day it meant.
            quoted = with_days_meant(sentence, chunks[rank].date, keep_words=False)
            scored.append((score, -rank, quoted[:300], file_name(chunks[rank].source)))
        scored.sort(key=lambda s: (-s[0], -s[1]))
        chosen, seen = [], set()
        for _, _, sentence, source in scored:
            # A sentence quoted with the one before it ("… approved at £38,500. Ealasaid Tennent leads it.")
            # is not quoted again alone, nor is the one before it.
            if sentence not in seen and not any(sentence in other or other in sentence for other in seen):
                seen.add(sentence)
                chosen.append((sentence, source))
            if len(chosen) == 3:
                break
        return [f"- {s} ({source})" for s, source in chosen], [source for _, source in chosen]


# A word pointing back at what the sentence before it named.
_POINTS_BACK = re.compile(r"\b(?:it|its|they|them|their|this|these|those|he|she|him|her|his)\b", re.I)
# Words a sentence may have and still need the one before it to be understood.
SHORT_SENTENCE_WORDS = 8


def _with_antecedents(sentences: list[str]) -> list[str]:
    """The passage's sentences, a short one that points back with a pronoun joined to the sentence before
    it: "Ealasaid Tennent leads it." says who leads the café refit only after "Still Room café refit
    approved at £38,500 …", and is matched and quoted with it."""
    joined: list[str] = []
    for n, sentence in enumerate(sentences):
        before = sentences[n - 1] if n else ""
        if (before.endswith((".", "!", "?")) and len(sentence.split()) <= SHORT_SENTENCE_WORDS
                and _POINTS_BACK.search(sentence)):
            joined.append(f"{before} {sentence}")
        else:
            joined.append(sentence)
    return joined


def _changes_a_value_asked(sentence: str, asked_shapes: list[re.Pattern]) -> bool:
    """The sentence says a value of the kind asked for has changed: after a word of change ("moves",
    "now") the first value it gives is of that kind. "Café refit: budget now £41,750 (see the email of
    1 December)" changes an amount, and says nothing new of a date asked for by "when"."""
    every_shape = [shape for _, shape in VALUE_ASKED]
    for change in CHANGE_STATED.finditer(sentence):
        after = sentence[change.end():]
        found = [(m.start(), shape) for shape in every_shape if (m := shape.search(after))]
        if found and min(found, key=lambda f: f[0])[1] in asked_shapes:
            return True
    return False


def _names_written(text: str) -> set[str]:
    """The words a text writes only with a capital: the names it uses ("Saltmarsh"), not a sentence's
    first word that it also writes in lower case."""
    capitalised = {w.lower() for w in re.findall(r"\b[A-Z][a-z]+\b", text)}
    # An address writes names in lower case ("lorcan.abernethy@…", "www.harrowgate.com"): not prose.
    prose = URL_RE.sub(" ", EMAIL_RE.sub(" ", text))
    return capitalised - set(re.findall(r"\b[a-z]+\b", prose))



def _stems(words: set[str]) -> set[str]:
    from chatapp.postprocess.evidence import stem

    return {stem(w) for w in words}


PROFILE_KEYS = ("role", "title", "position", "duty", "responsibility")
_WORD_RUN = re.compile(r"\w+")


def _first_word(text: str) -> str:
    """The first run of word characters, casefolded: a whole-word match of `text` holds this run
    as a whole word of its own, so only texts holding that word can match. "" for none."""
    found = _WORD_RUN.search(text)
    return found.group(0).casefold() if found else ""


# Unit words a column header writes in capitals: currency codes and VAT ("Price (EUR ex VAT)").
SHOUTED_UNITS = CURRENCY_CODES | {"vat"}


def _full_days(text: str) -> list[str]:
    """The days a value writes in full, as YYYY-MM-DD ("2026-12-19", "19.12.2026")."""
    return [f"{p.year:04d}-{p.month:02d}-{p.day:02d}" for f in find_values(text)
            if f.vtype == "date" and (p := f.parsed).year and p.month and p.day]


def _days_named(name: str) -> tuple[date, date] | None:
    """The first and last day of a name that is only a day or a span of two ("14-12-2026 to 20-12-2026",
    "2026-12-04 – 2026-12-07"); None for any other name."""
    found = find_dates(name)
    if not 1 <= len(found) <= 2:
        return None
    rest = name
    for match, _ in found:
        rest = rest.replace(match.group(0), " ")
    if re.sub(r"(?i)\b(?:to|until|till|through|from|week|of|commencing|w/c)\b|[-–—/,:()]", " ", rest).strip():
        return None
    days = sorted(day for _, day in found)
    return days[0], days[-1]


def _yearless_days_named(name: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The first and last (month, day) of a name that is only a day or a span of two written without a
    year, weekdays before them ("Mon 14/12 – Mon 21/12", "14 Dec – 20 Dec"); None for any other name."""
    found = [f for f in find_values(name) if f.vtype == "date"]
    if not 1 <= len(found) <= 2 or any(f.parsed.year or not (f.parsed.month and f.parsed.day) for f in found):
        return None
    rest = name
    for value in found:
        rest = rest.replace(value.text, " ")
    rest = re.sub(r"(?i)\b(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)(?:day|nesday|rsday|urday)?\b\.?", " ", rest)
    if re.sub(r"(?i)\b(?:to|until|till|through|from|week|of|commencing|w/c)\b|[-–—/,:()]", " ", rest).strip():
        return None
    days = [(f.parsed.month, f.parsed.day) for f in found]
    return days[0], days[-1]


class _RegistryIndex:
    """Per registry version: a pattern per entity name and alias (one-word aliases must be
    capitalised as written: "Office", "Sales" are also common words), one per attribute value of
    four characters or more (values quoted in a question name their entity), and the profile values
    a described role is looked for in. Patterns are filed under their first word, so a text is
    only tried against those whose first word it holds; the registry's order is kept."""

    def __init__(self, stamp: tuple, entities: list) -> None:
        self.stamp = stamp
        self._filed = 0
        self._aliases: dict[str, list[tuple[int, tuple[re.Pattern, str, float]]]] = {}
        self._values: dict[str, list[tuple[int, tuple[re.Pattern, str, Any, str]]]] = {}
        # "the Glenasmole job" for the row whose client is "Glenasmole Golf Club": a name's uncommon first word.
        self._short_values: dict[str, list[tuple[int, tuple[re.Pattern, str, Any, str]]]] = {}
        self.profile_values: list[tuple[Any, str, str]] = []
        # Records named by a day or a span of days ("14-12-2026 to 20-12-2026", a rota's week).
        self.dated: list[tuple[date, date, str]] = []
        # And by a span of days without a year, as an intranet rota writes its weeks ("Mon 14/12 – Mon 21/12").
        self.dated_yearless: list[tuple[tuple[int, int], tuple[int, int], str]] = []
        for entity in entities:
            if (days := _days_named(entity.name)) is not None:
                self.dated.append((*days, entity.id))
            elif (span := _yearless_days_named(entity.name)) is not None:
                self.dated_yearless.append((*span, entity.id))
            for alias in dict.fromkeys([entity.name, *entity.aliases]):
                flags = re.I if (" " in alias.strip() or not alias[:1].isalpha()) else 0
                pattern = re.compile(rf"(?<!\w){re.escape(alias)}(?!\w)", flags)
                self._file(self._aliases, alias, (pattern, entity.id, entity.prior))
            for key, value in entity.attributes.items():
                if isinstance(value, str) and len(value) >= 4:
                    pattern = re.compile(rf"(?<!\w){re.escape(value)}(?!\w)", re.I)
                    self._file(self._values, value, (pattern, value, entity, key))
                    first = value.split()[0] if " " in value else ""
                    if len(first) >= 4 and first[:1].isupper() and first.isalpha() and zipf(first.lower()) < 3.0:
                        short = re.compile(rf"(?<!\w){re.escape(first)}(?!\w)")
                        self._file(self._short_values, first, (short, value, entity, key))
            self.profile_values += [(entity, key, value) for key in PROFILE_KEYS
                                    for value in [entity.attributes.get(key)] if isinstance(value, str)]

    def dated_records(self, text: str) -> list[str]:
        """Ids of the records named by a day or a span of days that a day `text` names falls in."""
        days = [day for _, day in find_dates(text)]
        found = [entity_id for first, last, entity_id in self.dated if any(first <= day <= last for day in days)]
        asked = [(day.month, day.day) for day in days] or [
            (p.month, p.day) for f in find_values(text) if f.vtype == "date" and (p := f.parsed).month and p.day]
        # Of two weeks that share their changeover day, the one that starts on the day asked about.
        held = sorted(((first != day, entity_id) for first, last, entity_id in self.dated_yearless for day in asked
                       if (first <= day <= last if first <= last else (day >= first or day <= last))))
        return found + list(dict.fromkeys(entity_id for _, entity_id in held))

    def _file(self, index: dict, text: str, entry: tuple) -> None:
        self._filed += 1  # the registry's order, restored when a text's candidates are gathered
        index.setdefault(_first_word(text), []).append((self._filed, entry))

    @staticmethod
    def _candidates(index: dict, text: str) -> list:
        words = {w.casefold() for w in _WORD_RUN.findall(text)} | {""}
        found = [item for word in words for item in index.get(word, ())]
        return [entry for _, entry in sorted(found, key=lambda item: item[0])]

    def aliases_in(self, text: str) -> list[tuple[re.Pattern, str, float]]:
        """(pattern, entity id, prior) of the names that may occur in `text`."""
        return self._candidates(self._aliases, text)

    def values_in(self, text: str) -> list[tuple[re.Pattern, str, Any, str]]:
        """(pattern, value, entity, key) of the attribute values that may occur in `text`."""
        return self._candidates(self._values, text)

    def short_values_in(self, text: str) -> list[tuple[re.Pattern, str, Any, str]]:
        """The same for values of some words named by their uncommon first word ("Glenasmole")."""
        return self._candidates(self._short_values, text)


def _owned(question: str, entity: _KnownEntity, keys: list[str]) -> list[str]:
    """ "Who is Harbour Civil's project lead for the Wharf job?" asks for the firm's lead: where the question
    names the value of one of the record's keys ("contractor": Harbour Civil Ltd), a key asked for ("lead")
    becomes the one key of its kind that is that key's ("contractor_project_lead")."""
    owners = [set(key_words(k)) for k, v in entity.attributes.items()
              if isinstance(v, str) and len(firm := without_legal_form(v).lower()) >= 4 and not re.fullmatch(r"[a-z]+:[\w\-]+", v)
              and re.search(rf"(?<!\w){re.escape(firm)}(?!\w)", question)]
    if not owners:
        return keys
    chosen = []
    for key in keys:
        owned = [k for k in entity.attributes if k != key and concepts_of_key(k) & concepts_of_key(key)
                 and any(owner <= set(key_words(k)) and not owner & set(key_words(key)) for owner in owners)]
        chosen.append(owned[0] if len(owned) == 1 else key)
    return list(dict.fromkeys(chosen))


def _as_usually_named(entity) -> str:
    """A person with a middle name as the documents usually name them, the full name after it:
    "Daniel Ng'ang'a (Daniel Kamau Ng'ang'a)", where a page's "Lead: Daniel Ng'ang'a" and his mail say so."""
    words = entity.name.split()
    if entity.type != "person" or len(words) < 3:
        return entity.name
    short = f"{words[0]} {words[-1]}"
    if any(alias.casefold() == short.casefold() for alias in entity.aliases):
        return f"{short} ({entity.name})"
    return entity.name


def _doers_asked(question: str) -> set[str]:
    """The nouns for whoever does what a "who <verb>s …?" question asks about: "who drives" ->
    {"driver", …}, "who maintains" -> {"maintainer", …}; empty for any other question."""
    match = re.match(r"\s*who\s+([a-z]{3,})s\b", question)
    if not match:
        return set()
    verb = match.group(1)
    bases = {verb, verb[:-1]} if verb.endswith("e") else {verb}  # "drive"/"driv", "maintain"
    return {base + ending for base in bases for ending in ("r", "er", "or")} - bases
