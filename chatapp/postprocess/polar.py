"""Answers that say less than the evidence allows: "no" to a yes/no question
the evidence answers yes, and "only" where the evidence names more.

Evidence: "Gary Chapman wrote The Five Love Languages."  Question: "Did he
write The Five Love Languages?"  Answer: "No, he didn't write it."  The
question asks exactly what the evidence states, so the "no" denies the
evidence even though the answer itself names nobody: ContradictsFact.

Evidence: "Hot Fuzz is starring Simon Pegg."  Answer: "He only starred in Star
Trek and Land of the Dead."  Saying "only" leaves Hot Fuzz out of what the
evidence says he starred in: ContradictsFact.

Both need the evidence to state the very link in question (the same names and,
where the words say which, the same relation); an answer about something the
evidence does not cover is left to the other checks.
"""

from __future__ import annotations

import re

from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.evidence import TextIndex, stem, words
from chatapp.postprocess.findings import Finding, sentence_finding
from chatapp.postprocess.relations import clause_verb
from chatapp.postprocess.statements import families_of, name_runs, refers_back

# A yes/no question opens with an auxiliary ("did he write…", "is that the one with…") or ends by
# asking for confirmation ("…, correct?").
_POLAR_OPEN_RE = re.compile(r"^(?:(?:and|so|but|well|oh|yes|yeah|ok|okay|wait|hmm|really)\W+)*"
                            r"(did|does|do|is|was|are|were|has|have|had|can|could|will|would|"
                            r"isn't|wasn't|didn't|doesn't|hasn't|haven't|aren't|weren't)\b\W*(\w+)?", re.IGNORECASE)
_POLAR_TAG_RE = re.compile(r"(?:,|\b)\s*(?:right|correct|true|am i right|isn't (?:it|he|she|that)|"
                           r"didn't (?:he|she|they|it)|wasn't (?:it|he|she)|don't you think)\s*\?+$", re.IGNORECASE)
# Who the question asks about: "have you seen it?" asks about the assistant, not the evidence.
_CONVERSANTS = frozenset({"you", "u", "i", "we", "ya"})
# "No, …", "Nope", "He didn't…": a denial; "No problem", "No worries" are courtesy.
_NO_RE = re.compile(r"^\W*(?:actually,?\s+)?(?:no|nope|nah)\b(?!\s+(?:problem|worries|prob|thanks|doubt))",
                    re.IGNORECASE)
_NOT_RE = re.compile(r"^\W*(?:actually,?\s+)?(?:he|she|it|they|that|this)\s+(?:did|does|do|was|is|were|has|have)"
                     r"(?:n't|\s+not)\b", re.IGNORECASE)
# "No, I'm not sure", "No idea": not knowing is not denying.
_UNSURE_RE = re.compile(r"\b(?:not sure|no idea|don't know|do not know|not certain|can't remember|don't remember|"
                        r"not aware)\b", re.IGNORECASE)
_QUESTION_SPLIT_RE = re.compile(r"(?<=[.!?])\s+")


def answer_denials(analysis: AnswerAnalysis, statements, question: str, context: str) -> list[Finding]:
    """'No' to a yes/no question whose every name and relation the evidence states."""
    first = next((s for s in analysis.sentences if s.mode != "meta"), None)
    if first is None or not question.strip():
        return []
    said = first.claim.text
    if not (_NO_RE.search(said) or _NOT_RE.search(said)) or _UNSURE_RE.search(said):
        return []
    for asked in _polar_questions(question):
        statement = _statement_asked(asked, statements, context)
        if statement is not None:
            return [sentence_finding("ContradictsFact", first, analysis.text, 0.75,
                                     [f"asked {asked!r}; the evidence states: {statement}"], statement)]
    return []


def _polar_questions(question: str) -> list[str]:
    out = []
    for part in _QUESTION_SPLIT_RE.split(question.strip()):
        part = part.strip()
        if not part.endswith("?"):
            continue
        # "Wait a second, did he write it?": the question may open after a lead-in.
        clauses = [part] + [part[m.end():] for m in re.finditer(r"[,;:]\s*", part)]
        openings = [m for m in (_POLAR_OPEN_RE.match(c) for c in clauses) if m]
        if openings:
            if (openings[0].group(2) or "").lower() not in _CONVERSANTS:
                out.append(part)
        elif _POLAR_TAG_RE.search(part) and not re.match(r"^\W*(?:you|i)\b", part, re.IGNORECASE):
            out.append(part)
    return out


def _statement_asked(asked: str, statements, context: str) -> str | None:
    """The evidence statement the question asks about: its names in the question (or, for a
    pronoun in the question, in the conversation before), and no other relation named."""
    here = TextIndex([asked])
    before = TextIndex([context]) if context else None
    refers = refers_back(asked)
    asked_families = families_of(stem(w) for w in words(asked))
    for statement, runs, relation in statements:
        in_question = [r for r in runs if here.supports_name(r)]
        if not in_question:
            continue
        said = TextIndex([statement])
        if not all(said.supports_name(r) for r in name_runs(asked)):
            continue  # "is it a Comedy?" asks about something the statement does not name
        rest = [r for r in runs if r not in in_question]
        if rest and not (refers and before is not None and all(before.supports_name(r) for r in rest)):
            continue
        if len(rest) > 1:
            continue
        if asked_families and not asked_families & families_of(relation):
            continue  # "did he direct it?" is not answered by "he wrote it"
        return statement
    return None


# --- "only" ------------------------------------------------------------------------------


def exclusive_findings(analysis: AnswerAnalysis, statements, context: str) -> list[Finding]:
    """'He only starred in A and B' while the evidence has him in C as well."""
    if analysis.doc is None:
        return []
    findings = []
    for sentence in analysis.sentences:
        if sentence.mode != "statement" or not re.search(r"\bonly\b", sentence.claim.text, re.IGNORECASE):
            continue
        finding = _left_out(sentence, analysis, statements, context)
        if finding is not None:
            findings.append(finding)
    return findings


def _left_out(sentence: SentenceInfo, analysis: AnswerAnalysis, statements, context: str) -> Finding | None:
    span = analysis.doc.char_span(*sentence.claim.span, alignment_mode="expand")
    if span is None:
        return None
    # "only" must bear on the relation ("only wrote one book", "only starred in"), not on something
    # else ("she was only 20 when she wrote it"): the first verb above it is a relation word.
    linked = [v for v in (clause_verb(t) for t in span if t.lower_ == "only")
              if v is not None and families_of([stem(v.text)])]
    if not linked:
        return None
    sentence_families = families_of(stem(v.text) for v in linked)
    here = TextIndex([sentence.claim.text])
    answer = TextIndex([analysis.text])
    earlier = " ".join(s.claim.text for s in analysis.sentences[:sentence.index])
    before = TextIndex([context + "\n" + earlier])
    refers = refers_back(sentence.claim.text)
    linking = [(statement, runs) for statement, runs, relation in statements
               if len(runs) == 2 and sentence_families & families_of(relation)]
    # Whom "he" is: "He only starred in Star Trek …" beside "Simon Pegg starred in Star Trek" is
    # Simon Pegg, however many other names the conversation had.
    referents = {other for _, runs in linking for named, other in (runs, runs[::-1])
                 if here.supports_name(named) and not answer.supports_name(other)} if refers else set()
    for statement, runs in linking:
        # One of its names is what the sentence speaks of (named, or named before and referred
        # to); the other goes unmentioned.
        spoken_of = [r for r in runs if answer.supports_name(r) or (
            r in referents if referents else refers and before.supports_name(r))]
        if len(spoken_of) != 1 or not (here.supports_name(spoken_of[0]) or refers):
            continue
        return sentence_finding("ContradictsFact", sentence, analysis.text, 0.7,
                                [f"the evidence also states: {statement}"])
    return None
