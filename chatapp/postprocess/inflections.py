"""Irregular inflections brought back to their base word ("led" → lead, "ran" → run, "children" →
child), so that an answer saying "led" is matched with evidence saying "leads" — the stemmer
only strips regular endings.

The forms come from the exception tables of the spaCy English pipeline chatapp already ships
(its lemmatizer's lookups, read once from disk, a few milliseconds), not from a list of our own.
A form that is also a verb in its own right ("found", "saw", "lay", "felt") is left alone: which
word it is cannot be told without the sentence.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from chatapp.nlp import PIPELINE_PACKAGES, import_spacy


@functools.lru_cache(maxsize=1)
def irregular_forms() -> dict[str, str]:
    """{inflected form: base word} for irregular verbs and nouns; empty without a spaCy English model."""
    tables = _lemma_tables()
    if tables is None:
        return {}
    exceptions, index = tables
    verbs = set(index.get("verb", []))
    forms: dict[str, str] = {}
    for pos in ("verb", "noun"):
        for form, bases in (exceptions.get(pos) or {}).items():
            if bases and bases[0] != form and form not in verbs and form.isalpha():
                forms.setdefault(form, bases[0])
    return forms


def base_form(word: str) -> str:
    """`word` (lower case) as its base word when it is an irregular inflection, else unchanged."""
    return irregular_forms().get(word, word)


def _lemma_tables():
    try:
        import_spacy()
        from spacy.lookups import Lookups
    except ImportError:
        return None
    for package in PIPELINE_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            continue
        for folder in Path(spec.origin).parent.glob("*/lemmatizer/lookups"):
            try:
                lookups = Lookups().from_disk(folder)
                return lookups.get_table("lemma_exc"), lookups.get_table("lemma_index")
            except (OSError, KeyError, ValueError):
                continue
    return None
