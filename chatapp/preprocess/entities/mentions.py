"""Mention detection for stage 2: the stretches of a text that may refer to
something — registry names and aliases (matched over the text's word
n-grams), spaCy's named entities, temporal expressions, pronouns, definite
descriptions ("the email", "the meeting") and the markers the correction
stage hands over — with overlaps settled.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from chatapp.preprocess.entities.references import reference_mentions
from chatapp.preprocess.entities.spans import keep_unclaimed
from chatapp.preprocess.entities.temporal import find_temporal_expressions, find_time_expressions


@dataclass
class Mention:
    """A stretch of text that may refer to something. `kind` says how it was
    found: marker, alias, date, time, ner, description or pronoun."""

    text: str
    span: tuple[int, int]
    kind: str
    label: str = ""  # spaCy label, pronoun, or the noun of a description
    entity_id: str | None = None  # a marker's entity
    value: object = None  # a TemporalExpression / TimeExpression


NER_NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"})
# First names that are also ordinary words: matched only when capitalised.
AMBIGUOUS_NAMES = frozenset("will may mark bill june april rose grace faith hope joy art pat sue ray jack frank guy max dawn summer eve".split())
_TOKEN = re.compile(r"\w+(?:[.@]\w+)*")
_PRIORITY = {"marker": 0, "alias": 1, "date": 2, "time": 3, "ner": 4, "description": 5, "pronoun": 6}


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


@functools.lru_cache(maxsize=4096)
def _is_common_word(word: str) -> bool:
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # without frequencies, treat every plain word as common: safer
        return True
    return zipf_frequency(word, "en") >= 3.0


class MentionDetection:
    """Finding mentions, for EntityResolver: it provides `profiles`, the
    alias index (`_phrases`, `_max_phrase`), `settings` and `nlp`."""

    def _alias_allowed(self, original: str, surface: str, entity_id: str) -> bool:
        """Case rules that keep ordinary words ("office", "sales", "PM" in
        "3 PM") from being read as entity names."""
        if " " in original.strip() or not original.isalpha():
            return True
        if original.isupper() and len(original) <= 4:
            return surface == original
        if self.profiles[entity_id].entity.type == "person":
            return _fold(original) not in AMBIGUOUS_NAMES or surface[:1].isupper()
        return surface[:1].isupper() or not _is_common_word(_fold(original))

    def detect_mentions(self, text: str, now: datetime | None = None, markers=(), doc=None) -> list[Mention]:
        """Every mention in `text`, left to right, overlaps settled (longest
        wins, then the more reliable source). Unlinked names are included."""
        profiles = self.profiles
        now = now or datetime.now()
        found: list[Mention] = []
        date_spans: list[tuple[int, int]] = []
        for marker in markers:
            span = self._marker_span(text, marker)
            if span is None:
                continue
            if marker.get("kind") == "date":
                date_spans.append(span)
                continue
            known = [e for e in (marker.get("entity_id"), *(marker.get("candidates") or ())) if e in profiles]
            if known:
                found.append(Mention(text[span[0]:span[1]], span, "marker", entity_id=known[0]))
        tokens = [(m.group(0), _fold(m.group(0)), m.span()) for m in _TOKEN.finditer(text)]
        i = 0
        while i < len(tokens):
            for n in range(min(self._max_phrase, len(tokens) - i), 0, -1):
                key = tuple(t[1] for t in tokens[i:i + n])
                hits = self._phrases.get(key)
                span = (tokens[i][2][0], tokens[i + n - 1][2][1])
                if hits and any(self._alias_allowed(name, text[span[0]:span[1]], eid) for eid, _, name in hits):
                    found.append(Mention(text[span[0]:span[1]], span, "alias"))
                    i += n - 1
                    break
            i += 1
        if doc is None or doc.text != text:
            doc = self._parse(text[: self.settings.max_ner_chars])
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
        expressions = find_temporal_expressions(text, now, date_spans)
        for expression in expressions:
            found.append(Mention(expression.text, expression.span, "date", value=expression))
        for start, end in date_spans:  # dates nobody could read are still dates
            if not any(e.span[0] < end and start < e.span[1] for e in expressions):
                found.append(Mention(text[start:end], (start, end), "date"))
        for expression in find_time_expressions(text):
            found.append(Mention(expression.text, expression.span, "time", value=expression))
        found += [Mention(t, span, kind, label=label) for t, span, kind, label in reference_mentions(text)]
        # Exact sources (markers, registry names, dates) first, longest first;
        # spaCy's spans and the reference words only fill the gaps they leave.
        found.sort(key=lambda m: (_PRIORITY[m.kind] >= _PRIORITY["ner"], -(m.span[1] - m.span[0]), _PRIORITY[m.kind], m.span[0]))
        return keep_unclaimed(found, len(text))

    def _parse(self, text: str):
        nlp = self.nlp
        # Only NER is needed here: the sm pipeline's NER has its own tok2vec,
        # so the rest can be skipped (about 3x faster).
        skip = [name for name in nlp.pipe_names if name != "ner"] if "ner" in nlp.pipe_names else []
        return nlp(text, disable=skip)

    @staticmethod
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
