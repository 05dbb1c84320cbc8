"""A Dutch design studio's folder, written in English with Dutch mixed in: a team list whose columns are
"naam, functie, email, mobiel" and whose names carry Dutch degrees ("ir.", "drs.") and the particle "'t"
("van 't Wout"), a project register in JSON whose rows have a "projectleider", a municipality's mail
sent as "Surname, Given", and fees written "€ 96.300,-". Real ChatEngine, SQLite, Chroma and spaCy;
names that appear nowhere in the code."""

from __future__ import annotations

import json

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

TEAM = """naam,functie,team,email,mobiel
ir. Roos ter Meulen,Partner,Directie,roos@atelierdijkhuis.nl,06-71239904
ing. Maarten van 't Wout,Technisch projectleider,Bouw,maarten@atelierdijkhuis.nl,06-33820156
drs. Hanna Lubbers,Controller,Bureau,hanna@atelierdijkhuis.nl,06-90412237
Jeroen Bos,Ontwerper,Wonen,jeroen@atelierdijkhuis.nl,06-48120673
Fleur Kok,BIM modeller,Bouw,fleur@atelierdijkhuis.nl,06-27781450
"""

REGISTER = json.dumps({
    "register": "Projecten 2026",
    "projecten": [
        {"projectnummer": "2026-011", "naam": "Kanaalschool Zuilen", "opdrachtgever": "Gemeente Utrecht",
         "fase": "VO", "projectleider": "Roos ter Meulen", "honorarium": 96300},
        {"projectnummer": "2026-015", "naam": "Ravellaan Hofjes", "opdrachtgever": "Woonstichting Lekstroom",
         "fase": "SO", "projectleider": "Jeroen Bos", "honorarium": 51200},
    ],
}, indent=2)

PROJECT_PAGE = """---
title: Kanaalschool Zuilen
projectleider: ir. Roos ter Meulen
honorarium: € 96.300,- excl. btw
---

# Kanaalschool Zuilen

New primary school by the canal. Fee € 96.300,- excl. btw for SO, VO and DO.
"""

# Outlook at a municipality writes the sender "Surname, Given".
MUNICIPALITY = """From: "Vos, Hanneke" <h.vos@utrecht.example.nl>
To: Roos ter Meulen <roos@atelierdijkhuis.nl>
Date: Tue, 17 Nov 2026 10:02:00 +0100
Subject: RE: Kanaalschool Zuilen - extra lokaal

Beste Roos,

We accept your offer for the extra classroom. The fee for Kanaalschool Zuilen is revised to
€ 104.900,- excl. btw (was € 96.300,-).

Met vriendelijke groet,
Hanneke Vos
Projectmanager, Gemeente Utrecht
"""

RAVELLAAN_PAGE = """---
title: Ravellaan Hofjes
lead: Jeroen Bos
phase: SO
---

# Ravellaan Hofjes

Twelve courtyard homes for Woonstichting Lekstroom.

Client contact: Ilse Brandsma, projectontwikkelaar at Woonstichting Lekstroom.
"""

# The writer takes the project over; the sentence does not say from whom.
TAKEOVER = """From: Roos ter Meulen <roos@atelierdijkhuis.nl>
To: Studio <studio@atelierdijkhuis.nl>
Date: Wed, 25 Nov 2026 17:30:00 +0100
Subject: Ravellaan - projectleiding

Hi all,

Jeroen starts his sabbatical early, so I am taking over as projectleider of Ravellaan Hofjes from
30-11-2026. Questions to me from now on.

Roos
"""

# An attendee list writes each guest "Name (Firm, job)", the job in lower case after the firm.
SITE_MEETING = """# Bouwteam Kanaalschool Zuilen, 1 december 2026

Present:
- Roos ter Meulen (Atelier Dijkhuis, projectleider)
- Wim Dekker (Dekker & Zonen, aannemer)
- Anouk Smits (Installatiebureau Smits, installateur), anouk@smits.example.nl

1. Foundations: piles approved.
"""


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "dijkhuis", {
        "team.csv": TEAM, "projecten-2026.json": REGISTER, "kanaalschool-zuilen.md": PROJECT_PAGE,
        "2026-11-17-re-extra-lokaal.eml": MUNICIPALITY, "2026-11-25-ravellaan.eml": TAKEOVER,
        "ravellaan-hofjes.md": RAVELLAAN_PAGE, "bouwteam-2026-12-01.md": SITE_MEETING})
    yield engine
    engine.close()


def test_a_functie_column_is_each_persons_role(studio):
    result = checked(studio, "What does Hanna Lubbers do?", "Hanna Lubbers is the Partner.")
    assert "Controller [corrected]" in result.delivered


def test_a_name_with_the_particle_t_and_a_degree_is_one_person(studio):
    person = only_entity(studio, "Maarten van 't Wout")
    assert person.type == "person"
    result = checked(studio, "What is Maarten van 't Wout's role?", "Maarten van 't Wout is the Partner.")
    assert "Technisch projectleider [corrected]" in result.delivered


def test_a_mobiel_column_answers_for_a_mobile_number(studio):
    assert "06-90412237" in offline_answer(studio, "What is Hanna Lubbers's mobile number?", "mobiel")


def test_a_register_with_a_projectleider_lists_projects_not_people(studio):
    assert only_entity(studio, "Ravellaan Hofjes").type == "project"
    assert "Roos ter Meulen" in offline_answer(studio, "Who leads Kanaalschool Zuilen?", "register")


def test_a_dutch_compound_key_is_asked_for_in_english(studio):
    assert "2026-015" in offline_answer(studio, "What is the project number of Ravellaan Hofjes?", "number")


def test_the_writer_taking_over_as_lead_replaces_the_registers_lead(studio):
    assert "Roos ter Meulen" in offline_answer(studio, "Who leads Ravellaan Hofjes now?", "takeover")
    result = checked(studio, "Who is the projectleider of Ravellaan Hofjes?",
                     "Jeroen Bos is the projectleider of Ravellaan Hofjes.")
    assert "Roos ter Meulen [corrected]" in result.delivered


def test_a_public_body_named_by_what_it_is_is_no_person(studio):
    assert not [e for e in studio.kb.registry.find_by_alias("Gemeente Utrecht") if e.type == "person"]
    assert not [e for e in studio.kb.registry.find_by_alias("Woonstichting Lekstroom") if e.type == "person"]


def test_a_sender_written_surname_first_is_turned_round(studio):
    person = only_entity(studio, "Hanneke Vos")
    result = checked(studio, "What is Hanneke Vos's email?", "Her email is hanneke.vos@utrecht.example.nl.")
    assert person.type == "person" and "h.vos@utrecht.example.nl [corrected]" in result.delivered


def test_an_amount_closed_with_a_dash_is_corrected_whole(studio):
    result = checked(studio, "What is the fee for Kanaalschool Zuilen?",
                     "The fee for Kanaalschool Zuilen is € 96.300,- excl. btw.")
    assert "€ 104.900,- [corrected] excl. btw" in result.delivered


def test_a_role_beside_a_name_on_another_projects_page_holds_only_there(studio):
    other = checked(studio, "Who is the client contact for Kanaalschool Zuilen?",
                    "The client contact is Hanneke Vos, projectmanager at Gemeente Utrecht.")
    assert "Ilse Brandsma" not in other.delivered and not other.hallucination_flags
    same = checked(studio, "Who is the client contact for Ravellaan Hofjes?", "The client contact is Hanneke Vos.")
    assert "Ilse Brandsma [corrected]" in same.delivered


@pytest.mark.parametrize("name, job", [("Wim Dekker", "aannemer"), ("Anouk Smits", "installateur")])
def test_a_job_after_the_firm_in_brackets_is_the_role(studio, name, job):
    assert only_entity(studio, name).attributes.get("role") == job


def test_a_word_the_documents_write_only_in_capitals_is_capitalised(studio):
    assert studio.turns.preprocess("wher is fleurs latest bim model").corrected_input == (
        "Where is Fleur's latest BIM model?")
    # "SO" is a phase in the register, "so" an everyday word: left alone.
    assert "SO" not in studio.turns.preprocess("and so who leads ravellaan hofjes").corrected_input.split()
