"""What the checker said about one answer, as the chat shows it under the answer: the verdict
coloured by its recommendation, each flagged claim with its support score and the evidence sentence
closest to it, the flagged spans (each selectable, by keyboard or mouse, to see the original text,
the known value or evidence and where that comes from, and the support of the claim it is in), how
every sentence was held to the evidence (collapsed), and the sources the turn retrieved with their
scores.

`review_of` builds the plain records in the turn's worker thread (it reads the registry), and
`stored_review` the same from SQLite for a resumed conversation; the widgets only lay them out. Everything quoted comes from a model, a document or a file name, so it
goes in as `plain_text`, never as markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, OptionList, Static
from textual.widgets.option_list import Option

from chatapp.records import ANSWER_LEVEL, ClaimSupport
from chatapp.terminal_text import clean, plain_text
from chatapp.views import best_evidence, claim_support_view

CORRECTED_MARKER, UNVERIFIED_MARKER = "[corrected]", "[unverified]"
MARKER_STYLES = {CORRECTED_MARKER: "bold green", UNVERIFIED_MARKER: "bold yellow"}
# Recommendation → (CSS class, what the user should make of it). Accepting and asking a person
# to review must look different at a glance, not only read differently.
VERDICTS = {
    "Accept": ("accept", "checked: nothing to flag"),
    "AcceptWithFlags": ("flags", "checked: some claims could not be verified"),
    "CorrectAndDeliver": ("corrected", "checked: wrong values were corrected"),
    "Regenerate": ("review", "checked: the answer was not good enough"),
    "HumanReview": ("review", "needs your review: the checker could not settle it"),
}
SOURCES_SHOWN = 8
FLAGGED_CLAIMS_SHOWN = 6  # a long answer's further flagged claims are in the collapsed account of every claim
# "John Smith: email = john.smith@company.com": an evidence line naming an entity's known value.
_KNOWN_VALUE = re.compile(r"^(?P<entity>[^:]{1,120}): (?P<attribute>[^=]{1,80}) = (?P<value>.+)$")


@dataclass
class Annotation:
    """One flagged claim, ready to show."""

    marker: str  # CORRECTED_MARKER or UNVERIFIED_MARKER
    kind: str  # the hallucination type
    original: str  # what the model wrote
    known_value: str | None  # what the knowledge base says instead, when it says something
    evidence: list[str]
    sources: list[str]  # documents or registry files the evidence comes from
    confidence: float
    support: ClaimSupport | None = None  # the support of the sentence the flag is in, when known


@dataclass
class Review:
    recommendation: str
    confidence: float
    guidance: str
    annotations: list[Annotation] = field(default_factory=list)
    sources: list[tuple[str, float]] = field(default_factory=list)  # (title or path, relevance)
    claims: list[ClaimSupport] = field(default_factory=list)  # every sentence of the answer, in order

    @property
    def flagged_claims(self) -> list[ClaimSupport]:
        return [claim for claim in self.claims if claim.claim and claim.flagged]


def review_of(response, rag_chunks, registry=None) -> Review:
    """The review of one checked answer. `registry` (may be None) names where a known value comes
    from; the retrieved chunks that contain the known value are named too."""
    annotations = []
    for flag in response.hallucination_flags:
        sources = _sources_of(flag.evidence, flag.suggestion, rag_chunks, registry)
        annotations.append(Annotation(
            marker=CORRECTED_MARKER if flag.corrected else UNVERIFIED_MARKER, kind=flag.hallucination_type,
            original=flag.content, known_value=flag.suggestion, evidence=list(flag.evidence), sources=sources,
            confidence=flag.confidence, support=claim_of(response.claim_support, flag.hallucination_type, flag.span[0])))
    chunks = [(chunk.title or chunk.source, chunk.relevance) for chunk in rag_chunks]
    return Review(response.recommendation, response.confidence, response.guidance, annotations, chunks,
                  list(response.claim_support))


def stored_review(store, turn_id: int, question_turn_id: int | None, registry=None) -> Review | None:
    """The review an answer got, read back from SQLite (`store`: a SessionStore) for a resumed
    conversation: None for an answer that was never checked. The retrieved chunks were stored with
    the question (`question_turn_id`) by name and score only, so a known value's source is named
    from the registry alone. The guidance for a second attempt is not kept."""
    records = store.turn_records(turn_id)
    post = records["postprocessing"]
    if post is None:
        return None
    from chatapp.storage.sessions import claim_support_record

    claims = [claim_support_record(row) for row in records["claim_support"]]
    annotations = [Annotation(
        marker=CORRECTED_MARKER if flag["corrected"] else UNVERIFIED_MARKER, kind=flag["hallucination_type"],
        original=flag["content"] or "", known_value=flag["suggestion"], evidence=list(flag["evidence"] or []),
        sources=_sources_of(flag["evidence"] or [], None, [], registry), confidence=flag["confidence"] or 0.0,
        support=claim_of(claims, flag["hallucination_type"], flag["span_start"] or 0))
        for flag in records["hallucination_flags"]]
    chunks = [(row["title"] or row["source"], row["relevance"] or 0.0)
              for row in (store.retrieved(question_turn_id) if question_turn_id else [])]
    return Review(post["recommendation"], post["confidence"] or 0.0, "", annotations, chunks, claims)


def claim_of(claims: list[ClaimSupport], kind: str, position: int) -> ClaimSupport | None:
    """The claim a flag of `kind` is about: the one whose sentence holds `position` of the model's
    original answer; none for a flag about the whole answer."""
    if kind in ANSWER_LEVEL:
        return None
    return next((c for c in claims if c.span[0] <= position < c.span[1]), None)


def _sources_of(evidence: list[str], suggestion: str | None, rag_chunks, registry) -> list[str]:
    found: list[str] = []
    for line in evidence:
        match = _KNOWN_VALUE.match(line)
        if match is None or registry is None:
            continue
        try:
            entities = registry.find_by_alias(match["entity"])
        except Exception:  # noqa: BLE001 - naming a source is a courtesy, never a failure of the turn
            entities = []
        found += [entity.source for entity in entities[:1] if entity.source]
    if suggestion:
        found += [chunk.source for chunk in rag_chunks if suggestion in chunk.content]
    return list(dict.fromkeys(found))


def marker_targets(delivered: str, annotations: list[Annotation]) -> list[int | None]:
    """For each marker in `delivered`, in order, the index of the annotation it belongs to (None
    when none fits): a [corrected] follows the known value it put in, an [unverified] follows the
    claim it doubts; of several that fit, the one written closest before the marker."""
    targets: list[int | None] = []
    for match in re.finditer(re.escape(CORRECTED_MARKER) + "|" + re.escape(UNVERIFIED_MARKER), delivered):
        before = delivered[:match.start()].rstrip()
        best, best_at = None, -1
        for index, annotation in enumerate(annotations):
            if annotation.marker != match.group():
                continue
            said = annotation.known_value if annotation.marker == CORRECTED_MARKER else annotation.original
            at = before.rfind(said) if said else -1
            if at > best_at:
                best, best_at = index, at
        targets.append(best)
    return targets


def verdict_text(recommendation: str, confidence: float, kinds: list[str]) -> Text:
    """"HumanReview · confidence 0.42 · UnsupportedClaim — needs your review: …"."""
    meaning = VERDICTS.get(recommendation, ("", ""))[1]
    if kinds and set(kinds) <= ANSWER_LEVEL:
        meaning = "checked: the sources bear out little of the answer as a whole"
    line = Text(clean(recommendation), style="bold")
    line.append(f" · confidence {confidence:.2f}")
    if kinds:
        line.append(" · " + clean(", ".join(sorted(set(kinds)))))
    line.append(f" — {meaning}" if meaning else "")
    return line


def verdict_class(recommendation: str) -> str:
    return "verdict verdict-" + VERDICTS.get(recommendation, ("review", ""))[0]


def annotation_label(annotation: Annotation) -> Text:
    label = Text(annotation.marker, style=MARKER_STYLES[annotation.marker])
    label.append(" ")
    label.append_text(plain_text(annotation.original))
    if annotation.known_value and annotation.marker == CORRECTED_MARKER:
        label.append(" → ", style="dim")
        label.append_text(plain_text(annotation.known_value, style="green"))
    label.append(f"  {annotation.kind}", style="dim")
    return label


def annotation_detail(annotation: Annotation) -> Text:
    """Original text, the known value or evidence, and its sources."""
    detail = Text()
    detail.append("Model wrote: ", style="bold")
    detail.append_text(plain_text(annotation.original))
    if annotation.known_value:
        detail.append("\nKnown value: ", style="bold")
        detail.append_text(plain_text(annotation.known_value, style="green"))
    for line in annotation.evidence[:3]:
        detail.append("\nEvidence: ", style="bold")
        detail.append_text(plain_text(line))
    detail.append("\nSource: ", style="bold")
    detail.append_text(plain_text(", ".join(annotation.sources)) if annotation.sources
                       else Text("none found in the knowledge base", style="italic"))
    support = annotation.support
    if support is not None and support.claim:
        detail.append("\nSupport: ", style="bold")
        detail.append(f"{support.score:.2f}" + (f" (flagged under {support.threshold:.2f})" if support.threshold else ""))
        detail.append("\nBest evidence: ", style="bold")
        detail.append_text(best_evidence(support, none="none of the evidence shares its words"))
    detail.append(f"\n{annotation.kind} · confidence {annotation.confidence:.2f}", style="dim")
    return detail


def flagged_claims_text(claims: list[ClaimSupport]) -> Text:
    """Each flagged claim with its support score, and the evidence sentence closest to it with its source."""
    lines = Text("Flagged claims", style="bold")
    for claim in claims[:FLAGGED_CLAIMS_SHOWN]:
        lines.append(f"\n{claim.score:.2f}  ", style="bold yellow")
        lines.append_text(plain_text(claim.text))
        lines.append("\n      best evidence: ", style="dim")
        lines.append_text(best_evidence(claim, none="none of the evidence shares its words"))
    if len(claims) > FLAGGED_CLAIMS_SHOWN:
        lines.append(f"\n… and {len(claims) - FLAGGED_CLAIMS_SHOWN} more: see how this answer was checked, below",
                     style="dim")
    return lines


class AnnotationList(OptionList):
    """The flagged claims; moving to one (keys or mouse) shows its detail below."""

    def __init__(self, annotations: list[Annotation]):
        super().__init__(*[Option(annotation_label(a), id=f"annotation-{i}") for i, a in enumerate(annotations)],
                         classes="annotations")
        self.annotations = annotations


class TurnReview(Vertical):
    """Verdict, flagged claims with a detail pane, and the turn's sources."""

    def __init__(self, review: Review):
        super().__init__(classes="review")
        self.review = review

    def compose(self) -> ComposeResult:
        review = self.review
        yield Static(verdict_text(review.recommendation, review.confidence,
                                  [a.kind for a in review.annotations]), classes=verdict_class(review.recommendation))
        if review.guidance:
            yield Static(plain_text(review.guidance), classes="guidance")
        if review.flagged_claims:
            yield Static(flagged_claims_text(review.flagged_claims), classes="flagged-claims")
        if review.annotations:
            yield AnnotationList(review.annotations)
            yield Static(Text("Select a flagged claim to see why.", style="dim"), classes="annotation-detail")
        stated = [claim for claim in review.claims if claim.claim]
        if stated:
            title = f"How this answer was checked ({len(stated)} claim{'s' if len(stated) != 1 else ''})"
            with Collapsible(title=title, collapsed=True, classes="claim-support"):
                yield Static(claim_support_view(review.claims))
        if review.sources:
            with Collapsible(title=f"Sources ({len(review.sources)})", collapsed=True, classes="sources"):
                lines = Text()
                for title, score in review.sources[:SOURCES_SHOWN]:
                    lines.append(f"{score:.2f}  ", style="dim")
                    lines.append_text(plain_text(title))
                    lines.append("\n")
                lines.rstrip()
                yield Static(lines)

    def show(self, index: int | None) -> None:
        """Show annotation `index` in the detail pane (and highlight it in the list)."""
        if index is None or not self.review.annotations:
            return
        self.query_one(AnnotationList).highlighted = index
        detail = self.query_one(".annotation-detail", Static)
        detail.update(annotation_detail(self.review.annotations[index]))
        # A marker clicked in the answer may be a screen above its detail (a small terminal, a long answer).
        self.call_after_refresh(detail.scroll_visible, animate=False)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index is not None:
            self.query_one(".annotation-detail", Static).update(
                annotation_detail(self.review.annotations[event.option_index]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.show(event.option_index)
