"""Answers to "which came first, A or B?" checked against the dates the
sources give each of them.

Question: "Which launched first, Atlas or Borealis?"  Sources: "Atlas
launched on 3 March 2025 …", "Borealis launched on 12 January 2024 …".
Answer: "Atlas launched first."  The sources date Borealis earlier, so the
answer picked the wrong one: ContradictsFact, with the other name as the
suggestion.

Only questions that ask which of two named things is earlier or later, only
when the sources date both, and only answers that name exactly one of them.
"""

from __future__ import annotations

import re

from chatapp.postprocess.claims import AnswerAnalysis
from chatapp.postprocess.evidence import TextIndex
from chatapp.postprocess.findings import Finding

EARLIER_WORDS = ("first", "earlier", "earliest", "older", "oldest", "sooner")
LATER_WORDS = ("later", "latest", "younger", "youngest", "newer", "newest", "more recent", "more recently", "last")
_QUESTION_RE = re.compile(
    rf"\b(?P<order>{'|'.join(EARLIER_WORDS + LATER_WORDS)})\b.*?[,:]?\s*"
    r"(?P<a>[^,:?]+?)\s+or\s+(?P<b>[^,:?]+?)\s*\?*\s*$", re.IGNORECASE)
_YEAR_RE = re.compile(r"(?<!\d)(?:1[0-9]{3}|20[0-9]{2})")
# How far after a name its date may stand: "Omar Haddad (joined from Globex as head of support in May 2019)".
_DATE_REACH = 120


def comparison_findings(analysis: AnswerAnalysis, question: str, sources: list[str]) -> list[Finding]:
    asked = _QUESTION_RE.search(question.strip())
    if asked is None or not sources:
        return []
    options = [_option(asked.group("a")), _option(asked.group("b"))]
    if not all(options) or options[0].lower() == options[1].lower():
        return []
    answer = TextIndex([analysis.text])
    chosen = [o for o in options if answer.supports_name(o)]
    if len(chosen) != 1:
        return []  # both or neither named: the answer does not pick one plainly
    years = [_year_of(option, sources) for option in options]
    if None in years or years[0] == years[1]:
        return []
    earlier_wanted = asked.group("order").lower() in EARLIER_WORDS
    expected = options[years.index(min(years) if earlier_wanted else max(years))]
    if chosen[0] == expected:
        return []
    span = _span_of(analysis.text, chosen[0])
    if span is None:
        return []
    evidence = [f"the sources date {o} to {y}" for o, y in zip(options, years)]
    # Flagged, not rewritten: which date belongs to which name is read off the text, not a record.
    return [Finding("ContradictsFact", span, analysis.text[span[0]:span[1]], 0.75, expected, evidence,
                    _sentence_at(analysis, span[0]), major=True)]


def _option(text: str) -> str:
    """"the Atlas Project" → "Atlas Project": the name, without a lead-in."""
    text = text.strip().strip("\"'“”")
    text = re.sub(r"^(?:the|a|an)\s+(?=[A-Z])", "", text)
    return text.strip()


def _year_of(name: str, sources: list[str]) -> int | None:
    """The year given right after the first mention of `name` in the sources."""
    for source in sources:
        at = source.lower().find(name.lower())
        if at < 0:
            continue
        window = source[at + len(name): at + len(name) + _DATE_REACH]
        # The first year: a start comes before an end ("2019–2023").
        found = _YEAR_RE.search(window)
        return int(found.group(0)) if found else None
    return None


def _span_of(text: str, name: str) -> tuple[int, int] | None:
    at = text.lower().find(name.lower())
    return (at, at + len(name)) if at >= 0 else None


def _sentence_at(analysis: AnswerAnalysis, position: int) -> int:
    info = analysis.sentence_of(position)
    return info.index if info is not None else 0
