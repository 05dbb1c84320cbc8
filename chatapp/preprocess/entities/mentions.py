"""Mention detection for stage 2: the stretches of a text that may refer to
something — registry names and aliases (looked up in the alias index over the
text's word n-grams), spaCy's named entities, temporal expressions, pronouns,
definite descriptions ("the email", "the meeting") and the markers the
correction stage hands over — with overlaps settled.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Sequence

from chatapp.dates.expressions import find_temporal_expressions, find_time_expressions, is_an_amount
from chatapp.overlaps import keep_unclaimed
from chatapp.preprocess.entities.aliases import TOKEN, AliasIndex, fold
from chatapp.preprocess.entities.references import reference_mentions
from chatapp.preprocess.entities.spans import Mention

NER_NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"})
_PRIORITY = {"marker": 0, "alias": 1, "date": 2, "time": 3, "ner": 4, "description": 5, "pronoun": 6}


def find_mentions(text: str, index: AliasIndex, doc=None, now: datetime | None = None, markers=(),
                  context_years: Sequence[int] = ()) -> list[Mention]:
    """Every mention in `text`, left to right, overlaps settled (longest wins,
    then the more reliable source). Unlinked names are included. `doc`: spaCy's
    parse of `text` (or of its start), for named entities and dates; None reads
    none of those. `context_years`: years the conversation named (oldest
    first), for dates written without one."""
    now = now or datetime.now()
    date_spans: list[tuple[int, int]] = []  # dates the correction stage or spaCy found, read or not
    found = _marker_mentions(text, index, markers, date_spans)
    found += _alias_mentions(text, index)
    found += _role_mentions(text, index)
    found += _shortened_name_mentions(text, index)
    found += [Mention(text[a:b], (a, b), "alias", entity_id=entity_id) for (a, b), entity_id in index.described_things(text)]
    found += _ner_mentions(doc, date_spans)
    found += _temporal_mentions(text, now, date_spans, context_years)
    found += reference_mentions(text)
    # Exact sources (markers, registry names, dates) first, longest first;
    # spaCy's spans and the reference words only fill the gaps they leave.
    found.sort(key=lambda m: (_PRIORITY[m.kind] >= _PRIORITY["ner"], -(m.span[1] - m.span[0]), _PRIORITY[m.kind], m.span[0]))
    return keep_unclaimed(found, len(text))


def _marker_mentions(text: str, index: AliasIndex, markers, date_spans: list) -> list[Mention]:
    """The correction stage's entity markers that name a registry entity; its
    date markers go to `date_spans`."""
    found = []
    for marker in markers:
        span = _marker_span(text, marker)
        if span is None:
            continue
        if marker.get("kind") == "date":
            date_spans.append(span)
            continue
        known = [e for e in (marker.get("entity_id"), *(marker.get("candidates") or ())) if e in index.profiles]
        if known:
            found.append(Mention(text[span[0]:span[1]], span, "marker", entity_id=known[0]))
    return found


def _alias_mentions(text: str, index: AliasIndex) -> list[Mention]:
    """Registry names and aliases, the longest n-gram first at each word."""
    found = []
    tokens = [(m.group(0), fold(m.group(0)), m.span()) for m in TOKEN.finditer(text)]
    i = 0
    while i < len(tokens):
        for n in range(min(index.longest_phrase, len(tokens) - i), 0, -1):
            span = (tokens[i][2][0], tokens[i + n - 1][2][1])
            if index.names_at(tuple(t[1] for t in tokens[i:i + n]), text[span[0]:span[1]]):
                found.append(Mention(text[span[0]:span[1]], span, "alias"))
                i += n - 1
                break
        i += 1
    return found


def _shortened_name_mentions(text: str, index: AliasIndex) -> list[Mention]:
    """A project's name said with middle words left out ("who leads the Amboseli borehole project?"
    for the Amboseli Camp Borehole & Water Tank Project), opening on a capitalised word: the one entity so named."""
    found = []
    tokens = [(fold(m.group(0)), m.span(), m.group(0)) for m in TOKEN.finditer(text)]
    for i, (_, _, surface) in enumerate(tokens):
        if not surface[:1].isupper():
            continue
        for n in range(min(index.longest_phrase - 1, len(tokens) - i), 1, -1):
            entity_id = index.shortened_name(tuple(t[0] for t in tokens[i:i + n]))
            if entity_id is not None:
                span = (tokens[i][1][0], tokens[i + n - 1][1][1])
                found.append(Mention(text[span[0]:span[1]], span, "alias", entity_id=entity_id))
                break
    return found


# "the office manager", "our parish clerk": a role said as what someone is, not a word in passing.
_ROLE_DETERMINER = re.compile(r"\b(?:the|our|your|my|their)\s+", re.IGNORECASE)


_OF_A_NAMED_THING = re.compile(r"\s+(?:for|of|on)\s+(?:the\s+)?[A-Z]")


def _role_mentions(text: str, index: AliasIndex) -> list[Mention]:
    """A role only one known entity holds, after "the"/"our": that entity ("ask the office manager"
    is Rafferty Quill when he alone is the office manager)."""
    found = []
    for determiner in _ROLE_DETERMINER.finditer(text):
        window = TOKEN.finditer(text, determiner.end(), determiner.end() + 80)
        tokens = [(m.group(0), fold(m.group(0)), m.span()) for m in window][:5]
        if not tokens or tokens[0][2][0] != determiner.end():
            continue
        for n in range(len(tokens), 0, -1):
            entity_id = index.role_holder(tuple(t[1] for t in tokens[:n]))
            if entity_id is not None and _OF_A_NAMED_THING.match(text, tokens[n - 1][2][1]):
                break  # "the partner for Kinnoull Dental": whoever is that client's partner, not the one Partner
            if entity_id is not None:
                span = (determiner.start(), tokens[n - 1][2][1])
                found.append(Mention(text[span[0]:span[1]], span, "alias", entity_id=entity_id))
                break
    return found


def _ner_mentions(doc, date_spans: list) -> list[Mention]:
    """spaCy's named entities that may be names; its dates go to `date_spans`."""
    found = []
    for ent in getattr(doc, "ents", ()):
        span = (ent.start_char, ent.end_char)
        if ent.label_ == "DATE":
            date_spans.append(span)
        elif ent.label_ in NER_NAME_LABELS:
            surface = ent.text
            if surface.lower().startswith("the "):
                span, surface = (span[0] + 4, span[1]), surface[4:]
            possessive = re.search(r"(?:['’]s?)$", surface)
            if possessive and possessive.start() > 0:  # "John Smith's" names John Smith
                span, surface = (span[0], span[1] - len(possessive.group(0))), surface[: possessive.start()]
            found.append(Mention(surface, span, "ner", label=ent.label_))
    return found


def _temporal_mentions(text: str, now: datetime, date_spans: list, context_years: Sequence[int]) -> list[Mention]:
    """Dates and times, read relative to `now`; a date span nobody could read is still a date."""
    expressions = find_temporal_expressions(text, now, date_spans, context_years)
    found = [Mention(e.text, e.span, "date", value=e) for e in expressions]
    for start, end in date_spans:
        if not any(e.span[0] < end and start < e.span[1] for e in expressions) and not is_an_amount(text, (start, end)):
            found.append(Mention(text[start:end], (start, end), "date"))
    found += [Mention(e.text, e.span, "time", value=e) for e in find_time_expressions(text)]
    return found


def _marker_span(text: str, marker: dict) -> tuple[int, int] | None:
    """The marker's place in `text`. The correction stage gives spans in the
    original input and the corrected wording, so when the span no longer
    holds that wording, take the occurrence nearest to it."""
    surface = str(marker.get("text") or "")
    span = marker.get("span") or (0, 0)
    start, end = int(span[0]), int(span[1])
    if 0 <= start < end <= len(text) and (not surface or text[start:end].casefold() == surface.casefold()):
        return (start, end)
    if not surface:
        return None
    positions = [m.start() for m in re.finditer(re.escape(surface), text, re.IGNORECASE)]
    if not positions:
        return None
    position = min(positions, key=lambda p: abs(p - start))
    return (position, position + len(surface))
