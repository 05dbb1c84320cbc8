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

from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.evidence import TextIndex, stem, words
from chatapp.postprocess.findings import Finding, Sources
from chatapp.postprocess.relations import dependency_arcs

# Words naming the same link between a work and a person, by family (compared by stem).
RELATION_FAMILIES = [
    {"write", "wrote", "written", "writer", "author", "authored", "novelist", "pen", "penned"},
    {"direct", "directed", "director"},
    {"produce", "produced", "producer"},
    {"compose", "composed", "composer", "lyricist"},
    {"coach", "coached", "manager", "managed"},
    {"born", "birth", "birthplace"},
    {"star", "starring", "starred", "stars", "actor", "actress", "cast"},
]
PLACE_FAMILIES = frozenset({5})
# Links a thing has few holders of (an author, a director, a birthplace) can be displaced. A person
# stars in many films, so a film the evidence does not list displaces none of them; a film's cast is
# long too, so a stranger displaces the evidence's actor only when named alone, in their place.
MANY_WORKS = frozenset({6})
_FAMILY_OF = {stem(word): i for i, family in enumerate(RELATION_FAMILIES) for word in family}
# Verbs of knowing and hedges: "I didn't know X was in Y" affirms it; "I'm not sure" doubts, not denies.
KNOWING = frozenset({"know", "realize", "realise", "hear", "remember", "forget", "notice", "see", "recall"})
BELIEF = frozenset({"think", "believe", "suppose", "guess", "reckon"})
# Parts of a clause that are clauses of their own: "I don't have the answer, but I know it is X".
OWN_CLAUSES = frozenset({"conj", "cc", "advcl", "parataxis", "ccomp", "relcl", "punct", "mark"})
HEDGES = frozenset({"sure", "aware", "certain", "positive"})
ADDITION_RE = re.compile(r"\b(?:also|too|as well|other than|besides|another|along with|in addition|apart from|"
                         r"aside from|alongside|co-?\w+)\b", re.IGNORECASE)
REFERRING = frozenset({"it", "its", "he", "his", "him", "she", "her", "they", "their", "this", "that", "the"})
_NAME_RUN_RE = re.compile(r"[A-Z0-9][\w'’.&:!-]*(?:\s+(?:(?:of|the|and|a|an|to|in|on|for|at|with|de|la|von|van)\s+)*"
                          r"[A-Z0-9][\w'’.&:!-]*)*")
# Scraped triples run together: "…starred in TurboTurbo is starring…", "…Jr.Robert Downey…".
_GLUE_RE = re.compile(r"(?<=[a-z0-9)\]])(?=[A-Z])|(?<=[.!?])(?=[A-Z])")
_NEGATED_RE = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)
_LEADING_STOP = frozenset({"the", "a", "an", "it", "this", "that", "he", "she", "they", "his", "her", "its"})


def evidence_findings(analysis: AnswerAnalysis, sources: Sources, nlp, history_text: str = "") -> list[Finding]:
    """Denials of evidence statements and strangers in their places, for answers with evidence."""
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
        if finding is not None:
            findings.append(finding)
    return findings


@functools.lru_cache(maxsize=1024)
def evidence_statements(text: str) -> tuple[tuple[str, tuple[str, ...], frozenset[str]], ...]:
    """(statement, the names in it, its relation stems) for each affirmative statement of `text`."""
    out = []
    for piece in _GLUE_RE.split(text):
        for statement in re.split(r"(?<=[.!?])\s+|\n+", piece):
            statement = statement.strip(" .")
            if not statement or _NEGATED_RE.search(statement):
                continue
            runs = tuple(dict.fromkeys(r for r in (_trim(m.group(0)) for m in _NAME_RUN_RE.finditer(statement)) if r))
            runs = tuple(r for r in runs if not any(r != o and set(r.split()) <= set(o.split()) for o in runs))
            name_stems = {stem(w) for r in runs for w in words(r)}
            relation = frozenset(stem(w) for w in words(statement) if stem(w) not in name_stems)
            if len(runs) >= 2:
                out.append((statement, runs, relation))
    return tuple(out)


def _trim(run: str) -> str:
    tokens = run.split()
    while tokens and tokens[0].lower() in _LEADING_STOP:
        tokens.pop(0)
    return " ".join(tokens).strip(" .:")


def _families(stems) -> set[int]:
    return {_FAMILY_OF[s] for s in stems if s in _FAMILY_OF}


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
                end = sentence.claim.span[1] - (1 if sentence.claim.text[-1:] in ".!?" else 0)
                return Finding("ContradictsFact", (sentence.claim.span[0], end),
                               analysis.text[sentence.claim.span[0]:end], 0.8, statement,
                               [f"the evidence states: {statement}"], sentence.index, major=True)
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
    strangers = [n for n in analysis.names if n.sentence == sentence.index and not n.entity_ids
                 and not any(index.supports_name(n.claim.text) for index in (sources.supplied, sources.given, sources.earlier))]
    if not strangers:
        return None
    families = _families(sentence.stems)
    if not families:
        return None
    answer = TextIndex([analysis.text])
    here = TextIndex([sentence.claim.text])
    history = TextIndex([history_text]) if history_text else None
    refers = bool({w.lower() for w in words(sentence.claim.text)} & REFERRING)
    for statement, runs, relation in statements:
        shared = families & _families(relation)
        if not shared or len(runs) != 2:
            continue
        named_here = [r for r in runs if here.supports_name(r)]
        # The thing the statement is about: named in this sentence, or named before and referred to.
        anchors = named_here or ([r for r in runs if history and history.supports_name(r)] if refers else [])
        missing = [r for r in runs if r not in anchors and not answer.supports_name(r)]
        if len(anchors) != 1 or len(missing) != 1:
            continue
        place = bool(shared & PLACE_FAMILIES)
        for stranger in strangers:
            if any(TextIndex([stranger.claim.text]).supports_name(r) for r in runs):
                continue  # a name spaCy cut too long ("Jason Segel - definitely") is still the known one
            if _listed(stranger, analysis) or not _tied(stranger, analysis, shared):
                continue
            if (stranger.label == "PERSON") == place or not _same_kind(nlp, stranger.label, missing[0], statement):
                continue
            if shared <= MANY_WORKS and stranger.label != "PERSON":
                continue
            claim = stranger.claim
            # Below the bar for rewriting the answer: the evidence may list only one of several.
            return Finding("ContradictsFact", claim.span, claim.text, 0.75, missing[0],
                           [f"the evidence states: {statement}"], sentence.index, claim.span, missing[0], major=True)
    return None


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


def _tied(name, analysis: AnswerAnalysis, families: set[int]) -> bool:
    """A word of the relation governs the name closely: "its author Stephen King", "written by X"."""
    span = analysis.doc.char_span(*name.claim.span, alignment_mode="expand")
    if span is None:
        return False
    root = span.root
    sentence = root.sent
    for token in sentence:
        if token.i in range(span.start, span.end) or _FAMILY_OF.get(stem(token.text)) not in families:
            continue
        if dependency_arcs(token, root) <= 2:
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

