"""The supplied evidence read as statements: each affirmative sentence with
the names it links and the words that say how ("Turbo is starring Snoop
Dogg": Turbo, Snoop Dogg; star). Scraped knowledge often runs its triples
together ("…starred in TurboTurbo is starring…"); they are split apart here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from chatapp.postprocess.evidence import is_stop, stem, words

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
_FAMILY_OF = {stem(word): i for i, family in enumerate(RELATION_FAMILIES) for word in family}
# Words that point back to something named before ("he wrote it", "the film").
REFERRING = frozenset({"it", "its", "he", "his", "him", "she", "her", "they", "their", "this", "that", "the"})
_NAME_RUN_RE = re.compile(r"[A-Z0-9][\w'’.&:!-]*(?:\s+(?:(?:of|the|and|a|an|to|in|on|for|at|with|de|la|von|van)\s+)*"
                          r"[A-Z0-9][\w'’.&:!-]*)*")
# Scraped triples run together: "…starred in TurboTurbo is starring…", "…Jr.Robert Downey…".
# Where a triple may end glued to the next: a capital right after a small letter or a bracket
# ("…starred in TurboTurbo is…"), or after a full stop that is not an initial's ("The O.C.").
_JOIN_RE = re.compile(r"(?<=[a-z0-9)\]])(?=[A-Z])")
_STOP_JOIN_RE = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)(?=[A-Z])")
# A statement ends at a full stop and a space, but not at an initial's or a title's ("The O.C. is
# starring…", "Robert Downey Jr. starred in…").
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)(?<!\b[JS]r\.)(?<!\b[DM]r\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bSt\.)"
                              r"\s+|\n+")
# "Star Trek (Science Fiction Film)": the brackets say what kind of thing the name is, not who else.
_QUALIFIER_RE = re.compile(r"\s*\([^()]*\)")
# "Shelden Williams : `Place of birth`: Oklahoma City": a relation label between two names.
_LABEL_RE = re.compile(r"\s*:?\s*`~?([^`]*)`\s*:?\s*")
_NEGATED_RE = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)
_LEADING_STOP = frozenset({"the", "a", "an", "it", "this", "that", "he", "she", "they", "his", "her", "its",
                           # a question's opening word, capitalised: "Is Tuck Everlasting…", "Did Jennifer…"
                           "is", "was", "are", "were", "did", "does", "do", "has", "have", "had", "can", "could",
                           "will", "would", "isn't", "wasn't", "didn't", "doesn't", "yes", "no", "so", "and", "but",
                           "oh", "wait", "ok", "okay", "i"})


@functools.lru_cache(maxsize=1024)
def evidence_statements(text: str) -> tuple[tuple[str, tuple[str, ...], frozenset[str]], ...]:
    """(statement, the names in it, its relation stems) for each affirmative statement of `text`."""
    out = []
    for statement in evidence_pieces(text):
        if _NEGATED_RE.search(statement):
            continue
        plain = _LABEL_RE.sub(lambda m: f" {m.group(1).lower()} ", _QUALIFIER_RE.sub("", statement))
        runs = name_runs(plain)
        # The words between the names say how they are linked ("Simon Pegg starred in Star Trek":
        # "starred", though "Star" is part of a name too).
        between = plain
        for run in sorted(runs, key=len, reverse=True):
            between = between.replace(run, " ")
        relation = frozenset(stem(w) for w in words(between))
        if len(runs) >= 2:
            out.append((statement, runs, relation))
    return tuple(out)


def evidence_pieces(text: str) -> list[str]:
    """The evidence's statements, with scraped triples that ran together split apart."""
    return [statement for piece in _STOP_JOIN_RE.split(text) for glued in _unglue(piece) for statement in
            (s.strip(" .") for s in _SENTENCE_END_RE.split(glued)) if statement]


def _unglue(text: str) -> list[str]:
    """`text` cut where one triple runs into the next. A join is where the name before it comes
    again right after ("Tim McGrawTim McGraw starred") or the word after it starts a word
    elsewhere ("…Robin BhattKites is…" beside "produced Kites"); a name's own capital
    ("McGraw", "RocknRolla") is neither."""
    cuts = []
    for join in _JOIN_RE.finditer(text):
        at = join.start()
        repeated = any(text[at - k:at] == text[at:at + k] and (at == k or not text[at - k - 1].isalnum())
                       for k in range(3, min(at, len(text) - at, 80) + 1))
        following = re.match(r"[A-Z][\w'’-]*", text[at:]).group(0)
        elsewhere = re.search(rf"(?:^|[\s(\"'])({re.escape(following)})\b", text) is not None
        if repeated or elsewhere:
            cuts.append(at)
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


def name_runs(text: str) -> tuple[str, ...]:
    """The capitalised runs of `text` ("Full Metal Jacket", "Matthew Modine"), longest only."""
    runs = tuple(dict.fromkeys(r for r in (_short_title(_trim(m.group(0))) for m in _NAME_RUN_RE.finditer(text)) if r))
    return tuple(r for r in runs if not any(r != o and set(r.split()) <= set(o.split()) for o in runs))


def in_title(text: str, span: tuple[int, int]) -> bool:
    """The number at `span` is part of a title ("2 Fast 2 Furious", "Fast Five", "Apollo 13"), not a
    count or an amount: a capitalised word stands right beside it. A number before a plural ("won
    2 Oscars") still counts things, and a capitalised stop word ("In 2 hours") names nothing."""
    before = re.search(r"([A-Za-z][\w'’-]*)\s+$", text[:span[0]])
    # The capitalised words that follow: "2 Fast 2 Furious", or the counted "seven Emmy Awards".
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


def _short_title(run: str) -> str:
    """A title with a subtitle goes by its main title ("The Portable Atheist: Essential Readings
    for the Non-believer" is "The Portable Atheist"), when that is more than one word ("Mission:
    Impossible" stays whole)."""
    head = run.split(":")[0].strip()
    return head if head != run and len(head.split()) >= 2 else run


def refers_back(text: str) -> bool:
    """The text points back to something named before ("he wrote it", "the film")."""
    return bool({re.split(r"['’]", w.lower())[0] for w in words(text)} & REFERRING)  # "it's" too


def families_of(stems: Iterable[str]) -> set[int]:
    """The relation families (indexes into RELATION_FAMILIES) the stems belong to."""
    return {_FAMILY_OF[s] for s in stems if s in _FAMILY_OF}


def family_of(word: str) -> int | None:
    return _FAMILY_OF.get(stem(word))
