"""Answers held to the supplied evidence statement by statement: a denial of
what the evidence states, and a stranger put where the evidence names someone
(or something) else.

Evidence: "Turbo is starring Snoop Dogg."  Answer: "Snoop Dog wasn't in Turbo."
The answer negates a statement whose names it repeats: ContradictsFact.

Evidence: "Dead to the World is written by Charlaine Harris."  Answer: "Do you
like it because of its author Stephen King?"  The answer speaks of the same
work and the same relation (author ~ written by) but names a person the
evidence does not know in the place of the one it does: ContradictsFact, with
the evidence's name as the suggestion.

A name the evidence merely does not mention is not contradicted by it (the
evidence is never the whole world); these checks need the evidence to say
something else about the same thing. Additions ("it also stars X", "X as
well") are left alone: a second holder does not displace the first.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.evidence import TextIndex, is_everyday, is_stop, words
from chatapp.postprocess.findings import Finding, Sources, sentence_finding
from chatapp.postprocess.genres import genre_findings, is_genre
from chatapp.postprocess.polar import answer_denials, exclusive_findings
from chatapp.postprocess.relations import clause_verb, dependency_arcs
from chatapp.postprocess.statements import evidence_statements, families_of, family_of, refers_back
from chatapp.records import Claim

PLACE_FAMILIES = frozenset({family_of("born")})
# Links a thing has few holders of (an author, a director, a birthplace) can be displaced. A person
# stars in many films, so a film the evidence does not list displaces none of them; a film's cast is
# long too, so a stranger displaces the evidence's actor only when named alone, in their place.
MANY_WORKS = frozenset({family_of("star")})
# Verbs of knowing and hedges: "I didn't know X was in Y" affirms it; "I'm not sure" doubts, not denies.
KNOWING = frozenset({"know", "realize", "realise", "hear", "remember", "forget", "notice", "see", "recall"})
BELIEF = frozenset({"think", "believe", "suppose", "guess", "reckon"})
# Parts of a clause that are clauses of their own: "I don't have the answer, but I know it is X".
OWN_CLAUSES = frozenset({"conj", "cc", "advcl", "parataxis", "ccomp", "relcl", "punct", "mark"})
HEDGES = frozenset({"sure", "aware", "certain", "positive"})
DISPLACED_RE = re.compile(r"\b(?:instead of|rather than|in place of|not)\s+((?:[A-Z][\w'’.-]*\s*)+)")
ADDITION_RE = re.compile(r"\b(?:also|too|as well|other than|besides|another|along with|in addition|apart from|"
                         r"aside from|along ?side|co-?star\w*)\b", re.IGNORECASE)
# "co-written by X and Y": a full list of the work's few holders, so one the evidence names but the
# answer leaves out is displaced all the same.
JOINT_RE = re.compile(r"\bco-?(?:writ|wrote|author|direct|produc|compos|creat)\w*", re.IGNORECASE)


def evidence_findings(analysis: AnswerAnalysis, sources: Sources, nlp, history_text: str = "",
                      question: str = "") -> list[Finding]:
    """Denials of evidence statements and strangers in their places, for answers with evidence.
    `history_text`: the conversation so far, the question included."""
    if not sources.explicit or sources.supplied.empty or analysis.doc is None:
        return []
    statements = [s for text in sources.supplied.originals for s in evidence_statements(text)]
    if not statements:
        return []
    findings = []
    for sentence in analysis.sentences:
        if sentence.mode == "meta":
            continue
        finding = _denial(sentence, analysis, statements) if sentence.mode != "question" else None
        if finding is None:
            finding = _substitution(sentence, analysis, sources, statements, nlp, history_text)
        if finding is None and sentence.mode == "statement":
            finding = _unlinked(sentence, analysis, sources, statements, nlp)
        if finding is not None:
            findings.append(finding)
    # One finding per sentence: the checks above speak more precisely where they apply.
    for extra in [*answer_denials(analysis, statements, question, history_text),
                  *exclusive_findings(analysis, statements, history_text),
                  *genre_findings(analysis, sources.supplied.originals, history_text)]:
        if not any(f.sentence == extra.sentence for f in findings):
            findings.append(extra)
    return findings


# --- denials ------------------------------------------------------------------------------


def _denial(sentence: SentenceInfo, analysis: AnswerAnalysis, statements) -> Finding | None:
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
                continue  # "I couldn't believe she married him": surprise, not denial
            clauses = [c for c in verb.children if c.dep_ == "ccomp"]
        else:
            clauses = [verb]
        scope = [t for c in clauses for t in _own_clause(c)]
        if not scope:
            continue
        said = TextIndex([" ".join(t.text for t in sorted(scope, key=lambda t: t.i))])
        for statement, runs, _ in statements:
            repeated = [r for r in runs if said.supports_name(r)]
            if len(repeated) >= 2:
                return sentence_finding("ContradictsFact", sentence, analysis.text, 0.8,
                                        [f"the evidence states: {statement}"], statement)
    return None


def _own_clause(verb) -> list:
    """The verb and what hangs on it, without the clauses joined to it."""
    out = [verb]
    for child in verb.children:
        if child.dep_ not in OWN_CLAUSES:
            out.extend(child.subtree)
    return out


# --- strangers in a known place ------------------------------------------------------------------


def _substitution(sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources, statements, nlp,
                  history_text: str) -> Finding | None:
    if ADDITION_RE.search(sentence.claim.text):
        return None
    joint = bool(JOINT_RE.search(sentence.claim.text))
    strangers = [n for n in analysis.names if n.sentence == sentence.index and not n.entity_ids
                 and not any(index.supports_name(n.claim.text) for index in (sources.supplied, sources.given, sources.earlier))]
    if not strangers:
        return None
    families = families_of(sentence.stems)
    if not families:
        return None
    # "…starred Brad Pitt instead of Matthew Modine": the name after "instead of" is the one displaced.
    displaced_text = " ".join(m.group(1) for m in DISPLACED_RE.finditer(sentence.claim.text))
    displaced = TextIndex([displaced_text]) if displaced_text else None
    kept = DISPLACED_RE.sub(" ", sentence.claim.text)
    answer_text = analysis.text.replace(displaced_text, " ") if displaced_text else analysis.text
    answer, answer_words = TextIndex([answer_text]), set(words(answer_text))
    here = TextIndex([kept])
    # What came before: the conversation and the answer's own earlier sentences ("…RocknRolla. In
    # fact, it was directed by X").
    earlier = " ".join(s.claim.text for s in analysis.sentences[:sentence.index])
    history = TextIndex([history_text + "\n" + earlier]) if history_text or earlier else None
    refers = refers_back(kept)
    for statement, runs, relation in statements:
        shared = families & families_of(relation)
        if not shared or len(runs) != 2:
            continue
        named_here = [r for r in runs if here.supports_name(r)]
        # The thing the statement is about: named in this sentence, or named before and referred to.
        anchors = named_here or ([r for r in runs if history and history.supports_name(r)] if refers else [])
        missing = [r for r in runs if r not in anchors and (
            not _mentioned(r, answer, answer_words) or (displaced is not None and displaced.supports_name(r)))]
        if len(anchors) != 1 or len(missing) != 1:
            continue
        place = bool(shared & PLACE_FAMILIES)
        for stranger in strangers:
            if any(TextIndex([stranger.claim.text]).supports_name(r) for r in runs):
                continue  # a name spaCy cut too long ("Jason Segel - definitely") is still the known one
            listed = displaced is None and not joint and _listed(stranger, analysis)
            # In a joint list ("co-written by X and Y") the second name hangs on the first.
            if listed or not _tied(stranger, analysis, shared, reach=3 if joint else 2):
                continue
            if (stranger.label == "PERSON") == place or not _same_kind(nlp, stranger.label, missing[0], statement):
                continue
            if shared <= MANY_WORKS and (stranger.label != "PERSON" or joint):
                continue
            claim = stranger.claim
            # Below the bar for rewriting the answer: the evidence may list only one of several.
            return Finding("ContradictsFact", claim.span, claim.text, 0.75, missing[0],
                           [f"the evidence states: {statement}"], sentence.index, claim.span, missing[0], major=True)
    return None


def _unlinked(sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources, statements, nlp) -> Finding | None:
    """A person and a work the evidence both knows, linked by the answer in a way the evidence
    never links them: "it was Randy Quaid who starred in Mission: Impossible" where the evidence
    has Randy Quaid in Days of Thunder and Tom Cruise in Mission: Impossible. Where the evidence
    gives the work its one holder (an author, a director, a birthplace) it is a contradiction with
    that holder as the suggestion; where a work has many (a cast), only unsupported."""
    families = families_of(sentence.stems) - PLACE_FAMILIES  # who was born first is comparisons.py's
    span = analysis.doc.char_span(*sentence.claim.span, alignment_mode="expand")
    if not families or span is None or any(t.dep_ == "neg" for t in span):
        return None
    text, start = sentence.claim.text, sentence.claim.span[0]
    here = TextIndex([text])
    people = [n for n in analysis.names if n.sentence == sentence.index and n.label == "PERSON"
              and sources.supplied.supports_name(n.claim.text)]
    if not people:
        return None
    works = []  # the evidence's names of things this sentence mentions, located in it
    for statement, runs, _ in statements:
        for run in runs:
            at = text.lower().find(run.lower())
            if (at < 0 or not here.supports_name(run) or any(w.claim.text == run for w in works)
                    or any(_same_name(run, p.claim.text) for p in people) or _label_in(nlp, statement, run) == "PERSON"
                    or is_genre(run) or not re.search(r"[A-Za-z]{3}", run) or f"a/an {run}" in statement):
                continue
            works.append(_Mention(Claim(run, (start + at, start + at + len(run)), "name")))
    said = [TextIndex([statement]) for statement, _, _ in statements]  # indexed once, asked per pair
    for person in people:
        for work in works:
            if any(index.supports_name(p.claim.text) and index.supports_name(work.claim.text)
                   for index in said for p in people):
                continue  # linked to someone this sentence names: "A starred in X and B in Y" pairs A with X
            if not _linked_by_one_word(person, work, analysis, families):
                continue
            holders = [(statement, runs) for statement, runs, relation in statements
                       if len(runs) == 2 and families & families_of(relation) - MANY_WORKS
                       and any(_same_name(r, work.claim.text) for r in runs)]
            if holders and not ADDITION_RE.search(text):
                statement, runs = holders[0]
                holder = next(r for r in runs if not _same_name(r, work.claim.text))
                claim = person.claim
                return Finding("ContradictsFact", claim.span, claim.text, 0.75, holder,
                               [f"the evidence states: {statement}"], sentence.index, claim.span, holder, major=True)
            return sentence_finding("UnsupportedClaim", sentence, analysis.text, 0.6,
                                    [f"the evidence names {person.claim.text} and {work.claim.text} but never "
                                     "links them"], major=False)
    return None


def _linked_by_one_word(a, b, analysis: AnswerAnalysis, families: set[int]) -> bool:
    """One relation word holds both names close ("Randy Quaid who starred in Mission: Impossible",
    "Tom Cruise wrote Days of Thunder"), not two clauses side by side."""
    spans = [analysis.doc.char_span(*n.claim.span, alignment_mode="expand") for n in (a, b)]
    if any(s is None for s in spans):
        return False
    roots = [s.root for s in spans]
    for token in roots[0].sent:
        if family_of(token.text) in families and all(dependency_arcs(token, r) <= 3 for r in roots):
            return not any(t.dep_ in ("conj", "parataxis") for r in roots for t in _path(token, r))
    return False


def _path(a, b) -> list:
    """The tokens between a and b in the parse, b's side (for the arcs crossed)."""
    above_a = {t.i for t in [a, *a.ancestors]}
    out = []
    for t in [b, *b.ancestors]:
        if t.i in above_a:
            break
        out.append(t)
    return out


@dataclass
class _Mention:
    claim: Claim


def _same_name(a: str, b: str) -> bool:
    return TextIndex([a]).supports_name(b) or TextIndex([b]).supports_name(a)


def ignores_evidence(answer: str, sources: Sources) -> str | None:
    """What the supplied evidence adds to the conversation that the answer leaves unused, when it
    uses none of it: the names the evidence links that neither the user nor the assistant has
    said yet. None when the answer draws on at least one, or the evidence adds nothing new."""
    if not sources.explicit or sources.supplied.empty:
        return None
    runs = dict.fromkeys(r for text in sources.supplied.originals for _, names, _ in evidence_statements(text)
                         for r in names)
    new = [r for r in runs if not sources.given.supports_name(r) and not sources.earlier.supports_name(r)]
    if not new:
        return None
    said = TextIndex([answer])
    if any(said.supports_name(r) for r in new):
        return None
    return ", ".join(new[:4])


def _mentioned(name: str, answer: TextIndex, answer_words: set[str]) -> bool:
    """Named in the answer, in full or by a distinctive part ("Sedaris" for David Sedaris; not
    "City", which New York City shares with Oklahoma City)."""
    return answer.supports_name(name) or any(
        len(w) >= 4 and w[0].isupper() and not is_stop(w) and not is_everyday(w) and w in answer_words
        for w in words(name))


def _listed(name, analysis: AnswerAnalysis) -> bool:
    """One of several names joined by "and" or commas: several holders, none displacing another."""
    span = analysis.doc.char_span(*name.claim.span, alignment_mode="expand")
    if span is None:
        return True
    root = span.root
    if root.dep_ == "conj" or any(c.dep_ == "conj" for c in root.children):
        return True
    # "stars Peter Gerety, Joss Ackland, Anthony Hopkins": names in a row, whatever the parse says.
    others = [n.claim.span for n in analysis.names if n is not name and n.sentence == name.sentence]
    text = analysis.text
    return any(re.fullmatch(r"\s*(?:,|and|&|,\s*and)\s*", text[b:name.claim.span[0]]) or
               re.fullmatch(r"\s*(?:,|and|&|,\s*and)\s*", text[name.claim.span[1]:a]) for a, b in others)


def _tied(name, analysis: AnswerAnalysis, families: set[int], reach: int = 2) -> bool:
    """A word of the relation governs the name closely, in the same clause: "its author Stephen
    King", "written by X" — not "he produced it, and X was in Y"."""
    span = analysis.doc.char_span(*name.claim.span, alignment_mode="expand")
    if span is None:
        return False
    root = span.root
    sentence = root.sent
    for token in sentence:
        if token.i in range(span.start, span.end) or family_of(token.text) not in families:
            continue
        if dependency_arcs(token, root) <= reach and clause_verb(token) == clause_verb(root):
            return True
    return False


def _same_kind(nlp, label: str, name: str, statement: str) -> bool:
    """A person stands in for a person, a work or team for a work or team."""
    kind = _label_in(nlp, statement, name)
    if kind is None:
        return False
    return (label == "PERSON") == (kind == "PERSON")


@functools.lru_cache(maxsize=4096)
def _label_in(nlp, statement: str, name: str) -> str | None:
    doc = nlp(statement)
    for ent in doc.ents:
        if name in ent.text or ent.text in name:
            return ent.label_
    return None

