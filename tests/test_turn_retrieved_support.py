"""A chat turn holds its answer to the chunks it retrieved from the user's documents as an answer is
held to evidence supplied for it — the same claim support and the same support-based confidence,
with the retrieved chunks trusted less (support_weights.json's fitted `retrieved_trust`). Real parts:
a folder of ordinary documents ingested into Chroma with the ONNX embedder, SQLite, the local
OpenAI-compatible test server."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from chatapp.engine import ChatEngine
from chatapp.postprocess.support import OWN_EXPERIENCE, default_weights
from tests.conftest import engine_learnt_from
from tests.turn_folder import ask_scripted

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)
TEAM = """# Tidewell Ceramics — who does what

_Updated 20 November 2026 by Ysolde Fairbairn._

- **Ysolde Fairbairn** — Studio Manager. Email: ysolde.fairbairn@tidewellceramics.co.uk. Phone: 01308 771 204
- **Cadoc Pellow** — Head Potter. Email: cadoc.pellow@tidewellceramics.co.uk. Phone: 01308 771 209
- **Wren Attwater** — Glaze Technician. Email: wren.attwater@tidewellceramics.co.uk
"""
KILN = """# Project Marram — the new gas kiln

Lead: Cadoc Pellow
Budget: £61,200 (agreed at the studio meeting on 4 November 2026)
Supplier: Harrowgate Kilns Ltd

The old electric kiln is retired at the end of January 2027. The gas kiln is installed in the back
workshop during the week of 11 January 2027, and the first firing is planned for 25 January 2027.
Wren Attwater tests the new glazes in the first three firings.
"""


@pytest.fixture(scope="module")
def studio(tmp_path_factory) -> ChatEngine:
    engine, _ = engine_learnt_from(tmp_path_factory, "studio", {"team.md": TEAM, "project-marram.md": KILN})
    yield engine
    engine.close()


def ask(engine: ChatEngine, server, question: str, answer: str, session: str):
    return ask_scripted(engine, server, question, answer, session, NOW)


SUPPORTED = ("Project Marram is led by Cadoc Pellow, with a budget of £61,200. The first firing of the gas kiln "
             "is planned for 25 January 2027.")
INVENTED = ("Project Marram is led by Cadoc Pellow. He moved the kiln to a rented unit in Bridport run by "
            "Corvina Leasing, at a cost of nine hundred thousand pounds.")


def test_the_trust_in_retrieved_chunks_is_fitted_data_below_that_in_supplied_evidence():
    assert 0 < default_weights().retrieved_trust < 1


def test_an_answer_the_retrieved_documents_support_is_accepted_with_high_confidence(studio, openai_server):
    response = ask(studio, openai_server, "Who leads Project Marram and when is the first firing?", SUPPORTED,
                   "supported")
    assert response.recommendation == "Accept" and not response.hallucination_flags
    assert response.confidence >= 0.8
    assert all(not c.flagged for c in response.claim_support if c.claim)


def test_a_made_up_claim_is_flagged_and_lowers_the_confidence_as_with_supplied_evidence(studio, openai_server):
    question = "Who leads Project Marram and where is the kiln?"
    supported = ask(studio, openai_server, question, SUPPORTED, "made-up-1")
    invented = ask(studio, openai_server, question, INVENTED, "made-up-2")
    assert invented.hallucination_flags and "[unverified]" in invented.delivered
    stated, made_up = [c for c in invented.claim_support if c.claim]
    assert not stated.flagged and stated.source == "document Project Marram — the new gas kiln (retrieved)"
    assert made_up.flagged and "Corvina" in made_up.text
    assert invented.confidence < supported.confidence - 0.25
    # The same documents supplied as evidence flag it too, and weigh its weak support more: a retrieved
    # chunk is only a best guess at what the answer should rest on.
    supplied = studio.postprocess(INVENTED, question=question, evidence=[TEAM, KILN], now=NOW)
    assert any("Corvina" in f.content or "Bridport" in f.content for f in supplied.hallucination_flags)
    assert supplied.confidence <= invented.confidence


def test_a_corrected_wrong_value_is_delivered_corrected_not_regenerated(studio, openai_server):
    response = ask(studio, openai_server, "What is Ysolde Fairbairn's email address?",
                   "Ysolde Fairbairn is the Studio Manager. Her email address is y.fairbairn@tidewellceramics.co.uk.",
                   "corrected-1")
    assert "ysolde.fairbairn@tidewellceramics.co.uk [corrected]" in response.delivered
    assert response.recommendation == "CorrectAndDeliver"
    # With a claim left unverified beside the correction, the answer is still delivered, flagged.
    response = ask(studio, openai_server, "What is Ysolde Fairbairn's email address?",
                   "Ysolde Fairbairn is the Studio Manager. Her email address is y.fairbairn@tidewellceramics.co.uk. "
                   "She mentioned the kiln in her message yesterday about the glaze tests with Wren from accounts.",
                   "corrected-2")
    assert "ysolde.fairbairn@tidewellceramics.co.uk [corrected]" in response.delivered
    assert "[unverified]" in response.delivered
    assert response.recommendation == "CorrectAndDeliver"


@pytest.mark.parametrize("opening", ["I searched the documents.", "I looked through your notes.",
                                     "I went through the files you added."])
def test_the_assistant_saying_it_searched_the_users_documents_is_not_its_own_experience(studio, openai_server,
                                                                                        opening):
    response = ask(studio, openai_server, "Who leads Project Marram?",
                   f"{opening} Project Marram is led by Cadoc Pellow.", opening)
    assert response.recommendation == "Accept", response.hallucination_flags
    assert not any(OWN_EXPERIENCE in c.reason for c in response.claim_support)


def test_a_story_of_the_assistants_own_life_is_still_flagged_beside_the_documents(studio, openai_server):
    response = ask(studio, openai_server, "Who leads Project Marram?",
                   "Project Marram is led by Cadoc Pellow. I visited the back workshop last summer.", "own-life")
    story = next(c for c in response.claim_support if "visited" in c.text)
    assert story.flagged and OWN_EXPERIENCE in story.reason
    assert response.recommendation != "Accept"


@pytest.mark.parametrize("answer", [
    # The documents' facts in the model's own words, with an offer or a question back around them.
    "Cadoc Pellow is in charge of Project Marram. The first firing is planned for 25 January 2027. "
    "Would you like the budget as well?",
    "Sure! Cadoc Pellow leads it, and the gas kiln goes into the back workshop in the week of 11 January 2027.",
    "That would be Cadoc Pellow. Anything else you need about the kiln?",
])
def test_a_right_answer_in_the_models_own_words_gets_no_flag_for_the_answer_as_a_whole(studio, openai_server,
                                                                                       answer):
    response = ask(studio, openai_server, "Who leads Project Marram?", answer, f"own-words-{len(answer)}")
    assert not any(f.hallucination_type == "UnsupportedAnswer" for f in response.hallucination_flags)
    assert response.recommendation == "Accept", response.hallucination_flags
