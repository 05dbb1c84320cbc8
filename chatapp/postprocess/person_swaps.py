"""Who the sources say did what the answer says, checked against who the answer says did it.

"The £18,400 budget was approved by Lorcan Abernethy on 12 October 2026" uses the words of the
status page, yet the page's line says "approved by Anouk". Every word but the name is borne out, so
nothing else calls the claim wrong. When the one source sentence that says nearly all the claim says
names one other known person, and not the one the answer gives, the answer has put the wrong person
in it: a ContradictsFact, corrected to the person the sources name.

Left alone: a sentence that names more than one known person, or speaks of the sources' person by a
pronoun after the answer named them (who did what to whom is the parse's business, not this check's),
a claim the best source sentence shares fewer than three words with, a best sentence that names nobody
or several people, and a claim some other source sentence nearly as like it says of the answer's own
person.
"""

from __future__ import annotations

import re

from chatapp.knowledge.extraction.observations import HONORIFIC
from chatapp.postprocess.claims import AnswerAnalysis, NameClaim, SentenceInfo
from chatapp.postprocess.evidence import stem, words
from chatapp.postprocess.findings import Finding, Sources
from chatapp.postprocess.knowledge_view import KnowledgeView

# The claim's own words (its name's left out) it must share with the source sentence, as a count and a
# share; a sentence naming the answer's person that shares more than RIVAL_SHARE of that share could be
# the one the claim tells.
MIN_WORDS = 3
MIN_OVERLAP = 0.75
RIVAL_SHARE = 0.5
# A reading of one sentence's words: enough to correct, less than a registry's record.
CONFIDENCE = 0.75
# A name (after a greeting) opening a sentence and set off by a comma: who the mail speaks to.
_VOCATIVE = re.compile(r"^\s*(?:(?i:hi|hello|hey|dear|thanks|thank you|morning)\s+)?([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)\s*,")


def person_swaps(analysis: AnswerAnalysis, sources: Sources, taken: list[tuple[int, int]]) -> list[Finding]:
    """Findings for statements naming one known person where the source sentence that says what they
    say names one other known person instead. `taken`: spans other checks already flagged."""
    view = sources.view
    if sources.supplied.empty or not view.entities:
        return []
    found = []
    for sentence in analysis.sentences:
        if sentence.mode != "statement" or sentence.negated:
            continue
        people = [n for n in analysis.names if n.sentence == sentence.index and _person(n, view)]
        if len(people) != 1 or len(people_in(sentence.claim.text, view)) != 1:
            continue
        said = people[0]
        start, end = said.claim.span
        if any(a < end and start < b for a, b in taken):
            continue
        dates = [v.value.span for v in analysis.values if v.value.kind == "date" and v.sentence == sentence.index]
        other, where = _named_instead(sentence, said, sources, dates) or (None, "")
        if other is None:
            continue
        if _PRONOUN.search(sentence.claim.text) and other in people_in(analysis.text, view):
            # "Dana Pruitt was employee of the month. Chris Dalton nominated her for the shadow board …":
            # the sources' person is in the sentence as "her"; two people are in it, as in the sources.
            continue
        name = view.name(other)
        found.append(Finding("ContradictsFact", (start, end), said.claim.text, CONFIDENCE, name,
                             [where], sentence.index, (start, end), name, major=True))
    return found


def _named_instead(sentence: SentenceInfo, said: NameClaim, sources: Sources,
                   dates: list[tuple[int, int]] = ()) -> tuple[str, str] | None:
    """(the other person's id, the source sentence) when the source sentence most like the claim names
    exactly one known person and it is not the answer's. The claim's dates (`dates`, spans in the answer)
    count for the likeness only where a source sentence has them too: when something was done says
    nothing of who did it, and a mail's "this morning" is the day in its header, which its sentence does
    not write."""
    view, person = sources.view, said.entity_ids[0]
    # The claim's words split as the evidence's are: "£2,000" is "2" and "000" there.
    stems = {stem(part) for w, _, _ in sentence.words for part in words(w)} - {stem(w) for w in words(said.claim.text)}
    if len(stems) < MIN_WORDS:
        return None
    # A date's words count where the sentence has them too ("wrote to her on 25 November"), not against.
    in_dates = {stem(part) for w, span, _ in sentence.words if any(a <= span[0] < b for a, b in dates)
                for part in words(w)} & stems
    if len(stems - in_dates) < 2:
        return None  # "Rufus did it on 25 November 2026": nothing but when
    sentences = sources.supplied.sentences
    scored = []
    for i, (text, _, _) in enumerate(sentences):
        stated = _with_its_antecedent(sentences, i)
        scored.append((len(stems & stated) / (len(stems - in_dates) + len(in_dates & stated)), text))
    overlap = max(o for o, _ in scored)
    best = {text for o, text in scored if o == overlap}
    if overlap < MIN_OVERLAP or len(best) != 1:
        return None
    where = best.pop()
    named = people_in(where, view) - _addressed(where, view) - _inside_longer_names(where, view)
    if person in named or len(named) != 1:
        return None
    if any(o > overlap * RIVAL_SHARE and person in people_in(text, view) for o, text in scored):
        return None  # another sentence nearly as like the claim says it of the answer's person
    return named.pop(), where


def _with_its_antecedent(sentences: list[tuple[str, set[str], int]], i: int) -> set[str]:
    """A source sentence's stems, with the sentence's before it in the same text when it speaks of a thing
    as "it": "The Christmas party is on Saturday 12 December. Sigrid Aaslund is organising it this year."
    says who organises the Christmas party."""
    text, stems, where = sentences[i]
    if i and sentences[i - 1][2] == where and _IT.search(text):
        return stems | sentences[i - 1][1]
    return stems


_IT = re.compile(r"\bit\b", re.IGNORECASE)
# A pronoun for a person: the sentence may speak of someone the answer named before it.
_PRONOUN = re.compile(r"\b(?:she|he|her|him|hers|his|they|them|their)\b", re.IGNORECASE)


def _addressed(text: str, view: KnowledgeView) -> set[str]:
    """The person a mail's sentence speaks to, not of: "Rajesh, the lease is approved …", "Hi Ana, …"."""
    opening = _VOCATIVE.match(text)
    return people_in(opening.group(1), view) if opening else set()


def _inside_longer_names(text: str, view: KnowledgeView) -> set[str]:
    """The people `text` names only as the end of a longer name in capitals, "the auditorium of Unidade Passo
    Taquara", where a place or a firm is named, not that person (a title before a name, "Dr", is no part of it)."""
    inside, alone = set(), set()
    for mention in view.find_mentions(text):
        if len(mention.entity_ids) != 1:
            continue
        before = re.search(r"(?<![.!?:;])(?<![.!?:;]\s)\b([A-Z][\w'’-]*)\s+$", text[:mention.span[0]])
        longer = before is not None and not re.fullmatch(HONORIFIC, f"{before.group(1)} ", re.IGNORECASE) \
            and text[:before.start()].strip() != ""
        (inside if longer else alone).add(mention.entity_ids[0])
    return inside - alone


def _person(name: NameClaim, view: KnowledgeView) -> bool:
    return bool(name.entity_ids) and view.entities[name.entity_ids[0]].type == "person"


def people_in(text: str, view: KnowledgeView) -> set[str]:
    """The known people `text` names (a first name or a surname that is one person's only), or names by
    a role only they hold ("only the managing director can approve …")."""
    return {m.entity_ids[0] for m in view.find_mentions(text)
            if len(m.entity_ids) == 1 and view.entities[m.entity_ids[0]].type == "person"} | view.role_holders_in(text)
