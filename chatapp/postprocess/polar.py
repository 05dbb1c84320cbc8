"""Answers that say less than the evidence allows: "no" to a yes/no question
the evidence answers yes, and "only" where the evidence names more.

Evidence: "The Atlas migration is led by Dana Kim."  Question: "Is Dana Kim
leading the Atlas migration?"  Answer: "No, she isn't."  The question asks
exactly what the evidence states, so the "no" denies the evidence even though
the answer itself names nobody: ContradictsFact.

Evidence: "The Atlas migration is led by Dana Kim and Omar Haddad."  Answer:
"Only Dana Kim leads it."  Saying "only" leaves Omar Haddad out of what the
evidence lists: ContradictsFact.

Both need the evidence to state the very link in question (the same names and,
where the words say which, the same relation); an answer about something the
evidence does not cover is left to the other checks.
"""

from __future__ import annotations

import re

from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.evidence import TextIndex, is_soft, is_stop, words
from chatapp.postprocess.findings import Finding, sentence_finding
from chatapp.postprocess.relations import clause_verb
from chatapp.postprocess.statements import (
    REFERRING,
    Statement,
    families_of,
    name_runs,
    refers_back,
    relation_stem,
    same_relation,
)

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


def answer_denials(analysis: AnswerAnalysis, statements: list[Statement], question: str,
                   context: str) -> list[Finding]:
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
                                     [f"asked {asked!r}; the evidence states: {statement.text}"], statement.text)]
    return []


def _polar_questions(question: str) -> list[str]:
    """The yes/no questions of `question`, each from its opening and without a confirming tag:
    "Wait a second, is she leading it?" → "is she leading it?"; "She leads it, right?" → "She
    leads it"."""
    out = []
    for part in _QUESTION_SPLIT_RE.split(question.strip()):
        part = part.strip()
        if not part.endswith("?"):
            continue
        # The question may open after a lead-in.
        clauses = [part] + [part[m.end():] for m in re.finditer(r"[,;:]\s*", part)]
        openings = [(c, m) for c, m in ((c, _POLAR_OPEN_RE.match(c)) for c in clauses) if m]
        if openings:
            clause, opening = openings[0]
            if (opening.group(2) or "").lower() not in _CONVERSANTS:
                out.append(clause[opening.start(1):])
        elif _POLAR_TAG_RE.search(part) and not re.match(r"^\W*(?:you|i)\b", part, re.IGNORECASE):
            out.append(_POLAR_TAG_RE.sub("", part))
    return out


def _statement_asked(asked: str, statements: list[Statement], context: str) -> Statement | None:
    """The evidence statement the question asks about: a name of each place it links in the
    question (or, for a pronoun in the question, one place named in the conversation before),
    and no other name or word."""
    here = TextIndex([asked])
    before = TextIndex([context]) if context else None
    refers = refers_back(asked)
    names = name_runs(asked)
    unnamed = asked
    for name in sorted(names, key=len, reverse=True):
        unnamed = unnamed.replace(name, " ")
    # The words it asks with: "is she leading the migration?" → lead, migration.
    asking = {relation_stem(w) for w in words(unnamed)
              if families_of({relation_stem(w)}) or not (is_stop(w) or is_soft(w) or w.lower() in REFERRING)}
    for statement in statements:
        said = TextIndex([statement.text])
        if not all(said.supports_name(r) for r in names):
            continue  # "is she on the Budget Committee?" asks about something the statement does not name
        rest = [g for g in statement.groups if not any(here.supports_name(n) for n in g)]
        if len(rest) == len(statement.groups) or len(rest) > 1:
            continue
        if rest and not (refers and before is not None and any(before.supports_name(n) for n in rest[0])):
            continue
        if not all(same_relation({word}, statement) for word in asking):
            continue  # "did she approve it?" is not answered by "she drafted it"
        return statement
    return None


# --- "only" ------------------------------------------------------------------------------


def exclusive_findings(analysis: AnswerAnalysis, statements: list[Statement], context: str) -> list[Finding]:
    """'Only Dana Kim leads it' while the evidence has Omar Haddad leading it as well."""
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


def _left_out(sentence: SentenceInfo, analysis: AnswerAnalysis, statements: list[Statement],
              context: str) -> Finding | None:
    span = analysis.doc.char_span(*sentence.claim.span, alignment_mode="expand")
    if span is None:
        return None
    text, start = sentence.claim.text, sentence.claim.span[0]
    answer = TextIndex([analysis.text])
    earlier = " ".join(s.claim.text for s in analysis.sentences[:sentence.index])
    before = TextIndex([context + "\n" + earlier])
    refers = refers_back(text)
    for only in (t for t in span if t.lower_ == "only"):
        # "only" must bear on the link ("only Dana leads it", "she only leads Atlas"), not on
        # something else ("she was only hired in May"): the verb above it names the relation.
        verb = clause_verb(only)
        if verb is None or verb.pos_ != "VERB":
            continue
        linked = [s for s in statements if len(s.groups) == 2 and same_relation({relation_stem(verb.text)}, s)]
        # What "only" restricts: the name it stands before ("only Dana Kim leads it"), else what
        # follows it ("she only leads Atlas"). What that is said of is the rest, or referred to.
        head = only.head
        if head.pos_ in ("PROPN", "NOUN"):
            subtree = list(head.subtree)
            begin, end = subtree[0].idx, subtree[-1].idx + len(subtree[-1])
        else:
            begin, end = only.idx, start + len(text)
        focus = TextIndex([analysis.text[begin:end]])
        said_of = TextIndex([analysis.text[start:begin] + " " + analysis.text[end:start + len(text)]])
        partners: dict[str, list[tuple[str, Statement]]] = {}
        for statement in linked:
            for side, other in (statement.groups, statement.groups[::-1]):
                for anchor in side:
                    partners.setdefault(anchor, []).extend((name, statement) for name in other)
        restricted = {a: p for a, p in partners.items() if any(focus.supports_name(n) for n, _ in p)}
        anchors = [a for a in restricted if said_of.supports_name(a)] or (
            [a for a in restricted if before.supports_name(a) and not answer.supports_name(a)] if refers else [])
        if len(anchors) != 1:
            continue  # nobody, or several the sentence could be about
        left = [(name, statement) for name, statement in restricted[anchors[0]] if not answer.supports_name(name)]
        if left:
            return sentence_finding("ContradictsFact", sentence, analysis.text, 0.7,
                                    list(dict.fromkeys(f"the evidence also states: {s.text}" for _, s in left))[:3])
    return None
