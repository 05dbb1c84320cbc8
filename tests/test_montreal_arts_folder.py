"""A bilingual Montréal community arts centre's folder: a project page in French whose front matter says who
is "responsable", a French mail that postpones the festival ("est donc reporté au samedi 12 juin 2027") and
minutes that raise a fee "de 2 500 $ à 2 800 $"; amounts written the French way ("38 500 $", "12 500,00 $"),
dates with French month names, clock times as "18 h 34" and extensions as "poste 204". The user asks in
English. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from chatapp.postprocess import values as V
from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity

PAGE = """---
titre: Fête des ruelles 2027
responsable: Louis-Philippe Caron
date_fete: 2027-05-22
budget: 41 800 $
---

# Fête des ruelles 2027

**Responsable :** Louis-Philippe Caron (Coordonnateur des programmes)

La fête aura lieu le samedi 22 mai 2027 dans la ruelle Boyer, de 11 h à 19 h.

| Poste | Montant |
|---|---|
| Cachets des artistes (5 × 2 500 $) | 12 500 $ |
| Matériel | 6 300 $ |
"""

DIRECTORY = """# Répertoire

### Louis-Philippe Caron
Coordonnateur des programmes / Programs Coordinator
Courriel : lp.caron@ateliersduquai.example
Tél. : 514-555-0199 poste 204

### Marc-André Thibodeau
Responsable des communications / Communications Manager
Courriel : ma.thibodeau@ateliersduquai.example
Tél. : 514-555-0199 poste 203

### Annie Bergeron-Roy
Directrice générale / Executive Director
Courriel : annie.bergeron@ateliersduquai.example
Tél. : 514-555-0199 poste 201
"""

MAIL = """From: Annie Bergeron-Roy <annie.bergeron@ateliersduquai.example>
To: Louis-Philippe Caron <lp.caron@ateliersduquai.example>
Subject: Re: Ruelle Boyer - date de la fete
Date: Thu, 19 Nov 2026 08:05:12 -0500

Bonjour Louis-Philippe,

L'arrondissement ne peut pas nous donner la ruelle en mai à cause des travaux. La Fête des ruelles est
donc reportée au samedi 12 juin 2027, même horaire.

On demande toujours 38 500 $ au Conseil des arts pour la fête, et la réponse est attendue le 15 février 2027.

PS for Declan: the crew's wage goes up to $32 per hour, from $28.

Annie
"""

SIGNED = """From: Louis-Philippe Caron <lp.caron@ateliersduquai.example>
To: Annie Bergeron-Roy <annie.bergeron@ateliersduquai.example>
Subject: Budget de la fete
Date: Wed, 14 Oct 2026 17:48:31 -0400

Bonjour Annie,

Le budget de la Fête des ruelles est prêt, il est dans le dossier partagé.

Bonne soirée,
L-P

--
Louis-Philippe Caron
Coordonnateur des programmes | Programs Coordinator
514-555-0199 poste 204
"""

VOLUNTEERS = """Prénom,Nom,Courriel,Rôle,Téléphone
Declan,O'Connor,declan.oc@example.org,Bénévole — équipe de montage,514-555-0377
Priya,Raman,priya.raman@example.org,Volunteer — front desk,438-555-0101
Annie,Bergeron-Roy,annie.bergeron@ateliersduquai.example,Directrice générale,514-555-0199 poste 201
"""

MINUTES = """# Comité de programmation — 24 novembre 2026

Présents : Annie Bergeron-Roy, Louis-Philippe Caron

## Cachets
Le comité propose de hausser le cachet par artiste de 2 500 $ à 2 800 $ pour la Fête des ruelles.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "ateliers-du-quai", {
        "fete-des-ruelles.md": PAGE, "repertoire.md": DIRECTORY, "2026-11-19-re-ruelle-boyer.eml": MAIL,
        "pv-comite-2026-11-24.md": MINUTES, "2026-10-14-budget.eml": SIGNED,
        "benevoles.csv": VOLUNTEERS})
    yield engine
    engine.close()


def test_french_dates_amounts_times_and_extensions_are_values():
    found = {f.text: f.parsed for f in V.find_values(
        "Le mer. 18 nov. 2026, à 09 h 14 : on demande 38 500 $ (12 500,00 $ déjà reçus) le 1er mars 2027, "
        "de 11 h à 19 h, au 514-555-0199 poste 204.")}
    assert found["18 nov. 2026"] == V.DateValue(year=2026, month=11, day=18)
    assert found["1er mars 2027"] == V.DateValue(year=2027, month=3, day=1)
    assert found["38 500 $"] == 38500.0 and found["12 500,00 $"] == 12500.0
    assert found["09 h 14"] == 9 * 60 + 14 and found["11 h"] == 11 * 60 and found["19 h"] == 19 * 60
    assert found["514-555-0199 poste 204"] == "5145550199x204"
    # An hour count in English stays a number: "a 3 h drive" is no clock time.
    assert [f.vtype for f in V.find_values("a 3 h drive")] == ["number"]


def test_a_french_mail_postponing_the_day_corrects_the_pages_old_one(engine):
    english = checked(engine, "When is the Fête des ruelles?",
                      "The Fête des ruelles takes place on Saturday, May 22, 2027 in the ruelle Boyer.")
    assert "June 12, 2027 [corrected]" in english.delivered
    french = checked(engine, "When is the Fête des ruelles?",
                     "La Fête des ruelles aura lieu le samedi 22 mai 2027 dans la ruelle Boyer.")
    assert "12 juin 2027 [corrected]" in french.delivered  # corrected in the answer's language


def test_a_fee_raised_from_one_french_amount_to_another_replaces_the_old(engine):
    old = checked(engine, "What is the artist fee for the Fête des ruelles?",
                  "Each artist is paid 2 500 $ for the Fête des ruelles.")
    assert "2 800 $ [corrected]" in old.delivered


def test_french_and_english_amounts_compare(engine):
    right = checked(engine, "How much did we ask the Conseil des arts for the Fête des ruelles?",
                    "We asked the Conseil des arts for $38,500 for the Fête des ruelles.")
    # The figure is the mail's, written the English way: nothing calls it wrong.
    assert "[corrected]" not in right.delivered
    assert not [f for f in right.hallucination_flags if f.hallucination_type in ("WrongAttribute", "ContradictsFact")]
    wrong = checked(engine, "How much did we ask the Conseil des arts for the Fête des ruelles?",
                    "We asked the Conseil des arts for 35 800 $ for the Fête des ruelles.")
    assert "38 500 $ [corrected]" in wrong.delivered


def test_a_poste_extension_is_checked(engine):
    wrong = checked(engine, "What is Louis-Philippe Caron's phone number?",
                    "You can reach Louis-Philippe Caron at 514-555-0199 poste 209.")
    assert "poste 204" in wrong.delivered and "[corrected]" in wrong.delivered


def test_the_responsable_of_a_project_page_leads_it(engine):
    assert "Louis-Philippe Caron" in offline_answer(engine, "Who leads the Fête des ruelles?", "lead")


def test_a_french_title_said_of_the_wrong_person_is_corrected(engine):
    wrong = checked(engine, "What does Louis-Philippe Caron do?",
                    "Louis-Philippe Caron is the Directeur général of the Ateliers du Quai.")
    assert "Coordonnateur des programmes" in wrong.delivered and "[corrected]" in wrong.delivered
    assert "Directeur général" not in wrong.delivered


def test_initials_signed_under_a_french_closing_name_the_sender(engine):
    assert only_entity(engine, "L-P").name == "Louis-Philippe Caron"


def test_prenom_and_nom_columns_make_one_person_and_an_apostrophe_surname_is_no_job(engine):
    # "O'Connor" ends like "Coordinator" but no job title has an apostrophe.
    assert only_entity(engine, "Declan O'Connor").name == "Declan O'Connor"
    assert "declan.oc@example.org" in offline_answer(engine, "What is Declan O'Connor's email?", "volunteer")


def test_a_hyphenated_name_typed_without_accents_gets_them_back(engine):
    # "andre" alone is a common word; typed as the whole name, it is that name.
    pre = engine.preprocess("whats marc-andre thibodeaus email")
    assert pre.corrected_input == "What's Marc-André Thibodeau's email?"
    assert [e.canonical_name for e in pre.resolved_entities] == ["Marc-André Thibodeau"]


def test_a_role_word_before_another_job_word_is_part_of_a_longer_title(engine):
    # "Volunteer" is a role the list gives only Priya Raman; "a volunteer photographer" is no claim of it.
    right = checked(engine, "Who takes the photos?", "Declan O'Connor, a volunteer photographer, takes the photos.")
    assert "[corrected]" not in right.delivered


def test_a_rate_that_goes_up_from_its_old_value_replaces_it_written_the_answers_way(engine):
    # The answer words it otherwise ("is paid"), but "per hour" ties it to the change's "$32 per hour".
    old = checked(engine, "How much is the set-up crew paid?", "Each installer earns 28 $ per hour.")
    assert "32 $ [corrected]" in old.delivered
