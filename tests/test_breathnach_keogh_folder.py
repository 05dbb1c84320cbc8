"""A Dublin solicitors' folder (commercial property and employment): matter pages with a plan table, a
closing date and a fee estimate a later mail changes without naming the matter, euro amounts written
"€2.4m" and "EUR 2,900.00", a client greeting a solicitor by the name she goes by, a quoted client
signature, a mail client that drops the accents from Irish names ("Pol Mac Carthaigh", "Eoin O Riain
SC"). Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from chatapp.knowledge.extraction.values import find_amounts
from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

TEAM = """# Cluain Solicitors LLP — team

- **Sadhbh Ní Mhurchú** — Senior Associate, Property — sadhbh.nimhurchu@cluainlaw.ie — +353 1 554 3107
- **Ruairí Mac Giolla Íosa** — Managing Partner — ruairi.macgiollaiosa@cluainlaw.ie — +353 1 554 3101
- **Bríd Ó Néill** — Partner, Employment — brid.oneill@cluainlaw.ie — +353 1 554 3102
- **Colm Ó Gráda** — Legal Executive — colm.ograda@cluainlaw.ie — +353 1 554 3112
"""

PROPERTY_MATTER = """---
matter: 2026/0311
title: Larchfield Properties DAC - purchase of Block C, Kilcarbery Park
fee_earner: Sadhbh Ní Mhurchú
status: Contracts signed
updated: 2026-11-09
---

# Matter 2026/0311 — Block C, Kilcarbery Park

**Client:** Larchfield Properties DAC
**Purchase price:** €2.4m plus VAT
**Fee estimate:** €9,800 plus VAT and outlays
**Closing date:** 11th December 2026

## Plan

| Step | Owner | Due |
|---|---|---|
| Report on title | Colm Ó Gráda | 20/11/2026 |
| Closing | Sadhbh Ní Mhurchú | 11/12/2026 |
"""

EMPLOYMENT_MATTER = """---
matter: 2026/0322
title: Tullyvale Dairies Ltd - WRC unfair dismissal claim
lead: Bríd Ó Néill
status: Hearing listed
updated: 2026-11-10
---

# Tullyvale Dairies — WRC claim

- **Lead:** Bríd Ó Néill (Partner)
- **Counsel:** Eoin Ó Riain SC
- **Client contact:** Pól Mac Cárthaigh, HR Director, Tullyvale Dairies Ltd
- **Fee estimate:** €15,000 plus VAT
"""

CLOSING_MOVED = """From: Sadhbh Ní Mhurchú <sadhbh.nimhurchu@cluainlaw.ie>
To: Deirbhile Nic Aodha <deirbhile@larchfield.ie>
Date: Tue, 17 Nov 2026 15:02:00 +0000
Subject: RE: Block C - closing date

Hi Deirbhile,

The vendor has agreed that the closing date moves to 22nd January 2027. The price stays the same.

Kind regards,
Sadhbh

-----Original Message-----
From: Deirbhile Nic Aodha <deirbhile@larchfield.ie>
Sent: Tuesday 17 November 2026 10:40
To: Sadhbh Ní Mhurchú <sadhbh.nimhurchu@cluainlaw.ie>
Subject: Block C - closing date

> Hi Sive,
>
> Are we still closing before Christmas?
>
> Thanks,
> Deirbhile
>
> Deirbhile Nic Aodha
> Head of Estates, Larchfield Properties DAC
> M: 085 771 2093
"""

FEE_REVISED = """From: Bríd Ó Néill <brid.oneill@cluainlaw.ie>
To: Pol Mac Carthaigh <p.maccarthaigh@tullyvale.ie>
Date: Wed, 2 Dec 2026 16:20:00 +0000
Subject: RE: costs update

Pól,

The WRC has listed the case for two days. Our fee estimate is now €19,500 plus VAT (up from €15,000),
excluding counsel's fees.

Best regards,
Bríd
"""

BRIEF = """From: Bríd Ó Néill <brid.oneill@cluainlaw.ie>
To: Eoin O Riain SC <eoin.oriain@lawlibrary.ie>
Date: Tue, 24 Nov 2026 09:00:00 +0000
Subject: Tullyvale Dairies - brief

Dear Eoin,

Your brief fee is EUR 2,900.00 plus VAT for the hearing.

Kind regards,
Bríd
"""


@pytest.fixture(scope="module")
def firm(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "cluain", {
        "team.md": TEAM, "matter-2026-0311.md": PROPERTY_MATTER, "matter-2026-0322.md": EMPLOYMENT_MATTER,
        "2026-11-17-re-closing.eml": CLOSING_MOVED, "2026-12-02-re-costs.eml": FEE_REVISED,
        "2026-11-24-brief.eml": BRIEF})
    yield engine
    engine.close()


def test_a_bracketed_up_from_names_the_value_a_change_replaces(firm):
    # The mail names neither matter; the fee estimate it raises is the one that was €15,000.
    result = checked(firm, "What is our fee estimate on the Tullyvale claim?",
                     "Our fee estimate for the Tullyvale Dairies WRC claim is €15,000 plus VAT.")
    assert "€19,500 [corrected]" in result.delivered
    assert any(f.hallucination_type == "TemporalError" for f in result.hallucination_flags)


def test_a_plan_row_naming_the_changed_date_moves_with_it(firm):
    assert only_entity(firm, "Closing").attributes.get("due") == "22nd January 2027"
    result = checked(firm, "What's the closing date on Matter 2026/0311?", "Matter 2026/0311 closes on 11/12/2026.")
    assert "[corrected]" in result.delivered and "11/12/2026" not in result.delivered


def test_offline_who_leads_a_claim_named_by_its_client_is_not_the_clients_director(firm):
    answer = offline_answer(firm, "Who leads the Tullyvale Dairies WRC claim?", "lead")
    assert "Bríd Ó Néill" in answer and "HR Director" not in answer


def test_amounts_in_millions_and_with_a_currency_code_are_read_at_ingest():
    assert [v for _, v in find_amounts("Purchase price: €2.4m plus VAT")] == [("€", 2_400_000.0)]
    assert [v for _, v in find_amounts("brief fee EUR 2,900.00 plus VAT")] == [("€", 2900.0)]


def test_a_price_in_millions_plus_vat_is_corrected(firm):
    result = checked(firm, "What is Larchfield paying for Block C?",
                     "Larchfield Properties DAC is paying €4.2m plus VAT for Block C, Kilcarbery Park.")
    assert "€2.4m [corrected]" in result.delivered


def test_a_greeting_of_the_one_recipient_is_a_name_she_goes_by(firm):
    names = [r.canonical_name for r in firm.turns.preprocess("when is sives closing").resolved_entities]
    assert "Sadhbh Ní Mhurchú" in names


def test_a_quoted_signature_gives_its_writers_role(firm):
    attributes = only_entity(firm, "Deirbhile Nic Aodha").attributes
    assert (attributes.get("role"), attributes.get("mobile")) == ("Head of Estates", "085 771 2093")


def test_a_wrong_title_held_at_a_known_firm_is_flagged(firm):
    result = checked(firm, "Who is Deirbhile?", "Deirbhile Nic Aodha is the Finance Director of Larchfield Properties DAC.")
    assert "Head of Estates" in result.delivered


def test_a_header_without_accents_is_the_pages_person(firm):
    people = [e for e in firm.kb.registry.find_by_alias("Pól Mac Cárthaigh") if e.type == "person"]
    assert len(people) == 1 and people[0].attributes.get("email") == "p.maccarthaigh@tullyvale.ie"
    assert people[0].name == "Pól Mac Cárthaigh"
    # "Eoin O Riain SC" in a header: the unaccented "O" is a particle and the rank is no part of the name.
    assert only_entity(firm, "Eoin O Riain").attributes.get("email") == "eoin.oriain@lawlibrary.ie"


def test_a_wrong_person_as_counsel_is_flagged(firm):
    result = checked(firm, "Who is counsel on Tullyvale?",
                     "Colm Ó Gráda SC is counsel on the Tullyvale Dairies claim.")
    assert "[corrected]" in result.delivered and "O Riain" in result.delivered
