"""The spaCy pipeline chatapp loads is the installed package's, whatever it does to load faster."""

from __future__ import annotations

import pytest

import chatapp  # noqa: F401  (offline environment first)
from chatapp.nlp import PIPELINE_PACKAGES, keep_abbreviations, load_pipeline

TEXT = ("can u hlep me w/ the Q4 budget?? it's due 3/4/26 — John's e-mail: john.smith@company.com, "
        "see http://intranet.example/q4?id=7 :) Mr. O'Neil's 5km run cost $3.50/km at 10:30am in the U.S. "
        "Sarah Chen leads Project Helios; the review moved to 14 September 2026.")


def _annotations(nlp, text: str) -> list[tuple]:
    return [(t.text, t.whitespace_, t.tag_, t.pos_, t.dep_, t.head.i, t.lemma_, t.ent_iob_, t.ent_type_,
             t.is_sent_start, t.norm_, t.shape_, str(t.morph), t.is_stop, t.like_num) for t in nlp(text)]


def test_the_pipeline_tokenizes_and_annotates_as_spacys_own_load_of_the_package():
    import spacy

    nlp, description = load_pipeline()
    package = description.split()[0]
    if package not in PIPELINE_PACKAGES:
        pytest.skip("no packaged pipeline installed: the blank fallback has nothing to compare")
    plain = spacy.load(package)
    keep_abbreviations(plain)  # the one change chatapp makes on purpose ("ext. 214" is one value)
    assert nlp.tokenizer.to_bytes(exclude=["vocab"]) == plain.tokenizer.to_bytes(exclude=["vocab"])
    assert nlp.pipe_names == plain.pipe_names
    assert _annotations(nlp, TEXT) == _annotations(plain, TEXT)
    assert [t.text for t in nlp("don't")] == ["do", "n't"]  # a special case from the package's files
    # Without the package's string table (a memory saving), each string is there once it is met.
    assert len(nlp.vocab.strings) < len(plain.vocab.strings)


def test_a_revision_or_a_number_written_short_ends_no_sentence():
    from chatapp.postprocess.evidence import split_sentences

    nlp, _ = load_pipeline()
    text = "Norvane sent drawing rev. C on 13 November. Invoice no. 4411 is due. I said no. Then he left."
    expected = ["Norvane sent drawing rev. C on 13 November.", "Invoice no. 4411 is due.", "I said no.",
                "Then he left."]
    assert split_sentences(text) == expected  # the checks' split
    if nlp.has_pipe("parser"):
        assert [s.text for s in nlp(text).sents] == expected  # and the parse's, which ingest reads


def test_a_german_day_before_its_month_or_a_wrap_after_an_article_ends_no_sentence():
    from chatapp.postprocess.evidence import split_sentences

    # A mail wrapped at "ab dem", then the day written "11." before its month: one sentence, one date.
    text = "Wir können mit der Prüfung ab dem\n11. Januar 2027 beginnen. Danach folgt die Fassade."
    assert split_sentences(text) == ["Wir können mit der Prüfung ab dem 11. Januar 2027 beginnen.",
                                     "Danach folgt die Fassade."]
    assert split_sentences("Die Prüfung beginnt am 11. Januar. Danach die Fassade.") == [
        "Die Prüfung beginnt am 11. Januar.", "Danach die Fassade."]
