"""Tier 1 of correction (lexical): what a user sees it fix and leave alone."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatapp  # noqa: F401  (offline environment first)
from chatapp.preprocess.correction import abbreviations
from chatapp.preprocess.correction.dictionary import load_lexicon
from chatapp.preprocess.correction.lexical import LexicalCorrector, apply_case
from chatapp.preprocess.correction.technology_names import technology_name
from chatapp.preprocess.correction.tokens import tokenize

KB_WORDS = ["Atlas", "Okafor", "Johansson", "David Okafor", "Erik Johansson", "John Smith"]
TYPES = {"Spelling", "Transposition", "Phonetic", "Abbreviation", "CaseNormalization"}


@pytest.fixture(scope="module")
def corrector() -> LexicalCorrector:
    return LexicalCorrector()


@pytest.fixture(scope="module")
def kb_corrector() -> LexicalCorrector:
    return LexicalCorrector(KB_WORDS)


def correct(corrector: LexicalCorrector, text: str):
    doc = tokenize(text)
    records = corrector.correct(doc)
    for record in records:
        assert record.tier == "lexical" and record.correction_type in TYPES
        assert text[record.span[0] : record.span[1]] == record.original
        assert 0.0 <= record.confidence <= 1.0
    return doc.render(), {r.original: r for r in records}


# --- the seed sentences --------------------------------------------------------------------


def test_first_seed_sentence_gets_its_four_word_fixes(corrector):
    text, records = correct(corrector, "can u hlep me find the emial from john yesterdya")
    assert text == "can you help me find the email from john yesterday"
    assert set(records) == {"u", "hlep", "emial", "yesterdya"}
    assert records["u"].correction_type == "Abbreviation"
    assert records["hlep"].correction_type == "Transposition"
    assert records["emial"].correction_type == "Transposition"
    assert records["yesterdya"].correction_type == "Transposition"
    # Clear cases clear even the strictest ("minimal") threshold.
    assert all(r.confidence >= 0.85 for r in records.values())
    assert records["emial"].span == (23, 28)


def test_second_seed_sentence_leaves_the_possessive_to_tier_three(corrector):
    text, records = correct(corrector, "can u help me find johns email from yesterdya")
    assert text == "can you help me find johns email from yesterday"
    assert set(records) == {"u", "yesterdya"}


def test_context_decides_between_candidates(corrector):
    assert correct(corrector, "please hlep me")[0] == "please help me"
    assert corrector.suggest("ot", left="one", right="them")[0][0] == "of"
    assert corrector.suggest("ot", left="want", right="go")[0][0] == "to"
    ranked = corrector.suggest("thier", left="in", right="house", k=3)
    assert ranked[0][0] == "their" and len(ranked) == 3
    assert [score for _, score in ranked] == sorted((score for _, score in ranked), reverse=True)


# --- what is never touched -------------------------------------------------------------------


def test_protected_tokens_are_left_exactly_as_typed(corrector):
    protected = ["INV-20931", "jon.smiht@exmaple.com", "https://exmaple.com/teh?q=1", "`teh code`",
                 "./src/teh.py", "@jonh", "NASA"]
    text = "pls chek " + " and ".join(protected) + " tmrw"
    doc = tokenize(text)
    records = corrector.correct(doc)
    assert {r.original for r in records} == {"pls", "chek", "tmrw"}
    rendered = doc.render()
    for piece in protected:
        assert piece in rendered
    assert [t.original for t in doc.tokens if t.protected] == protected
    assert all(t.text == t.original for t in doc.tokens if t.protected)


def test_dictionary_words_single_letters_and_names_mid_sentence_stay(corrector):
    text = "the quick brown fox said b and c to my favorite neighbor on Tuesday"
    assert correct(corrector, text) == (text, {})


def test_knowledge_base_words_are_never_corrected_away(corrector, kb_corrector):
    text = "ask okafor and johansson about atlas"
    # Without the knowledge base, the names look like misspellings...
    assert set(correct(corrector, text)[1]) >= {"okafor"}
    # ...with it, they are words like any other.
    assert correct(kb_corrector, text) == (text, {})
    assert correct(kb_corrector, "Ask Okafor and Johansson about Atlas")[1] == {}


def test_a_misspelled_knowledge_base_name_is_fixed(kb_corrector):
    text, records = correct(kb_corrector, "did Okafr reply to Johanson")
    assert text == "did Okafor reply to Johansson"
    assert records["Okafr"].confidence >= 0.7


def test_added_vocabulary_takes_effect():
    fresh = LexicalCorrector()
    assert "watanabe" in correct(fresh, "ask watanabe")[1]
    fresh.add_vocabulary(["Kenji Watanabe"])
    assert correct(fresh, "ask watanabe about kenji") == ("ask watanabe about kenji", {})


# --- case ----------------------------------------------------------------------------------


def test_the_case_pattern_of_what_was_typed_is_kept(corrector):
    assert correct(corrector, "Hlep me find the Emial")[0] == "Help me find the Email"
    assert corrector.suggest("HLEP", right="ME")[0][0] == "HELP"
    assert apply_case("Hlep", "help") == "Help" and apply_case("HLEP", "help") == "HELP"
    assert correct(corrector, "U said Pls")[0] == "You said Please"


def test_shift_slips_are_normalised_but_deliberate_capitals_are_not(corrector, kb_corrector):
    text, records = correct(corrector, "THe report is HEre")
    assert text == "The report is Here"
    assert records["THe"].correction_type == "CaseNormalization"
    assert correct(corrector, "two PCs and the iPhone") == ("two PCs and the iPhone", {})


# --- chat-speak --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("thx for the help", "thanks for the help"), ("plz send it tmrw", "please send it tomorrow"),
     ("idk where it is", "I don't know where it is"), ("i dont know", "i don't know"),
     ("r u there", "are you there")],
)
def test_chat_speak_is_written_out(corrector, typed, expected):
    text, records = correct(corrector, typed)
    assert text == expected
    assert records and all(r.confidence >= 0.7 for r in records.values())


@pytest.mark.parametrize("text", ["the U.S. economy", "our R&D budget", "I use R for stats", "a u-turn"])
def test_single_letters_that_are_initials_or_names_stay(corrector, text):
    assert correct(corrector, text) == (text, {})


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\t\n"])
def test_empty_input_proposes_nothing(corrector, text):
    assert correct(corrector, text) == (text, {})
    assert corrector.suggest("") == []


@pytest.mark.parametrize(
    "text",
    ["😀 can u hlep 😀", "שלום hlep עולם", "cafe\u0301 naïve hlep", "e\u0301\u0301\u0301", "a\x00b hlep\x07",
     "\u202eevil\u202c hlep", "ǅungla ß ﬁ hlep", "𝔥𝔩𝔢𝔭 𝕙𝕖𝕝𝕡"],
)
def test_any_unicode_is_handled_and_spans_stay_exact(corrector, text):
    rendered, records = correct(corrector, text)
    assert isinstance(rendered, str)
    if "hlep" in text:  # the typo among the odd characters is still found, at its exact place
        assert "hlep" in records and "help" in rendered
    for record in records.values():
        assert text[record.span[0] : record.span[1]] == record.original


# --- correcting twice changes nothing more ---------------------------------------------------


def _dictionary_sample() -> list[str]:
    lexicon = load_lexicon()
    # Technology names ("google", "linux") are dictionary words that get their capitals on purpose.
    return [w for w in lexicon.words[:3000]
            if w.isalpha() and abbreviations.lookup(w) is None and technology_name(w) is None]


def _typo(word: str, position: int, kind: int) -> str:
    if len(word) < 4:
        return word
    position %= len(word) - 1
    if kind == 0:  # swap neighbours
        return word[:position] + word[position + 1] + word[position] + word[position + 2 :]
    if kind == 1:  # drop a letter
        return word[:position] + word[position + 1 :]
    return word[:position] + word[position] + word[position:]  # double a letter


WORDS = st.sampled_from(_dictionary_sample())
TYPO_WORDS = st.builds(_typo, WORDS, st.integers(0, 20), st.integers(0, 2))
SENTENCES = st.lists(st.one_of(WORDS, WORDS, TYPO_WORDS, st.sampled_from(["u", "r", "pls", "idk", "Smtih", "THe"])),
                     min_size=1, max_size=20).map(" ".join)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sentence=SENTENCES)
def test_correcting_the_corrected_text_proposes_nothing_more(corrector, sentence):
    once, _ = correct(corrector, sentence)
    twice, records = correct(corrector, once)
    assert records == {}, (sentence, once, records)
    assert twice == once


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sentence=st.lists(WORDS, min_size=1, max_size=20).map(" ".join))
def test_sentences_of_dictionary_words_are_left_alone(corrector, sentence):
    assert correct(corrector, sentence) == (sentence, {})
