"""Firms named with their legal form: "Ironside Scenic Workshop Ltd", "Kessler Magnetics GmbH".

The recogniser often misses such a name (in a signature, after "Set builder:"), and the merge
wants two documents for a name only it saw. The legal form says the words before it are a firm's
name, so one document is enough; the name without the form ("Ironside Scenic Workshop") is how
mails and answers usually write it, so it is an alias."""

from __future__ import annotations

import re

from chatapp import lexicon
from chatapp.knowledge.extraction.observations import ALIAS, LEGAL_FORMS as _FORMS, MENTION, Observation

# A run of capitalised name words on one line ("&", "and", "of" may join them; another firm's form may
# not: "Smith Ltd and Polyvorm B.V." is two firms) closed by a legal form, perhaps after a comma ("Acme, Inc.").
_LEGAL_NAME = re.compile(
    rf"(?<![\w&'’-])(?P<name>(?:(?!{_FORMS})[A-Z][\w'’&.-]*[\w'’][ \t]+(?:(?:&|and|of|for|the)[ \t]+)?){{0,4}}"
    rf"(?!{_FORMS})[A-Z][\w'’&.-]*[\w'’]),?[ \t]+"
    rf"(?P<form>{_FORMS})"
)
_SURNAME_ZIPF = 3.0  # a single word this common or more may be a surname ("Smith", "Jones")
# Words a sentence or a greeting puts before a name, never part of it: "At Ironside Scenic Ltd".
_LEADING = frozenset("a an at by for from in of on to via with and dear hi hello thanks contact".split())


def read_legal_names(text: str) -> list[Observation]:
    found = []
    for match in _LEGAL_NAME.finditer(text):
        words = match.group("name").split()
        while words and words[0].lower() in _LEADING:
            words.pop(0)
        while words and words[-1].lower() in ("&", "and", "of", "for", "the"):
            words.pop()
        if not words:
            continue
        bare = " ".join(words)
        full = f"{bare} {match.group('form')}"  # "Calçada Tech, Lda." is known as "Calçada Tech Lda."
        found.append(Observation(full, "organization", MENTION, full, 0.8, "legal_name", match.start()))
        if len(words) > 1 or (len(bare) >= 3 and lexicon.zipf(bare.lower()) < _SURNAME_ZIPF
                               and not lexicon.is_first_name(bare)):
            # One word alone is an alias only when it is no common surname or first name: "Smith
            # Ltd" must not make every Smith the firm.
            found.append(Observation(full, "organization", ALIAS, bare, 0.8, "legal_name", match.start()))
    return found


def firm_names(found: list[Observation]) -> set[str]:
    """The names, with and without the legal form, of the firms `read_legal_names` found."""
    return {o.value for o in found if o.method == "legal_name" and o.key in (MENTION, ALIAS)}
