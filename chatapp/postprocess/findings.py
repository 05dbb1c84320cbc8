"""What the checks hand on: findings (a problem with a span, a confidence and,
where the knowledge says so, the right value), and the sources they were
checked against."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.evidence import TextIndex, text_index
from chatapp.postprocess.knowledge_view import KnowledgeView
from chatapp.records import CheckStatus, HallucinationType


# What a claim's check is worth in a score: a claim nothing can check counts half.
STATUS_SCORE: dict[CheckStatus, float] = {"verified": 1.0, "unverifiable": 0.5, "contradicted": 0.0}


@dataclass
class Finding:
    flag_type: HallucinationType
    span: tuple[int, int]
    content: str
    confidence: float
    suggestion: str | None = None
    evidence: list[str] = field(default_factory=list)
    sentence: int = 0
    # Where a correction would go and what it would say (value-level, not the whole content).
    replace_span: tuple[int, int] | None = None
    replacement: str | None = None
    major: bool = False


def sentence_finding(kind: HallucinationType, sentence: SentenceInfo, text: str, confidence: float, evidence: list[str],
                     suggestion: str | None = None, major: bool = True) -> Finding:
    """A finding about a whole sentence of `text`, without its closing punctuation."""
    start, end = sentence.claim.span
    end -= 1 if sentence.claim.text[-1:] in ".!?" else 0
    return Finding(kind, (start, end), text[start:end], confidence, suggestion, evidence, sentence.index,
                   major=major)


@dataclass
class Sources:
    """Everything a claim can be checked against, already indexed."""

    view: KnowledgeView
    supplied: TextIndex  # evidence texts and retrieved chunks
    records: TextIndex  # the registry's words about the entities in play
    given: TextIndex  # the question and what the user said: theirs, not the model's claims
    prior: list[AnswerAnalysis]  # earlier assistant answers
    # True when evidence texts were given to check against (not only retrieved chunks).
    explicit: bool = True
    # The date of each supplied text (ISO, or None): a retrieved chunk's document date.
    supplied_dates: tuple[str | None, ...] = ()

    @functools.cached_property
    def earlier(self) -> TextIndex:
        """What the assistant said before, as text: a name it used stays a name it used."""
        return text_index([p.text for p in self.prior])

    @functools.cached_property
    def indexes(self) -> tuple[TextIndex, ...]:
        """Every text a claim's word or value may be found in: evidence, records, what the user said,
        what the assistant said before."""
        return (self.supplied, self.records, self.given, self.earlier)

    @property
    def grounded(self) -> bool:
        return not self.supplied.empty
