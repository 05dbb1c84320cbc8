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
