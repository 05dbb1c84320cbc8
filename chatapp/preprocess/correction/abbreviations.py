"""Chat-speak, abbreviations and apostrophe-less contractions, as data.

Each entry maps a lower-case form to its expansions, most likely first, and a
confidence that a writer who typed it meant the expansion. Where the form is
ambiguous ("ur" is "your" or "you're") the corrector lets the neighbouring
words choose among the expansions. Forms that are also ordinary English words
("cos", "wat", "id", "ill", "lets", "were", "well") are left out on purpose,
except for a few contractions whose bare form is almost never meant as the
rare word it spells ("cant", "wont", "whats").

An expansion keeps its own capitals ("idk" -> "I don't know"); the corrector
otherwise follows the case of what was typed ("Pls" -> "Please").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# PMI with the neighbours below which a one-letter expansion ("the letter r" -> "are") is doubtful.
IMPLAUSIBLE_CONTEXT = -1.5


@dataclass(frozen=True)
class Expansion:
    forms: tuple[str, ...]  # most likely first
    confidence: float  # that the typed form means forms[0] (or a context-chosen one)
    correction_type: str = "Abbreviation"


def _table(entries: dict[str, tuple[str | tuple[str, ...], float]], correction_type: str) -> dict[str, Expansion]:
    return {
        key: Expansion(forms if isinstance(forms, tuple) else (forms,), confidence, correction_type)
        for key, (forms, confidence) in entries.items()
    }


CHAT_SPEAK = _table(
    {
        # Single letters: only the two the spec names; "c", "n", "y" are letters too often.
        "u": ("you", 0.92),
        "r": ("are", 0.8),
        "ur": (("your", "you're"), 0.85),
        "ure": ("you're", 0.85),
        "pls": ("please", 0.95),
        "plz": ("please", 0.95),
        "plox": ("please", 0.85),
        "thx": (("thanks", "thank"), 0.95),
        "thnx": (("thanks", "thank"), 0.95),
        "thanx": (("thanks", "thank"), 0.95),
        "tks": (("thanks", "thank"), 0.85),
        "ty": ("thank you", 0.85),
        "tmrw": ("tomorrow", 0.95),
        "tmr": ("tomorrow", 0.9),
        "tmrow": ("tomorrow", 0.95),
        "tmw": ("tomorrow", 0.85),
        "tomoz": ("tomorrow", 0.9),
        "2moro": ("tomorrow", 0.95),
        "2morrow": ("tomorrow", 0.95),
        "2day": ("today", 0.95),
        "2nite": ("tonight", 0.95),
        "tonite": ("tonight", 0.92),
        "yday": ("yesterday", 0.92),
        "idk": ("I don't know", 0.95),
        "dunno": ("don't know", 0.85),
        "b4": ("before", 0.95),
        "bc": ("because", 0.85),
        "bcz": ("because", 0.9),
        "bcoz": ("because", 0.9),
        "cuz": ("because", 0.9),
        "ppl": ("people", 0.95),
        "msg": ("message", 0.92),
        "msgs": ("messages", 0.92),
        "abt": ("about", 0.92),
        "wut": ("what", 0.9),
        "btw": ("by the way", 0.92),
        "imo": ("in my opinion", 0.92),
        "imho": ("in my humble opinion", 0.92),
        "omw": ("on my way", 0.92),
        "nvm": ("never mind", 0.92),
        "wk": ("week", 0.85),
        "wks": ("weeks", 0.85),
        "mins": ("minutes", 0.88),
        "bday": ("birthday", 0.92),
        "fyi": ("for your information", 0.9),
        "lmk": ("let me know", 0.95),
        "np": ("no problem", 0.85),
        "tbh": ("to be honest", 0.92),
        "afaik": ("as far as I know", 0.92),
        "iirc": ("if I remember correctly", 0.92),
        "jk": ("just kidding", 0.88),
        "ofc": ("of course", 0.9),
        "obv": ("obviously", 0.88),
        "probs": ("probably", 0.85),
        "txt": ("text", 0.85),
        "cya": ("see you", 0.9),
        "ttyl": ("talk to you later", 0.92),
        "rly": ("really", 0.92),
        "srsly": ("seriously", 0.92),
        "sry": ("sorry", 0.92),
        "srry": ("sorry", 0.92),
        "w8": ("wait", 0.9),
        "gr8": ("great", 0.95),
        "l8r": ("later", 0.95),
        "convo": ("conversation", 0.85),
        "ya": ("you", 0.7),
    },
    "Abbreviation",
)

# Contractions typed without the apostrophe. Bare forms that are real words
# ("ill", "id", "its", "lets", "shell", "hell", "wed", "were", "well") are not here. Grouped by the
# confidence that the bare form means the contraction.
CONTRACTIONS = {
    full.replace("'", "").lower(): Expansion((full,), confidence, "Spelling")
    for confidence, fulls in (
        (0.95, "don't didn't doesn't isn't wasn't weren't aren't couldn't wouldn't shouldn't haven't hasn't hadn't "
               "you're you've they're they've"),
        (0.92, "I'm mustn't you'll they'll that's there's"),
        (0.9, "I've you'd it'll"),
        (0.88, "who's what's where's how's when's"),
        (0.85, "can't"),
        (0.82, "won't"),
    )
    for full in fulls.split()
}

# Words of chat that the dictionary lacks but that need no correction.
CHAT_WORDS = frozenset(
    {"ok", "oks", "okay", "lol", "lmao", "haha", "hahaha", "hehe", "hmm", "hmmm", "mhm", "uh", "um", "umm",
     "huh", "yep", "yup", "nope", "nah", "yeah", "hey", "hi", "hiya", "bye", "oops", "wow", "ugh", "meh",
     "emoji", "emojis", "signup", "login", "logout", "email", "emails", "emailed", "online", "offline",
     "app", "apps", "wifi", "smartphone", "username", "usernames", "website", "websites", "blog", "blogs",
     "inbox", "chatbot", "chatbots", "backend", "frontend", "dataset", "datasets", "workflow", "workflows",
     "pdf", "pdfs", "url", "urls", "api", "apis", "json", "csv", "faq", "faqs", "todo", "todos"}
)


# Entries that mix letters and digits: the tokenizer keeps these as one word ("b4", not "b" + "4").
ALPHANUMERIC_FORMS = frozenset(form for form in CHAT_SPEAK if any(c.isdigit() for c in form))


def lookup(word: str) -> Expansion | None:
    """The entry for a lower-case word, from either table."""
    return CHAT_SPEAK.get(word) or CONTRACTIONS.get(word)


_CONTRACTED = {"'re": "are", "'ve": "have", "'ll": "will", "'d": "would", "'m": "am", "n't": "not", "'s": "is"}


def context_words(form: str) -> tuple[str, str]:
    """The words of an expansion that meet its left and right neighbours, lower-case:
    "you're" -> ("you", "are"), "I don't know" -> ("i", "know"), "can't" -> ("can", "not")."""
    words = form.lower().split()
    first, last = words[0], words[-1]
    for ending in _CONTRACTED:
        if first.endswith(ending) and len(first) > len(ending):
            stem = first[: -len(ending)]
            first = stem + "n" if ending == "n't" and stem in ("ca", "wo") else stem
            break
    for ending, word in _CONTRACTED.items():
        if last.endswith(ending):
            last = word
            break
    return first, last


def choose_expansion(expansion: Expansion, lexicon, left: str | None, right: str | None,
                     single_letter: bool, backoff: float) -> tuple[str, float]:
    """The expansion the neighbouring words favour (by the lexicon's bigrams), and how sure that is.

    The bigram counts have no contractions, so "you're" is judged as "you" to its
    left and "are" to its right. A single letter the context does not support
    ("the letter r") is only a suggestion.
    """
    scored = []
    for form in expansion.forms:
        first, last = context_words(form)
        if first not in lexicon:
            scored.append((-math.inf, 0.0, form))
            continue
        fit = lexicon.context_pmi(np.array([lexicon.word_id[first]]), left, None, backoff)[0]
        if last in lexicon:
            fit += lexicon.context_pmi(np.array([lexicon.word_id[last]]), None, right, backoff)[0]
        scored.append((lexicon.log_probabilities[lexicon.word_id[first]] + fit, fit, form))
    scored.sort(reverse=True)
    _, fit, best = scored[0]
    confidence = expansion.confidence
    if single_letter and fit < IMPLAUSIBLE_CONTEXT:
        confidence = min(confidence, 0.5)
    elif len(scored) > 1 and scored[1][0] > scored[0][0] - 1.0:
        confidence *= 0.9  # the neighbours hardly prefer one reading
    return best, confidence
