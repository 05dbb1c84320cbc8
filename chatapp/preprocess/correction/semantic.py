"""Tier 3, semantic: corrections that need to know who and what exists.

- Possessives: "johns email" -> "John's email" when "John" names a known
  person, a registry word, a day or a common first name and a noun phrase
  follows (possessives.py).
- Entity names fuzzily matched to the registry: "Jon Smth" -> "John Smith"
  (rapidfuzz over the registry's proper names; every word must be close, and
  the whole name closer still).
- Words of the wrong type for their slot: "the affect of" -> "the effect of"
  (word_types.py).
- A follow-up completed from the previous question: "and sarah?" after
  "What is John's email?" -> "and Sarah's email?" (followups.py).
- Markers for stage 2: where the corrected text names a known entity or a
  date, with spans in the ORIGINAL input.

Spans follow the convention in syntactic.py: `record.original` is always
`original_input[span[0]:span[1]]`, and `record.corrected` is what that span
becomes.

KnownNames (the registry's names, prepared once per vocabulary refresh) lives
in names.py: tier 2 uses it to capitalise names. It is re-exported here.
"""

from __future__ import annotations

import re
from typing import Callable

from chatapp.knowledge.word_forms import EVERYDAY_ZIPF
from chatapp.lexicon import zipf
from chatapp.preprocess.correction.followups import complete_followup
from chatapp.preprocess.correction.names import KnownNames, _strip_possessive
from chatapp.preprocess.correction.possessives import Tagger, fix_possessives
from chatapp.preprocess.correction.text_helpers import (
    FUNCTION_WORDS,
    is_editable_word,
    render_with_owners,
)
from chatapp.preprocess.correction.tokens import TokenizedInput
from chatapp.preprocess.correction.word_types import fix_word_types
from chatapp.records import CorrectionRecord

TIER = "semantic"
# A word this common is meant as itself, never as a name plus a lost apostrophe.
COMMON_WORD_ZIPF = 4.5


# --- dates ---------------------------------------------------------------------------

_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_NUMBER = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of)"
_UNIT = r"(?:days?|weeks?|months?|years?|hours?)"
DATE_PATTERN = re.compile(
    "|".join(
        [
            r"\bthe\s+day\s+(?:before\s+yesterday|after\s+tomorrow)\b",
            r"\b(?:yesterday|today|tonight|tomorrow)(?:\s+(?:morning|afternoon|evening|night))?\b",
            rf"\b(?:this|last|next|past|coming)\s+(?:week(?:end)?|month|year|quarter|{_DAY}|"
            r"morning|afternoon|evening|night)\b",
            rf"\b{_NUMBER}\s+{_UNIT}\s+(?:ago|from\s+now)\b",
            rf"\b(?:in|within)\s+{_NUMBER}\s+{_UNIT}\b",
            r"\b(?:end|start|beginning|middle)\s+of\s+(?:the\s+)?(?:week|month|year|quarter)\b",
            r"\b\d{4}-\d{2}-\d{2}\b",
            rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b",
            rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:\s+\d{{4}})?",
            rf"\b(?:on\s+)?{_DAY}\b",
            r"\b(?:january|february|april|june|july|september|october|november|december)(?:\s+\d{4})?\b",
            r"\bq[1-4](?:\s+\d{4})?\b",
        ]
    ),
    re.IGNORECASE,
)


# How sure a word the documents always capitalise, typed in lower case, is their name (_fix_written_forms),
# by how often English uses the word at all (zipf): "eindhoven", "nitda" (under RARE_ZIPF) are names
# anywhere; "abuja", "leeds", "slack" are names mostly; "reading", "bath", "bill" (EVERYDAY_ZIPF and over)
# are everyday words first, and left as typed.
RARE_ZIPF = 3.0
SHORT_ACRONYM = 4  # letters: a longer word in capitals is an acronym only when English seldom uses it
RARE_WORD_FORM_CONFIDENCE = 0.85
WORD_FORM_CONFIDENCE = 0.75


def _capitalised(token, form: str, confidence: float) -> CorrectionRecord:
    """The record of a lower-case word given the capitals the knowledge base writes it with, the token
    set to them (the later rules of the tier read the corrected text)."""
    record = CorrectionRecord(tier=TIER, span=(token.start, token.end), original=token.original, corrected=form,
                              correction_type="Capitalization", confidence=confidence,
                              alternatives=[(form, confidence), (token.text, round(1 - confidence, 2))])
    token.text = form
    return record


class SemanticCorrector:
    def __init__(self, names: KnownNames | None = None, tagger: Tagger | None = None,
                 previous_question: str | None = None, vocabulary_form: Callable[[str], str | None] | None = None,
                 acronym_form: Callable[[str], str | None] | None = None,
                 document_form: Callable[[str], str | None] | None = None):
        """`tagger`: words -> their spaCy POS tags, to tell "johns email" (a
        possessive) from "johns said"; without one, a simpler word test.
        `previous_question`: the user's last turn, to complete a follow-up.
        `vocabulary_form`: a lower-case word -> as the knowledge base writes it, or None.
        `acronym_form`: a lower-case word -> the capitals the knowledge base only writes it in, or None.
        `document_form`: a lower-case word -> the capitals the ingested documents always give it, or None."""
        self.names = names or KnownNames()
        self.tagger = tagger
        self.previous_question = previous_question
        self.vocabulary_form = vocabulary_form
        self.acronym_form = acronym_form
        self.document_form = document_form

    def correct(self, doc: TokenizedInput) -> list[CorrectionRecord]:
        """Fix possessives of known people and misspelled known names; sets token texts."""
        known: set[int] = set()
        whole_names: set[int] = set()
        for match in self.names.find(doc):
            known.update(match.indices)  # already a known name: nothing to fix
            if len(match.indices) > 1:
                whole_names.update(match.indices)
        records = fix_possessives(doc, known, self.names, self.tagger, self.vocabulary_form, TIER)
        # A known single word may still be half of a misspelled full name ("jon Smith").
        fixed = {i for r in records for i in _indices_in(doc, r.span)}
        records += self._fix_names(doc, whole_names | fixed, known)
        fixed = {i for r in records for i in _indices_in(doc, r.span)}
        records += fix_word_types(doc, known | fixed, TIER)
        fixed = {i for r in records for i in _indices_in(doc, r.span)}
        records += self._fix_acronyms(doc, known | fixed)
        fixed = {i for r in records for i in _indices_in(doc, r.span)}
        records += self._fix_written_forms(doc, known | fixed)
        records += complete_followup(doc, self.previous_question, self.names, TIER)
        return sorted(records, key=lambda r: r.span)

    def _fix_acronyms(self, doc: TokenizedInput, claimed: set[int]) -> list[CorrectionRecord]:
        """ "priyas latest ifc export" -> "IFC": a word no English text uses, which the user's documents
        write only in capitals, is their acronym typed in lower case."""
        if self.acronym_form is None:
            return []
        records = []
        for index, token in enumerate(doc.tokens):
            if index in claimed or not is_editable_word(token) or not token.text.isalpha() or not token.text.islower():
                continue
            form = self.acronym_form(token.text)
            if form is None or zipf(token.text) >= 3.0:
                continue  # "it", "do", "so": everyday words, whatever a folder calls its IT desk or a phase
            records.append(_capitalised(token, form, 0.85))
        return records

    def _fix_written_forms(self, doc: TokenizedInput, claimed: set[int]) -> list[CorrectionRecord]:
        """ "is the abuja office open" -> "Abuja": a word the user's documents write with capitals
        mid-sentence, at least twice and never in lower case, is a name of their world (a place, a
        product, an agency) typed in lower case. Sure for a word English seldom uses otherwise; less
        so the commoner it is; never for an everyday word ("reading", "bill", "may"), whatever a
        folder calls its town or its invoices."""
        if self.document_form is None:
            return []
        records = []
        for index, token in enumerate(doc.tokens):
            if index in claimed or not is_editable_word(token) or not token.text.islower():
                continue
            form = self.document_form(token.text)
            frequency = zipf(token.text)
            if form is None or form == token.text or frequency >= EVERYDAY_ZIPF:
                continue
            if form.isupper() and len(form) > SHORT_ACRONYM and frequency >= RARE_ZIPF:
                continue  # "URGENT" shouted in a notice is no acronym, as "HP" or "NITDA" is
            confidence = RARE_WORD_FORM_CONFIDENCE if frequency < RARE_ZIPF else WORD_FORM_CONFIDENCE
            records.append(_capitalised(token, form, confidence))
        return records

    def _fix_names(self, doc: TokenizedInput, claimed: set[int], known: set[int]) -> list[CorrectionRecord]:
        """Misspelled known names. `claimed` tokens are left alone; a `known`
        single name may still be half of a misspelled full one."""
        records = []
        for run in _word_runs(doc):
            position = 0
            while position < len(run):
                accepted = None
                first = doc.tokens[run[position]]
                for length in self.names.fuzzy_lengths:
                    if length > len(run) - position or not (
                        self.names.has_fuzzy_candidates(length, first.text)
                        or self.names.has_fuzzy_candidates(length, first.original)
                    ):
                        continue
                    window = run[position : position + length]
                    if any(i in claimed for i in window) or (length == 1 and window[0] in known):
                        continue
                    accepted = self._best_name(doc, window)
                    if accepted is not None:
                        break
                if accepted is None:
                    position += 1
                    continue
                window, form, score, others, suffix = accepted
                confidence = min(0.9, 0.75 + (score - 85) / 100)
                correction_type = "EntityCorrection"
                if others and others[0][1] >= score - 5:
                    # Two known names nearly as close: picked by prior, say so.
                    confidence -= 0.15
                    correction_type = "AmbiguityResolution"
                confidence = round(confidence, 3)
                alternatives = [(" ".join(form.words), confidence)] + [
                    (" ".join(f.words), round(s / 100 - 0.1, 3)) for f, s in others
                ]
                texts = [*form.words[:-1], form.words[-1] + suffix]  # "Jon Smth's" -> "John Smith's"
                records.append(_record(doc, window, texts, correction_type, confidence, alternatives))
                claimed.update(window)
                position += len(window)
        return records

    def _best_name(self, doc: TokenizedInput, window: list[int]):
        tokens = doc.tokens
        current = [tokens[i].text for i in window]
        variants = [current]
        original = [tokens[i].original for i in window]
        if original != current:
            variants.append(original)  # tier 1 may have "fixed" a name into another word
        best = None
        for words in variants:
            if any("'" in w or "’" in w for w in words[:-1]):
                return None  # "John's smith" is no misspelled "John Smith"
            bare = _strip_possessive(words[-1])
            suffix = words[-1][len(bare) :]
            words = [*words[:-1], bare]
            if self.names.exact(" ".join(words)):
                return None  # the window is itself a known name
            if not self.names.has_fuzzy_candidates(len(words), words[0]):
                continue
            readings = [(words, suffix)]
            if not suffix and len(bare) > 3 and bare.lower().endswith("s"):
                # "niamh osullivans email": a possessive typed without its apostrophe, on a misspelt name.
                readings.append(([*words[:-1], bare[:-1]], "'s"))
            for read, read_suffix in readings:
                found = self.names.fuzzy(read)
                if found and (best is None or found[0][1] > best[2]):
                    form, score = found[0]
                    others = [(f, s) for f, s in found[1:] if f.entity_ids != form.entity_ids]
                    best = (window, form, score, others, read_suffix)
        if best is None or current == [*best[1].words[:-1], best[1].words[-1] + best[4]]:
            return None
        for typed, name_word in zip(current, best[1].words):
            lower = _strip_possessive(typed).lower()
            if lower != name_word.lower() and (lower in FUNCTION_WORDS or zipf(lower) >= COMMON_WORD_ZIPF):
                return None  # "john do you think" keeps its "do": a common word is meant as itself
        return best

    # --- markers for stage 2 -------------------------------------------------------------

    def markers(self, doc: TokenizedInput) -> list[dict]:
        """Known entities and dates in the doc's current text, spans in the original."""
        markers: list[dict] = []
        for match in self.names.find(doc):
            first, last = doc.tokens[match.indices[0]], doc.tokens[match.indices[-1]]
            form = match.form
            surface = doc.original[first.start : last.end]
            written_as_name = [doc.tokens[i].text for i in match.indices] == match.canonical
            confidence = form.capitalize_confidence or 0.7
            if written_as_name:
                confidence = max(confidence, 0.9)
            elif confidence <= 0.5 and form.entity_type == "person":
                continue  # a first name that is an everyday word, left as typed ("what will the budget be")
            markers.append({
                "kind": "entity",
                "span": (first.start, last.end),
                "text": _current_text(doc, match.indices),
                "original": surface,
                "entity_id": form.entity_ids[0] if form.entity_ids else None,
                "candidates": list(form.entity_ids),
                "entity_type": form.entity_type,
                "confidence": round(confidence, 3),
            })
        text, owners = render_with_owners(doc)
        for found in DATE_PATTERN.finditer(text):
            owned = [o for o in owners[found.start() : found.end()] if o >= 0]
            if not owned:
                continue
            first, last = doc.tokens[owned[0]], doc.tokens[owned[-1]]
            markers.append({
                "kind": "date",
                "span": (first.start, last.end),
                "text": found.group(),
                "original": doc.original[first.start : last.end],
                "entity_id": None,
            })
        return sorted(markers, key=lambda m: m["span"])


def _indices_in(doc: TokenizedInput, span: tuple[int, int]) -> list[int]:
    return [i for i, t in enumerate(doc.tokens) if t.start < span[1] and span[0] < t.end]


def _word_runs(doc: TokenizedInput) -> list[list[int]]:
    """Stretches of editable words separated only by spaces (names live inside one)."""
    runs: list[list[int]] = []
    current: list[int] = []
    for index, token in enumerate(doc.tokens):
        if token.text == "":
            continue
        if is_editable_word(token):
            if current and doc.original[doc.tokens[current[-1]].end : token.start].strip() == "":
                current.append(index)
                continue
            if current:
                runs.append(current)
            current = [index]
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def _current_text(doc: TokenizedInput, indices: list[int]) -> str:
    pieces = []
    for position, index in enumerate(indices):
        token = doc.tokens[index]
        if position:
            pieces.append(doc.original[doc.tokens[indices[position - 1]].end : token.start])
        pieces.append(token.text)
    return "".join(pieces)


def _record(doc, indices, texts, correction_type, confidence, alternatives) -> CorrectionRecord:
    """Set the tokens' texts and describe the change of their whole span."""
    for index, text in zip(indices, texts):
        doc.tokens[index].text = text
    start, end = doc.tokens[indices[0]].start, doc.tokens[indices[-1]].end
    return CorrectionRecord(
        tier=TIER,
        span=(start, end),
        original=doc.original[start:end],
        corrected=_current_text(doc, indices),
        correction_type=correction_type,
        confidence=round(confidence, 3),
        alternatives=alternatives,
    )
