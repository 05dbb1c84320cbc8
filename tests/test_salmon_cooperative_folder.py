"""A salmon-farming cooperative's office folder on the west coast of Norway: a staff list written
"**Name** · role · email · mobile" with middle dots between the fields, mails signed with a nickname,
a licence application whose deadline a later reply moves. Real ChatEngine, SQLite, Chroma and spaCy;
names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from chatapp.knowledge.parsers.dispatch import parse_file
from tests.conftest import checked, engine_learnt_from, only_entity

STAFF = """# Ytrøy Havbruk SA — Staff

Last updated: 4 November 2026.

Format: **Name** · role · email · mobile

## Office

**Torunn Skagseth** · Managing Director · torunn@ytroy.no · +47 917 20 114
**Eldrid Fossheim** · Finance Manager · eldrid.fossheim@ytroy.no · +47 934 61 208

## Sea sites

**Ottar Breivik** · Skipper, workboat Svanhild · ottar@ytroy.no · +47 915 33 870
**Eldrid Kvernes** • Fish Health Coordinator • eldrid.kvernes@ytroy.no • +47 958 10 442
"""

# Norwegian (like French, Swedish, Czech…) groups a figure's thousands with spaces.
APPLICATION = """---
title: Svartneset — application for a new site
date: 2026-10-14
---

# Svartneset site application

Lead: Torunn Skagseth
We apply for a maximum allowed biomass (MTB) of 3 600 tonnes in 8 pens.
Feed for the first full year is estimated at 14 800 tonnes.
For comparison, Grønnevika was granted an MTB of 2 700 tonnes in 2019.
"""

# A register of sites whose keys carry their units, as an export from a farming system writes them.
SITES = """{
  "register": "Ytrøy Havbruk SA - sea sites",
  "updated": "2026-11-30",
  "sites": [
    {"site": "Kvitfjellet", "site_number": "41207", "mtb_tonnes": 3900, "standing_biomass_tonnes": 3280,
     "site_manager": "Ottar Breivik"},
    {"site": "Solbakkvika", "site_number": "41388", "mtb_tonnes": 3120, "standing_biomass_tonnes": 2410,
     "site_manager": "Eldrid Kvernes"},
    {"site": "Svartneset", "site_number": "41590 (applied for)"},
    {"site": "Rossholmen", "site_number": "41466", "status": "fallow until March 2027"},
    {"site": "Grønnevika", "site_number": "40913", "status": "sold to a neighbour in 2024"}
  ]
}
"""

NEWS = """# News from the office — 27 November 2026

## Christmas party
The Christmas party is on Saturday 12 December 2026 at the Ytrøy Fjordhotell, from 19:00. Eldrid Fossheim is
organising it this year; sign up with her by 4 December.
"""

VESSELS = """vessel,type,call_sign,length_m,skipper
Svanhild,workboat,LK7710,15.0,Ottar Breivik
Kjeøy,service catamaran,LF3391,14.9,Torunn Skagseth
"""

# Meeting notes, with no directory line for the chair: "(chair)" is what he did at the meeting, not his job.
MINUTES = """# Sea-site meeting — 19 November 2026

Attendees: Haldor Vikebø (chair), Ottar Breivik, Eldrid Kvernes (notes)

- Net inspection at Kvitfjellet moved to week 49.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "ytroy", {"staff.md": STAFF, "svartneset.md": APPLICATION,
                                                                    "sites.json": SITES, "news.md": NEWS,
                                                                    "vessels.csv": VESSELS, "minutes.md": MINUTES})
    yield engine
    engine.close()


def test_a_staff_list_with_middle_dots_between_the_fields_teaches_each_role(engine):
    assert only_entity(engine, "Ottar Breivik").attributes["role"] == "Skipper"
    assert only_entity(engine, "Eldrid Fossheim").attributes["role"] == "Finance Manager"
    assert only_entity(engine, "Eldrid Kvernes").attributes["role"] == "Fish Health Coordinator"
    assert only_entity(engine, "Torunn Skagseth").attributes["email"] == "torunn@ytroy.no"


def test_a_role_given_to_the_wrong_person_on_such_a_list_is_corrected(engine):
    result = checked(engine, "What does Eldrid Fossheim do?", "Eldrid Fossheim is the Fish Health Coordinator.")
    assert "Finance Manager" in result.delivered
    assert any("Fish Health Coordinator" in f.content for f in result.hallucination_flags)


def test_a_figure_with_its_thousands_grouped_by_spaces_is_one_figure(engine):
    # "4 200 tonnes" is four thousand two hundred tonnes, not "4" and "200 tonnes": corrected whole.
    result = checked(engine, "What MTB does the Svartneset application ask for?",
                     "The Svartneset application asks for an MTB of 4 200 tonnes.")
    assert "3 600 tonnes" in result.delivered and "4 200" not in result.delivered
    assert any(f.content == "4 200 tonnes" for f in result.hallucination_flags)
    right = checked(engine, "How much feed will Svartneset need?",
                    "Svartneset will need an estimated 14 800 tonnes of feed in its first full year.")
    assert not right.hallucination_flags


def test_a_register_key_ending_with_its_unit_gives_the_figure_that_unit(engine):
    # "mtb_tonnes": 3900 is 3900 tonnes: a wrong figure said of Kvitfjellet is corrected from its own record,
    # not from the application's sentence about Svartneset ("an MTB of 3 600 tonnes"), however alike its words.
    wrong = checked(engine, "What is the MTB at Kvitfjellet?", "Kvitfjellet has an MTB of 4 200 tonnes.")
    assert "3900 tonnes" in wrong.delivered and "3 600" not in wrong.delivered
    right = checked(engine, "What is the MTB at Kvitfjellet?", "Kvitfjellet has an MTB of 3900 tonnes.")
    assert not right.hallucination_flags


def test_a_figure_is_not_corrected_from_a_sentence_about_another_site(engine):
    # Nothing gives Rossholmen an MTB; "Grønnevika was granted an MTB of 2 700 tonnes" is another site's, so the
    # answer's figure is left as said, never rewritten to the other site's however alike the words around it.
    result = checked(engine, "What is the MTB at Rossholmen?", "Rossholmen has an MTB of 5 000 tonnes.")
    assert "2 700" not in result.delivered and "5 000 tonnes" in result.delivered


def test_who_does_a_thing_a_source_calls_it_is_checked_against_the_sentence_before(engine):
    # "Eldrid Fossheim is organising it": "it" is the Christmas party of the sentence before. The other Eldrid
    # organising it is the wrong person, flagged with the right one; the right one is accepted.
    wrong = checked(engine, "Who is organising the Christmas party?",
                    "Eldrid Kvernes is organising the Christmas party this year.")
    assert [(f.content, f.suggestion) for f in wrong.hallucination_flags] == [("Eldrid Kvernes", "Eldrid Fossheim")]
    right = checked(engine, "Who is organising the Christmas party?",
                    "Eldrid Fossheim is organising the Christmas party this year.")
    assert not right.hallucination_flags


def test_a_possessive_typed_without_its_apostrophe_last_in_the_question_is_the_persons(engine):
    # "which boat is ottars": the boat is Ottar's; with no noun after it, the possessive still gets its apostrophe.
    pre = engine.turns.preprocess("wich boat is ottars")
    assert pre.corrected_input == "Which boat is Ottar's?"
    assert "Ottar Breivik" in [e.canonical_name for e in pre.resolved_entities]
    assert engine.turns.preprocess("where is the boat ottar takes").corrected_input == "Where is the boat Ottar takes?"


def test_a_list_row_naming_its_person_in_full_is_checked_like_a_link(engine):
    # The vessel list's "skipper" column names people the staff list knows: Kjeøy's row ("skipper: Torunn
    # Skagseth") does not vouch for Torunn skippering Svanhild, whose row names Ottar Breivik.
    wrong = checked(engine, "Who skippers Svanhild?", "Svanhild's skipper is Torunn Skagseth.")
    assert [(f.content, f.suggestion) for f in wrong.hallucination_flags] == [("Torunn Skagseth", "Ottar Breivik")]
    assert not checked(engine, "Who skippers Svanhild?", "Svanhild's skipper is Ottar Breivik.").hallucination_flags
    assert not checked(engine, "Who skippers Kjeøy?", "The skipper of Kjeøy is Torunn Skagseth.").hallucination_flags
    # The boat may be "it" by then: "Its skipper" is Svanhild's.
    its = checked(engine, "Who skippers Svanhild?", "Svanhild is a 15.0 m workboat. Its skipper is Torunn Skagseth.")
    assert [(f.content, f.suggestion) for f in its.hallucination_flags] == [("Torunn Skagseth", "Ottar Breivik")]


def test_who_chaired_a_meeting_is_not_their_job(engine):
    assert "role" not in only_entity(engine, "Haldor Vikebø").attributes
    assert only_entity(engine, "Eldrid Kvernes").attributes["role"] == "Fish Health Coordinator"


def test_a_json_register_is_dated_by_its_own_updated_field(tmp_path):
    # Its "updated" field is the day it was written, as a page's "Updated:" line is; no recency guess from the
    # file's copy time, and a record's own date does not date the file.
    (tmp_path / "sites.json").write_text(SITES, encoding="utf-8")
    assert parse_file(tmp_path / "sites.json").date.date().isoformat() == "2026-11-30"
    (tmp_path / "log.json").write_text('[{"date": "2026-10-01", "note": "net change"}]', encoding="utf-8")
    assert parse_file(tmp_path / "log.json").date is None
