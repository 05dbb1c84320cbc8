"""Names in running text: organisations, products, places, events and people that spaCy's
named-entity recogniser finds. They say only that a document names something; the merge keeps a
non-person name once two documents name it, so one odd capitalised phrase does not become an entity."""

from __future__ import annotations

from chatapp.knowledge.extraction.observations import MENTION, Observation, clean_name, looks_like_person
from chatapp.lexicon import is_common

MAX_NER_CHARS = 60_000  # the opening of a long document names its cast; the rest costs time and adds little
_TYPES = {"ORG": "organization", "PRODUCT": "product", "GPE": "place", "FAC": "place", "LOC": "place",
          "EVENT": "event", "PERSON": "person"}


def read_mentions(text: str) -> list[Observation]:
    from chatapp.nlp import load_pipeline

    nlp, _ = load_pipeline()
    if "ner" not in nlp.pipe_names:
        return []
    # The recogniser of the small English pipelines has its own embedding layer: the shared
    # tok2vec feeds only the tagger and parser, so it is left out too (a third less time).
    listeners = nlp.get_pipe("tok2vec").listening_components if "tok2vec" in nlp.pipe_names else []
    disabled = [name for name in nlp.pipe_names if name != "ner" and not (name == "tok2vec" and "ner" in listeners)]
    found: list[Observation] = []
    doc = nlp(text[:MAX_NER_CHARS], disable=disabled)
    for ent in doc.ents:
        kind = _TYPES.get(ent.label_)
        name = clean_name(ent.text.replace("\n", " "))
        if kind is None or len(name) < 3 or not name[0].isupper() or any(c in name for c in "@/|<>#*"):
            continue
        if kind == "person":
            if looks_like_person(name):
                found.append(Observation(name, "person", MENTION, name, 0.6, "ner", ent.start_char))
        elif not all(is_common(w, 4.0) for w in name.split()):
            found.append(Observation(name, kind, MENTION, name, 0.55, "ner", ent.start_char))
    return found
