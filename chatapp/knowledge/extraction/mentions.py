"""Names in running text: organisations, products, places, events and people that spaCy's
named-entity recogniser finds. They say only that a document names something; the merge keeps a
non-person name once two documents name it, so one odd capitalised phrase does not become an entity.

The recogniser is the dearest part of learning at ingest, so it sees only the lines that could hold
a name it has not been given already (a capitalised word after a line's first), and documents are
read in batches."""

from __future__ import annotations

import re

from chatapp.knowledge.extraction.observations import MENTION, Observation, clean_name, looks_like_person
from chatapp.knowledge.extraction.values import find_amounts
from chatapp.lexicon import is_common

MAX_NER_CHARS = 60_000  # the opening of a long document names its cast; the rest costs time and adds little
BATCH = 16
_TYPES = {"ORG": "organization", "PRODUCT": "product", "GPE": "place", "FAC": "place", "LOC": "place",
          "EVENT": "event", "PERSON": "person"}
# A capitalised word that does not start its line: where a name can be.
_INNER_CAPITAL = re.compile(r"\S\s+[A-Z][a-z]")
# Lines the other readers parse in full (mail headers), which the recogniser would only repeat.
_HEADER_LINE = re.compile(r"^(?:From|To|Cc|Bcc|Date|Subject|Attachments):\s", re.IGNORECASE)


# Words a mail's greeting puts before a first name, in the languages a team writes in: "Dear Filipa,",
# "Cara Filipa,", "Prezado Sérgio,", "Estimada Ana,", "Liebe Anna,", "Chère Marie,".
_SALUTATIONS = frozenset("dear hi hello hey cara caro querida querido prezada prezado estimada estimado "
                         "olá ola hola cher chère liebe lieber".split())


def _greeting_line(text: str, ent) -> bool:
    """Whether the name stands alone on its line but for the comma or "!" a greeting ends with."""
    start = text.rfind("\n", 0, ent.start_char) + 1
    end = text.find("\n", ent.end_char)
    line = text[start:end if end >= 0 else len(text)].strip()
    return line.rstrip(",!").strip() == ent.text.strip() and line[-1:] in (",", "!")


def _candidate_text(text: str) -> tuple[str, list[int]]:
    """The lines worth reading, joined, and where each starts in the original text."""
    kept, starts, offset = [], [], 0
    for line in text[:MAX_NER_CHARS].split("\n"):
        if _INNER_CAPITAL.search(line) and not _HEADER_LINE.match(line):
            kept.append(line)
            starts.append(offset)
        offset += len(line) + 1
    return "\n".join(kept), starts


def _pipeline():
    from chatapp.nlp import load_pipeline

    nlp, _ = load_pipeline()
    if "ner" not in nlp.pipe_names:
        return None, []
    # The recogniser of the small English pipelines has its own embedding layer: the shared
    # tok2vec feeds only the tagger and parser, so it is left out too (a third less time).
    listeners = nlp.get_pipe("tok2vec").listening_components if "tok2vec" in nlp.pipe_names else []
    disabled = [name for name in nlp.pipe_names if name != "ner" and not (name == "tok2vec" and "ner" in listeners)]
    return nlp, disabled


def read_mentions_many(texts: list[str]) -> list[list[Observation]]:
    """The names in each text, one list per text."""
    nlp, disabled = _pipeline()
    if nlp is None:
        return [[] for _ in texts]
    prepared = [_candidate_text(text) for text in texts]
    docs = nlp.pipe((joined for joined, _ in prepared), disable=disabled, batch_size=BATCH)
    return [_observations(doc, starts) for doc, (_, starts) in zip(docs, prepared)]


def read_mentions(text: str) -> list[Observation]:
    return read_mentions_many([text])[0]


def _observations(doc, starts: list[int]) -> list[Observation]:
    found: list[Observation] = []
    line_starts = [0]
    for line in doc.text.split("\n")[:-1]:
        line_starts.append(line_starts[-1] + len(line) + 1)
    for ent in doc.ents:
        kind = _TYPES.get(ent.label_)
        text = ent.text
        if "\n" in text and doc.text[:ent.start_char].rsplit("\n", 1)[-1].lstrip().startswith("#"):
            # "## Grant" over "Giedre will submit …": a heading ends where its line does; no name runs
            # on from it into the text below.
            text = text.rsplit("\n", 1)[-1]
        elif "\n" in text and not doc.text[:ent.start_char].rsplit("\n", 1)[-1].strip() and len(
                text.split("\n", 1)[0].split()) >= 2:
            # A signature's name alone on its line, over "Lodge Manager, …": the name ends with its line.
            text = text.split("\n", 1)[0]
        elif (kind == "person" and "\n" in text and len(text.split("\n", 1)[0].split()) >= 2
              and looks_like_person(clean_name(text.split("\n", 1)[0]))):
            # "Employee of the month: Dana Pruitt" over "Dana (Line 2 operator) …": a whole name ends its
            # line; the next line's first word is no part of it.
            text = text.split("\n", 1)[0]
        if kind == "person":
            text = re.sub(r"['’]s?$", "", text)  # "Yuki Sato's team": the possessive is no part of the name
        name = clean_name(text.replace("\n", " "))
        if kind is None or len(name) < 3 or not name[0].isupper() or any(c in name for c in "@/|<>#*"):
            continue
        if any(c.isdigit() for c in name) and find_amounts(name):
            continue  # "GBP 3,150", "EUR 3,200.00": the recogniser's firm is a sum of money
        line = max(i for i, s in enumerate(line_starts) if s <= ent.start_char)
        position = starts[line] + ent.start_char - line_starts[line] if starts else 0
        if kind == "person":
            words = name.split()
            if words[0].lower() in _SALUTATIONS and _greeting_line(doc.text, ent):
                continue  # "Cara Filipa," opening a mail greets Filipa: "Cara" is no part of a name
            # "Koenig Suite 300", "Oak Room 4": a common word before a number numbers a place, so the
            # words before it are an address, not a person.
            numbered = re.match(r"[ \t]+\d{1,4}\b", doc.text[ent.end_char:]) and is_common(name.split()[-1], 4.0)
            if looks_like_person(name) and not numbered:
                found.append(Observation(name, "person", MENTION, name, 0.6, "ner", position))
        elif not all(is_common(w, 4.0) for w in name.split()):
            found.append(Observation(name, kind, MENTION, name, 0.55, "ner", position))
    return found
