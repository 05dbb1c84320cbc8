"""What the user sees: the answer with wrong values replaced and marked
" [corrected]", doubtful claims marked " [unverified]" — and what to do with
it (Accept, AcceptWithFlags, CorrectAndDeliver, Regenerate, HumanReview),
with an overall confidence. An answer weak as a whole (UnsupportedAnswer) is flagged in the
verdict, not in the text.

Only a value the knowledge base states, for an entity identified beyond
doubt, is ever replaced; everything else keeps the model's words and gets a
marker, at most one per place, so prose is not littered with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chatapp.postprocess.findings import STATUS_SCORE, Finding
from chatapp.records import ANSWER_LEVEL, CoherenceResult, FactualValidationResult, HallucinationType, Recommendation

CORRECTED, UNVERIFIED = " [corrected]", " [unverified]"
CORRECTABLE: frozenset[HallucinationType] = frozenset({"WrongAttribute", "ContradictsFact", "TemporalError"})
# How much a flag of each type costs the answer's confidence (times the flag's own confidence).
SEVERITY: dict[HallucinationType, float] = {
    "ContradictsFact": 0.5, "WrongAttribute": 0.5, "ContradictsPrior": 0.45, "LogicalInconsistency": 0.45,
    "TemporalError": 0.4, "NonexistentEntity": 0.35, "FabricatedFact": 0.35, "UnsupportedClaim": 0.25,
    "UnsupportedAnswer": 0.2}
# Findings about the answer as a whole (records.ANSWER_LEVEL) are never marked inside the text, and
# never alone a reason to send the answer back: the support of a right answer in the model's own words
# is lower than that of one quoting its sources.
# A contradiction of an earlier answer the sources cannot settle (which of the two is right?):
# regenerating could repeat the earlier mistake, so a person decides.
UNDECIDABLE: frozenset[HallucinationType] = frozenset({"ContradictsPrior"})


@dataclass
class DeliverySettings:
    correct_at: float = 0.8  # replace a wrong value at or above this confidence
    flag_at: float = 0.5  # report a finding as a flag at or above this confidence
    annotate_at: float = 0.5  # mark a doubtful claim at or above this confidence
    major_at: float = 0.75  # an uncorrected contradiction this sure blocks acceptance
    regenerate_below: float = 0.35  # overall confidence under which the answer is not worth delivering
    allow_regenerate: bool = True  # off: what would be regenerated goes to a person instead


def deliver(text: str, findings: list[Finding], settings: DeliverySettings) -> tuple[str, set[int]]:
    """The annotated text, and the indexes of findings that were corrected in it."""
    edits: list[tuple[int, int, str, int]] = []  # (start, end, new text, finding index)
    corrected: set[int] = set()
    for i, f in sorted(enumerate(findings), key=lambda p: (-p[1].confidence, p[1].span)):
        if (f.flag_type in CORRECTABLE and f.replacement and f.replace_span and f.confidence >= settings.correct_at
                and not _clashes(f.replace_span, edits)):
            edits.append((f.replace_span[0], f.replace_span[1], f.replacement + CORRECTED, i))
            corrected.add(i)
    marked_at: set[int] = set()
    for i, f in sorted(enumerate(findings), key=lambda p: p[1].span):
        if i in corrected or f.confidence < settings.annotate_at or f.flag_type in ANSWER_LEVEL:
            continue
        if any(f.sentence == findings[j].sentence and _contains(f.span, findings[j].span) and f.span != findings[j].span
               for j in range(len(findings)) if j != i and findings[j].confidence >= settings.annotate_at):
            continue  # a narrower flag in the same place says it more precisely
        at = _marker_position(text, f.span[1])
        if at in marked_at or any(start < at <= end for start, end, _, _ in edits):
            continue
        if any(end == at for start, end, _, _ in edits):
            continue  # right after a correction: the correction speaks for itself
        marked_at.add(at)
        edits.append((at, at, UNVERIFIED, i))
    out, cursor = [], 0
    for start, end, new, _ in sorted(edits, key=lambda e: (e[0], e[1])):
        out.append(text[cursor:start])
        out.append(new)
        cursor = end
    out.append(text[cursor:])
    return "".join(out), corrected


def corrected_text(text: str, corrections: list[Finding]) -> str:
    """`text` with the corrections `deliver` made in it, unmarked: what the answer says once corrected."""
    out, cursor = [], 0
    for f in sorted(corrections, key=lambda f: f.replace_span):
        out += [text[cursor:f.replace_span[0]], f.replacement]
        cursor = f.replace_span[1]
    return "".join(out) + text[cursor:]


def _clashes(span, edits) -> bool:
    return any(span[0] < end and start < span[1] for start, end, _, _ in edits)


def _contains(outer, inner) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _marker_position(text: str, end: int) -> int:
    # After a possessive ("Marcus's [unverified] team"), never inside a word.
    match = re.match(r"['’]s\b", text[end:end + 2])
    if match:
        end += 2
    while end < len(text) and (text[end].isalnum() or text[end] in "@_"):
        end += 1
    return end


# How the answer's confidence is made: (validation, coherence, support) weights, without evidence to
# measure support against and with evidence fully trusted; in between, by the trust in the evidence.
# A chat turn's retrieved chunks are trusted `retrieved_trust` (support_weights.json), fitted on dev
# data with each answer's evidence as the turn's retrieved chunk (fit_support.py --retrieved-trust):
# the more the support weighs, the better the confidence ranks right answers above made-up ones (mean
# AUROC over the dev sets 0.936 at no trust, 0.950 at 0.25, 0.966 at 1), but a right answer whose weakest
# claim the chunk words otherwise, or a corrected one beside an aside no chunk holds ("… with Sarah from
# marketing"), then falls under the Regenerate bound; the fit takes the largest trust that keeps that
# within half a percent of them (0.25 on the current support model).
# With evidence given for the answer, the support is nearly all: on BEGIN's three dev files the
# confidence's AUROC is 0.952 at (0.2, 0.1, 0.7), 0.957 at (0.1, 0.05, 0.85), 0.959 at (0.05, 0.05, 0.9)
# and 0.960 with the support alone; a little of the fact check and of the coherence is kept, so a value
# verified or an answer drifting from the question still moves it. (A chat turn's blend at 0.25 is the
# one 0.35 gave with the blend before: (0.425, 0.2, 0.375) against (0.4275, 0.1975, 0.375).)
UNGROUNDED_BLEND = (0.55, 0.25, 0.2)
GROUNDED_BLEND = (0.05, 0.05, 0.9)


def confidence(findings: list[Finding], corrected: set[int], coherence: CoherenceResult,
               validation: FactualValidationResult, support: float, trust: float = 0.0) -> float:
    """How far the delivered answer can be trusted: corrected claims count as right. `trust` (0–1) is
    how far the evidence the answer's support was measured against is to be believed: 1 for evidence
    supplied for it, where support weighs most; less for chunks retrieved as a best guess (the fitted
    `retrieved_trust` of support_weights.json); 0 without any."""
    fixed = [findings[i].replace_span for i in corrected]
    score = validation.score
    if fixed and validation.checks:
        # A correction may reach past its claim: "Tuesday 8 December" rewritten whole for the date.
        statuses = ["verified" if c.status == "contradicted" and any(
                        _contains(c.claim.span, s) or _contains(s, c.claim.span) for s in fixed)
                    else c.status for c in validation.checks]
        score = sum(STATUS_SCORE[s] for s in statuses) / len(statuses)
        score = max(score, validation.score)
    trust = max(0.0, min(1.0, trust))
    weights = [(1 - trust) * low + trust * high for low, high in zip(UNGROUNDED_BLEND, GROUNDED_BLEND)]
    base = weights[0] * score + weights[1] * coherence.score + weights[2] * support
    for i, f in enumerate(findings):
        penalty = SEVERITY.get(f.flag_type, 0.3) * f.confidence
        base *= 1 - (penalty * 0.3 if i in corrected else penalty)
    return round(max(0.0, min(1.0, base)), 3)


def recommend(text: str, findings: list[Finding], corrected: set[int], coherence: CoherenceResult,
              overall: float, settings: DeliverySettings) -> tuple[Recommendation, str]:
    """(recommendation, guidance for a regeneration)."""
    if not text.strip():
        return _regenerate(settings), "The answer was empty: answer the question."
    guidance = _guidance(findings, corrected, coherence)
    open_major = [f for i, f in enumerate(findings)
                  if i not in corrected and f.major and f.confidence >= settings.major_at]
    if not findings:
        if coherence.score < 0.3:
            return _regenerate(settings), guidance
        return "Accept", ""
    if open_major and all(f.flag_type in UNDECIDABLE for f in open_major):
        return "HumanReview", guidance
    if all(f.flag_type in ANSWER_LEVEL for f in findings):
        # The mildest flagged verdict: delivered, the doubt shown (the confidence already counts the
        # low support that raised it), unless the answer misses the question as one unflagged would.
        return (_regenerate(settings), guidance) if coherence.score < 0.3 else ("AcceptWithFlags", "")
    if open_major or overall < settings.regenerate_below or coherence.score < 0.3:
        return _regenerate(settings), guidance
    if corrected:
        return "CorrectAndDeliver", ""
    return "AcceptWithFlags", ""


def _regenerate(settings: DeliverySettings) -> Recommendation:
    return "Regenerate" if settings.allow_regenerate else "HumanReview"


def _guidance(findings: list[Finding], corrected: set[int], coherence: CoherenceResult) -> str:
    lines = []
    for i, f in enumerate(findings):
        if f.flag_type in ("WrongAttribute", "ContradictsFact", "TemporalError") and f.suggestion and f.replace_span:
            lines.append(f"Replace {f.content!r} with {f.suggestion!r} ({'; '.join(f.evidence[:1])}).")
        elif f.flag_type == "ContradictsFact":  # a whole sentence: no one value to swap in
            lines.append(f"{f.content!r} contradicts the sources ({'; '.join(f.evidence[:1])}); say what they say.")
        elif f.flag_type == "ContradictsPrior":
            lines.append(f"{f.content!r} contradicts an earlier answer ({'; '.join(f.evidence[:1])}); keep them consistent.")
        elif f.flag_type == "TemporalError":
            lines.append(f"{f.content!r} is not a possible or consistent date ({'; '.join(f.evidence[:1])}).")
        elif f.flag_type == "LogicalInconsistency":
            lines.append(f"{f.content!r} contradicts another statement in the same answer.")
        elif f.flag_type == "UnsupportedAnswer":
            lines.append("The sources bear out little of the answer as a whole; keep to what they say.")
        elif f.flag_type == "NonexistentEntity":
            hint = f" (did you mean {f.suggestion}?)" if f.suggestion else ""
            lines.append(f"{f.content!r} is not in the knowledge base{hint}; do not name people or teams that are not.")
        else:
            lines.append(f"Only state {f.content!r} if the sources support it.")
    lines.extend(f"Coherence: {issue}." for issue in coherence.issues)
    return " ".join(dict.fromkeys(lines))
