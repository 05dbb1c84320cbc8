"""How a folder writes its words: the capitals a document gives a word where a sentence does not
call for them ("the Abuja office", "our HP printers", "the NITDA filing"), counted per document at
ingest, beside that document's lower-case uses of words (everyday words left out: their case says
nothing of a name).

Preprocessing reads the sum over the knowledge base (Registry.document_word_forms): a word the
documents write with capitals mid-sentence and never in lower case is a name of the user's world —
a place, a product, an agency — and "is the abuja office open" is given its capital back. Nothing
here knows any name: the counts are all there is.
"""

from __future__ import annotations

import re
from collections import Counter

from chatapp.lexicon import zipf

# A word: letters first, then letters, digits, apostrophes or inner hyphens ("O'Neill", "Ile-Ife").
_WORD = re.compile(r"[^\W\d_](?:[\w'’]|-(?=\w))*")
# Addresses and links hold words that are no part of the prose ("kostas@voltaic.nl").
_ADDRESS = re.compile(r"\S+@\S+|\b(?:https?://|www\.)\S+")
# What may stand before a sentence's first word on its line: a list mark, a heading or quote mark,
# a table bar, an opening bracket or quote.
_LINE_OPENING = re.compile(r"[ \t]*(?:[-*•+>#|]+[ \t]*|\d+[.)][ \t]*|[(\[\"'“‘][ \t]*)*")
# After these a capital says nothing: a sentence, a label ("Status: Approved", "Priority – Urgent"), a
# cell starts.
_STARTS_AFTER = frozenset(".!?:;|\"“”([–—")
MAX_WORD = 40
# A word English uses this often (wordfreq's zipf) is an everyday word first, whatever a folder does with
# its case ("reading", "bill", "may"): neither its capitals nor its lower-case uses are kept.
EVERYDAY_ZIPF = 4.4


def written_forms(text: str) -> Counter:
    """(lower-case word, form) → uses: the words `text` writes with a capital where no sentence start
    calls for one, alone (not in a run of capitalised words), and its lower-case words (form == the
    lower-case word: another document may capitalise them); everyday words (EVERYDAY_ZIPF) left out."""
    text = _ADDRESS.sub(" ", text)
    matches = list(_WORD.finditer(text))
    # Read from the text between a word and the one before it, so a page of one long line costs what
    # a page of many does.
    opening = [_starts_sentence(text[matches[i - 1].end() if i else 0:m.start()], first=not i)
               for i, m in enumerate(matches)]
    counts: Counter = Counter()
    for i, match in enumerate(matches):
        word = match.group().rstrip("'’")
        if len(word) < 2 or len(word) > MAX_WORD:
            continue
        if word.islower():
            counts[(word, word)] += 1
        elif word[0].isupper() and not opening[i] and not _beside_capital(text, matches, opening, i):
            counts[(word.lower(), word)] += 1
    return Counter({key: n for key, n in counts.items() if zipf(key[0]) < EVERYDAY_ZIPF})


def _beside_capital(text: str, matches: list, opening: list[bool], i: int) -> bool:
    """The word is one of a run of capitalised words ("Harbour Walk Signage", "Conference Room B"):
    a name of several words, whose words alone are often everyday ones ("the signage project"). An
    everyday word opening the sentence before it is no part of a name ("Our Kano depot")."""
    for j in (i - 1, i + 1):
        if 0 <= j < len(matches):
            a, b = sorted((matches[i], matches[j]), key=lambda m: m.start())
            other = matches[j].group()
            if text[a.end():b.start()].strip() or not other[0].isupper():
                continue
            if not (opening[j] and zipf(other) >= EVERYDAY_ZIPF):
                return True
    return False


def _starts_sentence(gap: str, first: bool) -> bool:
    """Whether a word opens a sentence, a line or a cell, given what stands between it and the word
    before it (`first`: there is none)."""
    if first or "\n" in gap:
        line = gap[gap.rfind("\n") + 1:]
        if _LINE_OPENING.fullmatch(line):
            return True  # the first word of its line (a heading, a list item, a line of a table)
        gap = line
    before = gap.rstrip().rstrip("*_`").rstrip()  # "**Priority:** Urgent": the label's emphasis closed
    return bool(before) and before[-1] in _STARTS_AFTER


def consistent_forms(rows) -> dict[str, str]:
    """{lower-case word: its form} from (lower, form, uses) rows summed over documents: the words
    written with capitals at least twice and never in lower case, in the form most of those uses take."""
    capitals: dict[str, Counter] = {}
    lower_case: Counter = Counter()
    for lower, form, uses in rows:
        if form == lower:
            lower_case[lower] += uses
        else:
            capitals.setdefault(lower, Counter())[form] += uses
    forms = {}
    for lower, counter in capitals.items():
        form, uses = counter.most_common(1)[0]
        if not lower_case[lower] and sum(counter.values()) >= 2 and uses * 10 >= sum(counter.values()) * 9:
            forms[lower] = form
    return forms


def used_words(rows) -> set[str]:
    """The lower-case words of (lower, form, uses) rows used at least twice in any form: words of the
    user's world the spelling tier leaves alone (one use may be a document's own slip)."""
    totals: Counter = Counter()
    for lower, _form, uses in rows:
        totals[lower] += uses
    return {lower for lower, uses in totals.items() if uses >= 2}
