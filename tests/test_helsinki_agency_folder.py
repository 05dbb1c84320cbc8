"""A Helsinki design agency's folder: a staff list exported from Excel with Finnish column names and semicolons
("Nimi;Kutsumanimi;Titteli;Sähköposti;Puhelin"), a project page whose front matter names its
"projektipäällikkö", a later mail that moves the delivery "from 20.12.2026 to **22.1.2027**" in bold and hands
the project to someone else "From 8.12." on, and a suppliers file in JSON whose firms end in "Oy" and "Ab" under
Finnish keys ("toimittajat", "nimi", "vastuuhenkilo"). Dates day.month.year, amounts "12 500,00 €". The user asks
in English. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import json

import pytest

from chatapp.knowledge.extraction.observations import has_legal_form, without_legal_form
from chatapp.postprocess import values as V
from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

STAFF = """Nimi;Kutsumanimi;Titteli;Tiimi;Sähköposti;Puhelin
Veikko Harju;;Senior Designer;Muotoilu;veikko.harju@pohjantahti.example;040 611 2040
Antero Halonen;Ante;Service Designer;Muotoilu;antero.halonen@pohjantahti.example;044 611 2041
Eero Salminen;;UX Researcher;Muotoilu;eero.salminen@pohjantahti.example;+358 45 611 2042
Kaisa Lehtimäki;;Toimistopäällikkö (Office Manager);Hallinto;kaisa.lehtimaki@pohjantahti.example;09 611 2000
"""

PAGE = """---
title: Tuisku – asiointipalvelun konsepti
projektipäällikkö: Veikko Harju
budget: "52 300 € (alv 0 %)"
delivery: 20.12.2026
katselmointi: 14.12.2026
---

# Tuisku – asiointipalvelun konsepti

Service concept for the city's e-services. Delivery to the steering group on 20.12.2026.
"""

SIGNED = """From: Veikko Harju <veikko.harju@pohjantahti.example>
To: Kaisa Lehtimäki <kaisa.lehtimaki@pohjantahti.example>
Subject: Tuisku kick-off
Date: Wed, 04 Nov 2026 15:42:10 +0200

Hei Kaisa,

the kick-off with the city is booked for ti 10.11. klo 9.30.

Ystävällisin terveisin,

Veikko Harju
Projektipäällikkö, Senior Designer
Pohjantähti Oy
Puhelin: 040 611 2040
"""

MAIL = """From: Kaisa Lehtimäki <kaisa.lehtimaki@pohjantahti.example>
To: Veikko Harju <veikko.harju@pohjantahti.example>
Subject: RE: Tuisku aikataulu
Date: Tue, 01 Dec 2026 09:12:00 +0200

Hei,

to confirm what we agreed with the city:

1. The delivery moves from 20.12.2026 to **22.1.2027**.
2. Veikko starts his leave on 8.12. From that day Antero "Ante" Halonen is the projektipäällikkö for
   Tuisku.
3. The katselmointi with the city moves from 14.12.2026 to 11.1.2027.

Seppo Tolvanen from the city will join the review. Hei Kaisa, also please book a room.

Terveisin,
Kaisa
"""

NOTES = """# Tuisku – viikkopalaveri 24.11.2026

Present: Veikko, Antero, Eero.

- Seppo Tolvanen (the city's procurement) asked for the signed order.
- Ritva Salo (Stiftelsen Solvik) called about the form.
- Hei Kaisa was written on the whiteboard. Stiftelsen Solvik called about their grant form.
"""

FOUNDATIONS = """Nimi;Sähköposti
Stiftelsen Solvik sr;info@solvik.example
"""

SUPPLIERS = json.dumps({"toimittajat": [
    {"nimi": "Valokaari Oy", "y_tunnus": "3011456-1", "palvelu": "Front-end development",
     "sopimus_arvo": "21 700,00 €", "vastuuhenkilo": "Eero Salminen", "yhteyshenkilo": "Jorma Nieminen",
     "sahkoposti": "jorma.nieminen@valokaari.example"},
    {"nimi": "Saaristotext Ab", "y_tunnus": "3011457-9", "palvelu": "Swedish translation",
     "sopimus_arvo": "3 900,00 €", "vastuuhenkilo": "Kaisa Lehtimäki"},
]}, ensure_ascii=False, indent=1)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "pohjantahti", {
        "henkilosto.csv": STAFF, "tuisku.md": PAGE, "2026-12-01-re-tuisku-aikataulu.eml": MAIL,
        "toimittajat.json": SUPPLIERS, "muistio-2026-11-24.md": NOTES, "saatiot.csv": FOUNDATIONS,
        "2026-11-04-tuisku-kick-off.eml": SIGNED})
    yield engine
    engine.close()


def test_finnish_column_names_of_a_staff_list_are_read_as_their_keys(engine):
    eero = only_entity(engine, "Eero Salminen")
    assert eero.attributes["role"] == "UX Researcher"
    assert eero.attributes["email"] == "eero.salminen@pohjantahti.example"
    assert eero.attributes["phone"] == "+358 45 611 2042"
    assert eero.attributes["department"] == "Muotoilu"
    # "Kutsumanimi" is the name a person goes by.
    assert only_entity(engine, "Ante").name == "Antero Halonen"


def test_a_wrong_title_of_someone_in_a_finnish_list_is_corrected(engine):
    wrong = checked(engine, "What does Eero Salminen do?", "Eero Salminen is the Art Director.")
    assert "UX Researcher [corrected]" in wrong.delivered


def test_a_title_whose_rank_word_begins_like_a_word_of_the_role_is_still_another_title(engine):
    # "Officer" and "Office" begin alike; "Chief Financial Officer" is no way of saying "Office Manager".
    wrong = checked(engine, "What is Kaisa Lehtimäki's role?", "Kaisa Lehtimäki is the Chief Financial Officer.")
    assert "Office Manager" in wrong.delivered and "[corrected]" in wrong.delivered
    right = checked(engine, "What is Kaisa Lehtimäki's role?", "Kaisa Lehtimäki is the Office Manager.")
    assert "[corrected]" not in right.delivered


def test_a_new_date_in_bold_in_a_later_mail_replaces_the_pages_date(engine):
    old = checked(engine, "When is the Tuisku delivery?", "The Tuisku delivery is on 20.12.2026.")
    assert "22.1.2027 [corrected]" in old.delivered


def test_an_old_date_of_a_key_in_finnish_is_corrected_where_the_thing_is_named(engine):
    # "katselmointi" (the review) is no English word: an answer in English names Tuisku and the old date.
    old = checked(engine, "When does the city review Tuisku?", "The city reviews Tuisku on 14.12.2026.")
    assert "11.1.2027 [corrected]" in old.delivered
    right = checked(engine, "When does the city review Tuisku?", "The city reviews Tuisku on 11.1.2027.")
    assert "[corrected]" not in right.delivered


def test_who_is_the_projektipaallikko_from_a_day_on_replaces_the_page(engine):
    assert "Antero Halonen" in offline_answer(engine, "Who is the project manager for Tuisku now?", "tuisku")
    old = checked(engine, "Who is the project manager for Tuisku?", "Veikko Harju is the project manager for Tuisku.")
    assert "Antero Halonen [corrected]" in old.delivered


def test_records_of_firms_with_a_nordic_legal_form_are_firms_known_without_it(engine):
    firm = only_entity(engine, "Valokaari")
    assert (firm.name, firm.type) == ("Valokaari Oy", "organization")
    assert "Eero Salminen" in offline_answer(engine, "Who is the vastuuhenkilö for the Valokaari contract?", "firm")


def test_a_full_name_two_documents_give_is_a_person_though_the_census_lacks_the_first_name(engine):
    # Only the recogniser saw "Seppo Tolvanen", in a mail and in the notes: still a colleague of the folder.
    assert only_entity(engine, "Seppo Tolvanen").type == "person"
    # A greeting run onto a first name, and a foundation's name without its "sr", are nobody.
    assert not engine.kb.registry.find_by_alias("Hei Kaisa")
    assert all(e.type != "person" for e in engine.kb.registry.find_by_alias("Stiftelsen Solvik"))


def test_a_signature_giving_two_jobs_after_a_comma_keeps_the_staff_lists_title(engine):
    # "Projektipäällikkö, Senior Designer": the part after the comma is a second job, not a team, and the
    # dated signature does not put the list's "Senior Designer" out of date.
    right = checked(engine, "What is Veikko Harju's title?", "Veikko Harju is a Senior Designer.")
    assert "[corrected]" not in right.delivered


def test_a_business_id_in_figures_is_checked_against_the_records(engine):
    wrong = checked(engine, "What is the Y-tunnus of Valokaari Oy?", "Valokaari Oy's Y-tunnus is 3011465-1.")
    assert "3011456-1 [corrected]" in wrong.delivered
    right = checked(engine, "What is the Y-tunnus of Valokaari Oy?", "Valokaari Oy's Y-tunnus is 3011456-1.")
    assert "[corrected]" not in right.delivered


def test_a_firms_yhteyshenkilo_is_its_contact(engine):
    assert "Jorma Nieminen" in offline_answer(engine, "Who is our contact person at Valokaari?", "contact")


def test_a_body_in_brackets_after_a_name_is_no_job(engine):
    assert all(e.attributes.get("role") != "Stiftelsen Solvik" for e in engine.kb.registry.find_by_alias("Ritva Salo"))


def test_legal_forms_of_finland_sweden_and_denmark_but_not_an_addresss_state():
    assert has_legal_form("Valokaari Oy") and has_legal_form("Saaristotext Ab") and has_legal_form("Nordvik ApS")
    assert without_legal_form("Valokaari Oy") == "Valokaari"
    assert not has_legal_form("Calgary, AB") and not has_legal_form("Louisville, Ky.")
    assert not has_legal_form("Eero Salminen")


def test_a_register_number_in_figures_is_a_reference_and_a_phone_with_an_area_code_is_not():
    def kinds(text):
        return [(f.text, f.vtype) for f in V.find_values(text)]

    assert kinds("Y-tunnus 0201877-4") == [("0201877-4", "code")]
    assert kinds("EIN 12-3456789, org.nr 556123-4567") == [("12-3456789", "code"), ("556123-4567", "code")]
    for phone in ("call 040-1234567", "call +358-401234567", "tel 02-9876543"):
        assert all(kind != "code" for _, kind in kinds(phone)), phone
