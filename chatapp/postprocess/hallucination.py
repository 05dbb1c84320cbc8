"""Hallucination flags: the validator's findings, plus what only shows when
the answer is read against the clock and against itself — impossible or
mistimed dates (TemporalError), statements that contradict each other
(LogicalInconsistency) and reversals of what the assistant said before.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from chatapp.postprocess import values as V
from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo, ValueClaim, is_content, label_words
from chatapp.postprocess.evidence import TextIndex, stem, words
from chatapp.postprocess.facts import IDENTIFYING_SHAPES, as_known, same_slot, select_by_key, value_matches
from chatapp.postprocess.findings import Finding, sentence_finding
from chatapp.postprocess.knowledge_view import KnowledgeView
from chatapp.records import HallucinationFlag, KnowledgeChunk

# Verbs whose date is the date of the thing that is the subject ("the review was yesterday").
EVENT_VERBS = frozenset({"be", "hold", "happen", "take", "schedule", "occur", "start", "begin", "end", "launch",
                         "move", "run", "meet", "close", "finish", "go"})
# Words that announce a deliberate change, so two values for one slot are not a contradiction.
CHANGE_WORDS = re.compile(r"\b(?:moved|changed|rescheduled|postponed|pushed|instead|originally|previously|"
                          r"updated|new|was planned|used to|from .{1,20} to)\b", re.IGNORECASE)
COMMUNICATION_WORDS = frozenset({"message", "email", "mail", "wrote", "write", "sent", "send", "said", "mention",
                                 "mentioned", "note", "notes", "post", "posted", "reply", "replied", "announce"})
NEGATION_STEMS = frozenset({"not", "n't", "never", "no", "none", "nor", "neither", "cannot"})
# How much two sentences' words must overlap (Jaccard) for one to be the other negated.
REVERSAL_OVERLAP = 0.75


def temporal_findings(analysis: AnswerAnalysis, view: KnowledgeView, given: TextIndex, question: str,
                      now: datetime | None, rag_chunks: list[KnowledgeChunk],
                      supplied: TextIndex | None = None) -> list[Finding]:
    findings = []
    for vc in analysis.values:
        parsed = vc.value.parsed
        if isinstance(parsed, V.DateValue) and not parsed.valid:
            findings.append(Finding("TemporalError", vc.claim.span, vc.claim.text, 0.95, None,
                                    [f"{vc.claim.text!r} is not a date on the calendar"], vc.sentence, major=True))
    if now is None:
        return findings
    for vc in analysis.values:
        if vc.value.vtype != "relative" or _echoes_user(vc.claim.text, question, given):
            continue
        sentence = analysis.sentences[vc.sentence]
        if supplied is not None and _quoted(sentence, supplied):
            continue  # "this week" in a passage quoted from a document is that document's week
        start, end = vc.value.parsed.resolve(now)
        finding = _against_entity_date(vc, sentence, view, start, end, now) or _against_documents(
            vc, sentence, rag_chunks, start, end, now)
        if finding:
            findings.append(finding)
    findings.extend(_tense_against_dates(analysis, view, now))
    return findings


def _echoes_user(text: str, question: str, given: TextIndex) -> bool:
    """The user framed the time ("from yesterday"): the answer repeating it is not the model's claim."""
    if given.has_phrase(text):
        return True
    from rapidfuzz import fuzz

    return " " not in text and any(fuzz.ratio(text.lower(), w.lower()) >= 80 for w in re.findall(r"\w+", question))


def _quoted(sentence: SentenceInfo, supplied: TextIndex) -> bool:
    """The sentence repeats a source sentence nearly word for word."""
    return len(sentence.stems) >= 3 and supplied.best_sentence(sentence.stems)[1] >= 0.9


def _about(sentence: SentenceInfo, entity_id: str | None, view: KnowledgeView) -> bool:
    if not entity_id or entity_id not in view.entities:
        return False
    return sentence.subject_id == entity_id or (
        view.entities[entity_id].type == "event" and sentence.root_lemma in EVENT_VERBS and sentence.subject_id is None)


def _against_entity_date(vc: ValueClaim, sentence, view, start, end, now) -> Finding | None:
    entity_id = next((e for e in [vc.claim.entity_id, *sentence.entity_ids] if _about(sentence, e, view)), None)
    if entity_id is None:
        return None
    dated = [k for k in view.values_of(entity_id, "date") if k.parsed.as_date()]
    targets = select_by_key(dated, sentence.stems, "date") if dated else []
    days = {k.parsed.as_date() for k in targets}
    if len(days) != 1:
        return None
    day = days.pop()
    if start <= day <= end:
        return None
    known = targets[0]
    said = start if start == end else f"{start} to {end}"
    replacement = V.render_like(vc.claim.text, "relative", known.raw, known.parsed)
    return Finding("TemporalError", vc.claim.span, vc.claim.text, 0.85 if vc.certain else 0.65,
                   replacement, [f"{view.name(entity_id)}: {known.key} = {known.raw}",
                                 f"{vc.claim.text!r} means {said} (now is {now.date()}; {_ago(day, now)})"],
                   vc.sentence, vc.claim.span, replacement, major=True)


def _against_documents(vc: ValueClaim, sentence, rag_chunks, start, end, now) -> Finding | None:
    """'His message yesterday': the retrieved messages on the subject are dated otherwise."""
    if not sentence.stems & {stem(w) for w in COMMUNICATION_WORDS}:
        return None

    dated = []
    for chunk in rag_chunks:
        day = _chunk_day(chunk)
        if day is None:
            continue
        overlap = len(sentence.stems & {stem(w) for w in words(chunk.content)}) / max(1, len(sentence.stems))
        if overlap >= 0.4:
            dated.append((overlap, day, chunk))
    if not dated or any(start <= day <= end for _, day, _ in dated):
        return None
    overlap, day, chunk = max(dated, key=lambda d: d[0])
    return Finding("TemporalError", vc.claim.span, vc.claim.text, round(0.4 + 0.4 * overlap, 3),
                   f"on {day:%B} {day.day}", [f"{chunk.source} is dated {day} ({_ago(day, now)})"], vc.sentence)


def _tense_against_dates(analysis: AnswerAnalysis, view: KnowledgeView, now: datetime) -> list[Finding]:
    """'The review will be…' about a review that is over, or 'was' about one still to come."""
    findings = []
    today = now.date()
    for sentence in analysis.sentences:
        if not (sentence.future or sentence.past) or not sentence.subject_id:
            continue
        entity = view.entities.get(sentence.subject_id)
        if entity is None or entity.type != "event" or any(
                v.value.kind == "date" for v in analysis.values if v.sentence == sentence.index):
            continue
        dates = [k.parsed.as_date() for k in view.values_of(entity.id, "date") if k.key == "date" and k.parsed.as_date()]
        if not dates:
            continue
        day = dates[0]
        wrong = (sentence.future and day < today - timedelta(days=1)) or (sentence.past and day > today + timedelta(days=1))
        if wrong:
            findings.append(sentence_finding("TemporalError", sentence, analysis.text, 0.7,
                                             [f"{entity.name}: date = {day}", f"now is {today}"],
                                             f"{entity.name} is on {day} ({_ago(day, now)})", major=False))
    return findings


def _chunk_day(chunk: KnowledgeChunk):
    if not chunk.date:
        return None
    try:
        return datetime.fromisoformat(chunk.date.replace("Z", "+00:00")).date()
    except ValueError:
        found = [v for v in V.find_values(chunk.date) if v.vtype == "date"]
        return found[0].parsed.as_date() if found else None


def _ago(day, now: datetime) -> str:
    delta = (now.date() - day).days
    if delta == 0:
        return "today"
    return f"{delta} days ago" if delta > 0 else f"in {-delta} days"


# --- contradictions inside the answer and with earlier answers ------------------------


def consistency_findings(analysis: AnswerAnalysis, prior: list[AnswerAnalysis], already: list[Finding],
                         supplied: TextIndex | None = None, view: KnowledgeView | None = None) -> list[Finding]:
    """`supplied`: the sources; two sentences each quoted from them word for word (two rows of a log,
    "ticket: T-7731; site: Glenbervie Depot …" and "ticket: T-7742; site: Glenbervie Depot …") are two
    records listed, not the answer contradicting itself. `view`: the registry; two numbers or addresses
    it holds for the same person (a desk phone and a mobile) are both theirs."""
    findings = []
    flagged = {f.span for f in already}
    values = analysis.values
    for i, later in enumerate(values):
        for earlier in values[:i]:
            if earlier.sentence == later.sentence or not same_slot(later, earlier):
                continue
            if (earlier.inherited or later.inherited) and _label(analysis, earlier) != _label(analysis, later):
                # A value whose sentence names no one is about what was asked only by default: under
                # different labels ("Main office: …", "Attendance line: …") it is a list, not an answer
                # given twice.
                continue
            if value_matches(later.value, as_known(earlier)) or later.claim.span in flagged or earlier.claim.span in flagged:
                continue
            if view is not None and later.value.vtype in IDENTIFYING_SHAPES and all(
                    any(value_matches(v.value, k) for k in view.values_of(v.claim.entity_id)) for v in (earlier, later)):
                continue
            if any(v.sentence == earlier.sentence and value_matches(later.value, as_known(v)) for v in values[:i]):
                continue  # "0800 555 284 | 021 555 0417": the earlier sentence lists this value too
            texts = analysis.sentences[later.sentence].claim.text + " " + analysis.sentences[earlier.sentence].claim.text
            if CHANGE_WORDS.search(texts):
                continue
            if supplied is not None and all(_quoted(analysis.sentences[v.sentence], supplied)
                                            for v in (earlier, later)):
                continue
            findings.append(Finding("LogicalInconsistency", later.claim.span, later.claim.text, 0.75, earlier.claim.text,
                                    [f"the answer also says: {analysis.sentences[earlier.sentence].claim.text}"],
                                    later.sentence, major=True))
            break
    sentences = analysis.sentences
    for i, later in enumerate(sentences):
        for earlier in sentences[:i]:
            if _negation_pair(earlier, later):
                findings.append(sentence_finding("LogicalInconsistency", later, analysis.text, 0.75,
                                                 [f"the answer also says: {earlier.claim.text}"]))
                break
        for old in prior:
            match = next((s for s in old.sentences if _negation_pair(s, later)), None)
            if match is not None:
                findings.append(sentence_finding("ContradictsPrior", later, analysis.text, 0.7,
                                                 [f"earlier answer: {match.claim.text}"]))
                break
    return findings


def _label(analysis: AnswerAnalysis, value: ValueClaim) -> frozenset[str]:
    """The stems of what its sentence gives a value as (claims.label_words)."""
    return frozenset(stem(w) for w in label_words(analysis.sentences[value.sentence], value))


def _negation_pair(a: SentenceInfo, b: SentenceInfo) -> bool:
    if a.negated == b.negated:
        return False
    sa, sb = a.stems - NEGATION_STEMS, b.stems - NEGATION_STEMS
    if min(len(sa), len(sb)) < 2:
        return False
    return len(sa & sb) / len(sa | sb) >= REVERSAL_OVERLAP


class EarlierWords:
    """What reads_earlier reads of an earlier answer without parsing it: its content words' stems (the
    answer tokenised as its parse would be) and, when asked, whether it states values. A pure function
    of the text, kept per text by the caller: the same earlier answers come back every turn."""

    def __init__(self, text: str, tokens):
        self.text = text
        self.stems = frozenset(stem(t.text) for t in tokens if is_content(t)) - NEGATION_STEMS
        self._has_values: bool | None = None

    @property
    def has_values(self) -> bool:
        if self._has_values is None:  # looked for only when the answer states values itself
            self._has_values = bool(V.find_values(self.text))
        return self._has_values


def reads_earlier(analysis: AnswerAnalysis, earlier: EarlierWords) -> bool:
    """Whether the checks of `analysis` could read more of an earlier answer than its words, so it
    must be parsed: its values, when both state some (facts.py holds a value to an earlier one of the
    same slot), or its sentences, when one of the answer's has enough words in common with the earlier
    answer as a whole to be the reversal of one of its sentences (_negation_pair)."""
    if analysis.values and earlier.has_values:
        return True
    for sentence in analysis.sentences:
        own = sentence.stems - NEGATION_STEMS
        # A sentence of the earlier answer shares at most these words with it, and has no fewer words
        # than the two have in common: below this, no overlap reaches REVERSAL_OVERLAP.
        if len(own) >= 2 and len(own & earlier.stems) >= REVERSAL_OVERLAP * len(own):
            return True
    return False


def to_flags(findings: list[Finding], corrected: set[int] = frozenset()) -> list[HallucinationFlag]:
    """One flag per finding, without repeating the same type over the same text.
    `corrected`: indices of the findings whose suggestion delivery put in the text."""
    flags, seen = [], set()
    for index, f in sorted(enumerate(findings), key=lambda item: (item[1].span, -item[1].confidence)):
        key = (f.flag_type, f.span)
        if key in seen:
            continue
        seen.add(key)
        flags.append(HallucinationFlag(f.flag_type, f.span, f.content, round(f.confidence, 3), f.suggestion,
                                       list(f.evidence), corrected=index in corrected))
    return flags
