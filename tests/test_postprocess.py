"""Postprocessing of the model's answer, checked against sample_kb's registry
(entities.jsonl + facts.jsonl in a real SQLite data dir) with the real spaCy
pipeline: what the user would see delivered, and which flags they would get."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

import chatapp  # noqa: F401 - sets the offline environment first
from chatapp.engine import ChatEngine
from chatapp.postprocess import Postprocessor
from chatapp.records import DialogueTurn, KnowledgeChunk, ResolvedEntity

ROOT = Path(__file__).resolve().parents[1]
SEED_QUESTION = "can u help me find johns email from yesterdya"
SEED_ANSWER = (
    "John's email is john.s@company.org. He mentioned the meeting in his message yesterday "
    "about the Q4 budget review with Sarah from marketing."
)
JOHN = ResolvedEntity("johns", (19, 24), "person:john-smith", "John Smith", "person", 0.92)


@pytest.fixture(scope="session")
def engine(tmp_path_factory):
    engine = ChatEngine.open(tmp_path_factory.mktemp("data"))
    engine.ingest(ROOT / "sample_kb" / "entities.jsonl", ROOT / "sample_kb" / "facts.jsonl")
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def post(engine):
    return Postprocessor(engine.kb.registry)


def flag_types(result) -> list[str]:
    return [f.hallucination_type for f in result.hallucination_flags]


# --- the seed scenario ------------------------------------------------------------------


def test_seed_scenario_corrects_the_email_and_marks_sarah(post):
    result = post.process(SEED_ANSWER, question=SEED_QUESTION, resolved_entities=[JOHN])

    assert result.delivered == (
        "John's email is john.smith@company.com [corrected]. He mentioned the meeting in his message "
        "yesterday about the Q4 budget review with Sarah from marketing [unverified]."
    )
    assert result.original == SEED_ANSWER
    email_flag = next(f for f in result.hallucination_flags if f.content == "john.s@company.org")
    assert email_flag.hallucination_type == "WrongAttribute"
    assert email_flag.suggestion == "john.smith@company.com"
    assert SEED_ANSWER[email_flag.span[0]:email_flag.span[1]] == "john.s@company.org"
    # The only Sarah is Sarah Chen in Finance: the department is wrong, but a first name
    # alone does not prove it is her, so it is marked rather than rewritten.
    sarah_flag = next(f for f in result.hallucination_flags if "Sarah" in f.content)
    assert sarah_flag.hallucination_type == "WrongAttribute"
    assert "Finance" in sarah_flag.suggestion and sarah_flag.confidence < 0.8
    assert result.recommendation in ("AcceptWithFlags", "CorrectAndDeliver")
    assert len(result.hallucination_flags) == 2


def test_a_correct_answer_is_accepted_untouched(post):
    answer = "John Smith's email is john.smith@company.com."
    result = post.process(answer, question=SEED_QUESTION, resolved_entities=[JOHN])
    assert result.hallucination_flags == []
    assert result.recommendation == "Accept"
    assert result.delivered == answer
    assert result.factual_validation.contradicted == 0
    assert result.confidence > 0.9


def test_fenced_code_is_no_claim_and_keeps_its_fence(post):
    """Code in an answer states nothing about the user's world: no value, name or sentence in it is
    checked, and no marker lands in it (one after "```python" would cost the block its highlighting)."""
    code = "```python\ndef email():\n    return 'john.s@company.org'  # Sarah from marketing\n```"
    answer = f"John's email is john.s@company.org.\n\n{code}\n"
    result = post.process(answer, question=SEED_QUESTION, resolved_entities=[JOHN])
    assert result.delivered.startswith("John's email is john.smith@company.com [corrected].")
    assert code in result.delivered  # the code as written, its fence line included
    assert [f.content for f in result.hallucination_flags] == ["john.s@company.org"]
    assert all(f.span[1] <= answer.index("```") for f in result.hallucination_flags)


@pytest.mark.parametrize(
    "answer",
    [
        "The Q4 budget review is at 2pm on Monday, November 30 in Conference Room B.",
        "Emma Johansson's phone is +1 555 0154 and she is based in Seattle.",
        "Engineering's Q4 budget is $1.2M, and Project Atlas has $350,000 of it.",
        "Sarah Chen, the Finance Manager, owns Project Tally.",
        "Priya Patel from Marketing ran the Helios launch campaign.",
        "The incident lasted 47 minutes.",
        "Northwind Analytics' contract is worth $84,000.",
    ],
)
def test_answers_that_agree_with_the_knowledge_base_get_no_flags(post, answer):
    result = post.process(answer)
    assert result.hallucination_flags == [], result.hallucination_flags
    assert result.delivered == answer
    assert result.recommendation == "Accept"


def test_generic_prose_is_not_littered_with_annotations(post):
    answer = "Sure, happy to help! Let me know if there is anything else you need today."
    result = post.process(answer, question="thanks")
    assert result.delivered == answer
    assert result.hallucination_flags == []


# --- each kind of flag --------------------------------------------------------------------


def test_wrong_meeting_time_and_day_are_corrected_from_the_fact_store(post):
    answer = "The Q4 budget review is at 3pm on December 3 in Conference Room B."
    result = post.process(answer, question="when is the q4 budget review?")
    by_content = {f.content: f for f in result.hallucination_flags}
    assert by_content["3pm"].hallucination_type in ("ContradictsFact", "WrongAttribute")
    assert by_content["3pm"].suggestion == "14:00"
    assert by_content["December 3"].suggestion == "2026-11-30"
    assert result.delivered == (
        "The Q4 budget review is at 2pm [corrected] on November 30 [corrected] in Conference Room B."
    )
    assert result.recommendation == "CorrectAndDeliver"
    contradicted = [c for c in result.factual_validation.checks if c.status == "contradicted"]
    assert {c.expected for c in contradicted} >= {"14:00", "2026-11-30"}


def test_the_wrong_person_in_a_known_role_is_replaced(post):
    result = post.process("Lisa Wong organized the Q4 budget review.")
    assert result.delivered == "John Smith [corrected] organized the Q4 budget review."
    flag = result.hallucination_flags[0]
    assert (flag.hallucination_type, flag.suggestion) == ("WrongAttribute", "John Smith")
    # Someone who holds a different, true relation to the same thing is left alone.
    assert post.process("Emma Johansson is the tech lead of Project Atlas.").hallucination_flags == []


def test_contradicting_an_earlier_answer_is_flagged(post):
    history = [
        DialogueTurn("user", "where does kenji sit?", "2026-12-01T10:00:00"),
        DialogueTurn("assistant", "Kenji's desk is on floor 3 of the SF office.", "2026-12-01T10:00:02"),
        DialogueTurn("user", "which floor again?", "2026-12-01T10:01:00"),
    ]
    result = post.process("Kenji's desk is on floor 5.", question="which floor again?", history=history)
    flag = next(f for f in result.hallucination_flags if f.hallucination_type == "ContradictsPrior")
    assert flag.content == "5" and flag.suggestion == "3"
    assert "floor 3" in flag.evidence[0]
    assert result.recommendation in ("HumanReview", "Regenerate")


def test_an_unknown_person_is_a_nonexistent_entity(post):
    answer = "You should ask Marcus Delgado, who handles the Atlas vendor contract."
    result = post.process(answer, question="who handles the atlas vendor contract?")
    assert flag_types(result) == ["NonexistentEntity"]
    assert result.hallucination_flags[0].content == "Marcus Delgado"
    assert result.delivered == "You should ask Marcus Delgado [unverified], who handles the Atlas vendor contract."


def test_a_known_first_name_with_a_wrong_surname_suggests_the_known_person(post):
    result = post.process("Sarah Johnson approved the Atlas budget.")
    flag = result.hallucination_flags[0]
    assert flag.hallucination_type == "NonexistentEntity"
    assert flag.suggestion == "Sarah Chen"


def test_a_self_contradiction_is_a_logical_inconsistency(post):
    answer = "John will attend the budget review. John will not attend the budget review."
    result = post.process(answer)
    assert "LogicalInconsistency" in flag_types(result)
    assert result.recommendation == "Regenerate" and result.guidance


def test_yesterday_that_was_not_yesterday_is_a_temporal_error(post):
    answer = "The Q4 budget review meeting was yesterday."
    wrong = post.process(answer, now=datetime(2026, 12, 3, 9, 0))
    assert flag_types(wrong) == ["TemporalError"]
    assert wrong.delivered == "The Q4 budget review meeting was on November 30 [corrected]."
    check = next(c for c in wrong.factual_validation.checks if c.claim.text == "yesterday")
    assert check.status == "contradicted" and wrong.factual_validation.contradicted >= 1
    right = post.process(answer, now=datetime(2026, 12, 1, 9, 0))
    assert right.hallucination_flags == []


def test_an_impossible_date_is_a_temporal_error(post):
    result = post.process("The Helios launch happened on February 30.")
    assert flag_types(result) == ["TemporalError"]
    assert result.recommendation == "Regenerate"


def test_a_message_dated_otherwise_than_the_answer_says(post):
    chunk = KnowledgeChunk("c1", "emails/2026-11-26-q4-budget-review.eml", 0.9,
                           "John Smith sent the Q4 budget review invite with the agenda and the spreadsheet.",
                           date="2026-11-26")
    result = post.process("John sent the Q4 budget review invite yesterday.", rag_chunks=[chunk],
                          now=datetime(2026, 12, 3, 9, 0))
    assert "TemporalError" in flag_types(result)


# --- sources ---------------------------------------------------------------------------------


def test_evidence_texts_verify_an_answer(post):
    evidence = ["Q4 Budget Review: Monday 30 November, 14:00, Conference Room B. "
                "David Okafor will approve the final numbers."]
    answer = "The review is in Conference Room B at 14:00, and David Okafor will approve the final numbers."
    result = post.process(answer, question="where is the review?", evidence=evidence)
    assert result.hallucination_flags == []
    assert result.recommendation == "Accept"
    sentence = next(c for c in result.factual_validation.checks if c.claim.kind == "sentence")
    assert sentence.status == "verified"
    assert any("Conference Room B" in e for e in sentence.evidence)


def test_a_detail_the_evidence_does_not_contain_is_unverified(post):
    evidence = ["The offsite is at Cedar Ridge Retreat on December 10 and 11. Lisa Wong organizes it."]
    answer = "The offsite is at Cedar Ridge Retreat on December 10 and 11, with a helicopter tour of Yosemite."
    result = post.process(answer, question="where is the offsite?", evidence=evidence)
    assert result.hallucination_flags, result
    assert result.delivered.endswith("[unverified].")
    assert result.recommendation != "Accept"


def test_claims_carry_spans_kinds_and_the_entity_they_are_about(post):
    answer = ("John's email is john.s@company.org and his phone is +1 555 0142. "
              "The budget is $1.2M, see https://intranet.company.com/q4 by November 30 for 3 items.")
    result = post.process(answer, resolved_entities=[JOHN])
    claims = [c.claim for c in result.factual_validation.checks]
    for claim in claims:
        assert answer[claim.span[0]:claim.span[1]] == claim.text
    kinds = {c.kind for c in claims}
    assert kinds >= {"sentence", "email", "phone", "amount", "url", "date", "number", "name"}
    email = next(c for c in claims if c.kind == "email")
    assert email.entity_id == "person:john-smith"


def test_coherence_notices_an_answer_that_does_not_answer(post):
    asked = "what is john's email?"
    off = post.process("John Smith is an Engineering Manager in San Francisco who runs Project Atlas.", question=asked,
                       resolved_entities=[JOHN])
    on = post.process("John Smith's email is john.smith@company.com.", question=asked, resolved_entities=[JOHN])
    assert off.coherence.question_type == "email"
    assert off.coherence.score < on.coherence.score
    assert any("email" in issue for issue in off.coherence.issues)


def test_an_empty_answer_gives_a_clear_result(post):
    result = post.process("", question=SEED_QUESTION)
    assert result.delivered == "" and result.hallucination_flags == []
    assert result.recommendation == "Regenerate"
    assert "empty" in result.guidance
    assert post.process("   ").recommendation == "Regenerate"


# --- answers quoted from the knowledge base (the offline responder's shape) ---------------------

OFFLINE_NOTICE = "(offline — answering from your knowledge base)"


@pytest.fixture(scope="session")
def full_post(sample_engine):
    return Postprocessor(sample_engine.kb.registry)


def test_a_true_sentence_quoted_from_a_document_is_never_corrected(sample_engine, full_post):
    question = "Who is Sarah Chen?"
    chunks = sample_engine.search(question)
    answer = (
        f"{OFFLINE_NOTICE}\n\n"
        "Sarah Chen: Finance Manager (FP&A). Owns the quarterly budget process, the Northwind Analytics "
        "contract paperwork and Project Tally. Role: Finance Manager. Email: sarah.chen@company.com. "
        "Phone: +1 555 0117.\n\n"
        "From your documents:\n"
        "- Software and tools over $500/year | Case by case | Department lead and Finance (Sarah Chen) (onboarding.html)\n"
        "- Questions about budgets or purchase approvals go to Sarah Chen in Finance (sarah.chen@company.com). "
        "(onboarding.html)\n"
        "- Sarah Chen, Finance Manager (onboarding.html)\n\n"
        "Sources: entities.jsonl, onboarding.html"
    )
    result = full_post.process(answer, question=question, rag_chunks=chunks)
    assert result.delivered == answer
    assert result.hallucination_flags == []
    assert result.factual_validation.contradicted == 0
    # Even with no sources at hand, "go to Sarah Chen in Finance" does not say she leads Finance.
    bare = full_post.process("Questions about budgets or purchase approvals go to Sarah Chen in Finance.")
    assert bare.hallucination_flags == [] and "[corrected]" not in bare.delivered
    # Saying she leads it is still corrected.
    wrong = full_post.process("Finance is led by Sarah Chen.")
    assert wrong.delivered == "Finance is led by David Okafor [corrected]."


def test_notice_and_source_lines_are_not_claims(sample_engine, full_post):
    question = "What is John Smith's email?"
    answer = f"{OFFLINE_NOTICE}\n\nJohn Smith's email is john.smith@company.com.\n\nSources: team-directory.md"
    result = full_post.process(answer, question=question, rag_chunks=sample_engine.search(question))
    assert result.delivered == answer
    assert result.hallucination_flags == []
    sentences = [c for c in result.factual_validation.checks if c.claim.kind == "sentence"]
    assert [c.claim.text for c in sentences] == [
        OFFLINE_NOTICE, "John Smith's email is john.smith@company.com.", "Sources: team-directory.md"]
    assert sentences[1].status == "verified"
    # A wrong email after the notice is still caught, and only the email is touched.
    wrong = full_post.process(answer.replace("john.smith@company.com", "john.s@company.org"), question=question)
    assert wrong.delivered.startswith(OFFLINE_NOTICE + "\n\nJohn Smith's email is john.smith@company.com [corrected].")
    assert flag_types(wrong) == ["WrongAttribute"]


@pytest.mark.parametrize(
    "stated",
    ["on 2026-11-30 at 14:00", "on Monday, 30 November 2026 at 2pm", "on November 30, 2026 at 2 p.m."],
)
def test_the_meeting_date_and_time_from_the_fact_store_verify(sample_engine, full_post, stated):
    question = "When is the Q4 budget review?"
    answer = f"{OFFLINE_NOTICE}\n\nQ4 Budget Review Meeting is {stated}.\n\nSources: 2026-11-26-q4-budget-review.eml"
    result = full_post.process(answer, question=question, rag_chunks=sample_engine.search(question))
    assert result.delivered == answer
    assert result.hallucination_flags == []
    values = [c for c in result.factual_validation.checks if c.claim.kind == "date"]
    assert values and all(c.status == "verified" for c in values)


def test_the_exact_registry_email_verifies_without_sources(full_post):
    answer = "John Smith's email is john.smith@company.com"
    result = full_post.process(answer, question="What is John Smith's email?")
    assert result.delivered == answer and result.hallucination_flags == []
    email = next(c for c in result.factual_validation.checks if c.claim.kind == "email")
    assert email.status == "verified"


def test_a_quote_that_flattens_markdown_lines_keeps_its_names(sample_engine, full_post):
    question = "How long did the incident last?"
    answer = (
        f"{OFFLINE_NOTICE}\n\nFrom your documents:\n"
        "- Date: Monday, 16 November 2026, 11:00-11:45 PT Incident: INC-1112, stale balances in the customer "
        "portal, 2026-11-12 09:52-10:39 PST (47 min), SEV-2 Postmortem author: Emma Johansson "
        "(2026-11-16-inc-1112-review.md)\n\nSources: 2026-11-16-inc-1112-review.md"
    )
    result = full_post.process(answer, question=question, rag_chunks=sample_engine.search(question))
    assert result.hallucination_flags == [] and result.delivered == answer


# --- open conversation held to the evidence alone (no registry entry for any name) -----------------

TURBO = "Ryan Reynolds starred in Turbo. Turbo is starring Snoop Dogg. Snoop Dogg starred in Turbo."


@pytest.mark.parametrize(
    "answer",
    [
        "I am not a fan of this sport, but I have heard about it. She is a really good actress.",
        "Hope you enjoy it! I suggest you check them out one day.",
        "Yep, I didn't know that. My sister is a huge fan.",
        "Have a great movie night.",
        "Definitely gonna check that out!",
        "You're correct on both of those movies!",
        "She is a very versatile person.",
        "If either of them needs the money, I'm sure there will be a rematch.",
    ],
)
def test_opinions_and_small_talk_get_no_flags(open_post, answer):
    result = open_post.process(answer, question="Do you like Tom Brady?", evidence=["Tom Brady plays football."])
    assert result.hallucination_flags == [], result.hallucination_flags
    assert result.delivered == answer


@pytest.mark.parametrize("answer", ["Remember he won three titles with the Celtics.",
                                    "He won three championships with the Boston Celtics in 1994."])
def test_a_statement_wrapped_in_an_imperative_is_still_held_to_the_evidence(open_post, answer):
    result = open_post.process(answer, question="Do you like Tom Brady?", evidence=["Tom Brady plays football."])
    assert any("Celtics" in f.content for f in result.hallucination_flags), result.hallucination_flags


def test_advice_is_taste_but_the_author_it_names_is_a_claim(open_post):
    evidence = ["Chris Cleave wrote Incendiary. Chris Cleave wrote The Other Hand."]
    question = "What other books did he write that I might like?"
    plain = open_post.process("You might like Incendiary.", question=question, evidence=evidence)
    assert plain.hallucination_flags == []
    answer = "I would recommend Animal Farm by George Orwell."
    result = open_post.process(answer, question=question, evidence=evidence)
    assert "George Orwell" in [f.content for f in result.hallucination_flags]
    assert "George Orwell [unverified]" in result.delivered
    assert "Animal Farm [unverified]" not in result.delivered  # the suggestion itself is taste


def test_what_the_assistant_said_before_is_not_a_new_claim_when_repeated(open_post):
    evidence = ["Anne Hathaway starred in Get Real. Get Real is starring Jon Tenney."]
    history = [DialogueTurn("user", "What else is Jon Tenney in?", ""),
               DialogueTurn("assistant", "He starred in Get Real, a coming-of-age romance set in a boarding school.", ""),
               DialogueTurn("user", "Sounds nice, what is it about again?", "")]
    repeated = open_post.process("It is a coming-of-age romance set in a boarding school.",
                                 question=history[-1].content, evidence=evidence, history=history)
    assert repeated.hallucination_flags == []
    changed = open_post.process("It is a heist thriller set in a casino.",
                                question=history[-1].content, evidence=evidence, history=history)
    assert [f.hallucination_type for f in changed.hallucination_flags] == ["UnsupportedClaim"]


def test_a_misspelt_word_is_not_an_unsupported_claim(open_post):
    evidence = ["Anne Hathaway starred in Get Real. Get Real is starring Jon Tenney."]
    typo = open_post.process("Jon Tenney starrred in Get Real.", question="Who starred in Get Real?", evidence=evidence)
    assert typo.hallucination_flags == []
    added = open_post.process("Jon Tenney starred in Get Real, he was a retired astronaut.",
                              question="Who starred in Get Real?", evidence=evidence)
    assert [f.hallucination_type for f in added.hallucination_flags] == ["UnsupportedClaim"]


def test_a_name_spelt_a_little_differently_from_the_evidence_is_the_same_name(open_post):
    evidence = ["Michael Jackson wrote Heal the World. Michael Jackson wrote Dancing the Dream."]
    answer = "Yes, Healing the World is one of my favorite songs. Snoop Dog was in Turbo too."
    result = open_post.process(answer, question="Do you like Michael Jackson?", evidence=evidence + [TURBO])
    assert result.hallucination_flags == [], result.hallucination_flags


ALLOTMENT_MINUTES = ("Minutes of the allotment committee, 4 March. Present: Wendell Ashgrove (chair), Pella Quennick, "
                     "Ottilie Branagh. The water trough by plot 12 leaks again; Pella will ask the council for a new "
                     "one. The seed swap moves to the church hall. Ottilie Branagh keeps the key to the tool shed.")


def test_a_name_one_slip_from_a_note_s_is_that_person_and_another_name_is_not(open_post):
    """Anywhere in a longer note, a name with a slip in a word or two is the note's; another surname or first
    name is not, and what another check's evidence named counts for nothing here."""
    question = "Who keeps the key to the tool shed?"
    bowls = ["Minutes of the bowls club. Ottilie Brennan keeps the key to the pavilion."]
    there = open_post.process("Ottilie Brennan keeps the key to the pavilion.", question="Who keeps the pavilion key?",
                              evidence=bowls)
    assert there.hallucination_flags == []
    slipped = open_post.process("Otilie Brannagh keeps the key to the tool shed.", question=question,
                                evidence=[ALLOTMENT_MINUTES])
    assert slipped.hallucination_flags == []
    asking = open_post.process("Pella Quenick will ask the council for a new trough.",
                               question="Who asks the council about the trough?", evidence=[ALLOTMENT_MINUTES])
    assert asking.hallucination_flags == []
    for other in ("Ottilie Brennan", "Orla Branagh"):
        result = open_post.process(f"{other} keeps the key to the tool shed.", question=question,
                                   evidence=[ALLOTMENT_MINUTES])
        assert [(f.hallucination_type, f.content) for f in result.hallucination_flags] == [("UnsupportedClaim", other)]


def test_a_number_in_a_title_is_part_of_the_name_not_a_count(open_post):
    evidence = ["Vin Diesel starred in Pitch Black. Vin Diesel produced Fast Five."]
    answer = "He produced Fast Five, and Cole Hauser from Pitch Black was in 2 Fast 2 Furious."
    result = open_post.process(answer, question="Do you like Vin Diesel?", evidence=evidence)
    assert [f.content for f in result.hallucination_flags if f.hallucination_type == "ContradictsFact"] == []
    counted = open_post.process("Vin Diesel produced 2 films.", question="Do you like Vin Diesel?",
                                evidence=["Vin Diesel produced 5 films."])
    assert [f.content for f in counted.hallucination_flags] == ["2"]


def test_did_you_know_that_tells_the_user_something_and_is_held_to_the_evidence(open_post):
    evidence = ["Zodiac is starring Jake Gyllenhaal."]
    told = open_post.process("Did you know that Jake Gyllenhaal grew up in Paris?", question="Who is in Zodiac?",
                             evidence=evidence)
    assert "Paris" in [f.content for f in told.hallucination_flags]
    asked = open_post.process("Have you been to Paris?", question="Who is in Zodiac?", evidence=evidence)
    assert asked.hallucination_flags == []


def test_a_year_the_evidence_states_otherwise_is_flagged_with_the_evidence_year(open_post):
    evidence = ["Dr. Seuss wrote Yertle the Turtle. Yertle the Turtle was released 1958"]
    history = [DialogueTurn("user", "I agree. Yertle the Turtle is also a good one", "")]
    result = open_post.process("That was released in 1965.", question=history[0].content, evidence=evidence,
                               history=history)
    flag = result.hallucination_flags[0]
    assert (flag.hallucination_type, flag.content, flag.suggestion) == ("ContradictsFact", "1965", "1958")
    same = open_post.process("Yes, it was released in 1958.", question=history[0].content, evidence=evidence,
                             history=history)
    assert same.hallucination_flags == []


def test_a_year_is_only_held_to_evidence_that_gives_dates(open_post):
    question = "What else has Rick Riordan written?"
    silent = open_post.process("He wrote The Red Pyramid, which came out in 2010.", question=question,
                               evidence=["Rick Riordan wrote The Red Pyramid"])
    assert silent.hallucination_flags == []
    dated = open_post.process("He wrote The Red Pyramid, which came out in 2010.", question=question,
                              evidence=["Rick Riordan wrote The Red Pyramid. Rick Riordan was born in 1964."])
    assert [(f.hallucination_type, f.content) for f in dated.hallucination_flags] == [("FabricatedFact", "2010")]


# --- tables ------------------------------------------------------------------------------------

TABLE = ("Here are the vendors:\n\n| Company | Industry | Founded |\n| --- | --- | --- |\n"
         "| Acme | Software | 2024 |\n| Globex | Energy | 1999 |\n")
VENDORS = "Acme is a software company founded in 2024. Globex works in energy and was founded in {year}."


def test_each_table_row_is_its_own_claim_and_the_header_claims_nothing(open_post):
    result = open_post.process(TABLE, question="which vendors do we use?", evidence=[VENDORS.format(year=1999)])
    rows = [c.claim.text for c in result.factual_validation.checks if c.claim.kind == "sentence"]
    assert rows[-2:] == ["Acme | Software | 2024", "Globex | Energy | 1999"]
    assert result.hallucination_flags == []
    assert result.delivered == TABLE


def test_a_wrong_value_in_a_table_row_is_flagged_in_that_row(open_post):
    result = open_post.process(TABLE, question="which vendors do we use?", evidence=[VENDORS.format(year=1989)])
    assert [(f.content, f.suggestion) for f in result.hallucination_flags] == [("1999", "1989")]
    assert "| Globex | Energy | 1989 [corrected] |" in result.delivered
    assert "| Company | Industry | Founded |" in result.delivered


def test_a_changed_fact_is_used_on_the_next_answer(tmp_path):
    """The postprocessor caches its view of the registry: a fact stored again with a new value
    (same number of facts) must still reach the next check."""
    entities, facts = tmp_path / "entities.jsonl", tmp_path / "facts.jsonl"
    entities.write_text(json.dumps({"id": "project:atlas", "type": "project", "name": "Project Atlas",
                                    "aliases": ["Atlas"], "attributes": {}}) + "\n")

    def store_deadline(value: str) -> None:
        facts.write_text(json.dumps({"id": "f1", "subject": "project:atlas", "predicate": "deadline",
                                     "object": value}) + "\n")

    store_deadline("2026-12-15")
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(entities, facts)
        answer, question = "The Atlas deadline is 2026-12-15.", "When is the Atlas deadline?"
        assert engine.postprocess(answer, question=question).recommendation == "Accept"
        store_deadline("2026-12-22")
        engine.ingest(facts)
        checked = engine.postprocess(answer, question=question)
        assert [f.suggestion for f in checked.hallucination_flags] == ["2026-12-22"]
        assert "2026-12-22 [corrected]" in checked.delivered


@pytest.mark.parametrize("said, delivered", [("20 November 2026", "17 November 2026"),
                                             ("November 20, 2026", "November 17, 2026"),
                                             ("Nov 20", "Nov 17")])
def test_a_corrected_date_is_written_the_way_the_answer_wrote_it(open_post, said, delivered):
    result = open_post.process(f"Helios launched on {said}.", question="When did Helios launch?",
                               evidence=["Helios launched on 17 November 2026."])
    assert result.delivered == f"Helios launched on {delivered} [corrected]."


# --- answer checks switched off by name -------------------------------------------------------

ATLAS_LEADS = ["The Atlas migration is led by Dana Kim and Omar Haddad."]


@pytest.mark.parametrize("check, answer, evidence, kind", [
    ("evidence_grounding", "Dana Kim doesn't lead the Atlas migration.", ATLAS_LEADS, "ContradictsFact"),
    ("temporal", "The Atlas cutover is on 30 February 2027.", [], "TemporalError"),
    ("fact_validation", "The Atlas migration is led by Dana Kim and Priya Raman.", ATLAS_LEADS, "UnsupportedClaim"),
])
def test_a_check_switched_off_in_the_config_file_raises_no_flags(tmp_path, check, answer, evidence, kind):
    question = "Who leads the Atlas migration?"
    with ChatEngine.open(tmp_path / "default", load_sample_kb=False) as engine:
        assert kind in flag_types(engine.postprocess(answer, question=question, evidence=evidence))
    data_dir = tmp_path / "configured"
    data_dir.mkdir()
    (data_dir / "config.toml").write_text(f'disabled_checks = ["{check}"]\n')
    with ChatEngine.open(data_dir, load_sample_kb=False) as engine:
        assert engine.settings.disabled_checks == [check]
        assert kind not in flag_types(engine.postprocess(answer, question=question, evidence=evidence))


def test_an_unknown_check_name_in_the_config_is_a_one_line_error(tmp_path):
    from chatapp.config import ConfigError, load_settings

    (tmp_path / "config.toml").write_text('disabled_checks = ["spelling"]\n')
    with pytest.raises(ConfigError) as raised:
        load_settings(tmp_path, environ={})
    message = str(raised.value)
    assert "\n" not in message and "'spelling'" in message and "fact_validation" in message
    (tmp_path / "config.toml").unlink()
    from_env = load_settings(tmp_path, environ={"CHATAPP_DISABLED_CHECKS": "temporal, consistency"})
    assert from_env.disabled_checks == ["temporal", "consistency"]


@pytest.mark.parametrize("owners", [["project:atlas-lead", "Omar Haddad"], '["project:atlas-lead", "Omar Haddad"]'])
def test_a_list_attribute_reads_the_same_decoded_or_as_json_text(owners):
    from chatapp.postprocess.knowledge_view import KnowledgeView
    from chatapp.records import Entity

    class Registry:  # a registry handing attribute values over in either form
        def all_entities(self):
            return [Entity("project:atlas", "project", "Atlas", attributes={"owners": owners}),
                    Entity("project:atlas-lead", "person", "Dana Kim")]

        def all_facts(self):
            return []

        def stamp(self):
            return (2, 0)

    view = KnowledgeView.build(Registry())
    (known,) = view.values_of("project:atlas")
    assert known.shape == "list" and view.display(known) == "Dana Kim, Omar Haddad"


def test_an_answer_over_a_million_characters_is_checked_in_its_opening_and_delivered_whole(open_post):
    # spaCy refuses texts over 1,000,000 characters, and checking grows with length: the opening is
    # checked, the rest delivered as written, and the result says so.
    line = "The quarterly report was sent to the finance team on Monday.\n"
    answer = line * (1_100_000 // len(line) + 1)
    result = open_post.process(answer, question="What happened to the report?")
    assert result.original == answer and result.delivered == answer
    assert any("only the first" in issue for issue in result.coherence.issues)


def test_a_list_of_values_naming_no_one_is_not_a_self_contradiction(post):
    # Two addresses, each labelled with its group, in an answer about a department with no address
    # of its own: neither line says whose address it is, so they are a list, not two answers.
    engineering = ResolvedEntity("engineering", (12, 23), "department:engineering", "Engineering", "department", 1.0)
    listed = "Group lists:\n- all staff — staff@northwind.example\n- engineers — eng-team@northwind.example"
    result = post.process(listed, question="What is the engineering mailing list?", resolved_entities=[engineering])
    assert "LogicalInconsistency" not in flag_types(result)
    assert result.recommendation != "Regenerate"
    lines = ("Quarry Lane office · Main office: (503) 555-0170 · Attendance line: (503) 555-0175 · "
             "Substitute line: (503) 555-0179")
    result = post.process(lines, question="What are the engineering phone lines?", resolved_entities=[engineering])
    assert "LogicalInconsistency" not in flag_types(result)

    # Named in its own sentence, the second address does contradict the first.
    named = "John Smith's email is j.smith@northwind.example. His email is jsmith@northwind.example."
    assert flag_types(post.process(named, question="What is John's email?", resolved_entities=[JOHN]))


SUBMITTAL_LOG = ("| Spec | Item | Sub | Status | Reviewer | Due |\n| --- | --- | --- | --- | --- | --- |\n"
                 "| 23 05 00 | Duct hangers | Northfield Mechanical | Open | Ingrid Falk | 11/20/2026 |\n"
                 "| 08 71 00 | Door hardware schedule | Keyline Doors | Open | Ingrid Falk | 12/15/2026 |\n")
RFI_REPLY = ("From: Ingrid Falk\nResponse to RFI-022: keep the door swing as drawn. No cost impact; "
             "PR-07 will follow by Friday 12/4.")


def test_a_date_is_held_to_the_sentence_about_its_reference_code_not_to_a_row_naming_the_same_person(open_post):
    # The log gives 12/15 beside Ingrid Falk, but of door hardware: what PR-07 follows by is the reply's 12/4.
    # "Ingrid Falk said" is who reported it; the reference code is what the date is of.
    wrong = open_post.process("Ingrid Falk said PR-07 will follow by Friday 12/15.", question="When is PR-07 coming?",
                              evidence=[SUBMITTAL_LOG, RFI_REPLY])
    assert [(f.content, f.suggestion) for f in wrong.hallucination_flags] == [("12/15", "12/4")]
    assert "12/4 [corrected]" in wrong.delivered
    right = open_post.process("Ingrid Falk said PR-07 will follow by Friday 12/4.", question="When is PR-07 coming?",
                              evidence=[SUBMITTAL_LOG, RFI_REPLY])
    assert not right.hallucination_flags


def test_words_spelling_out_an_abbreviation_the_evidence_writes_are_borne_out(open_post):
    signature = "Kind regards,\nMaeve\n\nMaeve Tierney\nSenior Associate\nDDI: +353 1 555 0192 | maeve.tierney@example.ie"
    dial = open_post.process("Maeve Tierney's direct dial is +353 1 555 0192.", question="What's Maeve's number?",
                             evidence=[signature])
    assert not dial.hallucination_flags and dial.recommendation == "Accept"
    # Words the abbreviation does not spell are still missing.
    fax = open_post.process("Maeve Tierney's direct fax is +353 1 555 0192.", question="What's Maeve's number?",
                            evidence=[signature])
    assert fax.hallucination_flags


def test_an_amount_is_held_to_the_row_about_its_person_not_to_the_line_sharing_the_answers_date(open_post):
    # The matter page's fee estimate cites the letter's date, as the answer does; the rate is the letter's row.
    page = "- **Fee estimate:** €18,000 plus VAT (see engagement letter of 14th October 2026)"
    rates = ("| Fee earner | Hourly rate (excl. VAT) |\n| --- | --- |\n| Dara Quinn, Partner | €395 |\n"
             "| Ronan Fahy, Associate | €260 |")
    result = open_post.process("Under the engagement letter of 14th October 2026, Ronan Fahy, Associate, is charged at "
                               "€290 an hour plus VAT.", question="What is Ronan's hourly rate?", evidence=[page, rates])
    assert [(f.content, f.suggestion) for f in result.hallucination_flags] == [("€290", "€260")]
    assert "€260 [corrected] an hour" in result.delivered


def test_an_amount_is_not_borne_out_by_the_figures_of_a_date_or_a_phone_number(open_post):
    # "$20" is no figure of the row: its 20 is the day of "2023-05-20", its 555 part of a phone number.
    row = ("First name: Ines; Last name: Ferreira; Role: Volunteer, set-up crew; Phone: 514-555-0388; "
           "Since: 2023-05-20")
    mail = "A $15 allowance per shift covers transit and a meal."
    result = open_post.process("Volunteers receive an allowance of $20 per shift to cover transit and a meal.",
                               question="How much is the volunteer allowance per shift?", evidence=[row, mail])
    assert [(f.content, f.suggestion) for f in result.hallucination_flags] == [("$20", "$15")]
    assert open_post.process("The allowance is $15 per shift.", question="How much is the allowance?",
                             evidence=[row, mail]).hallucination_flags == []
    # A phone's extension is a number of its own.
    extension = open_post.process("Ines Ferreira's phone extension is 214.", question="What is Ines's extension?",
                                  evidence=["Ines Ferreira | Volunteer coordinator | Phone: (514) 555-0100 ext. 214"])
    assert not [f for f in extension.hallucination_flags if "214" in f.content]
