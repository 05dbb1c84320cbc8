"""The shared lexicon, read against a registry whose keys appear nowhere in the code: a user's own
`project_lead`, `launch_date`, `budget_2027` and `mobile_number` are found by the same general
words as the sample's `eng_lead` or `q4_budget`, and the registry hands attributes back as data."""

from __future__ import annotations

import json

import pytest

import chatapp  # noqa: F401 - offline environment first
from chatapp.engine import ChatEngine
from chatapp.knowledge.registry import decode_attribute
from chatapp.lexicon import (
    AMBIGUOUS_NAMES,
    ATTRIBUTE_CONCEPTS,
    KEY_CONCEPTS_BY_TYPE,
    concepts_asked,
    concepts_of_key,
    key_words,
    keys_for_concept,
)
from chatapp.llm.offline import OfflineResponder
from chatapp.preprocess.context import build_context
from chatapp.records import ResolvedEntity

ENTITIES = [
    {"id": "project:kestrel", "type": "project", "name": "Project Kestrel", "aliases": ["Kestrel"],
     "description": "Rebuild of the warehouse scanning app.",
     "attributes": {"health": "amber", "project_lead": "person:mara-quist", "launch_date": "2027-03-09",
                    "budget_2027": "$410,000", "wiki_page": "https://wiki.example/kestrel",
                    "sites": ["Leeds depot", "York depot"]}},
    {"id": "person:mara-quist", "type": "person", "name": "Mara Quist",
     "attributes": {"job_title": "Programme Director", "mobile_number": "+44 7700 900123",
                    "email_address": "mara.quist@example.org", "shoe_size": "39",
                    "contact_card": {"desk": "4.12", "floor": "4"}}},
]


@pytest.fixture(scope="module")
def own_engine(tmp_path_factory):
    """A real engine whose registry is only the two entities above."""
    source = tmp_path_factory.mktemp("own-kb") / "entities.jsonl"
    source.write_text("\n".join(json.dumps(row) for row in ENTITIES) + "\n", encoding="utf-8")
    engine = ChatEngine.open(tmp_path_factory.mktemp("own-data"), load_sample_kb=False)
    report = engine.ingest(source)
    assert not report.files_failed and report.entities == 2
    yield engine
    engine.close()


def offline_answer(engine, question: str) -> str:
    return OfflineResponder(engine.kb).compose([{"role": "user", "content": question}], {"rag_chunks": []})


# --- the offline responder on the user's own keys ---------------------------------------------


def test_who_leads_a_project_is_answered_from_its_own_lead_key(own_engine):
    answer = offline_answer(own_engine, "who leads Kestrel?")
    assert "Project Kestrel's project lead is Mara Quist." in answer
    assert "2027-03-09" not in answer and "$410,000" not in answer  # only what was asked


def test_when_is_the_launch_is_answered_from_its_launch_date(own_engine):
    answer = offline_answer(own_engine, "when is the Kestrel launch?")
    assert "Project Kestrel's launch date is 2027-03-09." in answer
    assert "Mara Quist" not in answer


def test_a_mobile_is_a_phone_number_whatever_the_key_is_called(own_engine):
    answer = offline_answer(own_engine, "what is Mara Quist's mobile?")
    assert "Mara Quist's mobile number is +44 7700 900123." in answer
    assert "Programme Director" not in answer and "39" not in answer


def test_a_budget_with_a_year_in_its_key_is_still_the_budget(own_engine):
    answer = offline_answer(own_engine, "what is the Kestrel budget?")
    assert "Project Kestrel's budget 2027 is $410,000." in answer


def test_an_address_key_named_for_email_answers_the_email_not_a_location(own_engine):
    answer = offline_answer(own_engine, "what's Mara Quist's email?")
    assert "Mara Quist's email address is mara.quist@example.org." in answer


def test_a_whole_turn_answers_from_the_users_own_keys(own_engine):
    result = own_engine.ask("who leads Kestrel?", session="own-keys", model="offline")
    assert "Mara Quist" in result.response.delivered


# --- context: the entity line shows what tells the project apart ------------------------------


def test_the_projects_context_line_shows_its_status_lead_and_launch(own_engine):
    kestrel = ResolvedEntity("Kestrel", (0, 7), "project:kestrel", "Project Kestrel", "project", 0.9)
    context = build_context([], [kestrel], {}, own_engine.kb.registry, {}, {}, "")
    assert context.entity_context == ["Project Kestrel (project): amber, Mara Quist, 2027-03-09"]


def test_the_persons_context_line_shows_title_and_email(own_engine):
    mara = ResolvedEntity("Mara", (0, 4), "person:mara-quist", "Mara Quist", "person", 0.9)
    context = build_context([], [mara], {}, own_engine.kb.registry, {}, {}, "")
    assert context.entity_context == ["Mara Quist (person): Programme Director, mara.quist@example.org"]


# --- the registry hands attributes back as data ----------------------------------------------


def test_lists_and_objects_come_back_as_lists_and_objects_and_survive_a_second_store(own_engine):
    registry = own_engine.kb.registry
    kestrel, mara = registry.get("project:kestrel"), registry.get("person:mara-quist")
    assert kestrel.attributes["sites"] == ["Leeds depot", "York depot"]
    assert mara.attributes["contact_card"] == {"desk": "4.12", "floor": "4"}
    with own_engine.kb.registry.database.transaction() as db:
        registry.store_entities(db, [kestrel, mara])
    assert registry.get("project:kestrel").attributes["sites"] == ["Leeds depot", "York depot"]
    assert registry.get("person:mara-quist").attributes["contact_card"] == {"desk": "4.12", "floor": "4"}
    assert registry.get("project:kestrel").attributes["launch_date"] == "2027-03-09"


def test_decode_attribute_reads_json_lists_and_objects_and_leaves_text_alone():
    assert decode_attribute('["a", "b"]') == ["a", "b"]
    assert decode_attribute('{"k": 1}') == {"k": 1}
    assert decode_attribute("[draft] plan") == "[draft] plan"  # looks like JSON, is not
    assert decode_attribute("in progress") == "in progress"
    assert decode_attribute(["already", "data"]) == ["already", "data"]


# --- the lexicon itself --------------------------------------------------------------------------


def test_key_words_split_snake_kebab_and_camel_case():
    assert key_words("launch_date") == ("launch", "date")
    assert key_words("projectLead") == ("project", "lead")
    assert key_words("go-live") == ("go", "live")


@pytest.mark.parametrize("key, concepts", [
    ("project_lead", {"lead"}), ("eng_lead", {"lead"}), ("projectLead", {"lead"}),
    ("budget_2027", {"budget"}), ("q4_budget", {"budget"}),
    ("launch_date", {"date"}), ("go_live", {"deadline"}),
    ("mobile_number", {"phone"}), ("email_address", {"email"}), ("home_address", {"location"}),
    ("reports_to", {"manager"}), ("direct_reports", {"manages"}), ("offices", {"location"}),
    ("cost_center", {"cost_center"}), ("team_size", {"headcount"}),
])
def test_a_key_holds_the_concepts_of_its_head_word(key, concepts):
    assert concepts_of_key(key) == concepts


def test_a_key_no_concept_knows_holds_only_itself():
    assert concepts_of_key("incident_commander") == {"incident_commander"}
    assert concepts_of_key("shoe_size") == {"shoe_size"}


def test_keys_for_concept_keeps_the_registrys_order():
    keys = ["status", "eng_lead", "launch_date", "marketing_lead", "cost_center"]
    assert keys_for_concept("lead", keys) == ["eng_lead", "marketing_lead"]
    assert keys_for_concept("budget", keys) == []  # a cost center is no cost


@pytest.mark.parametrize("question, asked, not_asked", [
    ("who leads Kestrel?", {"lead"}, {"budget"}),
    ("who attends the review?", {"attendees"}, set()),  # inflected cue
    ("what is the cost center?", {"cost_center"}, {"budget"}),  # the longest cue wins
    ("what's the head count?", {"headcount"}, {"lead"}),
    ("who reports to Sarah?", {"manager"}, {"manages"}),
    ("when is the launch?", {"date", "time", "deadline"}, set()),
])
def test_concepts_asked_reads_the_questions_cue_words(question, asked, not_asked):
    found = set(concepts_asked(question))
    assert asked <= found and not (not_asked & found)


def test_every_type_lists_concepts_the_lexicon_knows_and_cue_words_name_them():
    for concepts in KEY_CONCEPTS_BY_TYPE.values():
        for concept in concepts:
            cues, _ = ATTRIBUTE_CONCEPTS[concept]
            assert cues, concept
    assert "mobile" in ATTRIBUTE_CONCEPTS["phone"][0]


def test_ambiguous_names_join_both_old_lists():
    assert {"will", "mark", "may", "june", "eve", "hunter", "page"} <= AMBIGUOUS_NAMES


# Words wordfreq's tokenizer changes or splits, beside plain ones: accents, digits (estimated by
# wordfreq from their shape), hyphens, apostrophes, case folding, scripts without spaces, symbols.
ODD_WORDS = ["inés", "Wrocław", "nürnberg", "Novotná", "0007", "2026", "q4", "co2", "3.50", "10:30am", "e-mail",
             "well-known", "über-cool", "o'neil", "don't", "rock'n'roll", "Straße", "ﬁne", "Ångström", "naïve",
             "東京", "こんにちは", "😀", "1,000", "U.S.", "", "---", "who", "Leads", "project", "zyzzyva"]


def test_word_frequencies_are_wordfreqs_own_for_every_kind_of_word():
    import wordfreq

    from chatapp.lexicon import zipf

    listed = [word for bucket in wordfreq.get_frequency_list("en", "large") for word in bucket][::97]
    assert [zipf(w) for w in ODD_WORDS + listed] == [wordfreq.zipf_frequency(w.lower(), "en")
                                                      for w in ODD_WORDS + listed]


def test_word_frequencies_never_load_wordfreqs_dict_of_every_word():
    # That dict of 300,000 Python strings and floats is about 35 MiB of a process; the table holds
    # the same in arrays. A fresh process, so that no other test has loaded it.
    import subprocess
    import sys

    script = ("from chatapp.lexicon import zipf\n"
              f"values = [zipf(w) for w in {ODD_WORDS!r}]\n"
              "import wordfreq\n"
              "print(wordfreq.get_frequency_dict.cache_info().currsize)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["0"]
