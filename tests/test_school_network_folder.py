"""A network of private schools in Brazil: a refurbishment page whose budget a later mail from the director
replaces ("approved the revised budget for the library refurbishment: R$ 96.400,00"), with amounts written
the Brazilian way, and a directory whose roles are given role first. Real ChatEngine, SQLite, Chroma and
spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

PAGE = """---
title: Library refurbishment — Unidade Serra Azulada
date: 2026-10-12
owner: Cleide Wiśniewska
---

# Library refurbishment (Serra Azulada)

Lead: Cleide Wiśniewska (Librarian)
Budget: R$ 88.900,00 (capital fund 2026)
"""

REVISED = """From: Judite Marcondes Orsi <jorsi@redeserrazul.edu.br>
To: Cleide Wiśniewska <cwisniewska@redeserrazul.edu.br>
Subject: Re: library shelving - revised budget
Date: Wed, 25 Nov 2026 08:31:09 -0300

Cleide,

The board met last night and approved the revised budget for the library refurbishment: R$ 96.400,00.
The extra comes from the maintenance reserve.

Judite
"""

DIRECTORY = """# Rede Serra Azul — Staff directory

Updated: 5 October 2026

## Unidade Serra Azulada

Head of School: Judite Marcondes Orsi — jorsi@redeserrazul.edu.br — ext. 2101
Deputy Head: Anselmo Trevisani Kuhn — akuhn@redeserrazul.edu.br — ext. 2102
Librarian: Cleide Wiśniewska — cwisniewska@redeserrazul.edu.br — ext. 2110

## Unidade Monte Claro

Head of School: Iracema Boschetti Lago — ilago@redeserrazul.edu.br — ramal 3101
"""

TRANSPORT = """---
title: School buses 2027
date: 2026-11-20
owner: Anselmo Trevisani Kuhn
---

# School buses 2027

Contractor: Fretamentos Quero-Quero (contract manager Osmar Zielinski)
Routes: 6
"""

BUSES_MAIL = """From: Reinaldo Tschá <rtscha@redeserrazul.edu.br>
To: Osmar Zielinski <osmar@queroquero.com.br>
Subject: 2027 renewal - our answer
Date: Tue, 10 Nov 2026 09:05:17 -0300

Bom dia Osmar,

We can accept the new price for 2027 if every bus has a monitor.

Um abraço,
Naldo

Reinaldo Tschá
Transport Coordinator · Rede Serra Azul
"""

ROUTES = """route,unit,shift,driver,monitor,first_pickup,seats
L-1,Serra Azulada,morning,Ivanildo Sczepanski,Marlene Tortato,06:35,42
L-2,Serra Azulada,morning,Deoclécio Brunetto,Rosicler Haas,06:40,42
L-3,Monte Claro,afternoon,Ivanildo Sczepanski,Marlene Tortato,17:35,42
"""

ASSEMBLY = """From: Iracema Boschetti Lago <ilago@redeserrazul.edu.br>
To: Judite Marcondes Orsi <jorsi@redeserrazul.edu.br>
Subject: Parents' assembly
Date: Tue, 1 Dec 2026 21:47:55 -0300

Judite,

The parents' general assembly will be on Thursday 10 December 2026 at 19:30 in the auditorium of Unidade Monte Claro.

Iracema
"""

HEADS_MEETING = """# Heads meeting — 18 November 2026

Present: Judite Orsi, Iracema Lago
Apologies: Naldo Tschá (at the bus depot)

- Buses: Naldo to send the contract to Finance.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "serra-azulada", {
        "project-library-refurbishment.md": PAGE, "email-2026-11-25-re-library-budget.eml": REVISED,
        "staff-directory.md": DIRECTORY, "project-school-buses-2027.md": TRANSPORT,
        "email-2026-11-10-buses.eml": BUSES_MAIL, "heads-meeting-2026-11-18.md": HEADS_MEETING,
        "bus-routes.csv": ROUTES, "email-2026-12-01-assembly.eml": ASSEMBLY})
    yield engine
    engine.close()


def test_a_revised_budget_given_after_a_colon_in_a_mail_replaces_the_pages_budget(engine):
    # "approved the revised budget for the library refurbishment: R$ 96.400,00" says the budget that now holds.
    entity = only_entity(engine, "Library refurbishment")
    assert entity.attributes.get("budget") == "R$ 96.400,00"
    answer = offline_answer(engine, "What is the budget for the library refurbishment?", "library-budget")
    assert "R$ 96.400,00" in answer
    response = checked(engine, "What is the budget for the library refurbishment?",
                       "The library refurbishment at Serra Azulada has a budget of R$ 88.900,00.")
    assert "R$ 96.400,00 [corrected]" in response.delivered


def test_a_unit_heading_over_job_first_entries_is_no_persons_card(engine):
    # "## Unidade Serra Azulada" reads like a name, but the lines under it are each someone's own entry.
    assert only_entity(engine, "Judite Marcondes Orsi").attributes.get("email") == "jorsi@redeserrazul.edu.br"
    assert only_entity(engine, "Anselmo Trevisani Kuhn").attributes.get("email") == "akuhn@redeserrazul.edu.br"
    assert only_entity(engine, "Cleide Wiśniewska").attributes.get("role") == "Librarian"
    assert all(e.type != "person" for e in engine.kb.registry.find_by_alias("Unidade Serra Azulada"))


def test_the_head_of_school_is_not_corrected_to_the_deputy_head(engine):
    # "Deputy Head: Anselmo Trevisani Kuhn" names the deputy, not the head of school an answer speaks of.
    right = checked(engine, "Who is the head of that school?", "The head of school there is Judite Marcondes Orsi.")
    assert not right.hallucination_flags
    wrong = checked(engine, "Who is the head of that school?", "The head of school there is Cleide Wiśniewska.")
    assert "Anselmo" not in wrong.delivered


def test_one_of_several_heads_of_school_is_not_corrected_to_the_head_a_passage_names(engine):
    # The passage checked against names only Monte Claro's head; the directory makes Judite a head of school too.
    passage = "## Unidade Monte Claro\n\nHead of School: Iracema Boschetti Lago — ilago@redeserrazul.edu.br"
    response = engine.turns.postprocess("The head of school there is Judite Marcondes Orsi.",
                                        question="Who is the head of that school?", evidence=[passage])
    assert not response.hallucination_flags


def test_a_contract_manager_named_in_brackets_after_the_firm_is_that_person(engine):
    # "Fretamentos Quero-Quero (contract manager Osmar Zielinski)": the role is Osmar's, not the firm's.
    right = checked(engine, "Who manages the bus contract?",
                    "Fretamentos Quero-Quero runs 6 routes. Their contract manager is Osmar Zielinski.")
    assert not right.hallucination_flags
    wrong = checked(engine, "Who manages the bus contract?",
                    "Fretamentos Quero-Quero runs 6 routes. Their contract manager is Anselmo Trevisani Kuhn.")
    assert "Osmar Zielinski [corrected]" in wrong.delivered


def test_a_name_signed_under_a_portuguese_closing_is_the_senders_nickname(engine):
    # "Um abraço,\nNaldo" under a mail from Reinaldo Tschá: the notes' "Naldo Tschá" is the same person.
    naldo = only_entity(engine, "Naldo")
    assert naldo.name == "Reinaldo Tschá"
    assert only_entity(engine, "Naldo Tschá").id == naldo.id
    response = checked(engine, "How do I email Naldo about the buses?",
                       "Naldo is Reinaldo Tschá, the Transport Coordinator. His email is naldo.tscha@redeserrazul.edu.br.")
    assert "rtscha@redeserrazul.edu.br [corrected]" in response.delivered


def test_the_driver_a_table_row_gives_a_route_is_held_against_an_answer(engine):
    # "driver" is no column chatapp knows; the cell still names a person the route's row links to.
    wrong = checked(engine, "Who drives route L-2?", "The driver on route L-2 is Ivanildo Sczepanski.")
    assert "Deoclécio Brunetto [corrected]" in wrong.delivered
    right = checked(engine, "Who drives route L-2?", "The driver on route L-2 is Deoclécio Brunetto.")
    assert not right.hallucination_flags
    assert "Deoclécio Brunetto" in offline_answer(engine, "Who drives route L-2?", "l2-driver")


def test_a_school_named_in_a_table_is_not_put_in_place_of_the_person_who_chairs_a_meeting_there(engine):
    # The routes table's "unit" column reads like names; "the auditorium of Unidade Monte Claro" names the
    # school, never a person who might chair the assembly instead of the one the answer names.
    response = checked(engine, "Who chairs the parents' assembly?",
                       "Iracema Boschetti Lago chairs the parents' general assembly on 10 December 2026.")
    assert "Monte Claro" not in response.delivered
    assert "Iracema Boschetti Lago" not in [f.content for f in response.hallucination_flags]


def test_an_extension_written_ramal_is_the_persons_extension(engine):
    # Brazilian directories write the extension "ramal 3101", as Québec writes "poste 204".
    assert only_entity(engine, "Iracema Boschetti Lago").attributes.get("phone") == "ramal 3101"
    right = checked(engine, "What is Iracema's extension?", "Iracema Boschetti Lago's extension is ramal 3101.")
    assert not right.hallucination_flags
    wrong = checked(engine, "What is Iracema's extension?", "Iracema Boschetti Lago's extension is ramal 3110.")
    assert "ramal 3101 [corrected]" in wrong.delivered


def test_an_invented_person_whose_given_name_the_recogniser_left_out_is_flagged_by_the_whole_name(engine):
    # The recogniser reads "Ricardo Zanettin Brocardo" after a sentence ending in a date as "Zanettin Brocardo".
    response = checked(engine, "Who chairs the parents' assembly?",
                       "Iracema Boschetti Lago chairs the parents' general assembly on 10 December 2026. "
                       "Ricardo Zanettin Brocardo will take the minutes.")
    assert "Ricardo Zanettin Brocardo" in [f.content for f in response.hallucination_flags]
    assert "Ricardo Zanettin Brocardo [unverified]" in response.delivered
