"""Stage 1: the three correction tiers and the pipeline that applies them at a level."""

from __future__ import annotations

import pytest

import chatapp  # noqa: F401  (offline environment first)
from chatapp.preprocess.correction.levels import LEVELS, parse_level, threshold
from chatapp.preprocess.correction.pipeline import LIVE_TIERS, CorrectionPipeline
from chatapp.preprocess.correction.tokens import tokenize
from chatapp.engine import ChatEngine

TYPES_BY_TIER = {
    "lexical": {"Spelling", "Transposition", "Phonetic", "Abbreviation", "CaseNormalization"},
    "syntactic": {"Grammar", "Capitalization", "Punctuation", "WordOrder"},
    "semantic": {"EntityCorrection", "TypeMismatch", "AmbiguityResolution", "PragmaticAdjustment"},
}


@pytest.fixture(scope="module")
def registry(registry_engine):
    """The sample registry only (conftest): entities and facts, no documents."""
    return registry_engine.kb.registry


@pytest.fixture(scope="module")
def pipeline(registry):
    return CorrectionPipeline(registry)


def corrected(pipeline, text, level="standard", tiers=("lexical", "syntactic", "semantic")):
    return pipeline.correct(text, level, tiers)[0].corrected_input


def assert_well_formed(result):
    for record in result.corrections + result.suggestions:
        start, end = record.span
        assert result.original_input[start:end] == record.original, record
        assert record.correction_type in TYPES_BY_TIER[record.tier], record
        assert 0.0 < record.confidence <= 1.0
        assert all(isinstance(text, str) and 0.0 <= score <= 1.0 for text, score in record.alternatives)
    assert all(r.applied for r in result.corrections)
    assert not any(r.applied for r in result.suggestions)


def find(records, original, corrected=None):
    hits = [r for r in records if r.original == original and (corrected is None or r.corrected == corrected)]
    assert hits, f"no record {original!r} -> {corrected!r} in {records}"
    return hits[-1]


# --- the seed sentences --------------------------------------------------------------


def test_seed_sentence_with_typos_chat_speak_and_a_name(pipeline):
    text = "can u hlep me find the emial from john yesterdya"
    result, markers = pipeline.correct(text, "standard")

    assert result.corrected_input == "Can you help me find the email from John yesterday?"
    assert_well_formed(result)
    records = result.corrections
    assert find(records, "u", "you").tier == "lexical"
    assert find(records, "hlep", "help").span == (6, 10)
    assert find(records, "emial", "email").span == (23, 28)
    assert find(records, "yesterdya", "yesterday").span == (39, 48)
    assert find(records, "can", "Can").correction_type == "Capitalization"
    assert find(records, "john", "John").span == (34, 38)
    question = find(records, "", "?")
    assert (question.tier, question.span, question.correction_type) == ("syntactic", (48, 48), "Punctuation")
    assert result.confidence == pytest.approx(sum(r.confidence for r in records) / len(records), abs=1e-3)
    # Stage 2 is told where John and yesterday are, in the original's coordinates.
    john = [m for m in markers if m["kind"] == "entity" and m["span"] == (34, 38)]
    assert john and john[0]["entity_id"] == "person:john-smith"
    assert {"kind": "date", "span": (39, 48), "text": "yesterday"}.items() <= next(
        m for m in markers if m["kind"] == "date").items()


def test_seed_sentence_with_a_possessive(pipeline):
    text = "can u help me find johns email from yesterdya"
    result, _ = pipeline.correct(text, "standard")

    assert result.corrected_input == "Can you help me find John's email from yesterday?"
    assert_well_formed(result)
    possessive = find(result.corrections, "johns", "John's")
    assert (possessive.tier, possessive.span, possessive.correction_type) == ("semantic", (19, 24), "EntityCorrection")
    assert possessive.alternatives[0][0] == "John's"
    # Tier 2's guess ("Johns") was replaced by tier 3's, so it is not offered either.
    assert not [s for s in result.suggestions if s.span == (19, 24)]


# --- names from the knowledge base ---------------------------------------------------------


def test_knowledge_base_names_are_never_corrected_away(pipeline):
    text = "ask Okafor whether Atlas and Northwind Analytics are on track"
    result, _ = pipeline.correct(text, "aggressive")
    for name in ("Okafor", "Atlas", "Northwind Analytics"):
        assert name in result.corrected_input
    assert not [r for r in result.corrections if r.original in ("Okafor", "Atlas", "Northwind")]


def test_knowledge_base_names_get_their_capitals(pipeline):
    text = "i met okafor and sarah about project atlas in san francisco"
    assert corrected(pipeline, text) == "I met Okafor and Sarah about Project Atlas in San Francisco"


def test_common_words_that_are_also_kb_aliases_stay_lower_case(pipeline):
    # "People" (HR) and "Office" (Facilities) are aliases, but here they are just words.
    assert corrected(pipeline, "how many people work in the office") == "How many people work in the office?"


@pytest.mark.parametrize("text, expected", [
    ("who is the tech lead on atlas", "Who is the tech lead on Atlas?"),
    ("is atlas on track", "Is Atlas on track?"),
    ("when does beacon ship", "When does Beacon ship?"),
    ("i need an atlas of the world", "I need an atlas of the world"),  # an article: the everyday word
    ("where is my atlas", "Where is my atlas?"),
    ("we work from the office and in office", "We work from the office and in office"),
])
def test_a_kb_name_that_is_also_a_word_is_capitalised_where_it_stands_bare(pipeline, text, expected):
    assert corrected(pipeline, text) == expected


def test_misspelled_full_name_is_matched_to_the_registry(pipeline):
    result, markers = pipeline.correct("did jon smth send the report on monday", "standard")
    assert result.corrected_input == "Did John Smith send the report on Monday?"
    record = find(result.corrections, "jon smth", "John Smith")
    assert (record.tier, record.correction_type, record.span) == ("semantic", "EntityCorrection", (4, 12))
    assert any(m["entity_id"] == "person:john-smith" and m["span"] == (4, 12) for m in markers)
    assert any(m["kind"] == "date" and m["text"] == "on Monday" for m in markers)


def test_possessive_needs_a_name_and_a_noun(pipeline):
    assert corrected(pipeline, "where is sarahs report", tiers=("syntactic", "semantic")) == "Where is Sarah's report?"
    # "tests" is no name; after "tims" comes no noun.
    assert corrected(pipeline, "where is the tests report", tiers=("syntactic", "semantic")) == (
        "Where is the tests report?")
    assert corrected(pipeline, "we asked tims", tiers=("syntactic", "semantic")) == "We asked tims"


# --- syntactic rules --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("she said the the budget is fine", "She said the budget is fine"),
        ("I had had enough of it", "I had had enough of it"),
        ("send a email to a user", "Send an email to a user"),
        ("it took an hour, not an day", "It took an hour, not a day"),
        ("it could of been worse", "It could have been worse"),
        ("we need alot more then that", "We need a lot more than that"),
        ("i think i'm late, i.e. very late", "I think I'm late, i.e. very late"),
        ("we met. then we left, e.g. early", "We met. Then we left, e.g. early"),
        ("their is no report", "There is no report"),
    ],
)
def test_syntactic_rules(pipeline, text, expected):
    assert corrected(pipeline, text, tiers=("syntactic",)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what is the atlas deadline", "?"),
        ("is it done", "?"),
        ("thanks, can you send it", "?"),
        ("and what is his email", "?"),
        ("so when does it start", "?"),
        ("and then send me the report", ""),
        ("send me the report", ""),
        ("what is this?", ""),
        ("open https://example.com/a", ""),
    ],
)
def test_questions_get_a_question_mark(pipeline, text, expected):
    result = corrected(pipeline, text, tiers=("syntactic",))
    tail = result[len(text):]
    assert tail == expected, result


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("where it is?", "Where is it?"),
        ("what time it is", "What time is it?"),
        ("how old she is?", "How old is she?"),
        ("ok. who you are?", "Ok. Who are you?"),
        # Embedded questions and longer clauses keep their order.
        ("do you know where it is?", "Do you know where it is?"),
        ("what it is, is a problem", "What it is, is a problem"),
        ("where the meeting is?", "Where the meeting is?"),
    ],
)
def test_question_word_order(pipeline, text, expected):
    result = pipeline.correct(text, "standard", ("lexical", "syntactic"))[0]
    assert result.corrected_input == expected
    assert_well_formed(result)
    reordered = [r for r in result.corrections if r.correction_type == "WordOrder"]
    assert bool(reordered) == (" is it" in expected or " is she" in expected or " are you" in expected)


def test_word_order_without_a_question_mark_is_only_a_suggestion_at_minimal(pipeline):
    result = pipeline.correct("where it is", "minimal", ("syntactic",))[0]
    assert result.corrected_input == "Where it is"
    assert find(result.suggestions, "it is", "is it").correction_type == "WordOrder"


def test_statements_get_a_full_stop_only_when_aggressive(pipeline):
    text = "please send me the budget report"
    assert corrected(pipeline, text, "standard", ("syntactic",)) == "Please send me the budget report"
    assert corrected(pipeline, text, "aggressive", ("syntactic",)) == "Please send me the budget report."


# --- levels ----------------------------------------------------------------------------


def test_level_names_and_numbers():
    assert parse_level("standard") == 0.5 and parse_level(" Minimal ") == 0.25
    assert parse_level("0.7") == 0.7 and parse_level(1) == 1.0
    for bad in ("loud", "1.5", "-0.1", "nan", ""):
        with pytest.raises(ValueError, match="off, minimal, standard, aggressive"):
            parse_level(bad)
    thresholds = [threshold(LEVELS[name]) for name in ("off", "minimal", "standard", "aggressive")]
    assert thresholds == sorted(thresholds, reverse=True)


def test_off_changes_nothing_but_still_suggests(pipeline):
    text = "can u hlep me find the emial from john yesterdya"
    result, _ = pipeline.correct(text, "off")
    assert result.corrected_input == text
    assert result.corrections == [] and result.confidence == 1.0
    assert any(s.original == "john" for s in result.suggestions)


def test_minimal_applies_fewer_corrections_than_aggressive(pipeline):
    text = "i think johns report on tally is a issue for the people team so please check it"
    minimal, _ = pipeline.correct(text, "minimal")
    aggressive, _ = pipeline.correct(text, "aggressive")
    assert_well_formed(minimal)
    assert_well_formed(aggressive)
    assert 0 < len(minimal.corrections) < len(aggressive.corrections)
    assert all(r.confidence >= threshold(0.25) for r in minimal.corrections)


# --- protected text and bad input --------------------------------------------------------------


def test_protected_tokens_are_never_altered(pipeline):
    protected = ["https://example.com/teh-docs", "john.smith@company.com", "INV-20931", "`teh code`",
                 "./src/teh_file.py", "@jsmith", "NASA", "3.14", "#teh"]
    text = "pls chek " + " and ".join(protected) + " teh"
    result, _ = pipeline.correct(text, "aggressive")
    for piece in protected:
        assert piece in result.corrected_input
    spans = [(t.start, t.end) for t in tokenize(text).tokens if t.protected]
    assert [text[start:end] for start, end in spans] == protected
    assert {"chek", "teh"} <= {r.original for r in result.corrections}  # the typos around them are fixed
    for record in result.corrections:
        assert not any(s < record.span[1] and record.span[0] < e for s, e in spans), record


@pytest.mark.parametrize("text", ["", "   ", "\n\t  \n"])
def test_empty_input_is_returned_unchanged(pipeline, text):
    result, markers = pipeline.correct(text)
    assert result.corrected_input == text and result.corrections == [] and markers == []


def test_a_100k_character_paste_is_corrected_in_its_first_part_and_kept_whole(pipeline):
    from chatapp.input_limits import READ_CHARS

    text = ("can u hlep me find the emial from john yesterdya, the the budget is a issue. " * 1400)[:100_000]
    result, _ = pipeline.correct(text, "standard")
    assert result.corrected_input.startswith("Can you help me find the email from John yesterday, the budget")
    assert result.corrections and all(r.span[1] <= READ_CHARS for r in result.corrections)
    assert result.corrected_input.endswith(text[-5_000:])  # the rest arrives as it was typed
    assert_well_formed(result)


@pytest.mark.parametrize(
    "text",
    [
        "can u help me 😀 find the emial 👍🏽 from john",
        "שלום can you find the file מחר please",
        "the cafe\u0301 cafe\u0301 is a e\u0301tude",
        "ask\x00john\x1b[31m about the the\x7f budget\u200b\u200d",
        "i\u2028need\u2029help \ufeff with atlas",
        "𝔥𝔢𝔩𝔭 me ﷽ find ÅNGSTRÖM ß straße",
    ],
)
def test_any_unicode_keeps_exact_spans(pipeline, text):
    for level in ("minimal", "standard", "aggressive"):
        result, markers = pipeline.correct(text, level)
        assert_well_formed(result)
        for marker in markers:
            start, end = marker["span"]
            assert text[start:end] == marker["original"]


# --- the live path and the vocabulary ------------------------------------------------------------------


def test_live_path_needs_no_parse(registry):
    # The live path runs on every keystroke, so it must never load spaCy; its speed is measured
    # side by side in tests/bench/bench_preprocess_latency.py.
    pipeline = CorrectionPipeline(registry)
    text = " ".join(["can u hlep me find the emial from john yesterdya about atlas"] * 3)
    result, markers = pipeline.correct(text, "standard", LIVE_TIERS)
    assert pipeline._nlp is None  # spaCy never loaded
    assert markers == [] and result.corrected_input.startswith("Can you help me find the email from John")


def test_new_names_are_known_after_refresh(tmp_path):
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    pipeline = CorrectionPipeline(engine.kb.registry)
    text = "did zephyrine quillfeather send it"
    assert corrected(pipeline, text, tiers=("syntactic",)) == "Did zephyrine quillfeather send it?"
    entities = tmp_path / "entities.jsonl"
    entities.write_text('{"id": "person:zq", "type": "person", "name": "Zephyrine Quillfeather", '
                        '"aliases": ["Zephyrine"]}\n', encoding="utf-8")
    engine.ingest(entities)
    pipeline.refresh_vocabulary()
    assert corrected(pipeline, text, tiers=("syntactic",)) == "Did Zephyrine Quillfeather send it?"
    engine.close()


def test_names_rated_on_first_need_get_their_capitals_and_fuzzy_matches(tmp_path):
    """Known names are rated as the diff meets them, the rest after (rate_all): a name that is no plain
    word gets its capitals either way, and a misspelled full name is still matched."""
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    entities = tmp_path / "entities.jsonl"
    entities.write_text('{"id": "person:ab", "type": "person", "name": "Anaïs Brekkestad", "aliases": ["Anaïs"]}\n'
                        '{"id": "project:lp", "type": "project", "name": "Lantern Pier"}\n', encoding="utf-8")
    engine.ingest(entities)
    pipeline = CorrectionPipeline(engine.kb.registry)
    text = "did anaïs send the lantern pier notes"
    live = corrected(pipeline, text, tiers=LIVE_TIERS)
    pipeline.names.rate_all()
    assert live == corrected(pipeline, text, tiers=LIVE_TIERS) == "Did Anaïs send the Lantern Pier notes?"
    assert corrected(pipeline, "did anaïs brekkestd send it") == "Did Anaïs Brekkestad send it?"
    engine.close()


def test_unknown_tier_is_refused(pipeline):
    with pytest.raises(ValueError, match="unknown correction tier 'spelling'"):
        pipeline.correct("hello", tiers=("spelling",))


def test_rules_still_work_with_a_blank_spacy_pipeline(registry):
    import spacy

    pipeline = CorrectionPipeline(registry, nlp=spacy.blank("en"))
    text = "can u help me find johns email from yesterdya"
    assert corrected(pipeline, text) == "Can you help me find John's email from yesterday?"


def test_stage_two_reuses_the_parse_of_the_corrected_text(pipeline):
    result, _ = pipeline.correct("did sarah send the atlas report", "standard")
    parse = pipeline.parse(result.corrected_input)
    assert parse is pipeline.parse(result.corrected_input)
    assert parse.text == result.corrected_input


# --- chat forms, case codes, word types, follow-ups --------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see u b4 the meeting", "See you before the meeting"),
        ("gr8, see u 2day", "Great, see you today"),
        ("thx u so much", "Thank you so much"),
        ("thx for the help", "Thanks for the help"),
        ("what is the q4 budget", "What is the Q4 budget?"),
        ("the fy25 plan", "The FY25 plan"),
        # Capital letter-digit codes are ids, lower-case codes that are no chat form too.
        ("put it in cell B4 on A4 paper", "Put it in cell B4 on A4 paper"),
        ("the v2 release of x86 builds", "The v2 release of x86 builds"),
    ],
)
def test_chat_forms_with_digits_and_case_codes(pipeline, text, expected):
    result = pipeline.correct(text, "standard")[0]
    assert result.corrected_input == expected
    assert_well_formed(result)


def test_letter_digit_chat_forms_are_recorded_as_abbreviations(pipeline):
    result = pipeline.correct("call me b4 noon", "standard")[0]
    record = find(result.corrections, "b4", "before")
    assert (record.span, record.correction_type, record.tier) == ((8, 10), "Abbreviation", "lexical")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what is the affect of the new policy", "What is the effect of the new policy?"),
        ("i could loose the file", "I could lose the file"),
        ("i need some advise on the budget", "I need some advice on the budget"),
        ("we dont want to loss the client", "We don't want to lose the client"),
        # A bare "to" is often a preposition; a loose thread is an adjective.
        ("listen to advice", "Listen to advice"),
        ("there is a loose thread", "There is a loose thread"),
    ],
)
def test_words_of_the_wrong_type_for_their_slot(pipeline, text, expected):
    result = pipeline.correct(text, "standard")[0]
    assert result.corrected_input == expected
    changed = {r.original for r in result.corrections if r.correction_type == "TypeMismatch"}
    assert bool(changed) == (text.split()[-1] not in ("advice", "thread"))


def test_a_follow_up_is_completed_from_the_previous_question(pipeline):
    previous = "What is John's email address?"
    result = pipeline.correct("and sarah?", "standard", previous_question=previous)[0]
    assert result.corrected_input == "And Sarah's email address?"
    record = find(result.corrections, "sarah", "Sarah's email address")
    assert (record.correction_type, record.tier, record.span) == ("PragmaticAdjustment", "semantic", (4, 9))
    # Correcting the completed text again changes nothing more.
    again = pipeline.correct(result.corrected_input, "standard", previous_question=previous)[0]
    assert again.corrected_input == result.corrected_input


@pytest.mark.parametrize(
    ("previous", "text"),
    [
        (None, "and sarah?"),
        ("hello there", "and sarah?"),
        ("What is John's email?", "and sarah said what?"),
        ("What is John's email?", "and the budget?"),
    ],
)
def test_other_short_inputs_are_not_completed(pipeline, previous, text):
    result = pipeline.correct(text, "standard", previous_question=previous)[0]
    assert not [r for r in result.corrections + result.suggestions if r.correction_type == "PragmaticAdjustment"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "Doe" is a known surname, but "does" is a verb, not "Doe's".
        ("when does helios launch", "When does Helios launch?"),
        ("where does john go", "Where does John go?"),
        # "John Doe" is known, but "do" here is the verb.
        ("john do you think that works", "John do you think that works"),
        ("whats toms phone", "What's Tom's phone?"),
    ],
)
def test_common_words_are_not_read_as_names(pipeline, text, expected):
    assert corrected(pipeline, text) == expected


def test_a_slip_between_a_noun_and_its_plural_is_still_applied(pipeline):
    # "truck" and "trucks" share what the context gives the typed word: together they are sure enough.
    result = pipeline.correct("whats the reefer trcuk lease", "standard", ("lexical", "syntactic", "semantic"))[0]
    assert "reefer truck lease" in result.corrected_input
    assert any(text == "trucks" for text, _ in find(result.corrections, "trcuk", "truck").alternatives)
