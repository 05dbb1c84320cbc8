"""Correction of what people type about their work: technology names in their
usual case, contractions and possessives typed without apostrophes, and the
real-word confusions (to/too, then/than, your/you're) offered in context."""

from __future__ import annotations

import pytest

import chatapp  # noqa: F401  (offline environment first)
from chatapp.preprocess.correction.lexical import LexicalCorrector
from chatapp.preprocess.correction.pipeline import CorrectionPipeline
from chatapp.preprocess.correction.technology_names import technology_name
from chatapp.preprocess.correction.tokens import tokenize
from tests.test_correction import assert_well_formed, find


@pytest.fixture(scope="module")
def pipeline(registry_engine):
    return CorrectionPipeline(registry_engine.kb.registry)


def correct_to(pipeline, text: str, expected: str):
    """The standard-level correction of `text`: it reads `expected` and its records are well formed."""
    result = pipeline.correct(text, "standard")[0]
    assert result.corrected_input == expected
    assert_well_formed(result)
    return result


# --- technology names ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we moved the api to graphql last sprint", "We moved the api to GraphQL last sprint"),
        ("is the javascript bundle on github yet", "Is the JavaScript bundle on GitHub yet?"),
        ("the macos runner builds the iphone app", "The macOS runner builds the iPhone app"),
        ("postgresql or mysql for the kubernetes job", "PostgreSQL or MySQL for the Kubernetes job"),
        ("she posted the demo on youtube and linkedin", "She posted the demo on YouTube and LinkedIn"),
    ],
)
def test_technology_names_get_their_usual_case(pipeline, text, expected):
    correct_to(pipeline, text, expected)


def test_a_technology_name_is_cased_never_respelt(pipeline):
    text = "the graphql schema is out of date"
    result = pipeline.correct(text, "aggressive")[0]
    assert result.corrected_input.startswith("The GraphQL schema")
    record = find(result.corrections, "graphql", "GraphQL")
    assert (record.tier, record.correction_type, record.span) == ("lexical", "CaseNormalization", (4, 11))
    assert not any(s.original == "graphql" for s in result.suggestions)  # no "graphic", not even offered
    # Even at the minimal level: the case is all that was missing.
    assert pipeline.correct(text, "minimal")[0].corrected_input.startswith("The GraphQL schema")


def test_a_slightly_misspelt_technology_name_is_respelt_at_standard(pipeline):
    result = pipeline.correct("we rewrote it in javascrpit and deploy with kubernets", "standard")[0]
    assert result.corrected_input == "We rewrote it in JavaScript and deploy with Kubernetes"
    assert find(result.corrections, "javascrpit", "JavaScript").span == (17, 27)
    assert find(result.corrections, "kubernets", "Kubernetes").span == (44, 53)


def test_deliberate_capitals_and_knowledge_base_spellings_stay():
    corrector = LexicalCorrector(["Github Enterprise"])  # the user's own documents write it so
    doc = tokenize("GITHUB and GitHub and Github and github")
    assert corrector.correct(doc) == []
    plain = LexicalCorrector()
    doc = tokenize("GITHUB and GitHub and Github")
    records = plain.correct(doc)
    assert [(r.original, r.corrected, r.span) for r in records] == [("Github", "GitHub", (22, 28))]


def test_technology_names_are_shipped_as_package_data():
    assert technology_name("graphql") == "GraphQL"
    assert technology_name("linkedin") == "LinkedIn"
    # Names that are everyday words in lower case are not on the list.
    assert technology_name("rust") is None and technology_name("slack") is None


# --- possessives without an apostrophe ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "original", "span"),
    [
        # Names nobody put in the registry: common first names, followed by a noun phrase.
        ("whats robs direct dail number", "What's Rob's direct dial number?", "robs", (6, 10)),
        ("is danas desk near the window", "Is Dana's desk near the window?", "danas", (3, 8)),
        ("what is kims phone number", "What is Kim's phone number?", "kims", (8, 12)),
        # Days.
        ("mondays meeting moved to noon", "Monday's meeting moved to noon", "mondays", (0, 7)),
        ("whats todays agenda", "What's today's agenda?", "todays", (6, 12)),
    ],
)
def test_possessives_of_names_and_days_get_their_apostrophe(pipeline, text, expected, original, span):
    result = correct_to(pipeline, text, expected)
    record = next(r for r in result.corrections if r.original == original and r.tier == "semantic")
    assert (record.correction_type, record.span) == ("EntityCorrection", span)
    assert record.corrected.endswith("'s")  # the possessive is never dropped


def test_a_registry_word_written_with_a_capital_is_a_name_too(tmp_path):
    from chatapp.engine import ChatEngine

    engine = ChatEngine.open(tmp_path, load_sample_kb=False)
    try:
        (tmp_path / "entities.jsonl").write_text(
            '{"id": "project:quillfeather", "type": "project", "name": "Quillfeather Portal",'
            ' "attributes": {"host": "Brannock"}}\n', encoding="utf-8")
        engine.ingest(tmp_path / "entities.jsonl")
        result = CorrectionPipeline(engine.kb.registry).correct("is brannocks uptime report ready", "standard")[0]
    finally:
        engine.close()
    assert result.corrected_input == "Is Brannock's uptime report ready?"


@pytest.mark.parametrize(
    "text",
    [
        "he robs banks for a living",  # a verb after its subject
        "the car jacks are broken",  # a plain plural after a noun
        "williams report is late",  # a common surname
        "the bills arrived today",  # an everyday word
        "we asked tims",  # no noun after it
        "sundays are quiet",  # a plural day, then a verb
    ],
)
def test_plurals_verbs_and_surnames_keep_their_s(pipeline, text):
    result = pipeline.correct(text, "standard")[0]
    assert "'s" not in result.corrected_input, result
    assert not any(r.correction_type == "EntityCorrection" for r in result.corrections)


def test_a_day_that_reads_as_a_plural_subject_is_only_a_suggestion(pipeline):
    standard = pipeline.correct("mondays work best", "standard")[0]
    assert standard.corrected_input == "Mondays work best"
    assert find(standard.suggestions, "mondays", "Monday's").span == (0, 7)
    assert pipeline.correct("mondays work best", "aggressive")[0].corrected_input == "Monday's work best"


# --- contractions without their apostrophe ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("i wont work on the laptop", "I won't work on the laptop"),
        ("im not sure thats right", "I'm not sure that's right"),
        ("we dont know why theyre late", "We don't know why they're late"),
        ("youre on the rota and whats next", "You're on the rota and what's next"),
        ("isnt the build green", "Isn't the build green?"),
    ],
)
def test_contractions_that_are_no_words_get_their_apostrophe(pipeline, text, expected):
    assert pipeline.correct(text, "standard")[0].corrected_input == expected


@pytest.mark.parametrize(
    ("text", "expected", "original", "corrected", "span"),
    [
        ("were going to ship on friday", "We're going to ship on Friday", "were", "We're", (0, 4)),
        ("i think were shipping it late", "I think we're shipping it late", "were", "we're", (8, 12)),
        ("id like danas email", "I'd like Dana's email", "id", "I'd", (0, 2)),
        ("ok, ill send the slides", "Ok, I'll send the slides", "ill", "I'll", (4, 7)),
        ("lets meet after the standup", "Let's meet after the standup", "lets", "Let's", (0, 4)),
    ],
)
def test_bare_contractions_that_are_words_change_where_the_grammar_needs_them(
        pipeline, text, expected, original, corrected, span):
    result = correct_to(pipeline, text, expected)
    record = find(result.corrections, original, corrected)
    assert (record.tier, record.correction_type, record.span) == ("syntactic", "Grammar", span)


@pytest.mark.parametrize(
    "text",
    [
        "if you were going to ship it",  # a subject before it
        "the tests that were failing are fixed",
        "were there any errors in the log",  # a question: its subject follows
        "my id number is wrong",
        "id number is on the badge",  # a noun, no verb reading
        "ill health kept him home",
        "it lets you export the sheet",
    ],
)
def test_words_that_mean_what_they_spell_stay(pipeline, text):
    result = pipeline.correct(text, "aggressive")[0]
    assert not any(r.correction_type == "Grammar" and "'" in r.corrected for r in result.corrections), result


def test_were_before_an_adjective_is_only_a_suggestion_at_standard(pipeline):
    # "(we) were late yesterday" is a past tense as often as "we're late".
    standard = pipeline.correct("were late for the demo", "standard")[0]
    assert standard.corrected_input.startswith("Were late")
    assert find(standard.suggestions, "were", "We're").span == (0, 4)
    assert pipeline.correct("were late for the demo", "aggressive")[0].corrected_input.startswith("We're late")


def test_the_live_path_leaves_bare_contractions_to_the_full_path(pipeline):
    result = pipeline.correct("were going to ship it", "standard", ("lexical", "syntactic"))[0]
    assert result.corrected_input.startswith("Were going")


# --- sound-alike words in context --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "original", "corrected", "span", "aggressive"),
    [
        ("this is more expensive then the old plan", "then", "than", (23, 27),
         "This is more expensive than the old plan."),
        ("your going to love the new dashboard", "your", "You're", (0, 4), "You're going to love the new dashboard."),
        ("your the best at reviews", "your", "You're", (0, 4), "You're the best at reviews."),
        ("there going to call us back", "there", "They're", (0, 5), "They're going to call us back."),
        ("i have to much work this week", "to", "too", (7, 9), "I have too much work this week."),
        ("we loose an hour on every deploy", "loose", "lose", (3, 8), "We lose an hour on every deploy."),
        ("i think it effects the schedule", "effects", "affects", (11, 18), "I think it affects the schedule."),
    ],
)
def test_confusions_are_suggested_at_standard_and_applied_when_aggressive(
        pipeline, text, original, corrected, span, aggressive):
    standard = pipeline.correct(text, "standard")[0]
    assert_well_formed(standard)
    suggestion = find(standard.suggestions, original, corrected)
    assert (suggestion.tier, suggestion.correction_type, suggestion.span) == ("syntactic", "Grammar", span)
    assert suggestion.confidence < 0.7 and (corrected, suggestion.confidence) in suggestion.alternatives
    # The text keeps the word as typed (only the first word's capital is applied).
    assert standard.corrected_input[span[0]:span[1]].lower() == original
    result = pipeline.correct(text, "aggressive")[0]
    assert result.corrected_input == aggressive
    assert find(result.corrections, original, corrected).span == span


@pytest.mark.parametrize(
    "text",
    [
        "your meeting moved to noon",  # a noun after "your"
        "there being no answer, we left",
        "more tests and then we ship",  # "then" in a sequence
        "we talked to many people",  # "to" after a verb that takes it
        "the goal is to ship early",
        "we need to effect real change",
    ],
)
def test_sound_alikes_that_fit_their_context_are_left_alone(pipeline, text):
    result = pipeline.correct(text, "aggressive")[0]
    confusions = {"then", "to", "your", "there", "their", "its", "loose", "lose", "affect", "effect", "effects"}
    assert not [r for r in result.corrections + result.suggestions
                if r.correction_type == "Grammar" and r.original.lower() in confusions], result


@pytest.mark.parametrize(
    "text",
    [
        "I just stood there looking out of the window",  # "there" after a verb is a place
        "Which way to go to the bank",
    ],
)
def test_sound_alikes_in_clean_prose_stay_even_when_aggressive(pipeline, text):
    result = pipeline.correct(text, "aggressive")[0]
    assert not [r for r in result.corrections if r.original in ("there", "to")], result



@pytest.mark.parametrize(("typed", "meant"), [
    ("wen is the review", "When is the review?"),
    ("wat is her phone number", "What is her phone number?"),
    # "which", "what" and "whose" take their noun before the auxiliary.
    ("wich ferry is she crewing", "Which ferry is she crewing?"),
    ("wat time does the office open", "What time does the office open?"),
])
def test_a_question_word_typed_as_another_word_is_fixed_where_an_auxiliary_follows(pipeline, typed, meant):
    correct_to(pipeline, typed, meant)


@pytest.mark.parametrize("typed", ["Wen is coming on Monday", "wat a day it was", "wen ferry is it"])
def test_a_capitalised_name_or_a_word_with_no_auxiliary_after_it_stays(pipeline, typed):
    first = pipeline.correct(typed, "standard")[0].corrected_input.split()[0]
    assert first.lower() == typed.split()[0].lower()


@pytest.mark.parametrize("text, expected", [
    ("whats his mobil number", "What's his mobile number?"),
    ("can you check the colum headers", "Can you check the column headers?"),
])
def test_a_rare_word_its_neighbours_do_not_expect_is_the_common_word_a_letter_away(pipeline, text, expected):
    result = pipeline.correct(text, "standard", ("lexical", "syntactic", "semantic"))[0]
    assert result.corrected_input == expected


@pytest.mark.parametrize("text", [
    "She plays the oboe in the county orchestra.",
    "The recipe needs a pinch of nutmeg and some mace.",
    "Mobil and Shell both cut their prices.",  # a capitalised word is a name here
    "We moored the dinghy by the old quay.",
])
def test_rare_words_that_are_meant_stay(pipeline, text):
    result = pipeline.correct(text, "standard", ("lexical", "syntactic", "semantic"))[0]
    assert result.corrected_input == text
