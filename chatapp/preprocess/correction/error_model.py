"""Tier 1's error model: what it costs to type one word for another.

The slips people actually make are cheap: swapped neighbours, a doubled or
dropped double letter, a vowel for a vowel, a key next to the right one, a
sound-alike spelling. A first letter is rarely wrong, so changing it costs
extra. The knobs (Weights) also hold the ranking's and the confidence's, so
one object describes a tuned corrector; they were tuned on dev splits only.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

VOWELS = frozenset("aeiouy")
# Consonants people swap because they sound alike.
SOUND_ALIKE = frozenset(frozenset(p) for p in ("ck", "cs", "sz", "kq", "gj", "fv", "xz", "ks", "dt", "bp", "mn", "wv"))
_KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
KEYBOARD_NEIGHBOURS = {
    ch: {row2[k] for row2 in _KEY_ROWS[max(0, r - 1) : r + 2] for k in (i - 1, i, i + 1) if 0 <= k < len(row2)} - {ch}
    for r, row in enumerate(_KEY_ROWS)
    for i, ch in enumerate(row)
}


@dataclass(frozen=True)
class Weights:
    """Knobs of the ranking and the confidence; tuned on the dev splits only."""

    unigram: float = 0.8
    context: float = 0.8
    backoff: float = 0.138  # P(w2|w1) for an unlisted pair, as a share of P(w2)
    substitute: float = 8.0
    substitute_vowel: float = 4.375
    substitute_sound: float = 4.0
    substitute_key: float = 5.625
    omit: float = 3.0
    omit_vowel: float = 3.2
    omit_double: float = 0.54
    add: float = 6.25
    add_vowel: float = 6.4
    add_double: float = 2.4
    transpose: float = 2.25
    first_letter: float = 1.92
    phonetic_bonus: float = 1.875
    phonetic_distance: int = 3  # sound-alikes are looked for up to this distance
    phonetic_when_near: bool = True  # ...even when a word one edit away was found
    kb_count: float = 2e7  # word count a knowledge-base word counts as, at least
    # Whether a known word is a slip for another ("two many") is judged with its own
    # context weight, and a log prior set so that suggest() keeps 99% of the correct
    # words of dev text (holbrook lines 1-300) as they are.
    real_word_context: float = 1.0
    real_word_error: float = -3.5
    # Confidence: a softmax over the candidates and "leave this unknown word alone",
    # fitted (log loss) to dev proposals, right and wrong, and to unknown words of
    # clean dev text; a capitalised word mid-sentence is most likely a name.
    keep_score: float = -20.0
    name_bonus: float = 14.0
    temperature: float = 2.5
    shortlist: int = 12  # candidates that get the full error model
    rough_edit: float = 3.6  # cost per edit when picking that shortlist
    rough_margin: float = 8.0  # how far behind the rough leader a candidate may be
    closest_first: bool = True  # skip the two-deletion look-ups when a one-edit word turned up
    real_word_distance: int = 1  # how far a known word's alternatives may lie ("two" -> "too")
    real_word_fit: float = 1.0  # PMI with its neighbours above which a known word is taken as meant


class ErrorModel:
    def __init__(self, weights: Weights):
        self.weights = weights

    def edit_cost(self, typed: str, intended: str) -> tuple[float, int]:
        """The price of the plain edits (no swaps) from `intended` to `typed`, and their number."""
        w, cost = self.weights, 0.0
        operations = Levenshtein.editops(intended, typed)
        for tag, i, j in operations:
            if tag == "replace":
                a, b = intended[i], typed[j]
                if a in VOWELS and b in VOWELS:
                    step = w.substitute_vowel
                elif frozenset((a, b)) in SOUND_ALIKE:
                    step = w.substitute_sound
                elif b in KEYBOARD_NEIGHBOURS.get(a, ()):
                    step = w.substitute_key
                else:
                    step = w.substitute
                first = i == 0
            elif tag == "delete":  # a letter of the word is missing from what was typed
                a = intended[i]
                doubled = (i > 0 and intended[i - 1] == a) or (i + 1 < len(intended) and intended[i + 1] == a)
                step = w.omit_double if doubled else w.omit_vowel if a in VOWELS else w.omit
                first = i == 0
            else:  # an extra letter was typed
                b = typed[j]
                doubled = (j > 0 and typed[j - 1] == b) or (j + 1 < len(typed) and typed[j + 1] == b)
                step = w.add_double if doubled else w.add_vowel if b in VOWELS else w.add
                first = j == 0
            cost += step + (w.first_letter if first else 0.0)
        return cost, len(operations)

    def channel(self, typed: str, intended: str, sound: str, intended_sound: str, damerau: int) -> tuple[float, str]:
        """Cost of typing `typed` for `intended` (OSA distance `damerau` apart), and the kind of slip."""
        w = self.weights
        cost, plain_edits = self.edit_cost(typed, intended)
        kind = "Spelling"
        if damerau < plain_edits:
            # Undo one swap of neighbours and price the rest as plain edits.
            for k in _swap_positions(typed, intended, damerau):
                swapped = typed[:k] + typed[k + 1] + typed[k] + typed[k + 2 :]
                if damerau == 1 or Levenshtein.distance(swapped, intended) == damerau - 1:
                    swap_cost = w.transpose + (w.first_letter if k == 0 else 0.0) + self.edit_cost(swapped, intended)[0]
                    if swap_cost <= cost:
                        cost = swap_cost
                        kind = "Transposition" if damerau == 1 else kind
        if sound and intended_sound == sound:
            cost -= w.phonetic_bonus
            if kind == "Spelling":
                kind = "Phonetic"
        return cost, kind


def _swap_positions(typed: str, intended: str, damerau: int) -> list[int]:
    """Where undoing a swap of neighbours in `typed` may lead towards `intended`: the one place
    for a lone swap ("emial"), every place otherwise."""
    if damerau == 1 and len(typed) == len(intended):
        k = next(i for i, (a, b) in enumerate(zip(typed, intended)) if a != b)
        return [k]
    return [k for k in range(len(typed) - 1) if typed[k] != typed[k + 1]]
