"""Word lists and word frequencies shared by every stage, loaded once.

Nothing here knows any one knowledge base. Attribute cues are general English:
a question's words ("email", "who leads", "when is") name an attribute
*concept*, and a concept is matched to the registry's own keys by the words
inside them, so a user's `project_lead`, `launch_date` or `budget_2027` is
found the same way as the sample's `eng_lead` or `q4_budget`.
"""

from __future__ import annotations

import functools
import re

# --- word frequencies ------------------------------------------------------------


@functools.lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """How common a word is in English on wordfreq's Zipf scale (0 = never seen,
    3 = once per million words, 7 = "the"). Case-insensitive."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word.lower(), "en")


def is_common(word: str, at_least: float = 3.0) -> bool:
    """A word used at least once per million words (by default)."""
    return zipf(word) >= at_least


def is_unknown_word(word: str) -> bool:
    """Not a word of English at all: wordfreq has never seen it."""
    return zipf(word) == 0


# --- names ----------------------------------------------------------------------

# Given names that are also ordinary words ("I will", "mark it", "the rose"): a
# name only where capitalised, never capitalised as a name on a guess.
AMBIGUOUS_NAMES = frozenset(
    "will mark bill rose grace hope joy faith jack frank art bob pat sue dawn ray may june april "
    "august summer amber ruby jade iris lily violet holly ivy daisy rob guy gene sky river brook drew "
    "chase hunter carter mason cash max sage miles penny chip sandy don gay noel sunny victor eve "
    "page bishop king young white black brown green long price stone wood hill hall".split()
)

# --- attributes -----------------------------------------------------------------

# concept -> (words a question uses to ask for it, words found inside attribute keys that hold it).
# A cue is a word or phrase matched at word boundaries; key words are matched against a key's parts
# ("launch_date" -> launch, date; "projectLead" -> project, lead).
ATTRIBUTE_CONCEPTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "email": (("email", "e-mail", "mail", "mail address", "write to", "address", "contact"),
              ("email", "mail", "e-mail")),
    "phone": (("phone", "number", "call", "telephone", "mobile", "cell", "contact", "ring"),
              ("phone", "mobile", "tel", "telephone", "cell")),
    "role": (("role", "title", "job", "position", "what does", "what do"), ("role", "title", "position", "job")),
    "department": (("department", "team", "which team", "what team", "division"),
                   ("department", "team", "division", "dept", "unit")),
    "location": (("where", "location", "based", "located", "city", "office", "room", "address"),
                 ("location", "city", "office", "room", "address", "site", "headquarters", "place")),
    "manager": (("report to", "reports to", "manager", "boss", "reports"), ("reports", "manager", "boss", "supervisor")),
    "manages": (("manage", "manages", "reports"), ("manages", "reports")),
    "lead": (("lead", "leads", "head", "heads", "runs", "in charge", "leader"), ("lead", "leader", "head", "chair")),
    "owner": (("owner", "owns", "responsible", "working on", "works on", "who's on", "who is on"),
              ("owner", "owners", "responsible", "assignee", "dri")),
    "status": (("status", "progress", "how is", "how's", "state"), ("status", "state", "progress", "health")),
    "date": (("when", "date", "what day", "day"), ("date", "day", "when", "on")),
    "time": (("what time", "when", "time"), ("time", "start", "starts", "hour")),
    "deadline": (("deadline", "due", "when", "launch", "go live", "ship", "release"),
                 ("deadline", "due", "target", "launch", "live", "release", "ship", "eta")),
    "budget": (("budget", "cost", "spend", "how much", "price", "amount"),
               ("budget", "cost", "spend", "price", "amount", "value", "fee")),
    "vendor": (("vendor", "supplier", "contractor"), ("vendor", "supplier", "contractor")),
    "contract": (("contract", "agreement", "term", "renewal"), ("contract", "agreement", "term", "renewal")),
    "attendees": (("attend", "attendees", "who was at", "who is at", "who's at", "participants", "who came"),
                  ("attendees", "participants", "invitees", "members")),
    "organizer": (("organizer", "organiser", "organized", "organised", "host"), ("organizer", "organiser", "host")),
}

# Concepts that tell who or what an entity is, per entity type, most telling first.
KEY_CONCEPTS_BY_TYPE: dict[str, tuple[str, ...]] = {
    "person": ("role", "department", "email"),
    "project": ("status", "owner", "lead", "deadline", "date"),
    "organization": ("contract", "vendor", "email"),
    "department": ("lead", "budget"),
    "event": ("date", "time", "location", "organizer"),
    "document": ("date",),
}

_KEY_SPLIT = re.compile(r"[_\-\s.]+|(?<=[a-z])(?=[A-Z])")


def key_words(key: str) -> tuple[str, ...]:
    """The words inside an attribute key: "launch_date" -> ("launch", "date")."""
    return tuple(w.lower() for w in _KEY_SPLIT.split(key) if w)


@functools.lru_cache(maxsize=4096)
def concepts_of_key(key: str) -> frozenset[str]:
    """Every concept an attribute key holds: "eng_lead" -> {lead}, "q4_budget" -> {budget},
    "launch_date" -> {deadline, date}. A key no concept knows holds only itself."""
    words = set(key_words(key))
    found = {c for c, (_, holders) in ATTRIBUTE_CONCEPTS.items() if words & set(holders)}
    return frozenset(found or {key.lower()})


def keys_for_concept(concept: str, keys) -> list[str]:
    """Those of `keys` (a registry's own attribute keys) that hold `concept`, in their order."""
    return [k for k in keys if concept in concepts_of_key(k)]


@functools.lru_cache(maxsize=1)
def _cue_patterns() -> dict[str, re.Pattern]:
    return {
        concept: re.compile(r"(?<!\w)(?:" + "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True))
                            + r")(?!\w)", re.IGNORECASE)
        for concept, (cues, _) in ATTRIBUTE_CONCEPTS.items()
    }


def concepts_asked(text: str) -> list[str]:
    """The attribute concepts a question's words ask for, in ATTRIBUTE_CONCEPTS order."""
    return [concept for concept, pattern in _cue_patterns().items() if pattern.search(text)]


def asks_for_key(text: str, key: str) -> bool:
    """Whether `text` asks for the attribute `key` (by a cue of one of its concepts, or by the
    key's own words: "what is the cost center?" asks for cost_center)."""
    if set(concepts_asked(text)) & concepts_of_key(key):
        return True
    words = key_words(key)
    return bool(words) and re.search(r"(?<!\w)" + r"\W+".join(map(re.escape, words)) + r"(?!\w)", text, re.I) is not None


def cue_words(concept: str) -> tuple[str, ...]:
    """The words a question uses to ask for `concept` (empty for a concept no lexicon entry knows)."""
    return ATTRIBUTE_CONCEPTS.get(concept, ((), ()))[0]
