"""What the Postprocessor keeps between calls to save time (the latest answers' parses, earlier
turns' analyses, indexes of evidence texts, evidence sentences, the answer's vector computed beside
the parse) never changes what the user is told: a conversation checked turn by turn by one
Postprocessor gets the same flags, confidence and per-claim support as each turn checked by a fresh
one. Real spaCy pipeline, real MiniLM embedder, sample_kb's registry in a real data dir."""

from __future__ import annotations

import pytest

import chatapp  # noqa: F401 - sets the offline environment first
from chatapp.knowledge.embeddings import MiniLMEmbedder
from chatapp.postprocess import Postprocessor
from chatapp.postprocess.claims import ClaimExtractor
from chatapp.postprocess.coherence import assess_coherence
from chatapp.records import DialogueTurn

NOTES = ("Project Atlas migrates the billing system to the new platform. Dana Kim leads it, with Omar Haddad "
         "reviewing the vendor contract. The cut-over is planned for March 3, 2027 and the budget is $420,000. "
         "The old system will not be switched off before April.")
CONVERSATION = [
    ("Who leads the Atlas migration?",
     "Dana Kim leads the Atlas migration, and Omar Haddad reviews the vendor contract with Priya Raman."),
    ("When is the cut-over, and what does it cost?",
     "The cut-over is planned for March 3, 2027. The budget is $450,000, approved by Lena Vogel in Berlin."),
    ("Will the old system be switched off then?",
     "Yes, the old system is switched off on March 3, 2027, the same day. Dana Kim said so in the kickoff."),
    ("Who leads it again, and what was the budget?",
     "Priya Raman leads Atlas now. The budget is $420,000, as I said before."),
]


# Earlier turns of a chat: one answer no check of a later turn needs parsed, one a later answer may
# reverse, one whose date a later answer may restate.
EARLIER_TURNS = [
    DialogueTurn("user", "What's new with the migration?", ""),
    DialogueTurn("assistant", "The team had lunch together on Friday to celebrate the kickoff.", ""),
    DialogueTurn("user", "And the old system?", ""),
    DialogueTurn("assistant", "The old system will not be switched off before April.", ""),
    DialogueTurn("user", "When is the cut-over?", ""),
    DialogueTurn("assistant", "The cut-over of Project Atlas is planned for March 3, 2027.", ""),
    DialogueTurn("user", "Say it again?", ""),
]


@pytest.fixture(scope="module")
def embedder():
    return MiniLMEmbedder()


def outcome(result) -> dict:
    return {
        "delivered": result.delivered,
        "confidence": result.confidence,
        "support": result.support,
        "flags": [(f.hallucination_type, f.span, f.confidence, f.suggestion) for f in result.hallucination_flags],
        "coherence": (result.coherence.score, result.coherence.issues),
        "claims": [(c.text, c.score, c.claim, c.flagged, c.evidence, c.source, c.reason) for c in result.claim_support],
    }


def test_a_conversation_checked_with_warm_caches_matches_each_turn_checked_afresh(registry_engine, embedder):
    registry = registry_engine.kb.registry
    warm = Postprocessor(registry, embedder=embedder)
    history: list[DialogueTurn] = []
    flagged_turns = 0
    for question, answer in CONVERSATION:
        kwargs = dict(question=question, evidence=[NOTES], history=list(history))
        kept = outcome(warm.process(answer, **kwargs))
        fresh = outcome(Postprocessor(registry, embedder=embedder).process(answer, **kwargs))
        assert kept == fresh, question
        flagged_turns += bool(kept["flags"])
        # The answer as delivered is what the next turn reads as the assistant's earlier turn.
        history += [DialogueTurn("user", question, ""), DialogueTurn("assistant", answer, "")]
    # The conversation gives the checks something to find (a wrong budget, a made-up switch-off
    # date, a new lead), so agreeing is not agreeing on nothing.
    assert flagged_turns >= 2


def test_the_answer_vector_computed_beside_the_parse_scores_the_topic_as_computed_after_it(registry_engine,
                                                                                              embedder):
    post = Postprocessor(registry_engine.kb.registry, embedder=embedder)
    off_topic = ("What is the budget for the Atlas migration?",
                 "The cafeteria on the second floor serves lunch from noon, and the parking garage closes at nine.")
    drifted = []
    for question, answer in [*CONVERSATION, off_topic]:
        result = post.process(answer, question=question, evidence=[NOTES])
        analysis = ClaimExtractor(post.nlp, post.view()).extract(answer)
        direct = assess_coherence(question, analysis, post.view(), [], embedder)
        assert (result.coherence.score, result.coherence.issues) == (direct.score, direct.issues), question
        drifted += [i for i in result.coherence.issues if "drifts" in i]
    assert drifted  # the off-topic answer is told apart by its vector, so the vector is the answer's


def test_an_answer_read_again_as_an_earlier_turn_is_read_as_if_parsed_without_names(registry_engine):
    # Earlier turns are parsed without spaCy's NER; the latest answer's parse (with it) stands in for
    # that parse once its names are set aside, so the turn is read the same either way.
    from chatapp.postprocess.pipeline import _without_names

    post = Postprocessor(registry_engine.kb.registry)
    extractor = ClaimExtractor(post.nlp, post.view())
    for _, answer in CONVERSATION:
        full = extractor.extract(answer)
        assert any(n.label != "KNOWN" for n in full.names)  # spaCy found names the registry does not know
        reused = extractor.analyse(_without_names(full.doc), answer)
        plain = extractor.extract(answer, with_ner=False)
        assert [(n.claim.text, n.claim.span, n.label) for n in reused.names] == \
            [(n.claim.text, n.claim.span, n.label) for n in plain.names]
        assert [(v.claim.text, v.claim.entity_id, v.cue) for v in reused.values] == \
            [(v.claim.text, v.claim.entity_id, v.cue) for v in plain.values]
        assert [(s.claim.text, s.entity_ids, s.mode) for s in reused.sentences] == \
            [(s.claim.text, s.entity_ids, s.mode) for s in plain.sentences]


def test_names_recognised_only_where_a_sentence_can_hold_one_are_those_of_the_whole_answer(registry_engine):
    # The recogniser skips sentences with no capitalised word, proper noun, digit or registry name; what
    # it finds in the rest (read with context either side) is what it finds reading the whole answer.
    post = Postprocessor(registry_engine.kb.registry)
    extractor = ClaimExtractor(post.nlp, post.view())
    answers = [
        "Yes, I can help with that. Rihanna sang it in 2008. it was a big hit and everyone loved it.",
        "Yes I can.  She wrote Sense and Sensibility, Pride and Prejudice and Zombies.",
        "Billie Letts also wrote The Lion, the Witch, and the Wardrobe. Have you read it?",
        "Sure, that sounds great and I would love to hear more about it. Paris is lovely in the spring.",
        "yeah its a lovely fact , canada strikes are when all the pins are struck down . So exciting !",
        "unlike most countries, the us has its own set of accounting principles for tax purposes.",
        "I think so too, it was a great read and you should try it when you have the time.",
        *(answer for _, answer in CONVERSATION),
    ]
    for answer in answers:
        skipping = extractor.extract(answer)
        whole = extractor.analyse(post.nlp(answer), answer)
        assert [(n.claim.text, n.claim.span, n.label) for n in skipping.names] == \
            [(n.claim.text, n.claim.span, n.label) for n in whole.names], answer
        assert [(t.text, t.ent_type_) for t in skipping.doc if t.is_title] == \
            [(t.text, t.ent_type_) for t in whole.doc if t.is_title], answer


def test_a_corrected_answer_keeps_the_names_of_the_answer_where_they_moved(registry_engine):
    # The support of an answer as corrected is read from a parse of the corrected text with the names of
    # the answer carried over (each edit's new text keeping the kind of what it replaced), not recognised
    # a second time: the names are those the recogniser finds reading the corrected text.
    post = Postprocessor(registry_engine.kb.registry)
    extractor = ClaimExtractor(post.nlp, post.view())
    cases = [
        # a person for a person, a date for a date, another span after both moving by their lengths
        ("Bill Harrington met Ann Lee in Paris on 21 March 2027 with the Berlin team.",
         [("Bill Harrington", "Gregory Sandoval-Pike"), ("21 March", "4 March")]),
        # the figure inside a money name, the weekday at the start of a date
        ("The budget of $450,000 was approved by Lena Vogel on Monday, March 3, 2027.",
         [("450,000", "420,000"), ("Monday", "Tuesday")]),
        # a name at the very end, and a change that leaves the rest in place
        ("Dana Kim leads the Atlas migration, and the vendor contract goes to Omar Haddad",
         [("Omar Haddad", "Lena Vogel")]),
    ]
    for answer, changes in cases:
        edits, fixed = [], answer
        for old, new in changes:
            start = answer.index(old)
            edits.append(((start, start + len(old)), new))
        for (start, end), new in sorted(edits, reverse=True):
            fixed = fixed[:start] + new + fixed[end:]
        original = extractor.extract(answer)
        carried = extractor.extract(fixed, names_of=(original, edits))
        afresh = extractor.extract(fixed)
        # Each name keeps its kind (where the recogniser misreads one, the corrected text keeps the reading).
        assert [e.label_ for e in carried.doc.ents] == [e.label_ for e in original.doc.ents], fixed
        assert [(e.text, e.label_) for e in carried.doc.ents] == [(e.text, e.label_) for e in afresh.doc.ents], fixed
        assert [(n.claim.text, n.claim.span, n.label) for n in carried.names] == \
            [(n.claim.text, n.claim.span, n.label) for n in afresh.names], fixed
        assert any(new in [e.text for e in carried.doc.ents] for _, new in changes)  # an edit's name is there


def test_earlier_turns_never_seen_are_held_to_the_answer_though_only_those_a_check_reads_are_parsed(
        registry_engine):
    # A fresh Postprocessor parses an earlier answer only when a check could read more of it than its
    # words (a value beside the answer's values, or a sentence the answer's could reverse).
    post = Postprocessor(registry_engine.kb.registry)
    history = EARLIER_TURNS
    reversal = post.process("The old system will be switched off before April.", question="Say it again?",
                            history=history)
    assert [f.hallucination_type for f in reversal.hallucination_flags] == ["ContradictsPrior"]
    assert "will not be switched off" in reversal.hallucination_flags[0].evidence[0]
    moved = Postprocessor(registry_engine.kb.registry).process(
        "The cut-over of Project Atlas is planned for March 5, 2027.", question="Say it again?", history=history)
    flag = next(f for f in moved.hallucination_flags if f.hallucination_type == "ContradictsPrior")
    assert flag.content == "March 5, 2027" and flag.suggestion == "March 3, 2027"


def test_an_earlier_answer_left_unparsed_one_turn_is_still_held_to_the_answer_of_a_later_turn(registry_engine):
    # What is kept of an earlier answer no check read (its words, whether it states values) is enough to
    # tell, turns later, that a new answer could reverse it or restate its date: it is parsed then.
    post = Postprocessor(registry_engine.kb.registry)
    unrelated = post.process("Everyone enjoyed the cake at the kickoff.", question="Say it again?",
                             history=EARLIER_TURNS)
    assert not unrelated.hallucination_flags
    for answer, content in [("The old system will be switched off before April.", None),
                            ("The cut-over of Project Atlas is planned for March 5, 2027.", "March 5, 2027")]:
        flags = post.process(answer, question="Say it again?", history=EARLIER_TURNS).hallucination_flags
        flag = next(f for f in flags if f.hallucination_type == "ContradictsPrior")
        assert content is None or (flag.content, flag.suggestion) == (content, "March 3, 2027")
