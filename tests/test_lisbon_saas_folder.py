"""An engineering manager's folder at a Portuguese–Brazilian SaaS startup: a nested team directory (.json) with
names carrying particles and accents ("Renata de Castro Lobo", "José Augusto da Cunha"), replies quoted under
Gmail's Portuguese attribution ("Em qui., 26 de nov. de 2026 às 08:04, … escreveu:"), signatures stacked down
the page just above the quoted writer's line, amounts in reais written "R$ 420 mil", and a payment schedule
that says "invoiced now and … at go-live". Real ChatEngine, SQLite, Chroma and spaCy; names that appear
nowhere in the code."""

from __future__ import annotations

import json

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

DIRECTORY = json.dumps({
    "company": "Ladrilho Cloud, Lda.",
    "leadership": [
        {"name": "Renata de Castro Lobo", "role": "CEO & Co-founder", "email": "renata@ladrilho.io"},
        {"name": "Helena do Vale Moura", "role": "Head of Finance & People", "email": "helena@ladrilho.io"},
    ],
    "squads": [
        {"name": "Faturação", "lead": "José Augusto da Cunha", "members": [
            {"name": "José Augusto da Cunha", "nickname": "Guto", "role": "Squad Lead, Faturação",
             "email": "guto@ladrilho.io"},
            {"name": "Sofia Barreto", "role": "Backend Engineer", "email": "sofia@ladrilho.io"},
            {"name": "António Pires Lage", "nickname": "Tó", "role": "QA Engineer", "email": "to@ladrilho.io"},
        ]},
        {"name": "Importações", "lead": "Caio Menezes dos Reis", "members": [
            {"name": "Caio Menezes dos Reis", "role": "Staff Engineer, Imports Lead", "email": "caio@ladrilho.io",
             "phone": "+55 31 99720 1184"},
            {"name": "Leonor de Almeida Faria", "nickname": "Nónó", "role": "Product Manager, Imports",
             "email": "leonor@ladrilho.io"},
        ]},
    ],
}, ensure_ascii=False, indent=1)

FUNDING = """From: Helena do Vale Moura <helena@ladrilho.io>
To: Renata de Castro Lobo <renata@ladrilho.io>
Subject: Re: Bridge round
Date: Wed, 18 Nov 2026 19:41:02 +0000

Renata,

The numbers work on my side: the bridge gives us 20 months of runway.

Helena

--
Helena do Vale Moura
Head of Finance & People · Ladrilho Cloud
+351 934 771 052

On Wed, 18 Nov 2026 at 10:15, Renata de Castro Lobo <renata@ladrilho.io> wrote:
> Quick update: the bridge round is €900k, led by Serra Capital.
>
> Renata
"""

GO_LIVE = """From: Caio Menezes dos Reis <caio@ladrilho.io>
To: Leonor de Almeida Faria <leonor@ladrilho.io>
Cc: José Augusto da Cunha <guto@ladrilho.io>
Subject: Re: Jatobá go-live
Date: Thu, 26 Nov 2026 17:48:19 -0300

Nónó, all,

Agreed with the customer: go-live moves to 25 Jan 2027 (was 7 Dec 2026).

Implementation fee: R$ 420 mil, 30% invoiced now and 70% at go-live.

Abs,
Caio

--
Caio Menezes dos Reis
Staff Engineer, Imports Lead · Ladrilho
Belo Horizonte · +55 31 99720 1184

Em qui., 26 de nov. de 2026 às 08:04, Leonor de Almeida Faria <leonor@ladrilho.io> escreveu:
> Caio, the customer's ERP is frozen in December. Can we move go-live?
>
> Nónó
"""


MOVE = """From: Marta Quintas <marta.q@ladrilho.io>
To: Lisboa <lisboa@ladrilho.io>
Subject: FW: new move date
Date: Tue, 1 Dec 2026 12:30:44 +0000

Olá a todos,

Our move to the new office is now on 29/01/2027. Budget unchanged at EUR 52k.

Obrigada!
Marta

Marta Quintas | Office & Operations Manager
Ladrilho Cloud, Lda. | +351 914 880 231

-----Original Message-----
From: Rui Pestana <rui.pestana@hubexemplo.pt>
Sent: Monday, 30 November 2026 17:02
To: Marta Quintas <marta.q@ladrilho.io>
Subject: Handover delayed

Cara Marta,

Unfortunately the acoustic works on the 2nd floor are delayed. We can hand over the space on 25/01/2027 at
the earliest.

Rui Pestana
"""


PROJECT = """---
title: "Projeto Jatobá — LegacyDesk → Ladrilho migration"
owner: Caio Menezes dos Reis
status: in progress
---

# Projeto Jatobá

**Lead:** Caio Menezes dos Reis
**Customer:** Jatobá Logística Ltda.

Move Jatobá's 900 technicians from LegacyDesk to Ladrilho.
"""

KICKOFF = """From: Sofia Barreto <sofia@ladrilho.io>
To: Caio Menezes dos Reis <caio@ladrilho.io>
Subject: Jatobá kick-off
Date: Thu, 22 Oct 2026 14:05:33 -0300

Caro Caio,

Jatobá IT will give us a read-only replica by 02/11/2026. Jatobá finance wants the fee confirmed.

Sofia
"""


LEAVE = """From: Renata de Castro Lobo <renata@ladrilho.io>
To: Faturação <faturacao@ladrilho.io>
Subject: Re: Leave plan
Date: Wed, 2 Dec 2026 09:12:57 +0000

Confirming for everyone: from Monday 7 Dec 2026, Sofi (Sofia Barreto) is Acting Squad Lead, Faturação, until
Guto is back on 7 April 2027.

Renata
"""


OFFICE = """---
title: Office move
owner: Marta Quintas
---

# Office move to Beato (Marvila)

We are leaving the old office on 31/01/2027.
"""


SYNC = """# Squad leads sync — 10/11/2026

**Present:** Renata, Guto, Caio Menezes (video, Belo Horizonte), Leonor
**Notes:** Leonor

- Jatobá trial import done; duplicated technician IDs are the main problem.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "ladrilho", {
        "team.json": DIRECTORY, "email-2026-11-18-bridge.eml": FUNDING, "email-2026-11-26-go-live.eml": GO_LIVE,
        "email-2026-12-01-move.eml": MOVE, "projeto-jatoba.md": PROJECT, "email-2026-10-22-kickoff.eml": KICKOFF,
        "email-2026-12-02-leave.eml": LEAVE, "office-move.md": OFFICE,
        "squad-leads-sync-2026-11-10.md": SYNC,
    })
    yield engine
    engine.close()


@pytest.mark.parametrize("name, email", [
    ("Helena do Vale Moura", "helena@ladrilho.io"),
    ("Renata de Castro Lobo", "renata@ladrilho.io"),
    ("Leonor de Almeida Faria", "leonor@ladrilho.io"),
    ("Caio Menezes dos Reis", "caio@ladrilho.io"),
])
def test_a_signature_above_the_quoted_writers_line_is_only_the_signers(engine, name, email):
    # The signer's stacked signature ends at its blank line: the quoted writer's "<address> wrote:" (or
    # "escreveu:") under it is not the signer's address, and the two stay two people.
    entity = only_entity(engine, name)
    assert entity.attributes.get("email") == email
    assert offline_answer(engine, f"What is {name}'s email address?", f"email-{email}").count("@ladrilho.io") == 1


def test_a_portuguese_attribution_names_the_quoted_writer(engine):
    from chatapp.knowledge.parsers.mail import is_reply_attribution

    assert is_reply_attribution("Em qui., 26 de nov. de 2026 às 08:04, Leonor de Almeida Faria <leonor@ladrilho.io> escreveu:")
    assert is_reply_attribution("Le mar. 1 déc. 2026 à 16:33, Jean Roux <jean@exemple.fr> a écrit :")
    assert not is_reply_attribution("Em seguida, escreveu o relatório.")
    assert "Nónó" in only_entity(engine, "Leonor de Almeida Faria").aliases


def test_an_accented_census_first_name_with_a_particle_is_a_person(engine):
    # "José" is the census tables' "Jose": "José Augusto da Cunha" is a person, with the nickname the list gives.
    entity = only_entity(engine, "José Augusto da Cunha")
    assert entity.attributes.get("email") == "guto@ladrilho.io"
    assert "Guto" in entity.aliases


def test_an_amount_in_thousands_of_reais_is_corrected_whole(engine):
    response = checked(engine, "What is the implementation fee?",
                       "The implementation fee is R$ 240 mil, with 30% invoiced at kick-off.")
    assert [f.content for f in response.hallucination_flags] == ["R$ 240 mil"]
    assert "R$ 420 mil [corrected]" in response.delivered


def test_a_decimal_comma_amount_is_the_same_amount(engine):
    from chatapp.postprocess.values import find_values

    assert [v.parsed for v in find_values("€1,2M and €1.2M and R$ 1,1 milhão and €23,400")] == [
        1.2e6, 1.2e6, 1.1e6, 23400.0]
    # Dots between groups of three are thousands ("R$ 1.100.000,00"), as the ingest reads them; one group
    # after a dollar's or a pound's dot is still a decimal ("$2.125 a gallon").
    assert [v.parsed for v in find_values("R$ 1.100.000,00 and €48.000 and $2.125 a gallon and £1.50")] == [
        1.1e6, 48000.0, 2.125, 1.5]


def test_an_amount_written_with_dots_for_thousands_is_the_same_amount(engine):
    right = checked(engine, "What is the implementation fee?", "The implementation fee is R$ 420.000.")
    assert right.hallucination_flags == []
    wrong = checked(engine, "What is the implementation fee?", "The implementation fee is R$ 240.000.")
    assert [f.content for f in wrong.hallucination_flags] == ["R$ 240.000"]


def test_a_share_invoiced_now_beside_another_at_go_live_is_no_change(engine):
    # "30% invoiced now and 70% at go-live" says when each part is invoiced: 70% is not what 30% became.
    response = checked(engine, "What is the implementation fee?",
                       "The implementation fee is R$ 420 mil, with 30% invoiced now and 70% at go-live.")
    assert response.hallucination_flags == []


def test_a_firms_line_with_its_legal_form_under_a_signature_is_no_person(engine):
    # "Ladrilho Cloud, Lda. | +351 …" is the firm's line: a firm with Portugal's legal form, not a person whose
    # job is "Lda" — so it cannot stand in for anyone named in an answer.
    people = [e.name for e in engine.kb.registry.all_entities() if e.type == "person"]
    assert "Ladrilho Cloud" not in people
    firms = [e for e in engine.kb.registry.all_entities() if e.type == "organization"]
    assert any("Ladrilho Cloud" in [f.name, *f.aliases] for f in firms)


def test_another_persons_role_written_with_an_ampersand_is_corrected(engine):
    # The documents index the role without its "&": the answer's "Office & Operations Manager" is still found
    # as Marta's role, though it shares "Manager" with Leonor's own.
    response = checked(engine, "What does Leonor de Almeida Faria do?",
                       "Leonor de Almeida Faria is the Office & Operations Manager.")
    assert [f.hallucination_type for f in response.hallucination_flags] == ["WrongAttribute"]
    assert "Product Manager, Imports [corrected]" in response.delivered


def test_a_title_with_of_followed_by_where_it_is_held_is_corrected_whole(engine):
    # "Head of Customer Care at Ladrilho" (a title nobody holds): "at" says where; the title is not cut to "Head".
    response = checked(engine, "What does Leonor de Almeida Faria do?",
                       "Leonor de Almeida Faria is the Head of Customer Care at Ladrilho Cloud.")
    assert [f.content for f in response.hallucination_flags] == ["Leonor de Almeida Faria is the Head of Customer Care"]
    assert "Product Manager, Imports [corrected] at Ladrilho Cloud" in response.delivered


def test_the_customers_name_and_what_the_project_is_name_the_project(engine):
    # "Jatobá" is the customer's name and the project's; "migration" is only in the project's title, so
    # "the Jatobá migration" is the project, and its lead is the answer (and "his" the lead after it).
    names = [r.canonical_name for r in engine.turns.preprocess("who leads the jatoba migration?").resolved_entities]
    assert "Projeto Jatobá" in names
    assert "Caio Menezes dos Reis" in offline_answer(engine, "Who leads the Jatobá migration?", "jatoba-lead")


def test_an_acting_role_a_later_mail_gives_under_a_nickname_replaces_the_directorys(engine):
    # "Sofi (Sofia Barreto) is Acting Squad Lead": the name people use, the full name in brackets, the title.
    assert only_entity(engine, "Sofia Barreto").attributes.get("role") == "Acting Squad Lead"
    assert "Acting Squad Lead" in offline_answer(engine, "What is Sofia Barreto's role?", "sofia-role")


def test_a_bracket_ending_a_heading_is_no_nickname_of_the_paragraph_under_it(engine):
    # "Beato (Marvila)", a blank line, "We are leaving": no "Beato We" known as Marvila.
    people = [e for e in engine.kb.registry.all_entities() if e.type == "person"]
    assert not [e.name for e in people if "Marvila" in e.aliases or e.name.startswith("Beato")]


def test_a_two_letter_nickname_typed_as_a_possessive_without_its_apostrophe_or_accent(engine):
    # "whats tos email": Tó's, the nickname the team list gives António Pires Lage.
    pre = engine.turns.preprocess("whats tos emial")
    assert pre.corrected_input == "What's Tó's email?"
    assert [r.canonical_name for r in pre.resolved_entities] == ["António Pires Lage"]
    assert engine.turns.preprocess("is it yes or no").corrected_input == "Is it yes or no?"


def test_both_given_names_in_the_attendees_are_the_person_with_the_longer_name(engine):
    # "Caio Menezes" is Caio Menezes dos Reis's given names (no surname of his): no second Caio.
    assert [e.name for e in engine.kb.registry.all_entities() if e.name.startswith("Caio")] == ["Caio Menezes dos Reis"]
    assert "+55 31 99720 1184" in offline_answer(engine, "What is Caio Menezes's phone number?", "caio-phone")


def test_a_greeting_in_portuguese_is_no_part_of_a_name(engine):
    # "Caro Caio," and "Cara Marta," open mails: nobody is called "Caro Caio" or "Cara Marta".
    assert not [e.name for e in engine.kb.registry.all_entities() if e.name.startswith(("Caro", "Cara "))]
