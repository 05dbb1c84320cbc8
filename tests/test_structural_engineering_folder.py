"""A structural-engineering office's folder in Germany, mostly in English with German conventions: a staff
table with bilingual headers ("Funktion / Role") and academic titles ("Dipl.-Ing. …", "…, M.Sc."), a tender
page with bilingual labels, amounts as German writes them ("EUR 23.750,00", "6.480,00 €", "TEUR 85"),
dates as "11. Januar 2027", names typed without their umlauts, a deadline moved in a later mail whose
"(was …)" wraps onto the next line. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere
in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

TEAM = """# Ingenieurbüro Falkenried — Team

Stand: 03.11.2026

| Name | Funktion / Role | E-Mail | Telefon |
|---|---|---|---|
| Dr.-Ing. Björn Grünwald | Geschäftsführer / Managing Director | bjoern.gruenwald@falkenried-ing.de | +49 721 550340-10 |
| Dipl.-Ing. Ulrike Weißhaupt | Projektleiterin / Project Lead | ulrike.weisshaupt@falkenried-ing.de | +49 721 550340-20 |
| Maximilian Oberle, M.Sc. | Tragwerksplaner / Structural Engineer | max.oberle@falkenried-ing.de | +49 721 550340-24 |
| Dörte Kühnle | Büroleitung / Office Manager | doerte.kuehnle@falkenried-ing.de | +49 721 550340-0 |
"""

TENDER = """---
title: Rheinsteg Maxau — Ausschreibung Tragwerksplanung
updated: 2026-11-05
---

# Rheinsteg Maxau

- **Projektleiterin / Project lead:** Dipl.-Ing. Ulrike Weißhaupt
- **Abgabetermin / Submission deadline:** 14.12.2026, 12:00 Uhr
- **Honorarangebot / Fee offer:** EUR 98.400 netto (LPH 2–5)
"""

MOVED = """From: Ulrike Weißhaupt <ulrike.weisshaupt@falkenried-ing.de>
To: Björn Grünwald <bjoern.gruenwald@falkenried-ing.de>
Cc: Maximilian Oberle <max.oberle@falkenried-ing.de>
Subject: Rheinsteg - Abgabe verschoben
Date: Thu, 3 Dec 2026 08:30:00 +0100

Hallo Björn,

the city has moved the submission deadline. New deadline is 18.01.2027, 12:00
(was 14.12.2026). Our fee offer goes up as LPH 6 is added: new fee offer is EUR 104.900 netto
(was EUR 98.400).

Viele Grüße
Ulrike
"""

INVITATION = """From: Heike Sandmeier <heike.sandmeier@stadt-waldsee.de>
To: Ulrike Weißhaupt <ulrike.weisshaupt@falkenried-ing.de>
Subject: Vergabeunterlagen
Date: Mon, 9 Nov 2026 10:00:00 +0100

Sehr geehrte Frau Weißhaupt,

anbei die Unterlagen für den Rheinsteg Maxau (Vergabenummer VG-2026-0311).
Die Prüfung beginnt am 11. Januar 2027.

Mit freundlichen Grüßen
Heike Sandmeier
"""

COSTS = """# Parkhaus Durlach — Honorar

Fee (Honorar): TEUR 85 netto, LPH 1–4.
Prüfhonorar Prüfingenieur: EUR 23.750,00 netto.
SOFiSTiK maintenance renewal: 6.480,00 € per year.
"""


SUBCONTRACTORS = """{"nachunternehmer": [
  {"firma": "Baugrund Kraichgau GmbH", "leistung": "Baugrundgutachten", "telefon": "+49 7251 3322-0",
   "rahmenvertrag": "RV-2024-11"},
  {"firma": "Windkanal Pfinztal GmbH", "leistung": "Windkanalversuche", "telefon": "+49 7240 9180-5",
   "rahmenvertrag": null}
]}
"""


@pytest.fixture(scope="module")
def office(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "falkenried", {
        "team.md": TEAM, "rheinsteg.md": TENDER, "2026-12-03-abgabe-verschoben.eml": MOVED,
        "2026-11-09-vergabeunterlagen.eml": INVITATION, "parkhaus-durlach.md": COSTS,
        "nachunternehmer.json": SUBCONTRACTORS})
    yield engine
    engine.close()


@pytest.mark.parametrize("name, role, email", [
    ("Ulrike Weißhaupt", "Projektleiterin / Project Lead", "ulrike.weisshaupt@falkenried-ing.de"),
    ("Maximilian Oberle", "Tragwerksplaner / Structural Engineer", "max.oberle@falkenried-ing.de"),
    ("Björn Grünwald", "Geschäftsführer / Managing Director", "bjoern.gruenwald@falkenried-ing.de"),
])
def test_a_staff_table_with_bilingual_headers_and_academic_titles_gives_people(office, name, role, email):
    entity = only_entity(office, name)
    assert entity.type == "person"
    assert (entity.attributes.get("role"), entity.attributes.get("email")) == (role, email)
    assert entity.attributes.get("phone", "").startswith("+49 721 550340-")


def test_an_address_giving_a_short_first_name_makes_it_an_alias(office):
    assert "max" in [alias.lower() for alias in only_entity(office, "Maximilian Oberle").aliases]


def test_a_wrong_role_is_corrected_from_the_bilingual_table(office):
    result = checked(office, "What does Dörte Kühnle do?", "Dörte Kühnle is the BIM Coordinator.")
    assert "Office Manager" in result.delivered and "[corrected]" in result.delivered


def test_a_name_typed_without_its_umlauts_is_found(office):
    pre = office.turns.preprocess("whats bjoerns phone numbr")
    assert pre.corrected_input == "What's Björn's phone number?"
    assert "Björn Grünwald" in [e.canonical_name for e in pre.resolved_entities]


def test_a_reference_number_in_brackets_and_a_german_sign_off_are_no_people(office):
    for junk in ("Rheinsteg Maxau", "Viele Grüße"):
        assert all(e.type != "person" for e in office.kb.registry.find_by_alias(junk)), junk


def test_a_deadline_moved_with_was_on_the_next_line_is_corrected(office):
    result = checked(office, "When is the Rheinsteg bid due?", "The Rheinsteg Maxau submission deadline is 14.12.2026.")
    assert "18.01.2027 [corrected]" in result.delivered


def test_a_fee_offer_revised_in_a_later_mail_is_corrected(office):
    result = checked(office, "What is our fee offer for the Rheinsteg?",
                     "Our fee offer for the Rheinsteg Maxau is EUR 98.400 net.")
    assert "104.900" in result.delivered and "[corrected]" in result.delivered


def test_german_amounts_and_thousands_of_euros_are_read(office):
    right = checked(office, "What is the Parkhaus Durlach fee and the Prüfhonorar?",
                    "The Parkhaus Durlach fee is €85,000 net, and the Prüfhonorar is EUR 23.750,00 net.")
    flagged = " ".join(f.content for f in right.hallucination_flags if f.hallucination_type != "UnsupportedAnswer")
    assert "85,000" not in flagged and "23.750,00" not in flagged, flagged
    wrong = checked(office, "What is the Parkhaus Durlach fee?", "The Parkhaus Durlach fee is TEUR 58 net.")
    assert "TEUR 85 [corrected]" in wrong.delivered


def test_a_german_date_is_read_and_corrected_in_german(office):
    right = checked(office, "When does the check start?", "The Prüfung starts on 11. Januar 2027.")
    assert not right.hallucination_flags, [f.content for f in right.hallucination_flags]
    from chatapp.knowledge.extraction.values import find_dates
    from chatapp.postprocess.values import find_values

    assert [d.isoformat() for _, d in find_dates("am 7. Dezember 2026 und 30. Nov. 2026")] == ["2026-12-07", "2026-11-30"]
    assert not [v for v in find_values("3. May we start?") if v.kind == "date"]  # a numbered list, no date


def test_a_things_number_is_no_phone_number(office):
    from chatapp.lexicon import concepts_asked

    assert "phone" not in concepts_asked("What is the framework contract number of Baugrund Kraichgau?")
    assert "phone" in concepts_asked("What is Dörte's number?") and "phone" in concepts_asked("whats dörtes number")
    answer = office.ask("What is the framework contract number of Baugrund Kraichgau?", session="contract",
                        model="offline").response.delivered
    assert "RV-2024-11" in answer and "phone is" not in answer


def test_a_deadline_said_with_its_verb_is_corrected(office):
    # "must be submitted by" says the page's "Submission deadline": the verb of the "-ssion" noun, and a
    # date that is a deadline.
    result = checked(office, "When is the Rheinsteg bid due?",
                     "The Rheinsteg Maxau bid must be submitted on the platform by 14.12.2026.")
    assert "18.01.2027 [corrected]" in result.delivered
