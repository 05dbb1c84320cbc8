"""The supplied evidence read as statements: each affirmative sentence with
the names it links, grouped where it lists several in one place, and the
words that say how ("The Atlas migration is led by Dana Kim and Omar
Haddad": Atlas | Dana Kim, Omar Haddad; led → lead).

Which words name the same link ("leads", "heads", "runs"; "owns",
"responsible") comes from the general attribute lexicon (chatapp/lexicon.py),
not from any one knowledge base.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from chatapp.lexicon import ATTRIBUTE_CONCEPTS
from chatapp.postprocess.evidence import is_stop, stem, words

# Attribute concepts whose values are people or things linked to an entity: the relations a
# statement states between two names.
RELATION_CONCEPTS = ("lead", "owner", "manager", "manages", "organizer", "attendees")


def relation_stem(word: str) -> str:
    """The stem a relation word is compared by ("led" → lead, "leads" → lead: stem() knows irregular forms)."""
    return stem(word)


@functools.lru_cache(maxsize=1)
def relation_families() -> tuple[frozenset[str], ...]:
    """The stems of each of RELATION_CONCEPTS' words, in its order. Built on first use, not on import:
    stemming irregular forms reads spaCy's tables, and the chat's live diff imports this module long
    before anything checks an answer."""
    out = []
    for concept in RELATION_CONCEPTS:
        cues, holders = ATTRIBUTE_CONCEPTS.get(concept, ((), ()))
        out.append(frozenset(relation_stem(w) for w in (*cues, *holders) if " " not in w))
    return tuple(out)


# Words that point back to something named before ("she leads it", "the project").
REFERRING = frozenset({"it", "its", "he", "his", "him", "she", "her", "they", "their", "this", "that", "the"})
_NAME_RUN_RE = re.compile(r"[A-Z0-9][\w'’.&:!-]*(?:\s+(?:(?:of|the|and|a|an|to|in|on|for|at|with|de|la|von|van)\s+)*"
                          r"[A-Z0-9][\w'’.&:!-]*)*")
# A statement ends at a full stop and a space, but not at an initial's or a title's ("J. R. Ortiz",
# "Dr. Omar Haddad", "Martin Luther King Jr. Day").
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)(?<!\b[JS]r\.)(?<!\b[DM]r\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bSt\.)"
                              r"\s+|\n+")
# What joins the names of a list: "Dana Kim, Omar Haddad and Lee Park".
_LIST_JOIN_RE = re.compile(r"\s*(?:,\s*(?:and\s+|&\s+)?|\s(?:and|&)\s)\s*")
_NEGATED_RE = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)
_LEADING_STOP = frozenset({"the", "a", "an", "it", "this", "that", "he", "she", "they", "his", "her", "its",
                           # a question's opening word, capitalised: "Is Dana Kim…", "Did Omar…"
                           "is", "was", "are", "were", "did", "does", "do", "has", "have", "had", "can", "could",
                           "will", "would", "isn't", "wasn't", "didn't", "doesn't", "yes", "no", "so", "and", "but",
                           "oh", "wait", "ok", "okay", "i", "only"})


@dataclass(frozen=True)
class Statement:
    """One affirmative sentence of the evidence."""

    text: str
    # The names it links, a group per place: a list ("Dana Kim and Omar Haddad") is one group.
    groups: tuple[tuple[str, ...], ...]
    relation: frozenset[str]  # stems of the words between the names (relation_stem)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for group in self.groups for name in group)


@functools.lru_cache(maxsize=1024)
def evidence_statements(text: str) -> tuple[Statement, ...]:
    """Every affirmative statement of `text` that links two or more names."""
    out = []
    for statement in (s.strip(" .") for s in _SENTENCE_END_RE.split(text)):
        if not statement or _NEGATED_RE.search(statement):
            continue
        groups = name_groups(statement)
        # The words between the names say how they are linked ("Omar Haddad heads Support": heads).
        between = statement
        for name in sorted((n for g in groups for n in g), key=len, reverse=True):
            between = between.replace(name, " ")
        if len(groups) >= 2:
            out.append(Statement(statement, groups, frozenset(relation_stem(w) for w in words(between))))
    return tuple(out)


def name_groups(text: str) -> tuple[tuple[str, ...], ...]:
    """The capitalised runs of `text`, those joined as a list grouped together: "Dana Kim, Omar
    Haddad and Lee Park lead Atlas" → (Dana Kim, Omar Haddad, Lee Park), (Atlas)."""
    groups: list[list[str]] = []
    end = None
    for match in _NAME_RUN_RE.finditer(text):
        listed = bool(groups) and end is not None and _LIST_JOIN_RE.fullmatch(text[end:match.start()]) is not None
        members = [m for m in (_trim(p) for p in _list_members(match.group(0), listed)) if m]
        if not members:
            continue
        if listed:
            groups[-1].extend(members)
        else:
            groups.append(members)
        end = match.end()
    return tuple(tuple(dict.fromkeys(g)) for g in groups)


def _list_members(run: str, listed: bool) -> list[str]:
    """A run joined by "and" is a list when each part is a full name ("Dana Kim and Omar Haddad")
    or it ends a list begun with commas ("Dana, Omar and Lee"); otherwise one name ("Research and
    Development", "Sales and Marketing")."""
    parts = [p for p in _LIST_JOIN_RE.split(run) if p]
    if len(parts) > 1 and (listed or all(len(p.split()) >= 2 for p in parts)):
        return parts
    return [run]


def name_runs(text: str) -> tuple[str, ...]:
    """The names of `text` ("Atlas", "Dana Kim"), longest only."""
    runs = tuple(dict.fromkeys(n for group in name_groups(text) for n in group))
    return tuple(r for r in runs if not any(r != o and set(r.split()) <= set(o.split()) for o in runs))


def in_title(text: str, span: tuple[int, int]) -> bool:
    """The number at `span` is part of a name ("Windows 11", "Phase 2 Rollout", "Apollo 13"), not a
    count or an amount: a capitalised word stands right beside it. A number before a plural ("won
    2 Awards") still counts things, and a capitalised stop word ("In 2 hours") names nothing."""
    before = re.search(r"([A-Za-z][\w'’-]*)\s+$", text[:span[0]])
    # The capitalised words that follow: "2 Fast Lanes", or the counted "seven Design Awards".
    after = re.match(r"(?:\s+[A-Z][\w'’-]*)+", text[span[1]:])

    def titled(word: str) -> bool:
        return word[0].isupper() and not is_stop(word)

    if before and titled(before.group(1)):
        return True
    if not after or not titled(after.group(0).split()[0]):
        return False
    last = after.group(0).split()[-1]
    return not (last.endswith("s") and not last.endswith(("ss", "us", "is")))


def _trim(run: str) -> str:
    tokens = run.split()
    while tokens and tokens[0].lower() in _LEADING_STOP:
        tokens.pop(0)
    return " ".join(tokens).strip(" .:")


def refers_back(text: str) -> bool:
    """The text points back to something named before ("she leads it", "the project")."""
    return bool({re.split(r"['’]", w.lower())[0] for w in words(text)} & REFERRING)  # "it's" too


def families_of(stems: Iterable[str]) -> set[int]:
    """The relation families (indexes into relation_families()) the relation stems belong to."""
    stems = set(stems)
    return {i for i, family in enumerate(relation_families()) if stems & family}


def same_relation(said: Iterable[str], statement: Statement) -> bool:
    """Words of the answer (relation stems) name the statement's link: a word of the same family
    ("heads" for "is led by") or the very word ("reviewed" for "was reviewed by")."""
    said = set(said)
    return bool(families_of(said) & families_of(statement.relation)
                or {s for s in said if not is_stop(s)} & statement.relation)
