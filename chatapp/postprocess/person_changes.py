"""Who a source says now does what the answer gives to someone else.

A rota lists "19/12/2026 | Saturday | Dr Mereana Pōtae" as the on-call vet; a later mail says "Saturday
19 and Sunday 20 December: on-call vet is now Dr Sione Fifita". An answer naming Mereana for that
Saturday finds her on the rota, so nothing else calls it wrong; but the sources say the duty has passed
to someone else. The answer gives the old holder: a TemporalError, corrected to the person named after
"now".

A later mail's "from Monday Kagiso Molefe takes over as site agent on the Kya Sand warehouse" (or "Ana
replaces Tom as chair") is such a change too, a lasting one: an answer naming anyone else as the Kya Sand
site agent now is corrected to Kagiso, whatever day it gives or leaves out; one telling who held it
before ("was the site agent until November") is left alone.

Left alone: a source clause whose words before "now" (what changed hands: "on-call vet") are not all in
the answer's sentence; a claim sharing fewer than MIN_WORDS of its words (names aside) with the source
sentence, giving a number it does not (another day), or none of its numbers when it gives some (which
day is unsaid); a claim already naming the new holder; and a claim in which more than one known person
goes unnamed by the source sentence (whose part changed is unclear).
"""

from __future__ import annotations

import re

from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.evidence import is_stop, stem, words
from chatapp.postprocess.findings import Finding, Sources
from chatapp.postprocess.knowledge_view import KnowledgeView
from chatapp.postprocess.person_swaps import people_in

MIN_WORDS = 3
MIN_OVERLAP = 0.5
CONFIDENCE = 0.8

# "on-call vet is now Dr Sione Fifita", "the chair is now with Ana": the clause before "now" says what
# changed hands, a person named within a few words after it who holds it now. Not "until now", "by now".
_NOW = re.compile(r"(?<![\w])(?<!until )(?<!by )(?<!for )now\b(?!\s+that\b)", re.IGNORECASE)
_CLAUSE_START = re.compile(r"[;:,(—–]|\s-\s|^")
_BETWEEN = re.compile(r"\s*(?:[\w.’']+\s+){0,3}?$")
_NUMBER = re.compile(r"\d+")
# "from Monday Kagiso Molefe takes over as site agent on the warehouse job", "Ana replaces Tom as chair":
# the person just before the verb holds the role named after "as" from then on.
_TAKES_OVER = re.compile(r"\s+(?:takes|took|will\s+take|has\s+taken|is\s+taking)\s+over\s+as\s+"
                         r"|\s+(?:replaces|replaced|will\s+replace|has\s+replaced)\s+(?:[\w'’-]+\s+){1,4}?as\s+",
                         re.IGNORECASE)
# The role's words after "as", up to where it is held ("on the …", "at …", "from …") or the clause ends.
_ROLE_AFTER_AS = re.compile(r"(?:the\s+|our\s+|new\s+)*((?:(?!(?:on|at|for|of|from|in|until|with)\b)[\w'’-]+\s*){1,4}?)"
                            r"(?=\s+(?:on|at|for|of|from|in|until|with)\b|\s*[,.;()]|\s*$)", re.IGNORECASE)
# What the role is held on: "on the Kya Sand warehouse (RC-2607)", "for Brindlecombe from Sunniva".
_THING_AFTER_ROLE = re.compile(r"\s+(?:on|at|for|of|in)\s+((?:(?!(?:from|until|with|and)\b)[^\W\d_][\w'’-]*\s*){1,6})",
                               re.IGNORECASE)
# "From Monday 1 March Ana Ruru will be Harbour Civil's project lead for the Wharf Street job": a role
# said to start on a day, held from then on; "As of", "Starting" and "Effective" open such a day too.
_FROM_DAY = re.compile(r"\b(?:from|as\s+of|starting|effective)\s", re.IGNORECASE)
_WILL_BE = re.compile(r"\s+(?:will\s+be|becomes|will\s+become)\s+", re.IGNORECASE)
_CHANGE_WORDS = re.compile(r"\bnow\b|\bover\s+as\b|\breplace[sd]?\b|\bwill\s+be(?:come)?\b|\bbecomes\b",
                           re.IGNORECASE)


def person_changes(analysis: AnswerAnalysis, sources: Sources, taken: list[tuple[int, int]]) -> list[Finding]:
    """Findings for a person the answer names where a source sentence says what the claim is about is
    now someone else's. `taken`: spans other checks already flagged."""
    view = sources.view
    if sources.supplied.empty or not view.entities:
        return []
    changes = [change for text, stems, _ in sources.supplied.sentences if _CHANGE_WORDS.search(text)
               for change in _now_held(text, stems, view) + _taken_over(text, stems, view)]
    if not changes:
        return []
    found = []
    for sentence in analysis.sentences:
        if sentence.mode != "statement" or sentence.negated:
            continue
        people = [n for n in analysis.names if n.sentence == sentence.index and n.entity_ids
                  and view.entities[n.entity_ids[0]].type == "person"]
        if not people:
            continue
        for text, stems, label, holder, lasting, thing in changes:
            said_ids = {n.entity_ids[0] for n in people}
            if lasting and sentence.past:
                continue  # "Anri was the site agent until November": who held it before is no error
            if holder in said_ids or not _about(sentence, text, stems, label,
                                                {w for n in people for w in words(n.claim.text)}, lasting):
                continue
            if thing and len(thing & sentence.stems) * 2 < len(thing):
                continue  # "takes over as account lead for Brindlecombe" says nothing of Harnwell Foods' lead
            # A takeover names the one it takes over from ("Anri starts her leave, so Kagiso takes over"):
            # the answer's other person is the old holder, named there or not.
            named_there = {holder} if lasting else people_in(text, view)
            unnamed = [n for n in people if n.entity_ids[0] not in named_there]
            if len(unnamed) != 1:
                continue
            start, end = unnamed[0].claim.span
            if any(a < end and start < b for a, b in taken):
                continue
            name = view.name(holder)
            found.append(Finding("TemporalError", (start, end), unnamed[0].claim.text, CONFIDENCE, name, [text],
                                 sentence.index, (start, end), name, major=True))
            taken = [*taken, (start, end)]
            break
    return found


# (sentence, its stems, the stems of what changed hands, who holds it now, whether it lasts, what it is on)
_Change = tuple[str, set[str], set[str], str, bool, set[str]]


def _now_held(text: str, stems: set[str], view: KnowledgeView) -> list[_Change]:
    """(sentence, its stems, the stems of what changed hands, who holds it now, False, no thing) for each
    "… is now <person>" in a source sentence."""
    held = []
    mentions = [m for m in view.find_mentions(text)
                if len(m.entity_ids) == 1 and view.entities[m.entity_ids[0]].type == "person"]
    for match in _NOW.finditer(text):
        after = [m for m in mentions if m.span[0] >= match.end() and _BETWEEN.match(text[match.end():m.span[0]])]
        if not after:
            continue
        clause_start = max(m.end() for m in _CLAUSE_START.finditer(text[:match.start()]))
        label = {stem(w) for w in words(text[clause_start:match.start()]) if not is_stop(w)} - {stem("now")}
        if label:
            held.append((text, stems, label, after[0].entity_ids[0], False, set()))
    return held


def _taken_over(text: str, stems: set[str], view: KnowledgeView) -> list[_Change]:
    """(sentence, its stems, the stems of the role, who holds it from now on, True, the stems of what the
    role is on) for each "<person> takes over as <role> on <thing>" or "<person> replaces … as <role>" in
    a source sentence: a lasting change, so the day it starts need not be in the answer, but half the
    words of the thing must be."""
    held = []
    mentions = [m for m in view.find_mentions(text)
                if len(m.entity_ids) == 1 and view.entities[m.entity_ids[0]].type == "person"]
    starts = [*_TAKES_OVER.finditer(text),
              *(m for m in _WILL_BE.finditer(text) if _FROM_DAY.search(text, 0, m.start()))]
    for match in starts:
        before = [m for m in mentions if m.span[1] <= match.start() and not text[m.span[1]:match.start()].strip()]
        role = _ROLE_AFTER_AS.match(text, match.end())
        if not before or not role:
            continue
        label = {stem(w) for w in words(role.group(1)) if not is_stop(w)}
        on = _THING_AFTER_ROLE.match(text, role.end())
        thing = {stem(w) for w in words(on.group(1)) if not is_stop(w)} if on else set()
        if label:
            held.append((text, stems, label, before[-1].entity_ids[0], True, thing))
    return held


def _about(sentence: SentenceInfo, text: str, stems: set[str], label: set[str], name_words: set[str],
           lasting: bool = False) -> bool:
    """Whether the claim's sentence says what the source sentence's change is about: every word of what
    changed hands, every number it gives (of a lasting change, the day it starts may go unsaid), and
    enough of its other words."""
    own = {stem(part) for w, _, _ in sentence.words for part in words(w)} - {stem(w) for w in name_words}
    if not label <= own | sentence.stems or len(own) < MIN_WORDS:
        return False
    said, stated = set(_NUMBER.findall(sentence.claim.text)), set(_NUMBER.findall(text))
    if not said <= stated or (stated and not said and not lasting):
        return False  # another day's line, or a claim that does not say which day it is about
    return len(own & stems) / len(own) >= MIN_OVERLAP
