"""Values the user's documents once gave and a newer document replaced.

A project page says the launch is 4 May; a later email moves it to 11 May;
the page was never updated, so a model reading it repeats 4 May. The answer's
value is in the sources, so nothing else calls it wrong: here it is matched
against the superseded values of the knowledge view, and flagged with the value
that replaced it, and where each came from.

An old value is only tied to the answer when the sentence is about the thing it
belonged to: it names the entity (or one of its distinctive words, "Heron" for
"Project Heron rebuild"), or says what the value is ("launch" for `launch`),
best both. A sentence that marks the value as the old one ("originally", "moved
from"), or an answer that also gives the new value, is telling the history,
not repeating it. A key of several words said whole ("the chargers will be commissioned on …"
for `charger_commissioning`) ties the value to its slot well enough on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from chatapp import lexicon
from chatapp.knowledge.extraction.observations import LABEL_SYNONYMS
from chatapp.postprocess import values as V
from chatapp.postprocess.claims import AnswerAnalysis, ValueClaim
from chatapp.postprocess.evidence import is_stop, stem, words
from chatapp.postprocess.findings import Finding
from chatapp.postprocess.knowledge_view import COMPATIBLE_SHAPES, KnowledgeView, KnownValue

# Values precise enough that saying one is saying that value: a weekday, a year or a bare
# number is said of too many things to be taken for an old one.
PRECISE_TYPES = frozenset({"date", "amount", "quantity", "time", "email", "phone", "url"})
# Words that put the value in the past on purpose.
PAST_MARKERS = re.compile(
    r"\b(?:originally|previously|initially|formerly|at first|used to|was (?:first )?(?:planned|set|due|scheduled)"
    r"|old|original|earlier|instead of|(?:moved|changed|pushed|postponed|brought forward|rescheduled|revised) from"
    r"|no longer|superseded|replaced)\b",
    re.IGNORECASE,
)
_CONNECTIVES = frozenset({"of", "the", "and", "for", "to", "a", "an", "in", "on", "at", "by", "per"})
# A word this common in English is not a name's distinctive word ("Project", "Team").
RARE_ZIPF = 3.5


@dataclass(frozen=True)
class Confidence:
    named_and_key: float = 0.92  # the sentence names the entity and says what the value is
    partial_name_and_key: float = 0.88  # … names it by one of its distinctive words
    # No name, but every word of a key of two or more ("charger commissioning" for
    # `charger_commissioning`): the slot is plain enough to rewrite.
    whole_compound_key: float = 0.84
    one_tie: float = 0.7  # only the name, or only a short or partly said key: flagged, not rewritten
    # The name, and a key no word of which is English ("katselmointi", "abgabetermin"): an answer in
    # English cannot say it, so the thing named with its exact old value is tie enough to rewrite.
    named_unsayable_key: float = 0.84


def superseded_finding(vc: ValueClaim, analysis: AnswerAnalysis, view: KnowledgeView,
                       levels: Confidence = Confidence()) -> Finding | None:
    """A finding when the claim repeats a value a newer document replaced, else None."""
    value = vc.value
    if not precise(value) or not view.superseded:
        return None
    sentence = analysis.sentences[vc.sentence]
    if sentence.mode in ("meta", "question") or PAST_MARKERS.search(sentence.claim.text):
        return None
    shapes = COMPATIBLE_SHAPES.get(value.vtype, set())
    said = _sentence_forms(analysis, sentence.claim.span)
    asked = frozenset(lexicon.concepts_asked(sentence.claim.text))
    about = [vc.claim.entity_id, *sentence.entity_ids]
    if any(_says_key(k, said) for k in _current_values(value, view, about)):
        return None  # still right for what the sentence says it is ("the review is on 9 March")
    ranked: list[tuple[float, str, KnownValue]] = []
    for entity_id, olds in view.superseded.items():
        for old in olds:
            current = old.superseded_by
            if old.shape not in shapes or current is None or not old.matches(value) or current.matches(value):
                continue
            if any(current.matches(other.value) for other in analysis.values if other is not vc and precise(other.value)):
                continue  # the answer gives the new value too: it tells the change
            named = entity_id == vc.claim.entity_id or entity_id in sentence.entity_ids
            # "Brightline can move in on 1/4/2027" of a page's `tenant_move_in`, its `tenant` Brightline: the
            # key's word the sentence names the holder of is said, and the thing named by its tenant.
            by_holder = _key_words_held(view, entity_id, old, sentence.claim.text)
            partly = not named and (bool(by_holder) or _names_partly(view, entity_id, sentence.claim.text))
            key = _says_key(old, said | by_holder) or _asks_for_key(old, asked)
            if not key and _current_values(value, view, [*about, entity_id]):
                continue  # without the key said, the value may be one of the thing's current ones
            if (named or partly) and key:
                level = levels.named_and_key if named else levels.partial_name_and_key
            elif key and _says_whole_compound_key(old, said):
                level = levels.whole_compound_key
            elif named and _unsayable_key(old):
                level = levels.named_unsayable_key
            elif named or key:
                level = levels.one_tie
            else:
                continue
            ranked.append((level, entity_id, old))
    if not ranked:
        return None
    ranked.sort(key=lambda r: -r[0])
    level, entity_id, old = ranked[0]
    current = old.superseded_by
    rivals = {repr(o.superseded_by.parsed) for lv, _, o in ranked if lv == level}
    if len(rivals) > 1:
        level = min(level, levels.one_tie)  # two old values alike, replaced differently: say so, change nothing
    span, replacement = replacement_in_answer(vc, analysis, current.raw, current.parsed)
    evidence = [_history(view, entity_id, old)]
    return Finding("TemporalError", vc.claim.span, vc.claim.text, level, view.display(current), evidence,
                   vc.sentence, span, replacement, major=True)


def _current_values(value: V.FoundValue, view: KnowledgeView, entity_ids: list[str | None]) -> list[KnownValue]:
    """The entities' current values that the found value says."""
    return [known for e in dict.fromkeys(entity_ids) if e for known in view.values_of(e) if known.matches(value)]


def precise(value: V.FoundValue) -> bool:
    if value.vtype == "date":
        return value.parsed.month is not None and value.parsed.day is not None
    if value.vtype == "number":  # "86,000 words" says one count; "3" could be anything's
        return sum(c.isdigit() for c in value.text) >= 4
    return value.vtype in PRECISE_TYPES


def _sentence_forms(analysis: AnswerAnalysis, span: tuple[int, int]) -> set[str]:
    """Every word of the sentence as written, stemmed and (from the parse) lemmatised."""
    text = analysis.text[span[0]:span[1]]
    forms = {w.lower() for w in words(text)} | {stem(w) for w in words(text)}
    forms |= {LABEL_SYNONYMS[w] for w in forms if w in LABEL_SYNONYMS}  # "cell" says a `mobile`
    if analysis.doc is not None:
        tokens = analysis.doc.char_span(*span, alignment_mode="expand") or []
        forms |= {t.lemma_.lower() for t in tokens}
    return forms


# Words of a key that the value's own kind says: an amount is a price or a cost, a date a date.
# A date that is a deadline: "must be submitted by 14.12.2026" says `submission_deadline`.
KIND_WORDS = {"amount": frozenset("price cost amount total sum value fee".split()),
              "date": frozenset({"date", "day", "deadline"})}


def _key_word_said(word: str, forms: set[str]) -> bool:
    """The key's word, or the verb its "-ssion" noun is made from ("submitted" says "submission")."""
    if word in forms or stem(word) in forms:
        return True
    return word.endswith("ssion") and len(word) > 7 and word[:-5] + "t" in forms


def _says_key(old: KnownValue, forms: set[str]) -> bool:
    """The sentence says what the value is: the words of its key ("go live", "DVT build"), all of
    them, or all but one of a long key ("CE pre-compliance" for `ce_emc_pre_compliance`). A word for
    the value's kind goes without saying beside another of the key's ("offers it for €…" says
    `offer_price`)."""
    parts = key_parts(old.key)
    said = sum(1 for w in parts if _key_word_said(w, forms))
    implied = sum(1 for w in parts if w in KIND_WORDS.get(old.shape, ()) and not _key_word_said(w, forms))
    return key_said(said + (implied if said else 0), len(parts))


# Concepts any sentence with "when" or "day" in it would seem to say: they tie a value to no key.
_VAGUE_CONCEPTS = frozenset({"date", "time"})


def _asks_for_key(old: KnownValue, asked: frozenset[str]) -> bool:
    """The sentence names what the value is in other words than its key: "the budget" for
    `contract_value` (an amount the contract is worth: lexicon.concepts_of_key)."""
    return bool((asked - _VAGUE_CONCEPTS) & lexicon.concepts_of_key(old.key))


def _unsayable_key(old: KnownValue) -> bool:
    """A key in another language than the answer's, every word of it unknown to English."""
    parts = key_parts(old.key)
    return bool(parts) and all(lexicon.is_unknown_word(w) for w in parts)


def _says_whole_compound_key(old: KnownValue, forms: set[str]) -> bool:
    parts = key_parts(old.key)
    return len(parts) >= 2 and all(w in forms or stem(w) in forms for w in parts)


def key_parts(key: str) -> list[str]:
    """The words of a stored value's key that say what it is ("dvt_build_date": dvt, build, date)."""
    return [w for w in re.split(r"[_\W]+", key.lower()) if w and w not in _CONNECTIVES]


def key_said(found: int, parts: int) -> bool:
    """A sentence with `found` of a key's `parts` words says the key: all of them, or all but one of
    a long key ("CE pre-compliance" for `ce_emc_pre_compliance`)."""
    return parts > 0 and (found == parts or (parts >= 3 and found >= parts - 1))


def _key_words_held(view: KnowledgeView, entity_id: str, old: KnownValue, text: str) -> set[str]:
    """The words of the old value's key that are themselves keys of the entity whose value the text names:
    "tenant" of `tenant_move_in` when the text names the entity's `tenant`."""
    parts = set(key_parts(old.key))
    folded = " ".join(words(text.casefold()))
    held = set()
    for known in view.values_of(entity_id):
        if known.key in parts and known.shape == "text" and len(value := " ".join(words(known.raw.casefold()))) >= 4 \
                and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", folded):
            held.add(known.key)
    return held


def _names_partly(view: KnowledgeView, entity_id: str, text: str) -> bool:
    """A distinctive word of the entity's name or an alias, capitalised in the sentence: "Heron" for
    "Project Heron". A common word ("Project") or a word another entity is named by is not one."""
    entity = view.entities[entity_id]
    written = {w for w in words(text) if w[:1].isupper()}
    for name in [entity.name, *entity.aliases]:
        for word in words(name):
            if word not in written or len(word) < 3 or is_stop(word) or lexicon.zipf(word) >= RARE_ZIPF:
                continue
            if any(o != entity_id and any(word in words(n) for n in [e.name, *e.aliases])
                   for o, e in view.entities.items() if view.superseded.get(o)):
                continue  # other entities with history share the word: it does not tell them apart
            return True
    return _names_by_its_words(view, entity_id, text)


def _names_by_its_words(view: KnowledgeView, entity_id: str, text: str) -> bool:
    """ "Blast freezer commissioning" for "Blast freezer installation": a name of everyday words, said
    by its opening words (two or more, all but its last at least), as no other entity with history is."""
    said = " ".join(words(text.casefold()))
    for name in [view.entities[entity_id].name, *view.entities[entity_id].aliases]:
        parts = words(name.casefold())
        if len(parts) < 2 or is_stop(parts[0]):
            continue
        opening = " ".join(parts[:max(2, len(parts) - 1)])
        if not re.search(rf"(?<!\w){re.escape(opening)}(?!\w)", said):
            continue
        if any(o != entity_id and " ".join(words(e.name.casefold())).startswith(opening)
               for o, e in view.entities.items() if view.superseded.get(o)):
            continue  # another entity with history opens its name the same way
        return True
    return False


def replacement_in_answer(vc: ValueClaim, analysis: AnswerAnalysis, raw: str, parsed) -> tuple[tuple[int, int], str]:
    """Where the new value goes and how it is written, in the answer's style. A weekday written
    just before an old date ("Monday 7 December") is replaced with the new date's own, or dropped
    when the new date has no year to tell it by."""
    text = V.render_like(vc.claim.text, vc.value.vtype, raw, parsed)
    start, end = vc.claim.span
    if not isinstance(parsed, V.DateValue):
        return (start, end), text
    day = parsed.as_date()
    for other in analysis.values:
        gap = analysis.text[other.claim.span[1]:start]
        if other.value.vtype == "weekday" and other.claim.span[1] <= start and not gap.strip(", ") and len(gap) <= 2:
            return (other.claim.span[0], end), f"{day:%A}{gap}{text}" if day else text
    return (start, end), text


def _history(view: KnowledgeView, entity_id: str, old: KnownValue) -> str:
    """"Project Heron: launch changed from 4 May 2027 (project-heron.md, 2026-09-01) to 11 May 2027
    (heron-moved.eml, 2026-11-10)"."""
    current = old.superseded_by
    what = old.key.replace("_", " ")
    return (f"{view.name(entity_id)}: {what} changed from {view.display(old)}{_where(old)} "
            f"to {view.display(current)}{_where(current)}")


def _where(value: KnownValue) -> str:
    parts = [PurePath(value.document).name] if value.document else []
    if value.doc_date:
        parts.append(value.doc_date[:10])
    return f" ({', '.join(parts)})" if parts else ""
