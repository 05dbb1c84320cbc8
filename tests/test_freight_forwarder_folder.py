"""A freight forwarder's folder in Singapore: a staff list of cards whose name line gives a Chinese name
family name first with the English name the person goes by in brackets ("Lau Jun Hao (Marcus)"), and a
contact line under it labelled as Singapore labels them ("DID" for the direct line, "HP" for the
handphone); mails signed and addressed with the English name ("Marcus Lau"); Malay and Tamil names with
bin/binti and s/o. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

STAFF = """# Harbourlink Cargo Pte Ltd — Staff Contact List

Main line +65 6733 4100. Pls inform Mei Ling (HR) if got any changes.

## Ocean Freight

**Lau Jun Hao (Marcus)** — Ocean Freight Manager
marcus.lau@harbourlinkcargo.com.sg · DID +65 6733 4112 · HP 9234 8761

**Seah Pei Wen (Vivian)** — Ocean Freight Executive
vivian.seah@harbourlinkcargo.com.sg · DID +65 6733 4115

**Toh Kian Seng (Victor)** — Head, Sea Freight
victor.toh@harbourlinkcargo.com.sg · DID +65 6733 4110

## Air Freight

**Ahmad Zulkifli bin Hassan** — Air Freight Supervisor
zulkifli.hassan@harbourlinkcargo.com.sg · DID +65 6733 4131 · HP 8345 1276

## Finance

**Suresh s/o Palaniappan** — Finance Manager
suresh.p@harbourlinkcargo.com.sg · DID +65 6733 4160
"""

MAIL = """From: Marcus Lau <marcus.lau@harbourlinkcargo.com.sg>
To: Vivian Seah <vivian.seah@harbourlinkcargo.com.sg>
Date: Tue, 24 Nov 2026 10:12:00 +0800
Subject: BKG-SG-26-0551 - SI cut-off

Vivian,

Pls send the SI for BKG-SG-26-0551 to the carrier by Thursday 26 Nov. The 2 x 40HC are on Wan Hai 316,
ETD 1 Dec 2026.

Can call me if got problem.

Marcus
"""


BOOKING = """From: Vivian Seah <vivian.seah@harbourlinkcargo.com.sg>
To: Marcus Lau <marcus.lau@harbourlinkcargo.com.sg>
Date: Fri, 20 Nov 2026 15:40:00 +0800
Subject: BKG-SG-26-0614 confirmed

Marcus, BKG-SG-26-0614 (1 x 20GP to Jakarta) is confirmed on Wan Hai 302, ETD 2 Dec 2026.

Vivian
"""

HANDOVER = """HANDOVER NOTES - Vivian Seah (on leave 30 Nov to 11 Dec 2026)
Written 27 Nov 2026

- BKG-SG-26-0614, 1x20GP to Jakarta: rolled, now Wan Hai 305 ETD 8 Dec 2026. Pls inform customer.
"""


ACCOUNT = """---
title: Pandan Valley Foods Pte Ltd — customer account
account_manager: Lau Jun Hao (Marcus)
---

# Pandan Valley Foods (PVF-0032)

## Contacts at customer

- Mdm Koh Siew Lan — Purchasing Manager, siewlan.koh@pandanvalley.com.sg, +65 6234 1188
- Mr Arjun s/o Nair — Shipping Executive, arjun.nair@pandanvalley.com.sg, 9765 4410
"""


PROJECT = """---
title: Project Kenanga — TMS rollout
owner: Lau Jun Hao (Marcus)
---

# Project Kenanga

Replace the spreadsheet trucking schedule with a TMS.

**Vendor PM:** Mr Benjamin Yeo, Routeflow Pte Ltd, benjamin.yeo@routeflow.com.sg

Sorry to inform, Wan Hai 302 (ETD 2 Dec 2026) is overbooked, so the pilot loads move to the next vessel.
"""


@pytest.fixture(scope="module")
def forwarder(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "harbourlink", {
        "staff-contact-list.md": STAFF, "2026-11-24-si-cut-off.eml": MAIL,
        "booking-0614.eml": BOOKING, "handover-vivian.txt": HANDOVER, "account-pandan-valley.md": ACCOUNT,
        "project-kenanga.md": PROJECT})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, role, email, phone, mobile", [
    ("Lau Jun Hao", "Ocean Freight Manager", "marcus.lau@harbourlinkcargo.com.sg", "+65 6733 4112", "9234 8761"),
    ("Seah Pei Wen", "Ocean Freight Executive", "vivian.seah@harbourlinkcargo.com.sg", "+65 6733 4115", None),
    ("Ahmad Zulkifli bin Hassan", "Air Freight Supervisor", "zulkifli.hassan@harbourlinkcargo.com.sg",
     "+65 6733 4131", "8345 1276"),
    ("Suresh s/o Palaniappan", "Finance Manager", "suresh.p@harbourlinkcargo.com.sg", "+65 6733 4160", None),
])
def test_a_card_with_did_and_hp_under_the_name_line_is_one_entry(forwarder, name, role, email, phone, mobile):
    attributes = only_entity(forwarder, name).attributes
    assert (attributes.get("role"), attributes.get("email")) == (role, email)
    assert (attributes.get("phone"), attributes.get("mobile")) == (phone, mobile)


def test_the_bracketed_english_name_is_the_name_they_go_by_not_a_job(forwarder):
    entities = forwarder.kb.registry.find_by_alias("Marcus Lau")
    assert [e.name for e in entities] == ["Lau Jun Hao"]
    assert "Marcus" in entities[0].aliases
    assert only_entity(forwarder, "Seah Pei Wen").attributes.get("role") != "Vivian"


def test_offline_the_mobile_of_someone_asked_by_their_english_name(forwarder):
    answer = offline_answer(forwarder, "What is Marcus Lau's mobile number?", session="hp")
    assert "9234 8761" in answer


def test_a_wrong_role_said_of_the_english_name_is_corrected(forwarder):
    result = checked(forwarder, "What does Marcus do?", "Marcus Lau is the Finance Manager.")
    assert "Ocean Freight Manager" in result.delivered and "[corrected]" in result.delivered


@pytest.mark.parametrize("line, wrong, right", [
    ("direct line", "+65 6733 4119", "+65 6733 4112"),  # the desk phone, not the mobile
    ("DID", "+65 6733 4119", "+65 6733 4112"),
    ("HP", "9234 8716", "9234 8761"),  # the mobile
])
def test_a_wrong_number_is_corrected_from_the_line_the_answer_names(forwarder, line, wrong, right):
    result = checked(forwarder, f"What is Marcus's {line}?", f"Marcus Lau's {line} is {wrong}.")
    assert f"{right} [corrected]" in result.delivered


def test_an_invented_malay_name_is_flagged_whole(forwarder):
    result = checked(forwarder, "Who handles air freight?",
                     "Ahmad Zulkifli bin Hassan supervises air freight. Siti Rohana binti Jamil books the flights.")
    flagged = [f.content for f in result.hallucination_flags if f.hallucination_type == "NonexistentEntity"]
    assert flagged == ["Siti Rohana binti Jamil"]


def test_a_note_dated_by_its_written_line_replaces_an_older_mails_etd(forwarder):
    result = checked(forwarder, "When does BKG-SG-26-0614 sail?",
                     "BKG-SG-26-0614 sails on Wan Hai 302, ETD Singapore 2 Dec 2026.")
    assert "8 Dec 2026 [corrected]" in result.delivered


@pytest.mark.parametrize("name, role, email", [
    ("Koh Siew Lan", "Purchasing Manager", "siewlan.koh@pandanvalley.com.sg"),
    ("Arjun s/o Nair", "Shipping Executive", "arjun.nair@pandanvalley.com.sg"),
])
def test_a_contact_line_of_job_address_and_phone_after_an_honorific(forwarder, name, role, email):
    attributes = only_entity(forwarder, name).attributes
    assert (attributes.get("role"), attributes.get("email")) == (role, email)
    assert not forwarder.kb.registry.find_by_alias(f"Mdm {name}")


def test_a_project_named_project_x_is_no_person_and_its_vendors_address_is_the_vendors(forwarder):
    assert all(e.type != "person" for e in forwarder.kb.registry.find_by_alias("Project Kenanga"))
    assert only_entity(forwarder, "Benjamin Yeo").attributes.get("email") == "benjamin.yeo@routeflow.com.sg"


def test_a_sailing_date_in_brackets_after_a_vessel_is_no_job(forwarder):
    for entity in forwarder.kb.registry.find_by_alias("Wan Hai"):
        assert "ETD" not in (entity.attributes.get("role") or "")


def test_a_wrong_role_said_of_the_english_name_and_family_name_is_corrected_surely(forwarder):
    result = checked(forwarder, "What does Vivian do?", "Vivian Seah is the Finance Manager.")
    assert "Vivian Seah is the Ocean Freight Executive [corrected]." in result.delivered


def test_head_comma_department_is_the_head_of_it(forwarder):
    assert only_entity(forwarder, "Toh Kian Seng").attributes.get("role") == "Head of Sea Freight"


def test_a_corrected_job_takes_the_article_it_wants(forwarder):
    result = checked(forwarder, "What does Marcus do?", "Marcus Lau is an Air Freight Supervisor.")
    assert "Marcus Lau is a Ocean" not in result.delivered
    assert "is an Ocean Freight Manager [corrected]" in result.delivered
    result = checked(forwarder, "What does Zulkifli do?", "Ahmad Zulkifli bin Hassan is an Ocean Freight Manager.")
    assert "is a Air" not in result.delivered and "is an Air Freight Supervisor [corrected]" in result.delivered
    result = checked(forwarder, "What does Vivian do?", "Vivian Seah is a Finance Manager.")
    assert "Vivian Seah is an Ocean Freight Executive [corrected]." in result.delivered
