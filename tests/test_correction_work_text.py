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
    result = pipeline.correct(text, "standard")[0]
    assert result.corrected_input == expected
    assert_well_formed(result)


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
    result = pipeline.correct(text, "standard")[0]
    assert result.corrected_input == expected
    assert_well_formed(result)
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
