"""spaCy's named-entity recogniser, run only over the sentences of an answer
that can hold a name.

The recogniser is most of the cost of parsing an answer (it has its own
token-to-vector layers, and a fixed cost per call), yet what the checks read
of it — names, and what kind of thing a capitalised word is — lies in
sentences with a capitalised word, a proper noun, a digit or a registry name.
"Yes, that's right." holds none; nor does "It was a great read, you should
try it" once the writer is seen to capitalise (a sentence that starts in
lowercase says nothing by its case, and is read). The recogniser is run over
the rest with a few tokens of context either side, so that what it finds
there is what it finds reading the whole answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # spaCy is imported by whoever loaded the pipeline passed in (chatapp.nlp)
    from spacy.tokens import Doc, Span

# A sentence's first word is capitalised whatever it is; only as one of these can it start a name.
NAME_STARTS = frozenset({"PROPN", "NOUN", "ADJ", "NUM", "X", "SYM"})
# Tokens of context read either side of a sentence: the recogniser's token vectors see four tokens
# each way (four window-1 layers), and each move looks at the token before the one it decides on.
CONTEXT = 5


def recognise_names(nlp, doc: Doc, known_spans: list[tuple[int, int]] = ()) -> Doc:
    """Set `doc.ents` of a parse made without the recogniser, from the recogniser run over the
    sentences that can hold a name; `known_spans`: character spans of registry names in the text
    (a lowercase one still makes its sentence worth reading)."""
    ner = nlp.get_pipe("ner")
    sentences = list(doc.sents)
    read = [(s.start, s.end) for s in sentences if _can_hold_name(s, known_spans)]
    if len(read) == len(sentences):
        return ner(doc)
    # Windows of tokens to run it over, each with the sentences it is read for.
    windows: list[tuple[int, int, list[tuple[int, int]]]] = []
    for start, end in read:
        low, high = max(0, start - CONTEXT), min(len(doc), end + CONTEXT)
        if windows and low <= windows[-1][1]:
            windows[-1] = (windows[-1][0], high, windows[-1][2] + [(start, end)])
        else:
            windows.append((low, high, [(start, end)]))
    if len(windows) == 1 and windows[0][:2] == (0, len(doc)):
        return ner(doc)
    from spacy.tokens import Span

    names = []
    parts = ner.pipe([doc[low:high].as_doc() for low, high, _ in windows])
    for (low, _, inside), part in zip(windows, parts):
        for ent in part.ents:
            start, end = low + ent.start, low + ent.end
            if any(start < b and a < end for a, b in inside):
                names.append(Span(doc, start, end, label=ent.label))
    doc.ents = names
    return doc


def _can_hold_name(sentence: Span, known_spans) -> bool:
    first_word = next((t for t in sentence if t.is_alpha), None)
    if first_word is not None and first_word.text[0].islower():
        return True
    first = first_word.i if first_word is not None else -1
    for token in sentence:
        text = token.text
        # The tagger takes a name written in lowercase ("canada strikes are …") for a proper noun.
        if token.pos_ == "PROPN" or any(c.isdigit() for c in text):
            return True
        if text != "I" and any(c.isupper() for c in text) and (token.i != first or token.pos_ in NAME_STARTS):
            return True
    start, end = sentence.start_char, sentence.end_char
    return any(a < end and start < b for a, b in known_spans)


def carry_names(before: Doc, edits: list[tuple[tuple[int, int], str]], after: Doc) -> Doc:
    """Set `after.ents` from the names of `before`, whose text `edits` (character span, new text) turned
    into `after`'s: a correction puts a value or a name where one of its kind stood ("Greg Sandoval" for
    "Bill Harrington", "14 March" for "21 March"), so each name keeps its kind where it moved to, one
    that an edit cut into stretching over the edit's new text (and a name the recogniser misread in
    the answer keeps that reading). Recognising the corrected answer afresh was a second run of the
    recogniser for the same names, about half the cost of its parse; on the dev sample of
    tests/bench/same_outputs.py no result changed."""
    from spacy.tokens import Span

    edits = sorted(edits)
    new_spans, shift = [], 0
    for (start, end), replacement in edits:
        new_spans.append((start + shift, start + shift + len(replacement)))
        shift += len(replacement) - (end - start)

    def moved(position: int, closing: bool) -> int:
        shift = 0
        for ((start, end), replacement), (new_start, new_end) in zip(edits, new_spans):
            if position < start or (closing and position == start):
                break
            if position < end or (not closing and position == end and start == end):
                return new_end if closing else new_start
            shift += len(replacement) - (end - start)
        return position + shift

    names: list[Span] = []
    for ent in before.ents:
        span = after.char_span(moved(ent.start_char, False), moved(ent.end_char, True), label=ent.label,
                               alignment_mode="expand")
        if span is not None and len(span) and (not names or names[-1].end <= span.start):
            names.append(span)
    after.ents = names
    return after
