"""A Lagos payments start-up's folder: naira written every way ("₦48.5m", "N12,500,000.00", "NGN 3.2
million", "₦850k", "4,000,000 naira"), day-first dates ("7th December, 2026", "07/12/2026"), a surname-first
staff sheet, a mail that moves a launch and raises its budget while the project page keeps the old values.
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

STAFF = """S/N,Title,Surname,Other Names,Known As,Designation,Official Email,Mobile
1,Mrs,Oyelaran,Bukola Titilayo,,Chief Executive Officer,bukola.oyelaran@paylane.ng,+234 803 771 2040
2,Engr.,Ekwueme,Obinna,,Head of Engineering,obinna.ekwueme@paylane.ng,0802 118 6634
3,Ms,Lawal-Ade,Mosunmola Adeola,Mosun,Product Manager,mosunmola.lawalade@paylane.ng,0806 552 7719
4,Mrs,Iroegbu,Uzoamaka,,Finance Manager,uzoamaka.iroegbu@paylane.ng,0817 300 2291
5,Mr,Nwosu,Ikechukwu Dozie,Ike,Chief Operating Officer,ikechukwu.nwosu@paylane.ng,0803 440 9182
"""

EXCO = """# EXCO minutes — 12th October, 2026

Present: Mrs Bukola Oyelaran (chair), Obinna Ekwueme, Mosunmola Lawal-Ade, Mrs Uzoamaka Iroegbu

## Project Ugwu (merchant wallet)
- EXCO approved a budget of ₦36.4m (N36,400,000.00) for Ugwu.
- Go-live: Monday 7th December, 2026.
- Mosunmola Lawal-Ade leads Ugwu.

## Project Ebony (settlement files)
- Budget of NGN 9.6 million approved. Obinna Ekwueme leads Ebony.
"""

CHANGE = """From: Obinna Ekwueme <obinna.ekwueme@paylane.ng>
To: Mosunmola Lawal-Ade <mosunmola.lawalade@paylane.ng>
Cc: Uzoamaka Iroegbu <uzoamaka.iroegbu@paylane.ng>
Subject: Re: Ugwu go-live and budget
Date: Thu, 26 Nov 2026 18:02:00 +0100

Mosun,

The bank has not certified us, so we are not going live in December.

- The Ugwu budget goes up to ₦41.1m (N41,100,000.00) from ₦36.4m. Mrs Oyelaran approved it today.

Obinna
"""

VENDORS = """{"vendors": [
  {"vendor": "Ogbomoso Cloud Ltd", "service": "Hosting", "annual_contract_value": "N14,250,000.00",
   "renewal_date": "31/03/2027"},
  {"vendor": "Textpulse Ltd", "service": "SMS alerts", "annual_contract_value": "NGN 2.7 million",
   "renewal_date": "15/01/2027"}
]}
"""

LAUNCH = """From: Ike Nwosu <ikechukwu.nwosu@paylane.ng>
To: Mosunmola Lawal-Ade <mosunmola.lawalade@paylane.ng>, Ike Nwosu <ikechukwu.nwosu@paylane.ng>
Subject: Ugwu launch date
Date: Fri, 27 Nov 2026 09:10:00 +0100

Mosun,

The new go-live for Ugwu is Monday 18th January, 2027.

Ike
--
Ikechukwu Nwosu | COO
"""

UGWU_PAGE = """---
title: Project Ugwu
lead: Mosunmola Lawal-Ade
go_live: 07/12/2026
budget: ₦36.4m
---

# Project Ugwu

The merchant wallet.

## Team
- Project lead: Mosunmola Lawal-Ade (Mosun)
- Engineering: Obinna Ekwueme
"""

ROTA = """<html><head><title>Intranet | Support rota</title><script>var x = 1;</script></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/hr">HR</a></li></ul></nav>
<h1>Support on-call rota — December 2026</h1>
<table>
<thead><tr><th>Week</th><th>Primary</th><th>Backup</th></tr></thead>
<tbody>
<tr><td>Mon 07/12 – Mon 14/12</td><td>Obinna Ekwueme</td><td>Mosunmola Lawal-Ade</td></tr>
<tr><td>Mon 14/12 – Mon 21/12</td><td>Uzoamaka Iroegbu</td><td>Obinna Ekwueme</td></tr>
<tr><td>Mon 21/12 – Mon 28/12</td><td>Mosunmola Lawal-Ade</td><td>Uzoamaka Iroegbu</td></tr>
</tbody></table>
<footer>&copy; 2026 Paylane</footer></body></html>
"""

CHAT = """27/11/2026, 09:02 - Mosunmola Lawal-Ade: Morning all, standup moved to 10am
30/11/2026, 12:20 - Uzoamaka Iroegbu: My new work line is 0913 228 4410, the 0817 one is now personal only
30/11/2026, 12:21 - Mosunmola Lawal-Ade: Noted
"""

MERCHANTS = """Merchant ID,Merchant name,Area,Daily limit (NGN)
MX-201,Iya Ronke Foods,Ojota,"1,500,000"
MX-202,Okwuosa Phones,Computer Village,"4,000,000"
"""


@pytest.fixture(scope="module")
def firm(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "paylane", {
        "staff.csv": STAFF, "exco-2026-10-12.md": EXCO, "re-ugwu-budget.eml": CHANGE, "vendors.json": VENDORS,
        "merchants.csv": MERCHANTS, "ugwu-launch.eml": LAUNCH, "ugwu-project.md": UGWU_PAGE,
        "support-rota.html": ROTA, "WhatsApp Chat with Ugwu Team.txt": CHAT})
    yield engine
    engine.close()


@pytest.mark.parametrize("question, answer, wrong, right", [
    ("What budget was approved for Project Ebony?", "The approved budget for Project Ebony is NGN 6.9 million.",
     "NGN 6.9 million", "9.6 million"),
    ("What is the annual contract value with Ogbomoso Cloud?",
     "Ogbomoso Cloud Ltd hosts us. The annual contract value is N12,450,000.00.", "N12,450,000.00", "14,250,000.00"),
])
def test_a_wrong_naira_amount_is_corrected(firm, question, answer, wrong, right):
    result = checked(firm, question, answer)
    assert wrong in " ".join(f.content for f in result.hallucination_flags)
    assert right in result.delivered and "[corrected]" in result.delivered


def test_an_amount_in_naira_written_out_is_borne_out_by_the_sheet(firm):
    result = checked(firm, "What is Okwuosa Phones' daily limit?",
                     "Okwuosa Phones in Computer Village has a daily limit of 4,000,000 naira.")
    assert not result.hallucination_flags


def test_a_budget_raised_to_a_new_figure_from_the_old_replaces_only_the_old(firm):
    # "goes up to ₦41.1m (N41,100,000.00) from ₦36.4m": the old side after the new one and its bracketed
    # twin, with no comma; another project's budget in the same answer is not that change's old value.
    old = checked(firm, "What is the Ugwu budget?", "The approved budget for Project Ugwu is ₦36.4m.")
    assert "41.1m" in old.delivered and "[corrected]" in old.delivered
    other = checked(firm, "Who leads Ebony and what is its budget?",
                    "Obinna Ekwueme leads Project Ebony. The budget is NGN 9.6 million.")
    assert not other.hallucination_flags


@pytest.mark.parametrize("name, role, email", [
    ("Bukola Oyelaran", "Chief Executive Officer", "bukola.oyelaran@paylane.ng"),
    ("Mosunmola Lawal-Ade", "Product Manager", "mosunmola.lawalade@paylane.ng"),
    ("Obinna Ekwueme", "Head of Engineering", "obinna.ekwueme@paylane.ng"),
])
def test_a_surname_first_sheet_names_each_person_by_first_name_and_surname(firm, name, role, email):
    # "Surname | Other Names": the person is called by the first of their given names; "Title: Mrs" is how
    # they are addressed, "Designation" their job, "Official Email" their address.
    person = only_entity(firm, name)
    assert person.name == name
    assert (person.attributes["role"], person.attributes["email"]) == (role, email)
    assert not firm.kb.registry.find_by_alias("Bukola Titilayo")  # the given names alone are nobody


def test_a_name_opening_with_a_nickname_is_not_the_persons_name(firm):
    # Mail headers write "Ike Nwosu"; the sheet gives Ikechukwu Nwosu, known as Ike, and his signature's
    # "COO" is the sheet's "Chief Operating Officer" said shortly, not a newer job.
    person = only_entity(firm, "Ike Nwosu")
    assert person.name == "Ikechukwu Nwosu"
    assert person.attributes["role"] == "Chief Operating Officer"


def test_a_date_written_with_a_comma_before_its_year_is_corrected_so(firm):
    result = checked(firm, "When does Ugwu go live?", "Ugwu goes live on Monday 7th December, 2026.")
    assert "18th January, 2027 [corrected]" in result.delivered


def test_offline_a_phone_number_is_not_the_sheets_serial_number(firm):
    # "S/N" is the key s_n: its one-letter words are not "said" by the s and n inside other words.
    answer = offline_answer(firm, "What is Obinna Ekwueme's phone number?", "phone")
    assert "0802 118 6634" in answer and "s n" not in answer


def test_offline_a_firm_named_without_its_ltd(firm):
    # "the Ogbomoso Cloud contract" names Ogbomoso Cloud Ltd: its words are the name, not a key's.
    answer = offline_answer(firm, "When does the Ogbomoso Cloud contract renew?", "renew")
    assert "31/03/2027" in answer


def test_a_page_date_that_reads_two_ways_is_superseded_by_a_later_mail(firm):
    # The page's "go_live: 07/12/2026" (7 December or 12 July) is a date the mail's "new go-live … is"
    # replaces; the budget "goes up to ₦41.1m … from ₦36.4m" replaces the page's budget.
    history = firm.kb.registry.attribute_history(only_entity(firm, "Project Ugwu").id)
    status = {(r["key"], r["value"]): r["status"] for r in history}
    assert status[("go_live", "07/12/2026")] == "superseded"
    assert status[("budget", "₦36.4m")] == "superseded"
    result = checked(firm, "Is Ugwu still going live on 07/12/2026?",
                     "Yes, the Ugwu go-live is on 07/12/2026, as shown on the project page.")
    assert "07/12/2026" in " ".join(f.content for f in result.hallucination_flags)


def test_a_first_name_cut_short_in_brackets_is_no_job(firm):
    # "Project lead: Mosunmola Lawal-Ade (Mosun)": the name she goes by, not a role she once held.
    history = firm.kb.registry.attribute_history(only_entity(firm, "Mosunmola Lawal-Ade").id)
    assert all(r["value"] != "Mosun" for r in history if r["key"] == "role")
    answer = offline_answer(firm, "What does Mosun do?", "mosun")
    assert "Product Manager" in answer and "Mosun before" not in answer


def test_offline_an_intranet_tables_week_without_a_year_answers_a_day_in_it(firm):
    # A page's <th> header over rows of cells is a table of records, as a sheet is; its weeks, written
    # without a year, hold the day asked about, and of two weeks sharing a Monday the one starting on it.
    answer = offline_answer(firm, "Who is the primary on call for the week of Mon 14/12?", "rota")
    assert "primary is Uzoamaka Iroegbu" in answer


def test_a_new_number_a_chat_gives_is_not_corrected_back_to_the_sheets(firm):
    # The sheet's mobile is 0817 300 2291; her chat line says her new work line is 0913 228 4410. An answer
    # giving the new one is borne out by the chat ("30/11/2026, 12:20 - …:" is no field label either).
    result = checked(firm, "What is Uzoamaka's work number?",
                     "You can reach Uzoamaka Iroegbu, the Finance Manager, on 0913 228 4410.")
    assert "0913 228 4410" in result.delivered and "[corrected]" not in result.delivered


def test_a_full_naira_figure_is_corrected_in_the_answers_own_way(firm):
    # The minutes write "NGN 9.6 million"; an answer writing "N6,900,000.00" is corrected to
    # "N9,600,000.00", its mark, grouping and kobo kept.
    result = checked(firm, "What is the Ebony budget?", "The Ebony budget is N6,900,000.00.")
    assert "N9,600,000.00 [corrected]" in result.delivered
