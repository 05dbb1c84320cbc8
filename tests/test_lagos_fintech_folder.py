"""A Lagos payments start-up's folder: naira written every way ("₦48.5m", "N12,500,000.00", "NGN 3.2
million", "₦850k", "4,000,000 naira"), day-first dates ("7th December, 2026", "07/12/2026"), a surname-first
staff sheet, a mail that moves a launch and raises its budget while the project page keeps the old values.
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from

STAFF = """S/N,Title,Surname,Other Names,Designation,Official Email,Mobile
1,Mrs,Oyelaran,Bukola,Chief Executive Officer,bukola.oyelaran@paylane.ng,+234 803 771 2040
2,Mr,Ekwueme,Obinna,Head of Engineering,obinna.ekwueme@paylane.ng,0802 118 6634
3,Ms,Lawal-Ade,Mosunmola,Product Manager,mosunmola.lawalade@paylane.ng,0806 552 7719
4,Mrs,Iroegbu,Uzoamaka,Finance Manager,uzoamaka.iroegbu@paylane.ng,0817 300 2291
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

MERCHANTS = """Merchant ID,Merchant name,Area,Daily limit (NGN)
MX-201,Iya Ronke Foods,Ojota,"1,500,000"
MX-202,Okwuosa Phones,Computer Village,"4,000,000"
"""


@pytest.fixture(scope="module")
def firm(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "paylane", {
        "staff.csv": STAFF, "exco-2026-10-12.md": EXCO, "re-ugwu-budget.eml": CHANGE, "vendors.json": VENDORS,
        "merchants.csv": MERCHANTS})
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
