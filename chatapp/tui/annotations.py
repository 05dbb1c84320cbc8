"""What the checker said about one answer, as the chat shows it under the answer: the verdict
coloured by its recommendation, the flagged claims (each selectable, by keyboard or mouse, to see
the original text, the known value or evidence and where that comes from), and the sources the
turn retrieved with their scores.

`review_of` builds the plain records in the turn's worker thread (it reads the registry); the
widgets only lay them out. Everything quoted comes from a model, a document or a file name, so it
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

from chatapp.terminal_text import clean, plain_text

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


@dataclass
class Review:
    recommendation: str
    confidence: float
    guidance: str
    annotations: list[Annotation] = field(default_factory=list)
    sources: list[tuple[str, float]] = field(default_factory=list)  # (title or path, relevance)


def review_of(response, rag_chunks, registry=None) -> Review:
    """The review of one checked answer. `registry` (may be None) names where a known value comes
    from; the retrieved chunks that contain the known value are named too."""
    annotations = []
    for flag in response.hallucination_flags:
        sources = _sources_of(flag, rag_chunks, registry)
        annotations.append(Annotation(
            marker=CORRECTED_MARKER if flag.corrected else UNVERIFIED_MARKER, kind=flag.hallucination_type,
            original=flag.content, known_value=flag.suggestion, evidence=list(flag.evidence), sources=sources,
            confidence=flag.confidence))
    chunks = [(chunk.title or chunk.source, chunk.relevance) for chunk in rag_chunks]
    return Review(response.recommendation, response.confidence, response.guidance, annotations, chunks)


def _sources_of(flag, rag_chunks, registry) -> list[str]:
    found: list[str] = []
    for line in flag.evidence:
        match = _KNOWN_VALUE.match(line)
        if match is None or registry is None:
            continue
        try:
            entities = registry.find_by_alias(match["entity"])
        except Exception:  # noqa: BLE001 - naming a source is a courtesy, never a failure of the turn
            entities = []
        found += [entity.source for entity in entities[:1] if entity.source]
    if flag.suggestion:
        found += [chunk.source for chunk in rag_chunks if flag.suggestion in chunk.content]
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
    detail.append(f"\n{annotation.kind} · confidence {annotation.confidence:.2f}", style="dim")
    return detail


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
        if review.annotations:
            yield AnnotationList(review.annotations)
            yield Static(Text("Select a flagged claim to see why.", style="dim"), classes="annotation-detail")
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
        self.query_one(".annotation-detail", Static).update(annotation_detail(self.review.annotations[index]))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index is not None:
            self.query_one(".annotation-detail", Static).update(
                annotation_detail(self.review.annotations[event.option_index]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.show(event.option_index)
