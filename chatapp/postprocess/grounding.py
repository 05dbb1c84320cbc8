"""Answers held to the evidence a user supplied (`chatapp check --evidence`),
statement by statement.

Evidence: "The Atlas migration is led by Dana Kim."  Answer: "Dana Kim doesn't
lead the Atlas migration."  The answer negates a statement whose names it
repeats: ContradictsFact, with the statement as the suggestion. polar.py adds
a "no" to a yes/no question the evidence answers yes, and an "only" that
leaves out what the evidence lists.

A name the evidence merely does not mention is not contradicted by it (the
evidence is never the whole world); these checks need the evidence to say
something about the very link the answer speaks of.
"""

from __future__ import annotations

from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.evidence import TextIndex
from chatapp.postprocess.findings import Finding, Sources, sentence_finding
from chatapp.postprocess.polar import answer_denials, exclusive_findings
from chatapp.postprocess.statements import Statement, evidence_statements

# Verbs of knowing and hedges: "I didn't know X leads Y" affirms it; "I'm not sure" doubts, not denies.
KNOWING = frozenset({"know", "realize", "realise", "hear", "remember", "forget", "notice", "see", "recall"})
BELIEF = frozenset({"think", "believe", "suppose", "guess", "reckon"})
# Parts of a clause that are clauses of their own: "I don't have the answer, but I know it is X".
OWN_CLAUSES = frozenset({"conj", "cc", "advcl", "parataxis", "ccomp", "relcl", "punct", "mark"})
HEDGES = frozenset({"sure", "aware", "certain", "positive"})


def evidence_findings(analysis: AnswerAnalysis, sources: Sources, history_text: str = "",
                      question: str = "") -> list[Finding]:
    """Denials of evidence statements, for answers checked against supplied evidence.
    `history_text`: the conversation so far, the question included."""
    if not sources.explicit or sources.supplied.empty or analysis.doc is None:
        return []
    statements = [s for text in sources.supplied.texts for s in evidence_statements(text)]
    if not statements:
        return []
    findings = [f for sentence in analysis.sentences if sentence.mode not in ("meta", "question")
                for f in [_denial(sentence, analysis, statements)] if f is not None]
    # One finding per sentence: a denial of a statement speaks more precisely than the others.
    for extra in [*answer_denials(analysis, statements, question, history_text),
                  *exclusive_findings(analysis, statements, history_text)]:
        if not any(f.sentence == extra.sentence for f in findings):
            findings.append(extra)
    return findings


def _denial(sentence: SentenceInfo, analysis: AnswerAnalysis, statements: list[Statement]) -> Finding | None:
    span = analysis.doc.char_span(*sentence.claim.span, alignment_mode="expand")
    if span is None:
        return None
    for token in span:
        if token.dep_ != "neg" and token.lower_ != "never":
            continue
        verb = token.head
        lemma = verb.lemma_.lower()
        if lemma in KNOWING or any(c.lower_ in HEDGES for c in verb.children):
            continue
        if lemma in BELIEF:
            if any(c.dep_ == "aux" and c.lower_ in ("could", "can", "ca") for c in verb.children):
                continue  # "I couldn't believe she got the budget": surprise, not denial
            clauses = [c for c in verb.children if c.dep_ == "ccomp"]
        else:
            clauses = [verb]
        scope = [t for c in clauses for t in _own_clause(c)]
        if not scope:
            continue
        said = TextIndex([" ".join(t.text for t in sorted(scope, key=lambda t: t.i))])
        for statement in statements:
            # Two of the places the statement links are named in what is denied: its link itself.
            if sum(any(said.supports_name(n) for n in group) for group in statement.groups) >= 2:
                return sentence_finding("ContradictsFact", sentence, analysis.text, 0.8,
                                        [f"the evidence states: {statement.text}"], statement.text)
    return None


def _own_clause(verb) -> list:
    """The verb and what hangs on it, without the clauses joined to it."""
    out = [verb]
    for child in verb.children:
        if child.dep_ not in OWN_CLAUSES:
            out.extend(child.subtree)
    return out
