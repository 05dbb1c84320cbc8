"""A small veterinary practice's folder in New Zealand: a staff phone list whose columns are named the way
people name them ("Ext", "Cell", "Work email"), Māori and Pacific names with macrons, a rota table with
day-first dates, a client-facing price list, supplier mails with forwarded parts, practice minutes.
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

PHONE_LIST = """Name,Role,Ext,Cell,Work email,Days
Aroha Ngātai,Practice Manager,200,027 555 0110,aroha@totarabayvets.co.nz,Mon–Fri
Dr Hēmi Tāwhiri,Principal Vet (owner),201,021 555 0142,hemi@totarabayvets.co.nz,Mon–Fri
Dr Mereana Pōtae,Vet – production animals,202,022 555 0177,mereana.potae@totarabayvets.co.nz,Mon–Thu
Dr Sione Fifita,Vet – companion animals,203,027 555 0198,sione.f@totarabayvets.co.nz,Tue–Sat
Losa Tuimavave,Head Nurse,210,021 555 0263,losa@totarabayvets.co.nz,Mon–Fri
Sione Taufa,Vet Nurse,211,022 555 0235,sione.t@totarabayvets.co.nz,Wed–Sun
"""

ORDER = """From: Losa Tuimavave <losa@totarabayvets.co.nz>
To: Aroha Ngātai <aroha@totarabayvets.co.nz>
Subject: Fwd: Order confirmation KAH-58213
Date: Tue, 10 Nov 2026 11:20:55 +1300

Hi Aroha,

FYI - the dog vaccines are fine but the cat F3 is on backorder until mid-January.

Losa

Losa Tuimavave | Head Nurse | ext 210

-------- Original Message --------
Subject: Order confirmation KAH-58213
Date: 10/11/2026 10:05
From: Kauri Animal Health Orders <orders@kauriah.co.nz>

  Cat F3 vaccine, 10-dose pack    x 4    NZ$  796.00   ** BACKORDER - expected 15/01/2027 **

Questions? Call your account manager Tessa Wyndholm on 021 555 0417.
"""

XRAY = """From: Hēmi Tāwhiri <hemi@totarabayvets.co.nz>
To: Team <team@totarabayvets.co.nz>
Subject: Fwd: Service visit - digital X-ray
Date: Tue, 24 Nov 2026 16:48:03 +1300

Team,

The X-ray service has moved. It is now Thursday 17 December, not Tuesday 8 December.

Hemi

---------- Forwarded message ---------
From: Tessa Wyndholm <tessa.wyndholm@kauriah.co.nz>
Date: Tue, 24 Nov 2026 at 14:02
Subject: Service visit - digital X-ray
To: Hēmi Tāwhiri <hemi@totarabayvets.co.nz>

Kia ora Hēmi,

Our service engineer can no longer make it on Tuesday 8 December, so we have moved your annual service
to Thursday 17 December 2026, arriving 8.30am.

Kind regards,
Tessa Wyndholm
Account Manager, Bay of Plenty | Kauri Animal Health
0800 555 284 | 021 555 0417
"""

PRICES = """<html><head><title>Our prices | Tōtara Bay Vets</title><script>gtag('config', 'G-1');</script></head>
<body><nav><a href="/">Home</a> | <a href="/prices">Prices</a></nav>
<h1>Our prices</h1>
<p>Prices effective from 1 November 2026. All prices are in NZ dollars and include GST.</p>
<table>
<tr><th>Service</th><th>Price (NZ$ incl. GST)</th></tr>
<tr><td>Standard consultation (15 min)</td><td>$89.00</td></tr>
<tr><td>After-hours consultation</td><td>$165.00</td></tr>
<tr><td>Dental scale and polish (under general anaesthetic)</td><td>$358.00</td></tr>
</table>
<footer>Tōtara Bay Vets · 07 555 0100</footer></body></html>
"""

PRICE_FIX = """From: Aroha Ngātai <aroha@totarabayvets.co.nz>
To: Team <team@totarabayvets.co.nz>
Subject: Dental price on the website is wrong - please read
Date: Thu, 26 Nov 2026 09:12:40 +1300

Kia ora koutou,

Heads up: the new price list that went up on the website on 1 November has a typo. The dental scale and
polish (under GA) should be $385.00 incl. GST, not $358.00. The numbers got swapped when I copied them over.

Ngā mihi,
Aroha
"""

ROTA = """# After-hours on-call rota — December 2026

_Drawn up by Aroha Ngātai, 13/11/2026._

| Date | Day | On-call vet | On-call nurse |
|---|---|---|---|
| 5/12/2026 | Saturday | Dr Hēmi Tāwhiri | Sione Taufa |
| 12/12/2026 | Saturday | Dr Sione Fifita | Losa Tuimavave |
| 19/12/2026 | Saturday | Dr Mereana Pōtae | Sione Taufa |
| 20/12/2026 | Sunday | Dr Mereana Pōtae | Sione Taufa |
| 27/12/2026 | Sunday | Dr Sione Fifita | Sione Taufa |
| 28/12/2026 | Monday | Dr Sione Fifita | Sione Taufa |
"""

SWAP = """From: Aroha Ngātai <aroha@totarabayvets.co.nz>
To: Team <team@totarabayvets.co.nz>
Subject: RE: Swap 19/20 Dec on-call?
Date: Tue, 1 Dec 2026 08:41:12 +1300

Morena all,

Swap done. For the record:

  - Saturday 19 and Sunday 20 December: on-call vet is now Dr Sione Fifita (nurse unchanged, Sione Taufa).
  - Sunday 27 and Monday 28 December: on-call vet is now Dr Mereana Pōtae (nurse unchanged, Sione Taufa).

Aroha
"""

MINUTES = """# Practice meeting — Tuesday 17 November 2026

**Present:** Hēmi Tāwhiri (chair), Aroha Ngātai (minutes), Mereana Pōtae, Sione Fifita, Losa Tuimavave

## 3. New graduate vet
Hēmi has offered the new graduate position to Dr Pita Whaanga (Massey, class of 2026). He has accepted and
starts on **Monday 11 January 2027**. Mereana will be his mentor for the first six months.

## 4. Christmas and New Year hours
- Staff Christmas lunch: Friday 18 December at The Landing Café, 12.30pm. Practice pays.
"""

VISITS = """{
  "title": "Farm visits — December 2026",
  "visits": [
    {"date": "2026-12-09", "farm": "Ōrongo Flats Dairy", "job": "Pregnancy scanning, 610 cows",
     "vet": "Dr Hēmi Tāwhiri", "technician": "Rāwiri Kōhatu"},
    {"date": "2026-12-16", "farm": "Manuka Ridge Station", "job": "Ram palpation and teeth check, 85 rams",
     "vet": "Dr Mereana Pōtae", "technician": "Rāwiri Kōhatu"}
  ]
}
"""

OCTOBER = """# Practice meeting — Tuesday 20 October 2026

## 1. New price list
Aroha presented the new price list. Standard consult goes from $84.00 to $89.00 and after-hours consult from
$155.00 to $165.00. Agreed. New prices to start on 1 November 2026.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "totara", {
        "staff-phone-list.csv": PHONE_LIST, "email-2026-11-10-vaccine-order.eml": ORDER,
        "website-prices.html": PRICES, "email-2026-11-26-dental-price.eml": PRICE_FIX,
        "on-call-rota-december-2026.md": ROTA, "email-2026-12-01-rota-swap.eml": SWAP,
        "email-2026-11-24-xray-moved.eml": XRAY,
        "practice-meeting-2026-11-17.md": MINUTES,
        "farm-visits-december-2026.json": VISITS,
        "practice-meeting-2026-10-20.md": OCTOBER})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, extension, cell", [
    ("Sione Taufa", "211", "022 555 0235"),
    ("Aroha Ngātai", "200", "027 555 0110"),
])
def test_a_phone_list_with_ext_and_cell_columns_keeps_both_numbers(engine, name, extension, cell):
    attributes = only_entity(engine, name).attributes
    assert attributes.get("extension") == extension
    assert attributes.get("mobile") == cell
    assert cell in offline_answer(engine, f"What is {name}'s cell number?", f"cell-{extension}")
    assert extension in offline_answer(engine, f"What is {name}'s extension?", f"ext-{extension}")


def test_an_extension_in_a_later_signature_does_not_replace_the_cell_number(engine):
    # Losa signs "ext 210" in a November mail; her cell from the phone list is still the number to call.
    answer = offline_answer(engine, "What is Losa's phone number?", "losa-phone")
    assert "021 555 0263" in answer
    assert "[corrected]" not in answer


def test_a_wrong_extension_is_corrected_to_the_lists(engine):
    response = checked(engine, "What is Aroha's extension?", "Aroha Ngātai is the Practice Manager. Her extension is 220.")
    assert [f.content for f in response.hallucination_flags] == ["220"]
    assert "200 [corrected]" in response.delivered


def test_a_price_a_later_mail_says_should_be_another_is_corrected(engine):
    # "should be $385.00 incl. GST, not $358.00": a few words qualify the new price before ", not".
    response = checked(engine, "How much is a dental scale and polish?",
                       "A dental scale and polish under general anaesthetic costs $358.00 including GST.")
    assert [f.content for f in response.hallucination_flags] == ["$358.00"]
    assert "$385.00 [corrected]" in response.delivered
    right = checked(engine, "How much is a standard consultation?", "A standard consultation is $89.00 including GST.")
    assert right.hallucination_flags == []


@pytest.mark.parametrize("day, old, new", [
    ("Saturday 19 December", "Mereana Pōtae", "Sione Fifita"),
    ("Sunday 27 December", "Sione Fifita", "Mereana Pōtae"),
])
def test_a_rota_duty_a_later_mail_says_is_now_someone_elses_is_corrected(engine, day, old, new):
    # The rota still shows the old vet; the mail says the duty "is now" another's. The nurse the mail
    # leaves unchanged is not touched.
    response = checked(engine, f"Who is the on-call vet on {day}?",
                       f"Dr {old} is the on-call vet on {day}, with Sione Taufa as the on-call nurse.")
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [("TemporalError", old)]
    assert f"{new} [corrected]" in response.delivered


@pytest.mark.parametrize("question, answer", [
    ("Who is the on-call vet on Saturday 19 December?", "Dr Sione Fifita is the on-call vet on Saturday 19 December."),
    ("Who is on call on 12/12/2026?", "On Saturday 12 December the on-call vet is Dr Sione Fifita and the on-call "
                                      "nurse is Losa Tuimavave."),
])
def test_the_vet_the_rota_or_the_later_mail_gives_is_not_flagged(engine, question, answer):
    assert checked(engine, question, answer).hallucination_flags == []


def test_a_rota_row_quoted_beside_the_mails_changes_keeps_its_own_vet(engine):
    # The offline answer quotes both swap lines and this weekend's row: the row's "Day: Saturday; On-call
    # vet: …" says which day only in numbers the swap lines do not give, so no swap applies to it.
    answer = ("From your documents:\n"
              "- Saturday 19 and Sunday 20 December: on-call vet is now Dr Sione Fifita (nurse unchanged, Sione Taufa). "
              "(email-2026-12-01-rota-swap.eml)\n"
              "- Sunday 27 and Monday 28 December: on-call vet is now Dr Mereana Pōtae (nurse unchanged, Sione Taufa). "
              "(email-2026-12-01-rota-swap.eml)\n"
              "- Date: 5/12/2026; Day: Saturday; On-call vet: Dr Hēmi Tāwhiri; On-call nurse: Sione Taufa. "
              "(on-call-rota-december-2026.md)")
    response = checked(engine, "Who is on call this weekend?", answer)
    assert response.hallucination_flags == []
    assert "Dr Hēmi Tāwhiri; On-call nurse" in response.delivered


def test_a_second_number_the_answer_quoted_beside_the_first_is_no_inconsistency(engine):
    # The signature lists a freephone and a mobile; the order mail gives the mobile alone. Quoting both
    # lines is no answer contradicting itself.
    answer = ("Tessa Wyndholm: Account Manager. Phone: 0800 555 284.\n\nFrom your documents:\n"
              "- Kind regards, Tessa Wyndholm Account Manager, Bay of Plenty | Kauri Animal Health "
              "0800 555 284 | 021 555 0417 (email-2026-11-24-xray-moved.eml)\n"
              "- Call your account manager Tessa Wyndholm on 021 555 0417. (email-2026-11-10-vaccine-order.eml)")
    response = checked(engine, "Who is Tessa Wyndholm?", answer)
    assert response.hallucination_flags == []
    assert "[unverified]" not in response.delivered


def test_the_x_ray_service_date_the_forwarded_mail_moved_is_corrected(engine):
    response = checked(engine, "When is the X-ray machine being serviced?",
                       "The annual X-ray service is on Tuesday 8 December 2026.")
    assert [f.content for f in response.hallucination_flags] == ["8 December 2026"]
    assert "17 December 2026 [corrected]" in response.delivered


@pytest.mark.parametrize("answer", [
    "Pita Whaanga starts on Monday 18 January 2027.",
    # The value's own clause is read; the mentoring is another fact of the sentence.
    "Dr Pita Whaanga starts on Monday 18 January 2027, and Dr Mereana Pōtae will mentor him.",
])
def test_a_start_date_the_minutes_give_after_he_is_corrected(engine, answer):
    # "… to Dr Pita Whaanga (Massey, class of 2026). He has accepted and starts on Monday 11 January 2027."
    response = checked(engine, "When does the new graduate vet start?", answer)
    assert [f.content for f in response.hallucination_flags] == ["18 January 2027"]
    assert "11 January 2027 [corrected]" in response.delivered


def test_the_start_date_the_minutes_give_after_he_is_not_flagged(engine):
    response = checked(engine, "When does the new graduate vet start?",
                       "Dr Pita Whaanga starts on Monday 11 January 2027, and Dr Mereana Pōtae will mentor him.")
    assert response.hallucination_flags == []


def test_a_day_first_date_both_of_whose_numbers_could_be_the_month_is_the_visits_date(engine):
    # "9/12/2026" is 9 December in New Zealand, where the visit list says 2026-12-09; read month first it
    # would be September 12 and "contradict" the list.
    right = checked(engine, "When is the pregnancy scanning at Ōrongo Flats Dairy?",
                    "Pregnancy scanning at Ōrongo Flats Dairy is on 9/12/2026 with Dr Hēmi Tāwhiri.")
    assert right.hallucination_flags == []
    wrong = checked(engine, "When is the pregnancy scanning at Ōrongo Flats Dairy?",
                    "Pregnancy scanning at Ōrongo Flats Dairy is on 10/12/2026 with Dr Hēmi Tāwhiri.")
    assert [f.content for f in wrong.hallucination_flags] == ["10/12/2026"]
    assert "[corrected]" in wrong.delivered and "10/12/2026" not in wrong.delivered


@pytest.mark.parametrize("answer, old, new", [
    ("The standard consult is $84.00.", "$84.00", "$89.00"),
    # The second change of the sentence does not say "goes" again.
    ("The after-hours consult is $155.00.", "$155.00", "$165.00"),
])
def test_both_prices_a_sentence_changes_are_corrected_to_the_new_ones(engine, answer, old, new):
    response = checked(engine, "How much is a consult?", answer)
    assert [f.content for f in response.hallucination_flags] == [old]
    assert f"{new} [corrected]" in response.delivered
