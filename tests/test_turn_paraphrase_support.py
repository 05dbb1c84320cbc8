"""A model answers in its own words: a chat turn's answer that says what the retrieved documents say, in
other words — a number spelt out, another word of the same family ("directs" for "director"), a hedge
("roughly"), an everyday synonym ("begin" for "start") — is accepted with no flag, while one worded alike
that changes a value or adds a detail of its own is still flagged. Real parts: a folder of notes ingested
into Chroma with the ONNX embedder, SQLite, the local OpenAI-compatible test server."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from chatapp.engine import ChatEngine
from tests.conftest import engine_learnt_from
from tests.turn_folder import ask_scripted

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)
CHOIR = """# Larkspur Community Choir

The choir rehearses weekly on Wednesdays in the Quenby Room of the Old Library.
Rehearsals start at 7 pm and end at 9 pm.
The choir has 42 singers, and about a third of them sing alto.
The annual subscription is £60, payable in January.
The musical director is Perpetua Oyelaran; the accompanist is Tobiah Strand.
The spring concert is on 18 April 2027 at St Brannoc's Church.
"""


@pytest.fixture(scope="module")
def choir(tmp_path_factory) -> ChatEngine:
    engine, _ = engine_learnt_from(tmp_path_factory, "choir", {"larkspur-choir.md": CHOIR})
    yield engine
    engine.close()


RIGHT_IN_OTHER_WORDS = [
    # A number spelt out.
    ("How many singers does the choir have?", "The choir is forty-two singers strong."),
    ("How much is the choir subscription?", "The subscription is sixty pounds a year, payable in January."),
    # Other words of the same family: "directs" for "director", "accompanies" for "accompanist".
    ("Who runs the music?", "Perpetua Oyelaran directs the music, and Tobiah Strand accompanies the singers."),
    # Everyday synonyms: "begin" for "start", "finish" for "end".
    ("When do rehearsals run?", "Rehearsals begin at 7 pm and finish at 9 pm."),
    # A hedge of its own: "roughly" for "about".
    ("How many altos are there?", "Roughly a third of the singers are altos."),
]


@pytest.mark.parametrize("question, answer", RIGHT_IN_OTHER_WORDS)
def test_an_answer_in_other_words_is_accepted_with_no_flag(choir, openai_server, question, answer):
    response = ask_scripted(choir, openai_server, question, answer, f"right-{abs(hash(answer))}", NOW)
    assert not response.hallucination_flags, [(f.hallucination_type, f.content) for f in response.hallucination_flags]
    assert response.recommendation == "Accept"
    assert "[unverified]" not in response.delivered


WRONG_WORDED_ALIKE = [
    ("How many singers does the choir have?", "The choir is fifty-two singers strong."),
    ("How much is the choir subscription?", "The subscription is eighty pounds a year, payable in January."),
    ("Who runs the music?", "Perpetua Oyelaran directs the music and also runs a youth orchestra in Falmouth."),
    ("When do rehearsals run?", "Rehearsals begin at 7 pm and finish at 9 pm, with a paid tea break led by the vicar."),
]


@pytest.mark.parametrize("question, answer", WRONG_WORDED_ALIKE)
def test_a_wrong_answer_worded_alike_is_still_flagged(choir, openai_server, question, answer):
    response = ask_scripted(choir, openai_server, question, answer, f"wrong-{abs(hash(answer))}", NOW)
    assert response.hallucination_flags
    assert response.recommendation != "Accept"


def test_evidence_embedded_while_the_model_answers_changes_no_result(choir):
    """A turn has its retrieved chunks' sentences embedded before the model is called (Postprocessor.prepare),
    so the answer's check finds them ready: the results are those of a check that embeds them itself, and
    the check embeds none of them again."""
    from chatapp.postprocess import Postprocessor

    embedder = choir.kb.embedder
    answers = [*RIGHT_IN_OTHER_WORDS, ("When is the spring concert?", "The spring concert is on 25 April 2027.")]
    embedded_cold = []
    original = embedder.embed
    for question, answer in answers:
        chunks = choir.kb.search(question)
        cold = Postprocessor(choir.kb.registry, embedder=embedder)
        embedder.embed = lambda texts: embedded_cold.extend(texts) or original(texts)
        try:
            expected = cold.process(answer, question=question, rag_chunks=chunks, now=NOW)
        finally:
            del embedder.embed
        warm = Postprocessor(choir.kb.registry, embedder=embedder)
        ready = warm.prepare(chunks)
        assert ready is not None
        ready.result()
        kept = warm.support_model.vectors.kept()
        assert all(" ".join(t.split()) in kept for c in chunks for t in _sentences_of(c))
        embedded = []
        embedder.embed = lambda texts: embedded.extend(texts) or original(texts)
        try:
            result = warm.process(answer, question=question, rag_chunks=chunks, now=NOW)
        finally:
            del embedder.embed
        assert not kept & {" ".join(t.split()) for t in embedded}, question
        assert [(f.hallucination_type, f.span, f.confidence) for f in result.hallucination_flags] == \
            [(f.hallucination_type, f.span, f.confidence) for f in expected.hallucination_flags], question
        assert (result.confidence, result.support, result.recommendation) == \
            (expected.confidence, expected.support, expected.recommendation), question
        assert [(c.text, c.score, c.flagged, c.evidence, c.reason) for c in result.claim_support] == \
            [(c.text, c.score, c.flagged, c.evidence, c.reason) for c in expected.claim_support], question


def test_the_answer_and_its_words_are_embedded_once_beside_the_parse(choir):
    """A chat turn's answer, and its everyday words the chunks lack, are embedded while spaCy parses it
    (on the check's embedding thread), and nothing is embedded twice: the support model's claims wait
    for those vectors rather than computing them again after the parse."""
    import threading

    from chatapp.postprocess import Postprocessor

    embedder = choir.kb.embedder
    original = embedder.embed
    question, answer = "When do rehearsals run?", "Rehearsals begin at 7 pm and finish at 9 pm."
    chunks = choir.kb.search(question)
    post = Postprocessor(choir.kb.registry, embedder=embedder)
    post.prepare(chunks, question=question).result()
    calls: list[tuple[str, list[str]]] = []
    embedder.forget()
    embedder.embed = lambda texts: calls.append((threading.current_thread().name, list(texts))) or original(texts)
    try:
        result = post.process(answer, question=question, rag_chunks=chunks, now=NOW)
    finally:
        del embedder.embed
    assert result.recommendation == "Accept"  # "begin" and "finish" read by meaning: the words were wanted
    texts = [t for _, batch in calls for t in batch]
    assert len(texts) == len(set(texts)), calls
    beside = {t for thread, batch in calls if thread.startswith("postprocess-embed") for t in batch}
    assert answer in beside and {"begin", "finish"} <= beside, calls


def _sentences_of(chunk) -> list[str]:
    from chatapp.postprocess.support import _read_evidence, chunk_text

    return [sentence for sentence, _, _ in _read_evidence(chunk_text(chunk))[0]]
