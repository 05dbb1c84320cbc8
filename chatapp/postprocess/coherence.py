"""Coherence: does the answer address the question under discussion?

Three signals, each 0–1: the kind of answer the question asks for (a "when"
wants a date, "johns email" wants an address), staying on the question's
topic (sentence embeddings when an embedder is given, shared words
otherwise), and keeping to the entities the user asked about.
"""

from __future__ import annotations

import functools
import re

from chatapp.intents import is_document_request, is_small_talk
from chatapp.lexicon import AMBIGUOUS_NAMES, is_common, is_first_name
from chatapp.postprocess.claims import AnswerAnalysis
from chatapp.postprocess.evidence import is_stop, stem, words
from chatapp.postprocess.knowledge_view import KnowledgeView
from chatapp.records import CoherenceResult, ResolvedEntity

# Requests for an attribute outrank the grammar of the question, but only when they ask for the value:
# "what is Dana's email?" wants an address, "what did the email from Dana say?" asks about a message,
# "the phone call" and "a link between A and B" want no number and no URL.
_NOT_A_REQUEST_AFTER = r"(?!\s+(?:from|about|to|on|sent|thread|saying|said|says|call|calls|meeting|between)\b)"
ATTRIBUTE_REQUESTS = [
    ("email", re.compile(
        r"\be-?mail\s+(?:address|addr|id)\b"
        r"|(?:['’]s|\b(?:his|her|their|its|our))\s+e-?mail\b" + _NOT_A_REQUEST_AFTER +
        r"|\be-?mail\s+(?:of|for)\b|\bhow (?:do|can|should|could|would) (?:i|we) e-?mail\b"
        r"|^\W*e-?mail\b(?!\s+(?:from|about|sent))|\b[A-Z][a-z]+\s+e-?mail\b\W*$", re.I)),
    ("phone", re.compile(
        r"\b(?:phone|mobile|cell)\s*(?:number|no\b|#)|\bnumber to call\b|\bcall (?:him|her|them)\b"
        r"|(?:['’]s|\b(?:his|her|their|its|our))\s+(?:phone|mobile|cell)\b" + _NOT_A_REQUEST_AFTER, re.I)),
    ("url", re.compile(
        r"\b(?:url|website|web site|web page)\b|\blink\b(?!\s+between\b)", re.I)),
]
# Otherwise the question word that comes first decides ("what did Bob say when we met?" asks "what",
# not "when"); where two start together, the more specific listed first wins ("how many" over "how").
QUESTION_WORDS = [
    ("quantity", re.compile(r"\bhow (?:many|much|long|old|far|big)\b|\bwhat (?:number|percentage|amount)\b", re.I)),
    ("date", re.compile(r"\bwhen\b|\b(?:what|which) (?:time|date|day|year|month)\b", re.I)),
    ("location", re.compile(r"\bwhere\b|\b(?:what|which|in what|in which) (?:city|country|state|place|location|room|town)\b", re.I)),
    ("person", re.compile(r"\bwho(?:m|se)?\b", re.I)),
    ("reason", re.compile(r"\bwhy\b", re.I)),
    ("manner", re.compile(r"\bhow\b", re.I)),
    ("entity", re.compile(r"\b(?:what|which)\b", re.I)),
]
YES_NO = re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|may|might|"
                    r"isn't|aren't|wasn't|weren't|don't|doesn't|didn't|won't)\b", re.I)
REFUSAL_RE = re.compile(r"\b(?:i don'?t know|i'?m not sure|i (?:could|can)(?:n'?t| not) find|no information|"
                        r"i (?:do not|don'?t) have)\b", re.I)
WANTS = {  # question type -> answer types that satisfy it
    "email": {"email"}, "phone": {"phone"}, "url": {"url"}, "date": {"date"}, "quantity": {"quantity"},
    # "who supplies the ovens?" is answered by a company as well as by a person
    "location": {"location"}, "person": {"person", "organisation"},
}
# An answer that opens with a pronoun as its subject ("It's on…", "She is…", "That was…").
_SAID_OF_THE_ASKED = re.compile(r"\s*(?:it|he|she|they|that|this)(?:['’]s|['’]re|\s+(?:is|was|are|were|will|has|had))\b",
                                re.IGNORECASE)
# A message with fewer content words than this names no topic an answer could drift from.
TOPIC_WORDS = 2


@functools.lru_cache(maxsize=256)  # asked twice a check (wants_topic_vectors too), and many patterns
def question_type(question: str) -> str:
    if not question.strip():
        return ""
    if is_small_talk(question):
        return "small talk"
    if not is_document_request(question):
        for name, pattern in ATTRIBUTE_REQUESTS:
            if pattern.search(question):
                return name
    found = [(match.start(), order, name) for order, (name, pattern) in enumerate(QUESTION_WORDS)
             for match in [pattern.search(question)] if match]
    if found:
        return min(found)[2]
    return "yes/no" if YES_NO.search(question) else "open"


_PLACES = {"GPE", "LOC", "FAC"}
_NOT_A_DOER = _PLACES | {"DATE", "TIME", "MONEY", "QUANTITY", "PERCENT", "CARDINAL", "ORDINAL"}


def _names_a_doer(doc) -> bool:
    """A proper noun that does or undergoes the action ("Beatrix keeps the key", "led by Okafor") answers
    "who" even when it is in no name list and the recogniser missed it (short answers, rarer names)."""
    if doc is None:
        return False
    for token in doc:
        agent = token.dep_ == "pobj" and token.head.dep_ == "agent"
        # By whom a thing is done is rarely a place: a rarer name there is often labelled one ("held by
        # Tomasz" as GPE), so only times and amounts are set aside.
        not_a_doer = _NOT_A_DOER - _PLACES if agent else _NOT_A_DOER
        if not token.text.istitle() or token.ent_type_ in not_a_doer or any(c.dep_ == "det" for c in token.children):
            continue
        # The small model tags a rarer first name at the start of a sentence as a common noun; a word
        # that common English uses ("Water leaks") is no name there.
        if not (token.pos_ == "PROPN" or (token.pos_ == "NOUN" and not is_common(token.lower_))):
            continue
        if agent or token.dep_ in ("nsubj", "nsubjpass"):
            return True
    return False


def _uncommon_full_name(doc) -> bool:
    """Two or more capitalised proper nouns in a row, none an everyday word: "Ifor Penhaligon", which
    the small model may parse as a preposition and its object, or label an organisation. "Kingsway
    Hall" and "Monday" are no one."""
    run = 0
    for token in doc if doc is not None else ():
        if (token.pos_ == "PROPN" and token.text.istitle() and token.ent_type_ not in _NOT_A_DOER - _PLACES
                and not is_common(token.lower_)):
            run += 1
            if run >= 2:
                return True
        else:
            run = 0
    return False


# The words right before a bare number that make it a phone extension.
_EXTENSION_BEFORE = re.compile(r"\b(?:extension|ext\.?)(?:\s+(?:number|no\.?))?(?:\s+is|\s*[:,=])?\s*$", re.I)


def answer_types(analysis: AnswerAnalysis, view: KnowledgeView) -> list[str]:
    found: list[str] = []
    kinds = {v.value.vtype for v in analysis.values}
    for vtype, label in (("email", "email"), ("phone", "phone"), ("url", "url")):
        if vtype in kinds:
            found.append(label)
    if "phone" not in found and any(v.value.vtype == "number" and _EXTENSION_BEFORE.search(
            analysis.text, 0, v.value.span[0]) for v in analysis.values):
        found.append("phone")  # "Her extension is 207": a phone number inside the switchboard's
    if {"date", "weekday", "year", "decade", "time", "relative"} & kinds:
        found.append("date")
    if {"number", "amount", "quantity"} & kinds or re.search(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                                                            r"dozen|hundred|thousand|million|none)\b", analysis.text, re.I):
        found.append("quantity")
    entity_types = {view.entities[n.entity_ids[0]].type for n in analysis.names if n.entity_ids}
    labels = {n.label for n in analysis.names}
    # spaCy misses some names in short answers ("The lead is Dana."): a capitalised census first name
    # that is no ordinary word ("May", "Will") counts.
    if "PERSON" in labels or "person" in entity_types or _names_a_doer(analysis.doc) or _uncommon_full_name(
            analysis.doc) or any(
            is_first_name(w) and w.lower() not in AMBIGUOUS_NAMES for w in re.findall(r"\b[A-Z][a-z]+\b", analysis.text)):
        found.append("person")
    if "ORG" in labels or entity_types & {"organization", "organisation", "company", "team", "department"}:
        found.append("organisation")
    if labels & {"GPE", "LOC", "FAC"} or analysis.profile_links or re.search(r"\b(?:room|office|building|floor)\b",
                                                                              analysis.text, re.I):
        found.append("location")
    if re.match(r"\s*(?:yes|no|yeah|nope|correct|right|indeed)\b", analysis.text, re.I):
        found.append("yes/no")
    if REFUSAL_RE.search(analysis.text):
        found.append("refusal")
    return found or ["statement"]


def assess_coherence(question: str, analysis: AnswerAnalysis, view: KnowledgeView,
                     resolved: list[ResolvedEntity] = (), embedder=None, topic_vectors=None) -> CoherenceResult:
    """`topic_vectors`: the question's and the answer's vectors when the caller computed them
    already (pipeline.py embeds them beside the parse); otherwise `embedder` is asked for them."""
    if not analysis.text.strip():
        return CoherenceResult(0.0, question_type(question), "empty", ["the answer is empty"])
    q_type = question_type(question)
    a_types = answer_types(analysis, view)
    if not q_type or q_type == "small talk":
        # Greetings and thanks ask nothing: any friendly reply is coherent.
        return CoherenceResult(1.0, q_type, a_types[0], [])
    issues: list[str] = []

    type_score = 1.0
    wanted = WANTS.get(q_type)
    if "refusal" in a_types:
        type_score = 0.6
        issues.append("the answer declines to answer")
    elif wanted and not wanted & set(a_types):
        type_score = 0.3
        issues.append(f"the question asks for {_article(q_type)} but the answer gives none")

    topic_score = _topic(question, analysis, embedder, topic_vectors)
    gives_a_value = wanted & set(a_types) if wanted else any(v.sentence == 0 for v in analysis.values)
    if gives_a_value and _SAID_OF_THE_ASKED.match(analysis.text):
        # "When is the site visit?" — "It's on 8 December, run by Maelle"; "What is the planning
        # reference?" — "It's 26/01873/LBC": the answer's subject is the question's, so a value of the
        # kind asked for (any value, when the question names no kind) is on the topic.
        topic_score = max(topic_score, 0.5)
    if topic_score < 0.5 and sum(not is_stop(w) for w in words(question)) >= TOPIC_WORDS:
        issues.append("the answer drifts from the question's topic")

    entity_score = 1.0
    asked = [r.entity_id for r in resolved if r.entity_id and r.entity_id in view.entities]
    if asked:
        said = {e for s in analysis.sentences for e in s.entity_ids}
        if not set(asked) & said:
            types = {view.entities[a].type for a in asked}
            others = [e for e in said if view.entities[e].type in types]
            if others:
                entity_score = 0.3
                issues.append(f"the question is about {view.name(asked[0])} but the answer talks about "
                              f"{view.name(others[0])}")
            else:
                entity_score = 0.8

    score = 0.45 * type_score + 0.35 * topic_score + 0.2 * entity_score
    return CoherenceResult(round(score, 3), q_type, a_types[0], issues)


def wants_topic_vectors(question: str, text: str) -> bool:
    """assess_coherence will compare the question and `text` by their vectors (given an embedder):
    the question asks something, and the answer is more than a terse one."""
    q_type = question_type(question)
    return bool(text.strip() and q_type and q_type != "small talk" and not _terse(text))


def _terse(text: str) -> bool:
    return sum(not is_stop(w) for w in words(text)) <= 5


def _topic(question: str, analysis: AnswerAnalysis, embedder, vectors=None) -> float:
    if _terse(analysis.text):
        return 1.0  # a terse answer is judged by its kind, not by repeating the question
    asked = {stem(w) for w in words(question) if not is_stop(w)}
    said = {stem(w) for w in words(analysis.text) if not is_stop(w)}
    shared = len(asked & said) / len(asked) if asked else 1.0
    if vectors is not None or embedder is not None:
        if vectors is None:
            vectors = embedder.embed([question, analysis.text])
        similarity = float(vectors[0] @ vectors[1])
        score = max(0.0, min(1.0, (similarity - 0.1) / 0.35))
        # A long answer whose other lines pull its vector away ("Office: … · Switchboard: 0113 …" for
        # "what is the switchboard number?") still has not drifted when it says half the question's words.
        return max(score, 0.5) if shared >= 0.5 else score
    # An answer on the topic seldom repeats every word of the question: a third of them is plenty.
    return max(0.0, min(1.0, 0.5 + 1.5 * shared))


def _article(q_type: str) -> str:
    return {"email": "an email address", "phone": "a phone number", "url": "a link", "date": "a date or time",
            "quantity": "a number", "location": "a place", "person": "a person"}.get(q_type, q_type)
