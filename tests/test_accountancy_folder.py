"""A small accountancy practice's folder in Scotland: a team page in HTML whose partners carry their
institute's letters ("Fionnuala Crerar CA"), a client engagement page with front matter that names the
client's director only in prose ("run by **Gregor Harlow** (director)"), a mail revising the fee with the
old one in brackets on a wrapped line, partners' minutes that open items with a client's short name,
a client list in CSV and filing deadlines in JSON. Real ChatEngine, SQLite, Chroma and spaCy; names that
appear nowhere in the code."""

from __future__ import annotations

import json

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

TEAM_PAGE = """<!DOCTYPE html><html><head><title>Our team | Ballantyne &amp; Crerar</title></head><body>
<div class="cookie-banner">We use cookies. <a href="#">Accept all</a></div>
<nav><a href="/">Home</a> | <a href="/team">Team</a></nav>
<main><h1>Meet the team</h1>
<table>
<tr><th>Name</th><th>Position</th><th>Email</th><th>Direct line</th></tr>
<tr><td>Fionnuala Crerar CA</td><td>Managing Partner</td><td>f.crerar@ballantynecrerar.co.uk</td><td>01738 442 101</td></tr>
<tr><td>Euan Ballantyne CA</td><td>Partner, Tax</td><td>e.ballantyne@ballantynecrerar.co.uk</td><td>01738 442 102</td></tr>
<tr><td>Morag Lindsay</td><td>Audit Senior</td><td>m.lindsay@ballantynecrerar.co.uk</td><td>01738 442 115</td></tr>
<tr><td>Ruaridh Sneddon BSc (Hons)</td><td>Payroll Bureau Manager</td><td>r.sneddon@ballantynecrerar.co.uk</td><td>01738 442 120</td></tr>
</table></main>
<footer>&copy; 2026 Ballantyne &amp; Crerar Ltd. Registered in Scotland.</footer></body></html>
"""

ENGAGEMENT = """---
client: Harlow Joinery Ltd
client partner: Euan Ballantyne
manager: Morag Lindsay
fee: £4,200 + VAT
---

# Harlow Joinery Ltd — engagement summary

Harlow Joinery is a family company run by **Gregor Harlow** (director) and his daughter **Isla Harlow**
(company secretary). Gregor prefers phone calls; Isla handles the paperwork.
"""

MAIL = """From: Euan Ballantyne <e.ballantyne@ballantynecrerar.co.uk>
To: Isla Harlow <isla@harlowjoinery.scot>
Date: Thu, 19 Nov 2026 16:42:10 +0000
Subject: Re: Harlow Joinery - year end pack

Hi Isla,

Because the stock count and the new van finance need extra work this year, we have revised our fee to £4,650 + VAT
(from £4,200). Morag will start fieldwork on Monday 30 November.

Kind regards,
Euan
"""

MINUTES = """# Partners' meeting — 25 November 2026

1. **Kinnoull Dental** — LLP accounts on track for the 31 December deadline. Fionnuala to review the draft on 14 Dec.
2. **Office move** — the lease ends in March.
"""

CLIENTS = """Client,Type,Partner,Year end,Annual fee (£)
Harlow Joinery Ltd,Ltd company,Euan Ballantyne,31/08,4200
Kinnoull Dental Care LLP,LLP,Fionnuala Crerar,31/03,7800
Tay Bridge Tearoom,Partnership,Euan Ballantyne,30/11,1650
"""

DEADLINES = {"deadlines": [
    {"client": "Tay Bridge Tearoom", "return": "Partnership return SA800", "due": "2027-01-31", "owner": "Ruaridh Sneddon"},
    {"client": "Kinnoull Dental Care LLP", "return": "LLP accounts", "due": "2026-12-31", "owner": "Morag Lindsay"},
]}


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "ballantyne-crerar", {
        "team.html": TEAM_PAGE, "engagement-harlow-joinery.md": ENGAGEMENT, "2026-11-19-harlow-fee.eml": MAIL,
        "partners-meeting-2026-11-25.md": MINUTES, "clients.csv": CLIENTS, "filing-deadlines.json": json.dumps(DEADLINES)})
    yield engine
    engine.close()


def test_letters_after_a_partners_name_leave_her_row_readable(engine):
    crerar = only_entity(engine, "Fionnuala Crerar")
    assert crerar.attributes["email"] == "f.crerar@ballantynecrerar.co.uk"
    assert crerar.attributes["role"] == "Managing Partner"
    assert only_entity(engine, "Ruaridh Sneddon").attributes["email"] == "r.sneddon@ballantynecrerar.co.uk"
    assert "f.crerar@ballantynecrerar.co.uk" in offline_answer(engine, "What is Fionnuala Crerar's email?", "mail")
    # The team page's "Direct line" column is the phone a question for a direct line or a DDI asks for.
    assert "01738 442 120" in offline_answer(engine, "whats ruaridhs direct line", "line").split("\n\n")[1]


def test_a_director_named_only_in_prose_is_a_person_with_that_job(engine):
    assert only_entity(engine, "Gregor Harlow").attributes.get("role") == "director"
    # "his daughter **Isla Harlow**\n(company secretary)": a family tie is no job; the bracket on the next line is.
    assert only_entity(engine, "Isla Harlow").attributes.get("role") == "company secretary"


def test_a_clients_short_name_opening_an_item_in_minutes_is_no_person(engine):
    people = {e.name for e in engine.kb.registry.all_entities() if e.type == "person"}
    assert "Kinnoull Dental" not in people


def test_the_fee_the_mail_revised_is_corrected_though_the_old_one_is_bracketed_on_the_next_line(engine):
    old = checked(engine, "What is the fee for Harlow Joinery?", "The fee for Harlow Joinery is £4,200 + VAT.")
    assert [(f.hallucination_type, f.suggestion) for f in old.hallucination_flags] == [("TemporalError", "£4,650")]
    new = checked(engine, "What is the fee for Harlow Joinery?", "The fee for Harlow Joinery is £4,650 + VAT.")
    assert new.hallucination_flags == []


@pytest.mark.parametrize("question, expected", [
    ("Who manages the Harlow Joinery engagement?", "Morag Lindsay"),  # not the "engagement" key's text
    ("Who owns the Tay Bridge Tearoom return?", "Ruaridh Sneddon"),  # not the "return" key's text
    ("Who is the partner for Kinnoull Dental Care LLP?", "Fionnuala Crerar"),
])
def test_who_asks_for_whoever_holds_the_key_not_the_thing_the_question_names(engine, question, expected):
    answer = offline_answer(engine, question, "who").split("\n\n")[1]
    assert expected in answer, answer


def test_a_role_said_of_a_named_client_is_no_mention_of_the_one_who_holds_that_title(engine):
    def resolved(question):
        return {r.canonical_name for r in engine.turns.preprocess(question).resolved_entities}

    assert resolved("Who is the partner for Kinnoull Dental Care LLP?") == {"Kinnoull Dental Care LLP"}
    assert "Fionnuala Crerar" in resolved("Can you email the managing partner?")


def test_a_month_ending_an_item_is_no_date_with_the_next_items_number(engine):
    from chatapp.postprocess.values import find_values

    assert [f.text for f in find_values("review the draft on 14 Dec.\n2. Office move")] == ["14 Dec", "2"]
    assert [f.text for f in find_values("on December\n14, 2026 we met")] == ["December\n14, 2026"]  # a wrapped date
    right = checked(engine, "When does Fionnuala review the Kinnoull Dental draft?",
                    "Fionnuala Crerar reviews the Kinnoull Dental draft on 14 December.")
    assert right.hallucination_flags == []


def test_a_possessive_typed_bare_on_a_misspelt_name_keeps_its_apostrophe_s(engine):
    assert engine.turns.preprocess("whats euan balantynes phone").corrected_input == "What's Euan Ballantyne's phone?"
    # After "the" it is a family in the plural, no possessive.
    assert "Ballantyne's" not in engine.turns.preprocess("ask the balantynes about it").corrected_input
