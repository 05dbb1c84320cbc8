"""A Kenyan tour operator's folder: a staff list written surname first in capitals ("WAMALWA, Esther
Nafula", "MUTUA, Eng. Kennedy"), names with apostrophes (Ochieng', Ng'ang'a), amounts in shillings
("Kshs. 154,000/=", "KES 2,450,000", "KSh 2.45M"), day-first dates, a rate revised by a later mail while
the rates page keeps the old one, a date moved by mail while the project page keeps the old one. Real
ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

STAFF = """# Staff contact list

Updated 04/11/2026. Management only.

| Name | Title | Station | Email | Mobile |
| --- | --- | --- | --- | --- |
| WAMALWA, Esther Nafula | Managing Director | Nairobi | esther.wamalwa@tembeasafari.co.ke | +254 722 100 201 |
| OKOTH, Brian Ochieng' | Operations Manager | Nairobi | b.okoth@tembeasafari.co.ke | +254 733 100 202 |
| MUTUA, Eng. Kennedy | Workshop & Fleet Engineer | Nairobi | k.mutua@tembeasafari.co.ke | +254 711 100 203 |
| NG'ANG'A, Daniel Kamau | Head Guide | Amboseli camp | daniel.nganga@tembeasafari.co.ke | +254 724 100 204 |
| NJERU, Dr. Lilian | Community Liaison | Amboseli camp | lilian.njeru@tembeasafari.co.ke | +254 728 100 205 |
"""

RATES = """# Rates 2026/27

Last updated 12/10/2026.

| Season | Non-resident | Resident |
| --- | --- | --- |
| Weekday (Mon-Thu) | USD 140 pp | KSh 9,800 pp |
| Weekend (Fri-Sun) | USD 180 pp | KSh 12,000 pp |
"""

RATE_MAIL = """From: Esther Wamalwa <esther.wamalwa@tembeasafari.co.ke>
To: Brian Okoth <b.okoth@tembeasafari.co.ke>
Date: Mon, 30 Nov 2026 10:00:00 +0300
Subject: Weekend resident rate

Brian,

With fuel where it is, the weekend resident rate at the Amboseli camp is revised from KSh 12,000 to
KSh 13,500 per person sharing for all new bookings from 1st December 2026.

Esther
"""

PROJECT = """---
title: Amboseli Camp Borehole & Water Tank Project
lead: Daniel Ng'ang'a
updated: 02/11/2026
---

# Amboseli Camp Borehole & Water Tank Project

**Budget:** KES 2,450,000 incl. VAT
**Handover:** 20/01/2027

## Open questions

- Whether Kimana Gate shares the water point with the camp
"""

PUMP_MAIL = """From: Kennedy Mutua <k.mutua@tembeasafari.co.ke>
To: Brian Okoth <b.okoth@tembeasafari.co.ke>
Date: Tue, 24 Nov 2026 09:00:00 +0300
Subject: Borehole - drilling rig delayed

Brian,

The rig is stuck at Emali. Drilling now starts on 11th January 2027 and the handover moves to 3rd March
2027. The pump quote from the driller is Kshs. 154,000/= for the solar pump.

Regards,
Eng. Kennedy Mutua
Workshop & Fleet Engineer
Tel: +254 711 100 203
"""


HOUSING = """---
title: Amboseli Staff Housing Upgrade
lead: Lilian Njeru
---

Six staff rooms and a kitchen, before the long rains.
"""

FLEET = """{"vehicles": [
  {"registration": "KDB 118A", "model": "Land Cruiser 79", "driver_guide": "Daniel Ng'ang'a", "next_service": "14/12/2026"},
  {"registration": "KDF 442C", "model": "HiAce", "driver_guide": "Kennedy Mutua", "next_service": "04/01/2027"}
]}
"""


@pytest.fixture(scope="module")
def operator(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "tembea", {
        "staff.md": STAFF, "rates.md": RATES, "email-2026-11-30-rate.eml": RATE_MAIL,
        "borehole.md": PROJECT, "email-2026-11-24-borehole.eml": PUMP_MAIL, "housing.md": HOUSING,
        "fleet.json": FLEET})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, role, email", [
    ("Esther Nafula Wamalwa", "Managing Director", "esther.wamalwa@tembeasafari.co.ke"),
    ("Brian Ochieng' Okoth", "Operations Manager", "b.okoth@tembeasafari.co.ke"),
    ("Kennedy Mutua", "Workshop & Fleet Engineer", "k.mutua@tembeasafari.co.ke"),
    ("Daniel Kamau Ng'ang'a", "Head Guide", "daniel.nganga@tembeasafari.co.ke"),
    ("Lilian Njeru", "Community Liaison", "lilian.njeru@tembeasafari.co.ke"),
])
def test_a_list_written_surname_first_in_capitals_gives_each_persons_full_name(operator, name, role, email):
    person = only_entity(operator, name)
    assert person.name == name
    assert (person.attributes.get("role"), person.attributes.get("email")) == (role, email)


def test_given_and_middle_names_without_the_surname_are_no_second_person(operator):
    # The recogniser reads "Esther Nafula" out of "WAMALWA, Esther Nafula"; the mail's "Esther Wamalwa" is her too.
    for short in ("Esther Nafula", "Esther Wamalwa", "Daniel Ng'ang'a"):
        assert [e.name for e in operator.kb.registry.find_by_alias(short) if e.type == "person"] in (
            [], ["Esther Nafula Wamalwa"], ["Daniel Kamau Ng'ang'a"]), short


def test_whether_opening_a_question_is_no_job_title(operator):
    assert all(e.attributes.get("role") != "whether" for e in operator.kb.registry.find_by_alias("Kimana Gate"))


@pytest.mark.parametrize("answer, right, wrong", [
    ("The driller quoted Kshs. 145,000/= for the solar pump.", "Kshs. 154,000/=", "145,000"),
    ("The borehole budget is KES 2,540,000 incl. VAT.", "KES 2,450,000", "2,540,000"),
])
def test_a_shilling_amount_with_its_digits_swapped_is_corrected(operator, answer, right, wrong):
    result = checked(operator, "How much is it?", answer)
    assert f"{right} [corrected]" in result.delivered and wrong not in result.delivered


def test_a_rate_revised_from_one_value_to_another_corrects_only_that_value(operator):
    old = checked(operator, "What is the weekend resident rate?",
                  "The weekend resident rate at the Amboseli camp is KSh 12,000 per person sharing.")
    assert "KSh 13,500 [corrected]" in old.delivered
    # The weekday rate and the dollar rate beside it are no old values of the weekend resident rate.
    for answer in ("The weekday resident rate at the Amboseli camp is KSh 9,800 per person sharing.",
                   "The weekend non-resident rate at the Amboseli camp is USD 180 per person sharing."):
        result = checked(operator, "What is the rate?", answer)
        assert not result.hallucination_flags, answer


def test_a_date_in_figures_moved_by_mail_is_corrected_as_the_mail_writes_it(operator):
    result = checked(operator, "When is the borehole handover?", "The borehole handover is on 20/01/2027.")
    assert "3rd March 2027 [corrected]" in result.delivered


def test_an_ordinal_date_is_corrected_with_its_ordinal():
    from chatapp.postprocess.values import render_like, find_values

    new = next(v for v in find_values("on 11th January 2027") if v.vtype == "date")
    assert render_like("7th December 2026", "date", "11 January 2027", new.parsed) == "11th January 2027"
    assert render_like("7 December 2026", "date", "11th January 2027", new.parsed) == "11 January 2027"


def test_offline_a_project_named_with_middle_words_left_out(operator):
    answer = offline_answer(operator, "Who leads the Amboseli borehole project?", "lead")
    assert "Daniel Ng'ang'a (Daniel Kamau Ng'ang'a)" in answer


def test_an_amount_in_millions_is_corrected_in_the_answers_own_currency():
    from chatapp.postprocess.values import render_like

    assert render_like("KSh 2.1M", "amount", "KSh 1,200,000", 1_200_000.0) == "KSh 1.2M"
    assert render_like("€2.1M", "amount", "€1,200,000", 1_200_000.0) == "€1.2M"
    assert render_like("$2.1M", "amount", "$1,200,000", 1_200_000.0) == "$1.2M"


@pytest.mark.parametrize("typed, corrected", [
    ("whats mama esthers moblie number", "What's Mama Esther's mobile number?"),
    ("is dr njeru at the camp", "Is Dr Njeru at the camp?"),
])
def test_a_title_or_respectful_form_before_a_known_name_takes_a_capital(operator, typed, corrected):
    assert operator.turns.preprocess(typed).corrected_input == corrected


def test_offline_a_project_named_by_its_first_words_and_the_kind_of_thing_it_is(operator):
    answer = offline_answer(operator, "Who is in charge of the Amboseli staff project?", "housing")
    assert "Amboseli Staff Housing Upgrade's lead is Lilian Njeru." in answer


def test_offline_who_does_what_a_verb_says_is_the_column_named_for_the_doer(operator):
    answer = offline_answer(operator, "Who drives KDF 442C?", "drives")
    assert "KDF 442C's driver guide is Kennedy Mutua." in answer
