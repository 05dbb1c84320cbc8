"""Answers held to evidence a user supplies (`chatapp check --evidence`), on the kind of text
chatapp's users check: who leads, owns or drafted what, and when things happened. A denial
of what the evidence states, a "no" to a yes/no question it answers yes, an "only" that
leaves out what it lists, the wrong pick in "which came first?", and how sure a doubt about
an unsupported sentence is."""

from __future__ import annotations

import pytest

from chatapp.records import DialogueTurn

ATLAS = ["The Atlas migration is led by Dana Kim and Omar Haddad."]
ATLAS_QUESTION = "Who leads the Atlas migration?"
DRAFT = ["Dana Kim drafted the Atlas budget."]
DANA_LEADS = ["Dana Kim leads the Atlas migration. Dana Kim leads the Borealis rollout."]


def flags(result):
    return [(f.hallucination_type, f.content, f.suggestion) for f in result.hallucination_flags]


def kinds(result):
    return [f.hallucination_type for f in result.hallucination_flags]


# --- denials ------------------------------------------------------------------------------------


def test_denying_what_the_evidence_states_contradicts_it(open_post):
    result = open_post.process("Actually, Dana Kim doesn't lead the Atlas migration.", question=ATLAS_QUESTION,
                               evidence=ATLAS)
    assert flags(result) == [("ContradictsFact", "Actually, Dana Kim doesn't lead the Atlas migration",
                              "The Atlas migration is led by Dana Kim and Omar Haddad")]
    assert result.recommendation == "Regenerate"


@pytest.mark.parametrize("answer", [
    "I didn't know Dana Kim leads the Atlas migration!",  # not knowing it affirms it
    "Dana Kim and Omar Haddad don't share an office.",  # two names of one list: not the link stated
    "Omar Haddad doesn't lead the Borealis rollout.",  # a link the evidence does not state
])
def test_a_negation_that_does_not_deny_the_evidence_is_no_contradiction(open_post, answer):
    assert "ContradictsFact" not in kinds(open_post.process(answer, question=ATLAS_QUESTION, evidence=ATLAS))


def test_a_contradicted_sentence_needs_no_second_flag_on_a_name_inside_it(open_post):
    from chatapp.postprocess import PostprocessSettings, Postprocessor

    answer = "Dana Kim doesn't lead the Atlas migration with Priya Raman."
    result = open_post.process(answer, question=ATLAS_QUESTION, evidence=ATLAS)
    assert kinds(result) == ["ContradictsFact"]
    # Without the evidence check, the name the evidence lacks is what gets flagged.
    ungrounded = Postprocessor(open_post.registry, settings=PostprocessSettings(disabled_checks=["evidence_grounding"]))
    assert flags(ungrounded.process(answer, question=ATLAS_QUESTION, evidence=ATLAS)) == [
        ("UnsupportedClaim", "Priya Raman", None)]


def test_initials_do_not_cut_a_statement_in_two(open_post):
    evidence = ["The Atlas migration is led by J. R. Ortiz. Omar Haddad heads Support."]
    result = open_post.process("J. R. Ortiz does not lead the Atlas migration.", question=ATLAS_QUESTION,
                               evidence=evidence)
    assert [(t, s) for t, _, s in flags(result)] == [("ContradictsFact", "The Atlas migration is led by J. R. Ortiz")]


# --- "no" to what the evidence answers yes ----------------------------------------------------------


@pytest.mark.parametrize("question, history", [
    ("Is Omar Haddad leading the Atlas migration?", []),
    ("Wait a second, is Omar Haddad heading the Atlas migration?", []),  # "head" is "lead" (the lexicon)
    ("Omar Haddad leads the Atlas migration, right?", []),
    ("Is he leading the Atlas migration?", [DialogueTurn("user", "What does Omar Haddad work on?", "")]),
])
def test_no_to_a_question_the_evidence_answers_yes_contradicts_it(open_post, question, history):
    result = open_post.process("No, he isn't.", question=question, evidence=ATLAS, history=history)
    assert flags(result) == [("ContradictsFact", "No, he isn't",
                              "The Atlas migration is led by Dana Kim and Omar Haddad")]
    assert open_post.process("Yes, he is.", question=question, evidence=ATLAS,
                             history=history).hallucination_flags == []


@pytest.mark.parametrize("question, answer", [
    ("Have you read the Atlas budget?", "No, I have not."),  # about the assistant
    ("Did Dana Kim approve the Atlas budget?", "No, she only drafted it."),  # a link the evidence lacks
    ("Does Dana Kim own the Atlas budget?", "No, she doesn't."),  # owning is not drafting
    ("Is Dana Kim on the Budget Committee?", "No, she is not."),  # a name the evidence lacks
    ("Did Dana Kim draft the Atlas budget?", "No problem, happy to help."),
    ("Did Dana Kim draft the Atlas budget?", "No, I'm not sure she did."),
])
def test_a_no_that_does_not_deny_the_evidence_is_not_flagged(open_post, question, answer):
    assert "ContradictsFact" not in kinds(open_post.process(answer, question=question, evidence=DRAFT))


# --- "only" -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["Only Dana Kim leads it.", "Only Dana Kim leads the Atlas migration."])
def test_only_one_of_the_people_the_evidence_lists_contradicts_it(open_post, answer):
    result = open_post.process(answer, question=ATLAS_QUESTION, evidence=ATLAS)
    (flag,) = result.hallucination_flags
    assert (flag.hallucination_type, flag.content) == ("ContradictsFact", answer.rstrip("."))
    assert flag.evidence == ["the evidence also states: The Atlas migration is led by Dana Kim and Omar Haddad"]
    for fine in ("Dana Kim and Omar Haddad lead it.", "Only Dana Kim and Omar Haddad lead it.",
                 "Dana Kim leads it.",
                 # "only" restricts what she leads, and the evidence has her leading nothing else
                 "Dana Kim only leads the Atlas migration."):
        assert open_post.process(fine, question=ATLAS_QUESTION, evidence=ATLAS).hallucination_flags == []


def test_only_one_of_the_things_the_evidence_lists_contradicts_it(open_post):
    question = "What does Dana Kim lead?"
    result = open_post.process("She only leads the Atlas migration.", question=question, evidence=DANA_LEADS)
    (flag,) = result.hallucination_flags
    assert flag.hallucination_type == "ContradictsFact"
    assert flag.evidence == ["the evidence also states: Dana Kim leads the Borealis rollout"]
    both = open_post.process("She leads the Atlas migration and the Borealis rollout.", question=question,
                             evidence=DANA_LEADS)
    assert both.hallucination_flags == []
    # "only" that bears on something else than the link
    aside = open_post.process("She only joined in 2024, and she leads the Atlas migration.", question=question,
                              evidence=DANA_LEADS + ["Dana Kim joined in 2024."])
    assert "ContradictsFact" not in kinds(aside)


def test_only_is_left_alone_when_the_pronoun_could_mean_either_of_two_people(open_post):
    evidence = [DANA_LEADS[0] + " Omar Haddad leads the Atlas migration."]
    history = [DialogueTurn("user", "Tell me about Dana Kim and Omar Haddad.", "")]
    result = open_post.process("He only leads the Atlas migration.", question="And what do they lead?",
                               evidence=evidence, history=history)
    assert "ContradictsFact" not in kinds(result)


# --- which came first -----------------------------------------------------------------------------

LAUNCHES = ["Atlas launched on 3 March 2025 after a long beta. Borealis launched on 12 January 2024."]


def test_picking_the_later_of_two_as_first_contradicts_the_dates_in_the_sources(open_post):
    question = "Which launched first, Atlas or Borealis?"
    wrong = open_post.process("Atlas launched first.", question=question, evidence=LAUNCHES)
    (flag,) = wrong.hallucination_flags
    assert (flag.hallucination_type, flag.content, flag.suggestion) == ("ContradictsFact", "Atlas", "Borealis")
    assert any("2025" in e for e in flag.evidence) and any("2024" in e for e in flag.evidence)
    for right in ("Borealis.", "Borealis launched before Atlas."):
        assert open_post.process(right, question=question, evidence=LAUNCHES).hallucination_flags == []
    newer = open_post.process("Atlas is newer.", question="Which is newer, Atlas or Borealis?", evidence=LAUNCHES)
    assert newer.hallucination_flags == []
    # One of them undated: the sources cannot say which came first.
    undated = open_post.process("Cobalt launched first.", question="Which launched first, Atlas or Cobalt?",
                                evidence=LAUNCHES)
    assert "ContradictsFact" not in kinds(undated)


# --- how sure a doubt is ------------------------------------------------------------------------------


def test_an_unsupported_sentence_is_as_sure_as_what_it_lacks(open_post):
    question = "Is the Atlas migration led by Dana Kim?"
    # An affirmation with a sentence adverb claims nothing to check.
    assert open_post.process("Interestingly enough it is.", question=question, evidence=ATLAS).hallucination_flags == []
    thin = open_post.process("It was planned at night.", question=question, evidence=ATLAS)
    rich = open_post.process("It moves the billing ledger from the old cluster to a managed database service "
                             "before the audit.", question=question, evidence=ATLAS)
    (thin_flag,), (rich_flag,) = thin.hallucination_flags, rich.hallucination_flags
    assert thin_flag.hallucination_type == rich_flag.hallucination_type == "UnsupportedClaim"
    assert thin_flag.confidence < rich_flag.confidence - 0.1
    assert thin.confidence > rich.confidence


def test_a_number_with_thousands_separators_is_read_whole(open_post):
    result = open_post.process("The Great Wall is 9,000 years old.", question="How old is the Great Wall?",
                               evidence=["The Great Wall is about 2,300 years old."])
    assert flags(result)[:1] == [("ContradictsFact", "9,000 years", "2,300 years")]
