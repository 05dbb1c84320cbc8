"""What kind of work a thing is, held to the evidence: "Taken has genre
Suspense" and an answer calling Taken "a romantic comedy" disagree, while "a
suspense/thriller film" agrees (thriller and suspense are one family).

Genres come in families of near-synonyms; an answer's genre agrees when any of
its genre words shares a family with any genre the evidence gives the same
work. Words too broad to disagree with anything ("fiction", "novel", "story")
are in no family. A film has several genres and the evidence may list one, so
a disagreement is a flag to look at, never a rewrite.
"""

from __future__ import annotations

import functools
import re

from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.evidence import TextIndex, is_stop
from chatapp.postprocess.findings import Finding, sentence_finding
from chatapp.postprocess.statements import evidence_pieces, name_runs

# Families of genre words that describe the same kind of work (compared lower-case, whole words).
GENRE_FAMILIES = [
    {"suspense", "thriller", "thrillers", "mystery", "mysteries", "crime", "noir", "detective", "psychological",
     "spy", "heist", "whodunit"},
    {"comedy", "comedies", "comedic", "humor", "humour", "humorous", "satire", "satirical", "parody", "spoof",
     "sitcom", "slapstick", "black comedy"},
    {"romance", "romances", "romantic", "love story", "rom-com", "romcom"},
    {"drama", "dramas", "dramatic", "melodrama", "tragedy", "teen drama", "period drama"},
    {"horror", "slasher", "zombie", "supernatural", "ghost story", "gothic", "monster"},
    {"science fiction", "sci-fi", "scifi", "sf", "speculative fiction", "dystopian", "dystopia", "cyberpunk",
     "space opera"},
    {"fantasy", "fairy tale", "fable", "fables", "sword and sorcery", "magical"},
    {"action", "adventure", "action-adventure", "martial arts", "superhero", "disaster", "swashbuckler"},
    {"war", "military", "war film"},
    {"history", "historical", "period piece", "docudrama", "true story", "political"},
    {"musical", "musicals", "music", "opera"},
    {"animation", "animated", "cartoon", "anime", "family", "children's", "childrens", "kids", "picture book"},
    {"western", "westerns", "cowboy"},
    {"sport", "sports", "football", "soccer", "baseball", "basketball", "boxing", "hockey", "tennis", "golf",
     "racing"},
    {"young adult", "ya", "teen", "coming of age", "coming-of-age"},
    {"non-fiction", "nonfiction", "self-help", "cookbook", "reference", "textbook", "encyclopedia", "essay",
     "essays", "travel", "true crime"},
    {"poetry", "poems", "verse"},
    # Lives told as they were: not the same as a historical novel.
    {"biography", "biographical", "biopic", "memoir", "memoirs", "autobiography", "autobiographical", "documentary"},
]
# Families that often go together, so either describes the same film ("a war film" / "action").
NEIGHBOURS = {frozenset(pair) for pair in [(7, 8), (8, 9), (3, 9), (3, 2), (3, 0), (7, 0), (7, 5), (6, 11),
                                           (1, 2), (0, 4), (3, 14), (1, 11), (6, 7), (5, 4), (17, 15)]}


def _key(phrase: str) -> str:
    return re.sub(r"[\s-]+", " ", phrase.lower())


_FAMILY_OF = {_key(word): i for i, family in enumerate(GENRE_FAMILIES) for word in family}
# Phrases match with a space or a hyphen between their words ("science-fiction", "coming of age").
_GENRE_RE = re.compile(r"(?<![\w-])(" + "|".join(re.escape(w).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]+")
                                                  for w in sorted(_FAMILY_OF, key=len, reverse=True))
                       + r")(?![\w-])", re.IGNORECASE)
# "Taken has genre Suspense", "Snatch : `Genre`: Thriller", "Murder by Death (Comedy)".
_HAS_GENRE_RE = re.compile(r"^(.+?)\s*(?::\s*`~?)?\b(?:has genre|genre`?:?)\s+(.+)$", re.IGNORECASE)
_POINTER_RE = re.compile(r"\b(?:it|it['’]s|its|this|that|they|these|those)\b|"
                         r"\bthe (?:film|movie|book|novel|show|series|story)\b", re.IGNORECASE)
_DENIED_RE = re.compile(r"\b(?:not|never|no longer)\b|n't\b", re.IGNORECASE)
# "Romance Film has examples: Win a Date with Tad Hamilton!"
_EXAMPLES_RE = re.compile(r"^(.+?)\s+has examples:?\s+(.+)$", re.IGNORECASE)
_QUALIFIED_RE = re.compile(r"([A-Z][^()]*?)\s*\(([^()]*)\)")
# The sentence says what kind of thing it is: "X is a … film", "it's a comedy", "the genre is …".
_CLASSIFIES_RE = re.compile(r"\b(?:is|was|it's|its|are|genre|genres|considered|categori[sz]ed|classified)\b",
                            re.IGNORECASE)


def _family(phrase: str) -> int:
    return _FAMILY_OF[_key(phrase)]


def genre_families(text: str) -> set[int]:
    return {_family(m.group(1)) for m in _GENRE_RE.finditer(text)}


_KIND_RE = re.compile(r"(?:film|movie|novel|book|fiction|literature)s?", re.IGNORECASE)


def is_genre(text: str) -> bool:
    """Nothing but genre words ("Thriller", "Romance Film", "Sci-Fi")."""
    return bool(_GENRE_RE.search(text) or _KIND_RE.fullmatch(text.strip())) and not re.sub(r"\b(?:film|movie|novel|book|genre|fiction)s?\b", "",
                                                         _GENRE_RE.sub("", text), flags=re.IGNORECASE).strip(" -/,&")


def agree(said: set[int], known: set[int]) -> bool:
    return bool(said & known) or any(frozenset((a, b)) in NEIGHBOURS for a in said for b in known)


@functools.lru_cache(maxsize=1024)
def evidence_genres(text: str) -> tuple[tuple[str, frozenset[int], str, str], ...]:
    """(work, genre families, the statement, the genre as written) for each genre the evidence gives
    a work."""
    out = []
    for statement in evidence_pieces(text):
        match = _HAS_GENRE_RE.match(statement) if "`~" not in statement else None
        if match:
            # Kept even when no family knows the genre ("Fiction"): its own word still agrees.
            work = re.sub(r"\s*\([^()]*\)", "", match.group(1)).strip(" :`")
            if work:
                out.append((work, frozenset(genre_families(match.group(2))), statement, _phrase(match.group(2))))
        match = _EXAMPLES_RE.match(statement)
        if match and genre_families(match.group(1)):
            out.append((match.group(2).strip(), frozenset(genre_families(match.group(1))), statement,
                        _phrase(match.group(1))))
        for match in _QUALIFIED_RE.finditer(statement):
            families = genre_families(match.group(2))
            work = _title_before(match.group(1))
            if families and work:
                out.append((work, frozenset(families), statement, _phrase(match.group(2))))
    return tuple(out)


def _phrase(genre: str) -> str:
    """The genre as the evidence words it, without the kind of work: "Romance Film" → "romance"."""
    return re.sub(r"\s+(?:film|movie|novel|book)s?$", "", genre.strip(), flags=re.IGNORECASE).lower()


_CONNECTORS = frozenset({"of", "the", "and", "a", "an", "to", "in", "on", "for", "at", "with", "by", "from"})


def _title_before(text: str) -> str:
    """The title that ends `text`: its last capitalised words and the small words between them
    ("Truman Capote starred in Murder by Death" → "Murder by Death")."""
    tokens = text.split()
    taken: list[str] = []
    for token in reversed(tokens):
        if token[:1].isupper() or token[:1].isdigit() or (taken and token.lower() in _CONNECTORS):
            taken.append(token)
        else:
            break
    while taken and taken[-1].lower() in _CONNECTORS:
        taken.pop()
    return " ".join(reversed(taken))


def genre_findings(analysis: AnswerAnalysis, evidence: list[str], context: str) -> list[Finding]:
    """Sentences that call a work of a genre the evidence gives it none of."""
    known = [g for text in evidence for g in evidence_genres(text)]
    if not known:
        return []
    before, supplied = TextIndex([context]), TextIndex(evidence)
    findings = []
    for sentence in analysis.sentences:
        finding = _disagreement(sentence, analysis, known, before, supplied)
        if finding is not None:
            findings.append(finding)
    return findings


def genre_supported(word: str, evidence: list[str]) -> bool:
    """A genre word that agrees with a genre the evidence gives ("thriller" beside "Suspense")."""
    family = _FAMILY_OF.get(_key(word))
    return family is not None and any(agree({family}, set(g)) for text in evidence
                                      for _, g, _, _ in evidence_genres(text))


def _disagreement(sentence: SentenceInfo, analysis: AnswerAnalysis, known, before: TextIndex,
                  supplied: TextIndex) -> Finding | None:
    text = sentence.claim.text
    if sentence.mode != "statement" or not _CLASSIFIES_RE.search(text):
        return None
    said = _affirmed_genres(_outside_names(text, sentence, analysis))
    if not said:
        return None
    here = TextIndex([text])
    # The work the sentence is about: one it names, or, naming no work, one it points back to.
    works = {work for work, *_ in known if here.supports_name(work)}
    if not works and _POINTER_RE.search(text):
        works = _referent(sentence, analysis, known, before, supplied)
    lowered = text.lower()
    for work in sorted(works):
        given = [(families, statement) for w, families, statement, _ in known if w == work]
        families = set().union(*(f for f, _ in given))
        if not families:
            continue  # "has genre Hindi Language": nothing to hold a genre word against
        # "a Fiction and Fantasy genre" beside "has genre Fiction": the evidence's own word agrees.
        if agree(said, families) or any(re.search(rf"\b{re.escape(p)}\b", lowered)
                                        for w, _, _, p in known if w == work and p):
            continue
        statement = given[0][1]
        suggestion = ", ".join(sorted(set(_words_of(statement, families)))) or None
        return sentence_finding("ContradictsFact", sentence, analysis.text, 0.6,
                                [f"the evidence states: {s}" for _, s in given][:3], suggestion)
    return None


def _referent(sentence: SentenceInfo, analysis: AnswerAnalysis, known, before: TextIndex,
              supplied: TextIndex) -> set[str]:
    """The work "it" points back to: the last thing the answer named before this sentence, if it named
    anything ("You may like Your Highness. It's a fantasy movie." is about Your Highness, which the
    evidence does not know), else the work the conversation was about."""
    for earlier in reversed(analysis.sentences[:sentence.index] + [sentence]):
        said = TextIndex([earlier.claim.text])
        named = {work for work, *_ in known if said.supports_name(work)}
        if named and earlier is not sentence:
            return named
        # spaCy misses many titles ("that movie The Fugitive"), so capitalised runs count too.
        strangers = [n for n in analysis.names if n.sentence == earlier.index and not supplied.supports_name(n.claim.text)
                     and (earlier is not sentence or n.label != "PERSON" and not _compared(analysis.text, n))]
        strangers += [r for r in name_runs(earlier.claim.text) if earlier is not sentence and not is_stop(r)
                      and not supplied.supports_name(r)]
        if strangers:
            return set()
    return {work for work, *_ in known if before.supports_name(work)}


def _compared(text: str, name) -> bool:
    """Named as a likeness ("a love story, sort of like The Notebook"), not as the thing described."""
    before = text[max(0, name.claim.span[0] - 18):name.claim.span[0]]
    return bool(re.search(r"\b(?:like|as|such as|similar to)\s+(?:(?:the|a|an)\s+)?$", before, re.IGNORECASE))


def _affirmed_genres(text: str) -> set[int]:
    """The genres the text says the work is, not those it says it is not ("not a comedy")."""
    return {_family(m.group(1)) for m in _GENRE_RE.finditer(text)
            if not _DENIED_RE.search(text[max(0, m.start() - 25):m.start()])}


def _outside_names(text: str, sentence: SentenceInfo, analysis: AnswerAnalysis) -> str:
    """The sentence without its names: "True Romance" is a title, not a genre."""
    start = sentence.claim.span[0]
    chars = list(text)
    for name in analysis.names:
        if name.sentence != sentence.index or not _GENRE_RE.sub("", name.claim.text).strip(" -/,&"):
            continue  # "It's a Thriller": spaCy may call a capitalised genre a name
        a, b = name.claim.span[0] - start, name.claim.span[1] - start
        chars[max(a, 0):max(b, 0)] = " " * (max(b, 0) - max(a, 0))
    return "".join(chars)


def _words_of(statement: str, families) -> list[str]:
    return [m.group(1) for m in _GENRE_RE.finditer(statement) if _family(m.group(1)) in families]
