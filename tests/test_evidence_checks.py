"""Answers held to supplied evidence in the shapes scraped knowledge comes in (run-together
triples, relation labels in backticks, "(Comedy)" qualifiers, subtitles, initials) and the
genre a work is given: what a user checking an answer with `chatapp check --evidence` sees."""

from __future__ import annotations

import pytest

from chatapp.records import DialogueTurn

TAKEN = ["Holly Valance starred in TakenTaken is starring Holly Valance. Taken has genre Suspense"]
FORD = ["Harrison Ford starred in Star Wars (Science Fiction Film). Harrison Ford starred in The Fugitive "
        "(Crime Fiction Film)"]
PEGG = ["Hot Fuzz is starring Simon PeggSimon Pegg starred in Star Trek (Science Fiction Film)"]
PEGG_HISTORY = [DialogueTurn("user", "Could you recommend the movie Hot Fuzz?", ""),
                DialogueTurn("assistant", "Sure, it stars Simon Pegg.", "")]


def flags(result):
    return [(f.hallucination_type, f.content, f.suggestion) for f in result.hallucination_flags]


def test_a_genre_the_evidence_does_not_give_the_work_is_flagged_with_the_one_it_does(open_post):
    result = open_post.process("Taken is a romantic comedy film.", question="What genre is Taken?", evidence=TAKEN)
    assert flags(result) == [("ContradictsFact", "Taken is a romantic comedy film", "Suspense")]
    # Pointing back to the work the user asked about is the same claim.
    pointed = open_post.process("No, it's actually a horror movie.", question="Murder by Death, is that a comedy?",
                                evidence=["Truman Capote starred in Murder by Death (Comedy)."])
    assert flags(pointed) == [("ContradictsFact", "No, it's actually a horror movie", "Comedy")]
    # A kind named as a likeness ("sort of like The Notebook") does not hide what the work is called;
    # a biography is not a historical novel.
    labyrinth = ["Guillermo del Toro wrote Pan's Labyrinth. Pan's Labyrinth has genre War film"]
    love = open_post.process("It's a love story, sort of like The Notebook.", question="What genre is Pan's Labyrinth?",
                             evidence=labyrinth)
    assert [f.hallucination_type for f in love.hallucination_flags] == ["ContradictsFact"]
    life = open_post.process("No, it's considered a biography.", question="Is The Boy in the Striped Pyjamas a novel?",
                             evidence=["The Boy in the Striped Pyjamas has genre Historical novel"])
    assert flags(life) == [("ContradictsFact", "No, it's considered a biography", "Historical")]
    named_before = open_post.process("I liked him better in The Fugitive. It's a comedy.",
                                     question="Harrison Ford was in Star Wars, right?", evidence=FORD)
    assert flags(named_before) == [("ContradictsFact", "It's a comedy", "Crime")]


@pytest.mark.parametrize("answer, question, evidence", [
    # A genre of the same family ("thriller" beside "Suspense") agrees, and is not an unsupported word.
    ("It's a suspense/thriller film.", "What genre is Taken?", TAKEN),
    # A work with several genres: any of them will do.
    ("Yes, The System of the World is also a Historical Novel.", "Is The System of the World a historical novel?",
     ["The System of the World has genre Science Fiction. The System of the World has genre Historical novel"]),
    # "it" after the answer named another film is that film, not the one asked about.
    ("You may like Your Highness with Kiran Shah. It's a fantasy movie.", "Any more movies like Taken?", TAKEN),
    # The evidence's own word for the genre agrees, even one no family knows ("Fiction").
    ("That has a Fiction and Fantasy genre.", "Is Tuck Everlasting an interesting one?",
     ["Tuck Everlasting has genre Romance novel. Tuck Everlasting has genre Fiction"]),
    # "it" after the answer named a work the evidence knows is that work, not the one asked about.
    ("I liked him better in The Fugitive. It's a crime film.", "Harrison Ford was in Star Wars, right?", FORD),
    # What the answer says the work is not.
    ("It is not a comedy.", "What genre is Taken?", TAKEN),
    # "True Romance" is a title, not a genre.
    ("Taken is as good as True Romance.", "What genre is Taken?", TAKEN),
])
def test_genres_that_agree_or_are_not_said_of_the_work_are_not_contradictions(open_post, answer, question, evidence):
    result = open_post.process(answer, question=question, evidence=evidence)
    assert "ContradictsFact" not in [f.hallucination_type for f in result.hallucination_flags]


def test_only_reaches_the_person_the_pronoun_means_among_several_named_before(open_post):
    # The conversation named Hot Fuzz and Simon Pegg; "he … starred in Star Trek" is Simon Pegg, and
    # the evidence has him in Hot Fuzz as well.
    result = open_post.process("He only starred in Star Trek and Land of the Dead.",
                               question="He was in Star Trek and Shaun of the Dead, correct?",
                               evidence=PEGG, history=PEGG_HISTORY)
    assert [f.hallucination_type for f in result.hallucination_flags] == ["ContradictsFact"]
    fine = open_post.process("He starred in Star Trek and Hot Fuzz.", question="He was in Star Trek, correct?",
                             evidence=PEGG, history=PEGG_HISTORY)
    assert fine.hallucination_flags == []


def test_names_read_as_one_are_checked_one_by_one(open_post):
    # spaCy reads "Star Trek and Land of the Dead" as one name; Star Trek is known, Land of the Dead is not.
    result = open_post.process("Simon Pegg starred in Star Trek and Land of the Dead.",
                               question="What else was Simon Pegg in?", evidence=["Simon Pegg starred in Star Trek."])
    assert [(t, c) for t, c, _ in flags(result)] == [("UnsupportedClaim", "Land of the Dead")]


def test_a_no_to_a_title_asked_without_its_subtitle_denies_the_evidence(open_post):
    history = [DialogueTurn("user", "Who wrote Nineteen Eighty-Four?", ""),
               DialogueTurn("assistant", "George Orwell wrote it.", "")]
    evidence = ["George Orwell wrote The Portable Atheist: Essential Readings for the Non-believer"]
    result = open_post.process("No, he didn't.", question="Did he also write The Portable Atheist?",
                               evidence=evidence, history=history)
    assert [f.hallucination_type for f in result.hallucination_flags] == ["ContradictsFact"]


def test_initials_do_not_cut_a_statement_in_two(open_post):
    evidence = ["Peter Gallagher starred in The O.C.. The O.C. is starring Tate Donovan"]
    result = open_post.process("No, Tate Donovan did not star in The O.C.",
                               question="Tate Donovan was also in that show.", evidence=evidence)
    assert flags(result) == [("ContradictsFact", "No, Tate Donovan did not star in The O.C",
                              "The O.C. is starring Tate Donovan")]


def test_a_birthplace_in_a_relation_label_is_held_against_another_place(open_post):
    evidence = ["Shelden Williams : `Place of birth`: Oklahoma City"]
    wrong = open_post.process("Shelden Williams was born in New York City.", question="Where was he born?",
                              evidence=evidence)
    assert flags(wrong) == [("ContradictsFact", "New York City", "Oklahoma City")]
    right = open_post.process("He was born in Oklahoma City.", question="Where was Shelden Williams born?",
                              evidence=evidence)
    assert right.hallucination_flags == []


def test_an_unsupported_sentence_is_as_sure_as_what_it_lacks(open_post):
    evidence = ["Truman Capote starred in Murder by Death (Comedy)."]
    question = "Murder by Death, is that a comedy?"
    # An affirmation with a sentence adverb claims nothing to check.
    assert open_post.process("Interestingly enough it is.", question=question, evidence=evidence).hallucination_flags == []
    thin = open_post.process("It was filmed at night.", question=question, evidence=evidence)
    rich = open_post.process("It is a parody in which an eccentric millionaire invites five famous detectives "
                             "to dinner at his remote mansion.", question=question, evidence=evidence)
    (thin_flag,), (rich_flag,) = thin.hallucination_flags, rich.hallucination_flags
    assert thin_flag.hallucination_type == rich_flag.hallucination_type == "UnsupportedClaim"
    assert thin_flag.confidence < rich_flag.confidence - 0.1
    assert thin.confidence > rich.confidence


def test_two_known_names_linked_as_the_evidence_never_links_them(open_post):
    evidence = ["Mission: Impossible is starring Tom Cruise. Tom Cruise wrote Days of Thunder. "
                "Days of Thunder is starring Randy Quaid."]
    question = "Who starred in Mission: Impossible?"
    swapped = open_post.process("Actually, it was Randy Quaid who starred in Mission: Impossible.",
                                question=question, evidence=evidence)
    assert [f.hallucination_type for f in swapped.hallucination_flags] == ["UnsupportedClaim"]
    assert "never links them" in swapped.hallucination_flags[0].evidence[0]
    for fine in ("Randy Quaid starred in Days of Thunder.",
                 "Tom Cruise starred in Mission: Impossible and Randy Quaid in Days of Thunder."):
        assert open_post.process(fine, question=question, evidence=evidence).hallucination_flags == []
    # A work with one author named by the evidence: someone else as its author contradicts it.
    written = ["Days of Thunder is written by Robert Towne. Tom Cruise starred in Top Gun."]
    result = open_post.process("Tom Cruise wrote Days of Thunder.", question="Who wrote Days of Thunder?",
                               evidence=written)
    assert flags(result) == [("ContradictsFact", "Tom Cruise", "Robert Towne")]


def test_an_answer_that_uses_none_of_the_evidence_is_trusted_less_and_says_why(open_post):
    evidence = ["Bend It Like Beckham is starring Keira Knightley. Keira Knightley starred in Atonement."]
    question = "What else has Keira Knightley been in?"
    history = [DialogueTurn("user", "I liked Bend It Like Beckham.", ""),
               DialogueTurn("assistant", "It stars Keira Knightley.", "")]
    drawn = open_post.process("She was also in Atonement.", question=question, evidence=evidence, history=history)
    ignored = open_post.process("She was also in a film or two.", question=question, evidence=evidence,
                                history=history)
    assert drawn.hallucination_flags == [] and ignored.hallucination_flags == []  # a doubt, not a flag
    assert ignored.confidence < drawn.confidence
    assert any("Atonement" in issue for issue in ignored.coherence.issues)
    assert not any("evidence adds" in issue for issue in drawn.coherence.issues)
    # Evidence that adds nothing to what was said costs nothing.
    said = open_post.process("She was also in a film or two.", question="Was she in Atonement?",
                             evidence=evidence, history=history)
    assert not any("evidence adds" in issue for issue in said.coherence.issues)
