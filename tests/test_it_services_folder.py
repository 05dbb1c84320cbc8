"""An IT services firm's folder in India: dates written day first with dashes ("14-12-2026"), rupee
amounts in lakh grouping ("₹48,50,000"), a go-live moved by a later mail, a rota keyed by week, a holiday
list keyed by date, mails to distribution lists, an intranet line that opens "Contact NAME (address)".
Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

CONTACTS = """# Tamarind Softworks — Pune office contacts

## Leadership
* **Hemant Joglekar** – Director, Delivery · hemant.j@tamarindsoft.in · +91 98220 31177
* **Rohini Bapat** – Head of People · rohini.bapat@tamarindsoft.in · +91 98906 20418

## Delivery
* **Kavya Menon** – Delivery Manager, Project Saranga · kavya.menon@tamarindsoft.in · +91 99230 55412
* **Kavya Rao** – Scrum Master · kavya.rao@tamarindsoft.in · +91 97660 43210
* **Aniket Gokhale** – Tech Lead · aniket.gokhale@tamarindsoft.in · +91 98500 71263
* **Tanvi Paranjpe** – QA Lead · tanvi.p@tamarindsoft.in · +91 90110 66578
"""

PROJECT = """---
title: Project Saranga — loan origination rebuild for Indrayani Urban Bank
owner: Kavya Menon
go_live: 14-12-2026
budget: ₹36,75,000
---

# Project Saranga

## People
- Delivery Manager: Kavya Menon
- Tech Lead: Aniket Gokhale

## Budget
The approved budget is ₹36,75,000, including a contingency of ₹3,00,000.
"""

MOVED = """From: Kavya Menon <kavya.menon@tamarindsoft.in>
To: Saranga Team <saranga-team@tamarindsoft.in>
Cc: Everyone Pune <pune-all@tamarindsoft.in>
Date: Thu, 26 Nov 2026 18:42:10 +0530
Subject: Saranga go-live moved to 11-01-2027

Hi all,

The bank's audit window clashes with our cut-over, so we are shifting.
Go-live is now Monday 11-01-2027 (earlier 14-12-2026). The budget stays at ₹36,75,000.

Thanks & regards,
Kavya
"""

INTRANET = """<html><body><main>
<h1>People news</h1>
<p>The insurance top-up enrolment closes on 15-12-2026. Contact Rohini Bapat (rohini.bapat@tamarindsoft.in) with questions.</p>
</main></body></html>
"""

ROTA = """{"roster": "Production support, December 2026",
 "entries": [
  {"week": "07-12-2026 to 13-12-2026", "primary": "Aniket Gokhale", "secondary": "Tanvi Paranjpe"},
  {"week": "14-12-2026 to 20-12-2026", "primary": "Tanvi Paranjpe", "secondary": "Kavya Rao"}
 ]}
"""

STATUS = """# Weekly delivery status — 23 Nov 2026

Attendees: Hemant Joglekar, Kavya Menon, Aniket Gokhale, Tanvi Paranjpe

## Project Kestrel (claims portal)
- Sprint 9 demo on 27-11-2026.
- Aniket leads; Tanvi on regression testing.

## Hiring
- Rohini leads the campus drive.
"""

LAPTOPS = """From: Rohini Bapat <rohini.bapat@tamarindsoft.in>
To: Hemant Joglekar <hemant.j@tamarindsoft.in>
Date: Mon, 30 Nov 2026 11:05:33 +0530
Subject: Laptop refresh - revised quote

Hemant, the vendor revised the laptop quote for the 18 new joiners.
New price: ₹72,400 per laptop (was ₹74,900).

Rohini
"""

MONITORS = """From: Hemant Joglekar <hemant.j@tamarindsoft.in>
To: Rohini Bapat <rohini.bapat@tamarindsoft.in>
Date: Wed, 2 Dec 2026 10:12:40 +0530
Subject: Re: Monitor order

Rohini,

Approved. Please raise the PO for 12 monitors at the revised rate of ₹18,900 per monitor.

Regards,
Hemant

On Mon, 30 Nov 2026 at 17:02, Rohini Bapat <rohini.bapat@tamarindsoft.in> wrote:
> Hi Hemant,
> The dealer has quoted ₹21,300 per monitor for 12 monitors, but will come down if we
> order this week.
> Rohini
"""

HOLIDAYS = """Date,Day,Holiday,Type
26-01-2027,Tuesday,Republic Day,National
31-03-2027,Wednesday,Gudi Padwa,Regional
01-05-2027,Saturday,Maharashtra Day,Regional
"""


@pytest.fixture(scope="module")
def firm(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "tamarind", {
        "contacts.md": CONTACTS, "project-saranga.md": PROJECT, "2026-11-26-saranga-moved.eml": MOVED,
        "people-news.html": INTRANET, "status-2026-11-23.md": STATUS, "support-rota.json": ROTA, "holidays-2027.csv": HOLIDAYS, "2026-11-30-laptop-quote.eml": LAPTOPS,
        "2026-12-02-re-monitor-order.eml": MONITORS})
    yield engine
    engine.close()


def test_a_date_written_day_first_with_dashes_is_corrected_to_the_later_mails(firm):
    result = checked(firm, "When does Saranga go live?", "Project Saranga goes live on 14-12-2026.")
    assert "goes live on 11-01-2027 [corrected]" in result.delivered
    assert any(str(f.hallucination_type) in ("TemporalError", "ContradictsFact") for f in result.hallucination_flags)


def test_an_amount_in_lakh_grouping_is_checked_and_corrected(firm):
    result = checked(firm, "What is the Saranga budget?", "Project Saranga has an approved budget of ₹37,65,000.")
    assert "₹36,75,000 [corrected]" in result.delivered
    right = checked(firm, "What is the Saranga budget?", "The budget stays at ₹36,75,000.")
    assert not right.hallucination_flags


def test_a_numeric_date_is_no_phone_number(firm):
    # "closes on 15-12-2026. Contact Rohini Bapat (…)" gave her a phone number "15-12-2026".
    attributes = only_entity(firm, "Rohini Bapat").attributes
    assert attributes.get("phone") == "+91 98906 20418"
    assert "15-12-2026" not in str(attributes)


def test_a_sentences_opening_verb_is_no_part_of_the_name(firm):
    assert not firm.kb.registry.find_by_alias("Contact Rohini Bapat")
    assert only_entity(firm, "Rohini Bapat").attributes["role"] == "Head of People"


def test_distribution_lists_are_no_people(firm):
    for listed in ("Saranga Team", "Everyone Pune"):
        assert all(e.type != "person" for e in firm.kb.registry.find_by_alias(listed)), listed


def test_a_holiday_list_keyed_by_date_names_its_rows_by_the_holiday(firm):
    row = only_entity(firm, "Gudi Padwa")
    assert row.type != "person" and row.attributes.get("date") == "31-03-2027"
    answer = firm.ask("When is Gudi Padwa in 2027?", session="hol", model="offline").response.delivered
    assert "31-03-2027" in answer


def test_offline_a_rota_week_is_found_by_a_day_inside_it(firm):
    answer = firm.ask("Who is the primary on call for the week of 14-12-2026?", session="rota",
                      model="offline").response.delivered
    assert "For 14-12-2026 to 20-12-2026, the primary is Tanvi Paranjpe." in answer
    later = firm.ask("Who is secondary on 16-12-2026?", session="rota2", model="offline").response.delivered
    assert "Kavya Rao" in later


def test_the_role_at_an_organisation_is_checked_against_its_holder(firm):
    result = checked(firm, "Who is the Head of People?", "The Head of People at Tamarind Softworks is Kavya Rao.")
    assert "is Rohini Bapat [corrected]" in result.delivered
    right = checked(firm, "Who is the Head of People?", "The Head of People at Tamarind Softworks is Rohini Bapat.")
    assert not right.hallucination_flags


def test_a_question_opening_with_a_slip_of_whats(firm):
    assert firm.turns.preprocess("wats kavyas extension").corrected_input.startswith("What's Kavya's extension")
    assert firm.turns.preprocess("wats is this").corrected_input.startswith("Wats is this")


def test_offline_who_leads_the_work_a_section_of_notes_is_about(firm):
    # "Aniket leads;" names nothing led: the section's heading does.
    answer = firm.ask("Who leads Project Kestrel?", session="kestrel", model="offline").response.delivered
    assert "Aniket Gokhale" in answer
    assert all(e.type != "project" for e in firm.kb.registry.find_by_alias("Hiring"))


def test_saying_who_a_first_name_is_gives_no_title(firm):
    # "Joglekar" ends like a job word ("Registrar"): a known name after "is" is no title all the same.
    result = checked(firm, "Who is Hemant?", "Hemant is Hemant Joglekar, Director, Delivery.")
    assert result.hallucination_flags == []


def test_offline_who_leads_a_project_is_its_owner_not_its_tech_lead(firm):
    # The page's "owner:" leads it; its "Tech Lead:" line answers only a question that names the tech lead.
    answer = firm.ask("Who leads Project Saranga?", session="saranga", model="offline").response.delivered
    assert "Kavya Menon" in answer and "Aniket" not in answer


def test_a_new_price_label_with_the_old_one_beside_it(firm):
    # "New price: ₹72,400 per laptop (was ₹74,900)": the bracketed old price is no second new one.
    right = checked(firm, "What is the laptop price now?", "The new price is ₹72,400 per laptop.")
    assert right.hallucination_flags == []
    old = checked(firm, "What is the laptop price now?", "The laptop price is ₹74,900 per laptop.")
    assert [(f.hallucination_type, f.content) for f in old.hallucination_flags] == [("TemporalError", "₹74,900")]
    assert "₹72,400 [corrected]" in old.delivered
    # A price no document gives is wrong, not out of date.
    wrong = checked(firm, "What is the laptop price now?",
                    "The vendor revised the laptop quote for the 18 new joiners: the new price is ₹76,400 per laptop.")
    assert [f.hallucination_type for f in wrong.hallucination_flags] == ["ContradictsFact"]


def test_a_price_the_reply_revises_is_corrected_though_the_reply_quotes_the_old_one(firm):
    # The reply is dated 2 December and quotes the 30 November mail it answers: the quoted ₹21,300 was
    # said then, and "the revised rate of ₹18,900" replaces it.
    wrong = checked(firm, "What price did we agree for the monitors?",
                    "Hemant approved the monitor order at ₹21,300 per monitor for 12 monitors.")
    assert [(str(f.hallucination_type), f.content) for f in wrong.hallucination_flags] == [("TemporalError", "₹21,300")]
    assert "₹18,900 [corrected] per monitor" in wrong.delivered
    right = checked(firm, "What price did we agree for the monitors?",
                    "Hemant approved 12 monitors at the revised rate of ₹18,900 per monitor.")
    assert not right.hallucination_flags
