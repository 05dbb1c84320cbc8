"""A bilingual Mexican hotel group's folder: a Spanish team directory with degrees before names ("Lic.",
"C.P.", "Arq."), nicknames in quotes after the bold name, two surnames, contact lines wrapped under the
entry; Spanish job titles ("Jefa de Recepción", "Chef Ejecutivo"); Spanish dates ("15 de enero de 2027")
and a later mail that moves one "(antes 15 de enero)" while the project page keeps the old value; amounts
in MXN and USD. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

DIRECTORY = """# Directorio — Hacienda Los Arcos S.A. de C.V.

_Actualizado: 3 de noviembre de 2026_

## Oficina central (Guadalajara)

- **Lic. Mariana Isabel Quiroz Ibarra** ("Maribel") — Directora General
  mi.quiroz@losarcos.mx · ext. 100 · cel. +52 33 1870 4411
- **C.P. Rocío Navarro Camacho** — Contralora
  rocio.navarro@losarcos.mx · ext. 104
- **Joaquín Treviño Salas** — Coordinador de Banquetes
  joaquin.trevino@losarcos.mx · cel. +52 33 2030 5577

## Hacienda Tlaquepaque

- **Ing. Salvador Ignacio Cárdenas Montoya** ("Chava") — Gerente de Mantenimiento · chava.cardenas@losarcos.mx
- **Rocío "Chío" Benítez Orozco** — Jefa de Recepción · chio.benitez@losarcos.mx · ext. 202
- **Anselmo Fuentes Arriaga** — Chef Ejecutivo · anselmo.fuentes@losarcos.mx · ext. 305
"""

PROJECT = """---
proyecto: Proyecto Mirador
responsable: Salvador Ignacio Cárdenas Montoya
presupuesto: $960,000.00 MXN
reapertura: 15 de enero de 2027
---

# Proyecto Mirador — terraza de la Hacienda Tlaquepaque

Presupuesto autorizado en la junta del 14 de octubre de 2026: **$960,000.00 MXN**.

| Hito | Fecha |
|---|---|
| Inicio de obra | 2 de noviembre de 2026 |
| Reapertura de la terraza | 15 de enero de 2027 |
"""

MOVED = """From: Chava Cardenas <chava.cardenas@losarcos.mx>
To: Mariana Quiroz <mi.quiroz@losarcos.mx>
Subject: RE: Mirador - nueva fecha
Date: Fri, 20 Nov 2026 17:42:10 -0600

Maribel,

La nueva fecha de reapertura de la terraza es el lunes 22 de febrero de 2027 (antes 15 de enero).
El presupuesto no cambia.

Chava
"""

MINUTES = """# Junta de banquetes — 18 de noviembre de 2026

Presentes: Mariana Quiroz, Anselmo Fuentes, Treviño Salas (por teléfono)

- Treviño Salas confirma 120 invitados para la boda del 13 de marzo de 2027.
"""

GROUP = """## Sales call — Wed 2 Dec 2026

- Bluebird Journeys contract signed on 27 November — 14 rooms, 6–11 March 2027, USD 11,260 total.
- The deposit of USD 3,400 is invoiced on 15 December.
"""


@pytest.fixture(scope="module")
def hotels(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "los-arcos", {
        "directorio.md": DIRECTORY, "proyecto-mirador.md": PROJECT, "RE_ Mirador - nueva fecha.eml": MOVED,
        "sales-call-2026-12-02.md": GROUP, "junta-banquetes-2026-11-18.md": MINUTES})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, role, nicknames", [
    # the nickname in quotes after the bold name, its contact line wrapped under it
    ("Mariana Isabel Quiroz Ibarra", "Directora General", {"Maribel", "Maribel Quiroz"}),
    # "Ing." before the name, the nickname after the bold, the contact on the same line
    ("Salvador Ignacio Cárdenas Montoya", "Gerente de Mantenimiento", {"Chava", "Chava Cárdenas"}),
])
def test_a_nickname_after_the_bold_name_goes_with_the_first_of_two_surnames(hotels, name, role, nicknames):
    person = only_entity(hotels, name)
    assert person.name == name
    assert person.attributes["role"] == role
    assert nicknames <= set(person.aliases)


@pytest.mark.parametrize("name, role, email", [
    ("Rocío Navarro Camacho", "Contralora", "rocio.navarro@losarcos.mx"),  # "C.P." is a degree, not a name
    ("Joaquín Treviño Salas", "Coordinador de Banquetes", "joaquin.trevino@losarcos.mx"),
])
def test_a_contact_line_wrapped_under_the_entry_leaves_the_role_whole(hotels, name, role, email):
    person = only_entity(hotels, name)
    assert (person.name, person.attributes["role"], person.attributes["email"]) == (name, role, email)


def test_two_surnames_alone_are_the_person_whose_name_ends_with_them(hotels):
    # "Treviño Salas" in the minutes, as Mexican notes call a colleague by both surnames.
    assert only_entity(hotels, "Treviño Salas").name == "Joaquín Treviño Salas"


@pytest.mark.parametrize("question, answer, wrong, right", [
    # a Spanish job title given to the wrong person
    ("Who is Rocío Benítez?", "Rocío Benítez Orozco is the Chef Ejecutivo at Tlaquepaque.",
     "Chef Ejecutivo", "Jefa de Recepción"),
    # a Spanish date a later mail moved "(antes 15 de enero)", corrected in Spanish
    ("¿Cuándo reabre la terraza del Mirador?", "La terraza del Proyecto Mirador reabre el viernes 15 de enero de 2027.",
     "15 de enero de 2027", "22 de febrero de 2027"),
    # "6–11 March 2027, USD 11,260 total": "2027, USD" is no amount; the total is USD 11,260
    ("What is the Bluebird Journeys contract total?",
     "The Bluebird Journeys contract was signed on 27 November. The total is USD 12,160.00.", "USD 12,160.00", "11,260"),
])
def test_a_wrong_title_date_or_sum_is_corrected(hotels, question, answer, wrong, right):
    result = checked(hotels, question, answer)
    assert wrong in " ".join(f.content for f in result.hallucination_flags)
    assert f"{right} [corrected]" in result.delivered


def test_a_spanish_sentence_is_judged_on_its_own_words(hotels):
    # "El …, fue …, en la junta del …": articles and prepositions are no content the sources must give.
    result = checked(hotels, "¿Cuál es el presupuesto del Proyecto Mirador?",
                     "El Proyecto Mirador fue autorizado en la junta del 14 de octubre de 2026. "
                     "El presupuesto es de $960,000.00 MXN.")
    assert not result.hallucination_flags


def test_a_page_giving_the_old_date_twice_has_both_replaced_by_the_later_mail(hotels):
    # The front matter's "reapertura" and the plan's "Reapertura de la terraza" row are one fact; the mail's
    # "(antes 15 de enero)" is 15 January 2027, the one nearest the mail, and replaces both.
    history = hotels.kb.registry.attribute_history(only_entity(hotels, "Proyecto Mirador").id)
    status = {(r["key"], r["value"]): r["status"] for r in history}
    assert status[("reapertura", "15 de enero de 2027")] == "superseded"
    assert ("reapertura", "lunes 22 de febrero de 2027") in status
