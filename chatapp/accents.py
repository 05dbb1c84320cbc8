"""Letters without their accents, for matching what a user types to a name as documents write it.

Decomposition removes most accents ("Súilleabháin" -> "Suilleabhain", "Hạnh" -> "Hanh"), but a few Latin
letters carry a stroke that is part of the letter and never decompose ("Đoàn", "Łukasz", "Søren").
Users without those keys type the bare letter, so they are mapped to it, one letter for one.
"""

from __future__ import annotations

import unicodedata

_UNDECOMPOSED = str.maketrans("đĐłŁøØħĦıŧŦ", "dDlLoOhHitT")


def strip_accents(text: str) -> str:
    """ "Đoàn Văn Khoa" -> "Doan Van Khoa"; ASCII text comes back unchanged."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text).translate(_UNDECOMPOSED)
    return "".join(c for c in text if not unicodedata.combining(c))
