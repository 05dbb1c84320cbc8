"""The claim support model (chatapp/postprocess/support.py): each sentence of an answer scored
against the evidence at hand, on the kind of text chatapp's users check — who leads what, budgets,
dates — and shown per claim by `chatapp check --explain` and `--json`."""

from __future__ import annotations

import json

import pytest

from chatapp.engine import ChatEngine
from chatapp.postprocess.support import FEATURES, LEXICAL_FEATURES, SupportWeights, default_weights
from chatapp.records import KnowledgeChunk

from conftest import run_cli

ATLAS = ["The Atlas migration is led by Dana Kim. It moves reporting to a managed cloud warehouse and is due "
         "to finish in March 2027."]
MAGAZINES = ["Arthur's Magazine (1844-1846) was an American literary periodical published in Philadelphia. "
             "First for Women is a woman's magazine published by Bauer Media Group in the USA."]


def claims(result):
    return [c for c in result.claim_support if c.claim]


def test_a_sentence_saying_what_the_evidence_says_in_its_own_order_is_supported(open_post):
    result = open_post.process("Dana Kim is leading the Atlas migration, which should finish in March 2027.",
                               question="Who is in charge of Atlas?", evidence=ATLAS)
    (claim,) = claims(result)
    assert not claim.flagged and claim.score >= default_weights().flag_below
    assert claim.evidence == "The Atlas migration is led by Dana Kim." and claim.source == "evidence 1"
    assert not result.hallucination_flags and result.recommendation == "Accept"


def test_an_invented_number_and_place_leave_the_claim_unsupported(open_post):
    result = open_post.process("Dana Kim leads the Atlas migration. She hired 14 contractors in Zurich for it.",
                               question="Who leads Atlas?", evidence=ATLAS)
    first, second = claims(result)
    assert not first.flagged
    assert second.flagged and second.score < first.score
    assert second.features["unaligned"] > 0 and "contractors" in second.missing
    assert result.hallucination_flags and result.recommendation != "Accept"
    # The weaker claim lowers the answer's confidence below that of the supported sentence alone.
    alone = open_post.process("Dana Kim leads the Atlas migration.", question="Who leads Atlas?", evidence=ATLAS)
    assert result.confidence < alone.confidence


def test_courtesy_and_small_talk_are_not_claims(open_post):
    result = open_post.process("Thanks for asking! Have a great day.", question="Who leads Atlas?", evidence=ATLAS)
    assert result.claim_support and not claims(result)
    assert all("not a claim" in c.reason for c in result.claim_support)
    assert not result.hallucination_flags


def test_the_questions_own_words_said_back_are_not_counted_as_claim_content(open_post):
    question = "Which magazine was started first, Arthur's Magazine or First for Women?"
    asked = open_post.process("Arthur's Magazine was started first.", question=question, evidence=MAGAZINES)
    unasked = open_post.process("Arthur's Magazine was started first.", question="", evidence=MAGAZINES)
    assert not asked.hallucination_flags
    assert all("started" not in c.missing for c in asked.claim_support)
    assert any("started" in c.missing for c in unasked.claim_support)


def test_a_value_the_evidence_gives_differently_is_a_conflict_not_weak_support(open_post):
    result = open_post.process("The Atlas migration is due to finish in March 2029.", question="When does Atlas end?",
                               evidence=ATLAS)
    (claim,) = claims(result)
    assert claim.flagged and claim.features["unaligned"] > 0
    assert "2029" in " ".join(f.content for f in result.hallucination_flags)


def test_retrieved_chunks_are_evidence_under_their_document_name(open_post):
    chunk = KnowledgeChunk("c1", "/docs/atlas.md", 0.9, ATLAS[0], title="Atlas project page")
    supported = open_post.process("Dana Kim leads the Atlas migration.", question="Who leads Atlas?", rag_chunks=[chunk])
    (claim,) = claims(supported)
    assert claim.source == "document Atlas project page (retrieved)" and not claim.flagged
    invented = open_post.process("Dana Kim leads the Atlas migration. Priya Raman audits its invoices every Friday "
                                 "from the Lisbon office.", question="Who leads Atlas?", rag_chunks=[chunk])
    assert claims(invented)[1].flagged


def test_a_denial_of_the_evidence_is_seen_as_a_negation_conflict(open_post):
    result = open_post.process("The Atlas migration is not led by Dana Kim.", question="", evidence=ATLAS)
    (claim,) = claims(result)
    assert claim.features["negation_conflict"] == 1.0
    assert result.hallucination_flags


def test_the_weights_are_data_with_every_feature_fitted():
    weights = SupportWeights.load()
    assert set(LEXICAL_FEATURES) <= set(weights.lexical) and set(FEATURES) <= set(weights.full)
    assert 0 < weights.flag_below_retrieved <= weights.flag_below < 1
    low, high = weights.ambiguous
    assert 0 <= low <= weights.flag_below <= high <= 1


def test_check_explain_and_json_show_each_claims_support_and_its_evidence(tmp_path):
    notes = tmp_path / "atlas-notes.md"
    notes.write_text("# Atlas\n\nThe Atlas migration is led by Dana Kim.\n\nIts budget is $120,000.\n")
    data_dir = tmp_path / "data"
    answer = "Dana Kim leads the Atlas migration. Bob Marley approved the plan in Lagos."
    explained = run_cli("check", "--response", answer, "--question", "Who leads Atlas?", "--evidence", str(notes),
                        "--explain", data_dir=data_dir, env={"COLUMNS": "300"})
    assert explained.returncode == 0, explained.stderr
    shown = " ".join(explained.stdout.split())
    assert "The Atlas migration is led by Dana Kim." in shown and "(evidence file atlas-notes.md)" in shown
    assert "support per claim" in shown and "not in the evidence" in shown
    as_json = run_cli("check", "--response", answer, "--question", "Who leads Atlas?", "--evidence", str(notes),
                      "--json", data_dir=data_dir)
    support = json.loads(as_json.stdout)["response"]["claim_support"]
    assert [c["flagged"] for c in support] == [False, True]
    assert support[0]["source"] == "evidence file atlas-notes.md" and support[0]["score"] > support[1]["score"]
    assert support[1]["reason"]


def test_check_without_evidence_files_holds_the_answer_to_your_own_documents(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "kiln.md").write_text(
        "# Kiln replacement\n\nThe quote from Tallis Kilns for the new gas kiln is £14,250 including installation.\n"
        "Ossian Pryce will coordinate the install with the landlord.\n", encoding="utf-8")
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        answer = "Ossian Pryce will coordinate the kiln install. The kiln quote came to £19,900."
        question = "Who coordinates the kiln install and what did the quote come to?"
        searched = engine.postprocess(answer, question=question, search_documents=True)
        alone = engine.postprocess(answer, question=question)
    first = searched.claim_support[0]
    assert first.source.endswith("(retrieved)") and "Ossian Pryce will coordinate" in first.evidence
    assert not first.flagged
    # The amount no document states is flagged only when the documents were looked at.
    assert any("£19,900" in f.content for f in searched.hallucination_flags)
    assert not any("£19,900" in f.content for f in alone.hallucination_flags)


# --- what the assistant says of itself, irregular verbs, the answer as a whole -------------------------

ROME = ["The Colosseum in Rome was completed in 80 AD under the emperor Titus. It could hold about "
        "50,000 spectators."]


def test_an_assistant_claiming_its_own_experience_is_flagged_even_in_the_evidences_words(open_post):
    result = open_post.process("I visited the Colosseum in Rome last summer. It could hold about 50,000 spectators.",
                               question="Tell me about the Colosseum.", evidence=ROME)
    visited, held = claims(result)
    assert visited.flagged and "own experience" in visited.reason
    assert not held.flagged
    assert any("I visited the Colosseum" in f.content for f in result.hallucination_flags)
    family = open_post.process("My wife loves the Colosseum in Rome.", question="Tell me about the Colosseum.",
                               evidence=ROME)
    assert family.hallucination_flags


def test_a_question_back_a_hedge_or_a_taste_is_not_flagged(open_post):
    for answer in ("Have you ever been to Rome?", "I'm not sure about that.", "I have never been to Rome.",
                   "I love old buildings like that, do you?", "I looked through your notes for this."):
        result = open_post.process(answer, question="Tell me about the Colosseum.", evidence=ROME)
        assert not claims(result), answer
        assert not result.hallucination_flags, answer


def test_the_same_story_told_first_hand_in_the_users_own_notes_is_not_flagged(open_post):
    notes = ["Trip diary. I visited the Colosseum in Rome last summer with Dana."]
    result = open_post.process("I visited the Colosseum in Rome last summer.", question="What did I do last summer?",
                               evidence=notes)
    assert not result.hallucination_flags


def test_small_talk_gets_no_flag_for_what_the_assistant_says_of_itself(open_post):
    result = open_post.process("I'm great, thanks! I spent the morning walking in the park.",
                               question="Hi, how are you?", evidence=ROME)
    assert not claims(result) and not result.hallucination_flags
    # The same words to a question about something else are the assistant's made-up morning.
    asked = open_post.process("I spent the morning walking in the park.", question="Tell me about the Colosseum.",
                              evidence=ROME)
    assert asked.hallucination_flags


def test_led_in_the_answer_is_supported_by_leads_in_the_evidence(open_post):
    evidence = ["Omar Haddad leads the platform team and runs the weekly release review."]
    result = open_post.process("Omar Haddad led the platform team and ran the weekly release review.",
                               question="", evidence=evidence)
    (claim,) = claims(result)
    assert claim.missing == [] and claim.features["share"] == 1.0
    assert not result.hallucination_flags


def test_an_answer_weak_as_a_whole_has_its_weakest_claim_flagged(open_post):
    weights = default_weights()
    assert 0 < weights.answer_flag_below < 1
    # Alone the claim lacks one word too common to flag it ("released"); the answer as a whole, an
    # aside of its own around it, is weak.
    alone = open_post.process("The Atlas migration was released in March 2027.", question="Who leads Atlas?",
                              evidence=ATLAS)
    assert not alone.hallucination_flags
    result = open_post.process("Not sure who, sorry! The Atlas migration was released in March 2027.",
                               question="Who leads Atlas?", evidence=ATLAS)
    assert result.support < weights.answer_flag_below < alone.support
    (claim,) = claims(result)
    assert claim.flagged and "the answer's support" in claim.reason and claim.missing == ["released"]
    assert [f.content for f in result.hallucination_flags] == ["The Atlas migration was released in March 2027"]
    # Said as the evidence says it, the same answer's support is high and nothing is flagged.
    stated = open_post.process("The migration is led by Dana Kim. It is due to finish in March 2027.",
                               question="Who leads Atlas?", evidence=ATLAS)
    assert stated.support >= weights.answer_flag_below and not stated.hallucination_flags


def test_the_noun_a_stated_value_is_said_of_is_not_missing_content(open_post):
    evidence = ["Jennifer Tran, Science Department Chair. Phone: 214. Room B12."]
    result = open_post.process("Jennifer Tran chairs the Science Department. Her phone extension is 214.",
                               question="Who is Jennifer Tran?", evidence=evidence)
    assert all("extension" not in c.missing for c in result.claim_support)
    assert not result.hallucination_flags
    # Of a value the evidence does not state, the noun is content like any other.
    unstated = open_post.process("Her pager extension is 9921.", question="Who is Jennifer Tran?", evidence=evidence)
    assert any("extension" in c.missing for c in unstated.claim_support)


# --- the answer as a whole (UnsupportedAnswer) ------------------------------------------------------

ALLOTMENT = ("# Brackenfold allotment society\n\nThe society meets on the first Saturday of each month in the church "
             "hall. Its treasurer, Odile Marchetti, collects the yearly plot fee of £35 in April.\n")
# Each claim lacks too little to flag alone ("remember"); the answer as a whole rests little on the notes.
WEAK_AS_A_WHOLE = "Oh yes, I remember that, it was so much fun back then. They meet every month in the hall."


def test_check_flags_an_answer_weak_as_a_whole_and_says_why_without_marking_a_claim(tmp_path):
    notes = tmp_path / "allotment-notes.md"
    notes.write_text(ALLOTMENT, encoding="utf-8")
    data_dir = tmp_path / "data"
    question = "When does the allotment society meet?"
    as_json = run_cli("check", "--response", WEAK_AS_A_WHOLE, "--question", question, "--evidence", str(notes),
                      "--json", data_dir=data_dir)
    assert as_json.returncode == 0, as_json.stderr
    response = json.loads(as_json.stdout)["response"]
    (flag,) = response["hallucination_flags"]
    assert flag["hallucination_type"] == "UnsupportedAnswer"
    assert flag["content"] == WEAK_AS_A_WHOLE and "the answer's support" in flag["evidence"][0]
    # Delivered as written, no claim marked or flagged: it is the whole answer that is weak, and the
    # mildest flagged verdict, not a second attempt, though its confidence is low.
    assert response["delivered"] == WEAK_AS_A_WHOLE and "[unverified]" not in response["delivered"]
    assert not any(c["flagged"] for c in response["claim_support"])
    assert response["recommendation"] == "AcceptWithFlags"
    assert response["support"] < response["support_threshold"] and "the answer's support" in response["support_reason"]
    explained = run_cli("check", "--response", WEAK_AS_A_WHOLE, "--question", question, "--evidence", str(notes),
                        "--explain", data_dir=data_dir, env={"COLUMNS": "300"})
    shown = " ".join(explained.stdout.split())
    assert "(the answer as a whole)" in shown and "the answer as a whole: UnsupportedAnswer" in shown
    assert "bears out too little of it as a whole" in shown


def test_check_leaves_a_faithful_paraphrase_unflagged(tmp_path):
    notes = tmp_path / "allotment-notes.md"
    notes.write_text(ALLOTMENT, encoding="utf-8")
    paraphrase = "Odile Marchetti, the treasurer, collects the £35 yearly fee for each plot in April."
    explained = run_cli("check", "--response", paraphrase, "--question", "Who collects the plot fee?", "--evidence",
                        str(notes), "--explain", data_dir=tmp_path / "data", env={"COLUMNS": "300"})
    assert explained.returncode == 0, explained.stderr
    shown = " ".join(explained.stdout.split())
    assert "Accept ·" in shown and "UnsupportedAnswer" not in shown and "[unverified]" not in shown
    assert "the answer as a whole: support" in shown and "(weak under" in shown


def test_an_answer_to_small_talk_is_never_flagged_as_a_whole(open_post):
    asked = open_post.process(WEAK_AS_A_WHOLE, question="When does the allotment society meet?", evidence=[ALLOTMENT])
    assert [f.hallucination_type for f in asked.hallucination_flags] == ["UnsupportedAnswer"]
    for greeting in ("Thanks so much!", "Hi there!", "Good morning"):
        result = open_post.process(WEAK_AS_A_WHOLE, question=greeting, evidence=[ALLOTMENT])
        assert not result.hallucination_flags, greeting


def test_without_evidence_an_answer_is_never_flagged_as_a_whole(open_post):
    result = open_post.process(WEAK_AS_A_WHOLE, question="When does the allotment society meet?")
    assert not result.hallucination_flags and result.support_threshold == 0.0


# A taste or judgement of the answer's own ("an aside"), in words the notes lack, around a claim they state.
WITH_AN_ASIDE = "It meets on the first Saturday of each month in the church hall. I adore growing heirloom tomatoes there."


def test_an_answer_weak_as_a_whole_that_voices_a_taste_the_notes_lack_is_flagged_as_a_whole(open_post):
    result = open_post.process(WITH_AN_ASIDE, question="When does the allotment society meet?", evidence=[ALLOTMENT])
    (flag,) = result.hallucination_flags
    assert flag.hallucination_type == "UnsupportedAnswer"
    assert "I adore growing heirloom tomatoes there." in flag.evidence[0]
    # The claim the notes state is not marked: the aside is what the evidence does not bear out.
    assert not any(c.flagged for c in result.claim_support)
    assert result.recommendation == "AcceptWithFlags"
    # Said alone, the claim is supported and nothing is flagged.
    alone = open_post.process(WITH_AN_ASIDE.split(". ")[0] + ".", question="When does the allotment society meet?",
                              evidence=[ALLOTMENT])
    assert not alone.hallucination_flags


def test_an_answer_of_nothing_but_a_taste_is_flagged_unless_it_replies_to_small_talk(open_post):
    asked = open_post.process("I adore heirloom tomatoes!", question="When does the allotment society meet?",
                              evidence=[ALLOTMENT])
    assert [f.hallucination_type for f in asked.hallucination_flags] == ["UnsupportedAnswer"]
    for greeting in ("Thanks so much!", "Hi there!"):
        assert not open_post.process("I adore heirloom tomatoes!", question=greeting,
                                     evidence=[ALLOTMENT]).hallucination_flags, greeting


def test_courtesy_or_a_question_back_around_claims_the_evidence_states_is_not_flagged(open_post):
    evidence = ["Jennifer Tran, Science Department Chair. Phone: 214. Room B12."]
    for answer in ("Sure! Jennifer Tran chairs the Science Department. Her phone extension is 214.",
                   "Thanks for asking! Jennifer Tran chairs the Science Department. Her phone extension is 214.",
                   "Odile Marchetti does. Anything else you would like to know about the society?"):
        result = open_post.process(answer, question="Who is Jennifer Tran?" if "Tran" in answer
                                   else "Who collects the plot fee?", evidence=evidence if "Tran" in answer else [ALLOTMENT])
        assert not result.hallucination_flags, answer



# --- an answer weak as a whole whose every claim scores as supported ------------------------------

# A user's notes kept as records: lines of labels and values, which any answer says in other words.
BAKERY_CARD = """# Wrenfield bakery co-op — who does what

- Head baker: Tamsin Verity — tamsin@wrenfield-coop.example — ext. 12
- Deliveries: Lowen Garrick, van 2, Tuesdays and Fridays
- Flour order | Brackley Mill | every 3 weeks
"""


@pytest.mark.parametrize("answer, question, evidence", [
    # A name the notes give, with an offer around it (in no source).
    ("Odile Marchetti does. Anything else you would like to know about the society?", "Who collects the plot fee?",
     ALLOTMENT),
    # A record of the notes (the line has none of the answer's phrasing) said in sentences.
    ("The flour comes from Brackley Mill, ordered every three weeks. Anything else?", "Where do we get flour?",
     BAKERY_CARD),
    # A short answer to what was asked.
    ("No. You can't use a hosepipe on any plot.", "Can I use a hosepipe at the allotment?",
     "Hosepipes are banned on all plots. Bonfires are not permitted between May and September."),
])
def test_a_weak_answer_whose_every_claim_restates_the_notes_is_not_flagged(open_post, answer, question, evidence):
    result = open_post.process(answer, question=question, evidence=[evidence])
    # Weak as a whole, but what it claims is what the notes say.
    assert result.support < result.support_threshold
    assert not result.hallucination_flags and result.recommendation == "Accept"


def test_an_answer_taking_the_notes_words_without_what_they_say_is_flagged_as_a_whole(open_post):
    question = "Who collects the fee?"
    # Every word of its claim is in the notes, but the notes say no such thing: the hall collects nothing.
    loose = open_post.process("I'm not sure, to be honest. The church hall collects the plot fee every Saturday.",
                              question=question, evidence=[ALLOTMENT])
    (flag,) = loose.hallucination_flags
    assert flag.hallucination_type == "UnsupportedAnswer"
    assert "without saying what the evidence says" in flag.evidence[0]
    assert not any(c.flagged for c in loose.claim_support) and loose.recommendation == "AcceptWithFlags"
    # What the notes say, in the same words around it, is not flagged.
    faithful = open_post.process("I'm not sure, to be honest. Odile Marchetti collects the plot fee in April.",
                                 question=question, evidence=[ALLOTMENT])
    assert not faithful.hallucination_flags
