"""How much of one text chatapp reads closely, and the note it gives when a text is longer.

A pasted log or a whole document is kept whole (stored, exported, sent where the prompt has room),
but only its opening is read closely: corrected, searched for names, dates and follow-ups, used as a
search query, remembered in the conversation's memory, and checked against as a question. Reading
all of a megabyte takes minutes (tokenising, keyword and concept scans grow with length) for
names the prompt has no room for anyway.

READ_CHARS is the one limit every path that takes the user's text uses (`ask`, `preprocess`,
`check --question`, `kb search`, the live diff while typing, the dialogue memory). Imports nothing
from the package, so any layer may use it.
"""

from __future__ import annotations

# The opening of a text that is read closely. A question is rarely past a few hundred characters;
# a paste past this is read for its opening, which is what a prompt budget keeps of it anyway.
READ_CHARS = 10_000
# How far back from READ_CHARS a cut may move to end on whitespace rather than inside a word.
_WORD_END_SEARCH = 200


def read_part(text: str, limit: int = READ_CHARS) -> str:
    """The opening of `text` that is read closely: all of it up to `limit` characters, else its first
    `limit` cut back to the end of a word (and never through a surrogate pair)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    if space >= limit - _WORD_END_SEARCH:
        return head[:space]
    if "\ud800" <= head[-1] <= "\udbff":  # the first half of a character split in two
        return head[:-1]
    return head


def remembered_part(text: str, limit: int = READ_CHARS) -> str:
    """What the conversation's memory keeps of one turn: its opening, marked as cut when it is. The
    turn itself is stored whole; the memory is re-read and re-stored every turn, so it stays small."""
    head = read_part(text, limit)
    return head if len(head) == len(text) else f"{head} […]"


def is_cut(text: str, limit: int = READ_CHARS) -> bool:
    return len(text) > limit


def unread_note(text: str, what: str = "Your message", use: str = "corrected and read for names and dates",
                limit: int = READ_CHARS) -> str:
    """One line saying how much of `text` was read closely, or "" when all of it was."""
    if not is_cut(text, limit):
        return ""
    read = len(read_part(text, limit))
    return (f"{what} is {len(text):,} characters: the first {read:,} were {use}; "
            f"the rest is kept as typed")
