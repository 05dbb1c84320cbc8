"""A word the user's documents always write with capitals — a town, an agency, a product — is given
them back when the user types it in lower case ("is the abuja office open?" → "Abuja"), counted from
the documents at ingest with no registry files; an everyday word is left alone whatever a folder does
with it, and a document that writes the word in lower case, or leaves, takes the capitals away. Real
parts: a folder of notes and mails ingested into SQLite and Chroma, spaCy, the correction pipeline."""

from __future__ import annotations

import pytest

from chatapp.engine import ChatEngine
from chatapp.knowledge.word_forms import consistent_forms, written_forms
from tests.conftest import engine_learnt_from

NOTES = """# Field office notes

Our Sokoto office opened in March 2026. Ifeoma Adeyemi runs it, and the Kestrelnet routers there were
replaced in June.
- Deliveries from the Birnin depot reach Sokoto twice a week.
- Sokoto staff file their returns with Zenlith each quarter.

The depot in Birnin is run by Musa Garba. Reading the Kestrelnet logs is Ifeoma's job.
"""
MAIL = """From: Musa Garba <musa.garba@tamarind-logistics.ng>
Subject: Birnin depot hours

Hi Ifeoma,

From Monday the Birnin depot opens at 7. Please tell the Sokoto team, and ask Zenlith to move the
Kestrelnet audit to Thursday, which is URGENT. I'll be Reading the new rota tonight, also URGENT.

Musa
"""


@pytest.fixture(scope="module")
def office(tmp_path_factory) -> ChatEngine:
    engine, _ = engine_learnt_from(tmp_path_factory, "office", {"field-notes.md": NOTES, "depot-hours.eml": MAIL})
    yield engine
    engine.close()


def corrected(engine: ChatEngine, text: str):
    result = engine.turns.preprocess(text)
    return result.corrected_input, {(c.original, c.corrected) for c in result.corrections if c.applied}


def test_words_the_documents_always_capitalise_are_capitalised(office):
    text, applied = corrected(office, "is the sokoto office still on kestrelnet routers and who runs birnin depot")
    assert "Sokoto office" in text and "Kestrelnet routers" in text and "Birnin depot" in text
    assert ("sokoto", "Sokoto") in applied and ("birnin", "Birnin") in applied


def test_an_everyday_word_the_documents_capitalise_is_left_as_typed(office):
    # Both files write "Reading" with a capital mid-sentence (a slip, or a town): the user's "reading"
    # is the verb first; "depot" is written in lower case too, so it keeps its case.
    text, _ = corrected(office, "who is reading the logs at the depot")
    assert "reading the logs" in text and "the depot" in text
    # A word shouted in capitals is no acronym ("URGENT", as the mail writes it, is not "HP").
    text, _ = corrected(office, "is the kestrelnet audit urgent")
    assert "urgent" in text and "Kestrelnet" in text


def test_a_data_dir_from_before_the_counts_gets_them_from_a_rebuild(tmp_path_factory):
    # A data dir whose documents were ingested before the counts existed has none; `chatapp kb rebuild`
    # reads every document again and fills them.
    engine, _ = engine_learnt_from(tmp_path_factory, "office-old", {"field-notes.md": NOTES, "depot-hours.eml": MAIL})
    try:
        with engine.kb.database.transaction() as db:
            db.execute("DELETE FROM word_forms")
        assert engine.kb.registry.document_word_forms() == {}
        engine.kb.rebuild()
        assert engine.kb.registry.document_word_forms()["sokoto"] == "Sokoto"
    finally:
        engine.close()


def test_forms_go_with_the_document_that_gave_them(tmp_path_factory):
    engine, folder = engine_learnt_from(tmp_path_factory, "office-two", {"field-notes.md": NOTES,
                                                                         "depot-hours.eml": MAIL})
    try:
        assert engine.kb.registry.document_word_forms()["zenlith"] == "Zenlith"
        # A new document writing the word in lower case: the folder no longer always capitalises it.
        (folder / "vendors.txt").write_text("We moved our returns from zenlith to a local firm.\n", encoding="utf-8")
        engine.ingest(folder)
        assert "zenlith" not in engine.kb.registry.document_word_forms()
        text, _ = corrected(engine, "did we leave zenlith")
        assert "zenlith" in text
        # Removed documents take their counts with them.
        (folder / "vendors.txt").unlink()
        (folder / "depot-hours.eml").unlink()
        engine.ingest(folder, prune=True)
        forms = engine.kb.registry.document_word_forms()
        assert forms.get("zenlith") is None  # once in the notes' list: no longer twice
        assert forms["sokoto"] == "Sokoto"
        engine.kb.remove_documents([folder / "field-notes.md"])  # `chatapp kb remove`
        assert engine.kb.registry.document_word_forms() == {}
    finally:
        engine.close()


def test_what_counts_as_a_capital_a_sentence_does_not_call_for():
    text = ("Status: Approved\n**Priority:** Urgent, and Lunch – Provided\n"
            "| Site | Lead |\n| Sokoto | Ifeoma Adeyemi |\n"
            "- Sokoto opens at 7. Then the Birnin run.\n"
            "Write to ops@Sokoto-depot.ng or see https://Sokoto.example.ng/Hours.\n"
            "The new site is near Birnin, and the birnin road is closed.\n")
    counts = written_forms(text)
    # Line and sentence openings, a label's value, a table cell and addresses say nothing by a capital.
    assert ("approved", "Approved") not in counts and ("sokoto", "Sokoto") not in counts
    assert ("urgent", "Urgent") not in counts and ("provided", "Provided") not in counts
    assert ("then", "Then") not in counts
    # Mid-sentence capitals count, beside the same word's lower-case uses.
    assert counts[("birnin", "Birnin")] == 2 and counts[("birnin", "birnin")] == 1
    assert consistent_forms([(lower, form, n) for (lower, form), n in counts.items()]) == {}
    assert consistent_forms([("nitda", "NITDA", 2), ("nitda", "Nitda", 1)]) == {}  # no form most uses take
    assert consistent_forms([("nitda", "NITDA", 2)]) == {"nitda": "NITDA"}
