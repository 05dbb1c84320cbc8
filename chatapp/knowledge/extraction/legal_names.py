"""Firms named with their legal form: "Ironside Scenic Workshop Ltd", "Kessler Magnetics GmbH".

The recogniser often misses such a name (in a signature, after "Set builder:"), and the merge
wants two documents for a name only it saw. The legal form says the words before it are a firm's
name, so one document is enough; the name without the form ("Ironside Scenic Workshop") is how
mails and answers usually write it, so it is an alias."""

from __future__ import annotations

import re

from chatapp.knowledge.extraction.observations import ALIAS, MENTION, Observation

# A run of capitalised name words ("&", "and", "of" may join them) closed by a legal form.
_LEGAL_NAME = re.compile(
    r"(?<![\w&'’-])(?P<name>(?:[A-Z][\w'’&.-]*[\w'’]\s+(?:(?:&|and|of|for|the)\s+)?){1,5})"
    r"(?P<form>Ltd\.?|Limited|LLP|LLC|PLC|plc|GmbH|AG|B\.V\.|BV|N\.V\.|Inc\.?|Pty\.? Ltd\.?|s\.r\.o\.|A/S|S\.A\.)"
    r"(?![\w/])"
)
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
        full = f"{bare} {match.group('form')}"
        found.append(Observation(full, "organization", MENTION, full, 0.8, "legal_name", match.start()))
        if len(bare) >= 3:
            found.append(Observation(full, "organization", ALIAS, bare, 0.8, "legal_name", match.start()))
    return found
