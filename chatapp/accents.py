"""Letters without their accents, for matching what a user types to a name as documents write it.

Decomposition removes most accents ("Súilleabháin" -> "Suilleabhain", "Hạnh" -> "Hanh"), but a few Latin
letters carry a stroke that is part of the letter and never decompose ("Đoàn", "Łukasz", "Søren").
Users without those keys type the bare letter, so they are mapped to it, one letter for one.
"""

from __future__ import annotations

import re
import unicodedata

_UNDECOMPOSED = str.maketrans("đĐłŁøØħĦıŧŦ", "dDlLoOhHitT")


def strip_accents(text: str) -> str:
    """ "Đoàn Văn Khoa" -> "Doan Van Khoa"; ASCII text comes back unchanged."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text).translate(_UNDECOMPOSED)
    return "".join(c for c in text if not unicodedata.combining(c))


_UMLAUTS_SPELLED_OUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"})


def umlauts_spelled_out(text: str) -> str:
    """ "Jürgen Häberle" -> "Juergen Haeberle", "Roßbach" -> "Rossbach": German names as a keyboard
    (and every mail address) without umlauts writes them."""
    return text.translate(_UMLAUTS_SPELLED_OUT)


TOKEN = re.compile(r"\w+(?:[.@]\w+)*")  # a word, or an address/handle with its dots and @


def fold(text: str) -> str:
    """Case- and accent-insensitive form of a text."""
    return strip_accents(text).casefold()


def name_tokens(text: str) -> tuple[str, ...]:
    """The folded words of a name or mention: the keys names are looked up by."""
    return tuple(TOKEN.findall(fold(text)))
