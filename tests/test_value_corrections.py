"""A wrong value in an answer is rewritten ("[corrected]") only to the value the user's documents
give for the same thing; a value the documents give for something else nearby is never used as a
correction: the claim is marked [unverified] instead. Real parts: a folder of documents written here
ingested into a fresh data dir (SQLite registry from extraction, Chroma, the ONNX embedder), the real
spaCy pipeline."""

from __future__ import annotations

import pytest

from chatapp.engine import ChatEngine
from chatapp.postprocess import Postprocessor
from chatapp.records import KnowledgeChunk

TEAM = """# Brackenfold Joinery — who does what

- **Tamsin Quillet** — Workshop Manager. Email: tamsin.quillet@brackenfold-joinery.co.uk. Phone: 01766 530 118
- **Idris Penhallow** — Lead Cabinetmaker. Email: idris.penhallow@brackenfold-joinery.co.uk. Phone: 01766 530 124
"""
BOOTH = """# Project Skerry — the new spray booth

Lead: Idris Penhallow
Budget: £18,400

The extraction fan is fitted on 9 February 2027. The booth survey found 37 loose panels in the old enclosure.
Idris will compare three filter suppliers before the fitting. The curing cycle takes 45 minutes at 60 degrees.
The dust extractor was serviced from 4 January to 15 January 2027.
"""


@pytest.fixture(scope="module")
def joinery(tmp_path_factory):
    folder = tmp_path_factory.mktemp("joinery-docs")
    (folder / "team.md").write_text(TEAM, encoding="utf-8")
    (folder / "project-skerry.md").write_text(BOOTH, encoding="utf-8")
    engine = ChatEngine.open(tmp_path_factory.mktemp("joinery-data"), load_sample_kb=False)
    report = engine.ingest(folder)
    assert not report.files_failed, report.files_failed
    yield Postprocessor(engine.kb.registry)
    engine.close()


def checked(post: Postprocessor, answer: str) -> str:
    """The delivered answer, checked as a chat turn checks it: the documents as retrieved chunks."""
    chunks = [KnowledgeChunk("booth", "project-skerry.md", 1.0, BOOTH), KnowledgeChunk("team", "team.md", 0.8, TEAM)]
    return post.process(answer, rag_chunks=chunks).delivered


@pytest.mark.parametrize("answer, delivered", [
    ("The booth survey found 73 loose panels in the old enclosure.",
     "The booth survey found 37 [corrected] loose panels in the old enclosure."),
    ("The curing cycle takes 30 minutes at 60 degrees.", "The curing cycle takes 45 minutes [corrected] at 60 degrees."),
    ("The extraction fan is fitted on 19 February 2027.",
     "The extraction fan is fitted on 9 February 2027 [corrected]."),
    # The answer's other value in the sentence stands for the document's other value, not a rival.
    ("The dust extractor was serviced from 4 January to 18 January 2027.",
     "The dust extractor was serviced from 4 January to 15 January 2027 [corrected]."),
    ("Project Skerry has a budget of £81,400.", "Project Skerry has a budget of £18,400 [corrected]."),
])
def test_a_wrong_value_is_corrected_to_what_the_document_says_of_the_same_thing(joinery, answer, delivered):
    assert checked(joinery, answer) == delivered


def test_a_value_the_documents_give_for_something_else_is_no_correction(joinery):
    # The project's one stored number is its budget: a count of spray guns is not a budget.
    delivered = checked(joinery, "Project Skerry will test seven spray guns next week.")
    assert "[corrected]" not in delivered and "£18,400" not in delivered
    assert "[unverified]" in delivered


def test_an_address_is_not_taken_for_the_longer_one_it_is_part_of(joinery):
    # "s.penhallow@…" is the end of nobody's address: wrong, whether with the person's pronoun or name.
    for answer in ("Idris Penhallow is the Lead Cabinetmaker. His email address is s.penhallow@brackenfold-joinery.co.uk.",
                   "Idris Penhallow's email address is s.penhallow@brackenfold-joinery.co.uk."):
        assert "idris.penhallow@brackenfold-joinery.co.uk [corrected]" in checked(joinery, answer)


def test_an_address_is_not_corrected_to_the_address_of_someone_named_after_it(joinery):
    # The person is named after the address, as who reads the mailbox: the address is not said to be theirs.
    delivered = checked(joinery, "Questions about the booth go to booth-desk@brackenfold-joinery.co.uk "
                                 "(read by Tamsin Quillet).")
    assert "tamsin.quillet@" not in delivered and "[corrected]" not in delivered
    assert "booth-desk@brackenfold-joinery.co.uk [unverified]" in delivered


def test_of_two_equally_like_sentences_neither_is_offered_as_the_right_value(joinery):
    # "His email address is …" is as like "Email: tamsin.quillet@…" as "Email: idris.penhallow@…".
    post = joinery
    result = post.process("His email address is r.penhallow@brackenfold-joinery.co.uk.", evidence=[TEAM])
    assert not any(f.suggestion and "tamsin" in f.suggestion for f in result.hallucination_flags)
