"""Phone numbers as German and Finnish offices write them, and numbers that are no phone: a German line
with its extension after a hyphen ("+49 711 3905528-0"), a subscriber number of seven or eight figures
("+358 40 1234567"), an ISBN. Values read by the checks, then a signature learnt by a real ingest and an
answer with a wrong number corrected; a vendor row's number is its contact's too. Names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from chatapp.postprocess.values import find_values
from tests.conftest import checked, engine_learnt_from, offline_answer, only_entity


def kinds(text: str) -> list[tuple[str, str]]:
    return [(f.text, f.vtype) for f in find_values(text)]


def test_a_german_line_with_its_extension_is_one_phone_number():
    assert kinds("Tel. +49 711 3905528-0") == [("+49 711 3905528-0", "phone")]
    assert kinds("Fax 0711 3905528-99") == [("0711 3905528-99", "phone")]
    assert kinds("Durchwahl 030-2345678-21") == [("030-2345678-21", "phone")]


def test_a_long_subscriber_number_is_a_phone():
    assert kinds("Puhelin +358 40 1234567") == [("+358 40 1234567", "phone")]


def test_a_register_number_with_its_check_figure_is_still_a_reference():
    assert kinds("Y-tunnus 3011456-1") == [("3011456-1", "code")]


def test_an_isbn_is_no_phone_number():
    assert all(kind != "phone" for _, kind in kinds("Reading: ISBN 978-3-16-148410-0, chapter 4"))
    assert all(kind != "phone" for _, kind in kinds("ISBN: 978-0-14-044913-6"))


MAIL = """From: "Dr. Ilka Brenneisen" <brenneisen@statik-brenneisen.de>
To: "Joris Vanderlinde" <joris@quillmere-arts.org>
Subject: Galerieboden - Termin
Date: Tue, 17 Nov 2026 09:12:44 +0100

Sehr geehrter Herr Vanderlinde,

wir kommen am Montag zur Begehung. Zur Vorbereitung: ISBN 978-3-16-148410-0, Kapitel 4.

Mit freundlichen Grüßen
Ilka Brenneisen

--
Dr.-Ing. Ilka Brenneisen
Prüfingenieurin für Baustatik (Massivbau, Holzbau)
Tel. +49 711 3905528-0
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "brenneisen", {"2026-11-17-galerieboden-termin.eml": MAIL})
    yield engine
    engine.close()


def test_a_signature_under_a_titled_name_gives_the_whole_job_and_german_phone_and_no_isbn(engine):
    # "Dr.-Ing. Ilka Brenneisen" on the signature's first line is her name with its titles.
    person = only_entity(engine, "Ilka Brenneisen")
    assert person.attributes.get("phone") == "+49 711 3905528-0"
    assert person.attributes.get("role") == "Prüfingenieurin für Baustatik (Massivbau, Holzbau)"


def test_an_answer_with_the_wrong_extension_is_flagged(engine):
    response = checked(engine, "What is Dr. Brenneisen's phone number?",
                       "Dr. Brenneisen's phone number is +49 711 3905528-9.")
    assert [f.content for f in response.hallucination_flags] == ["+49 711 3905528-9"]
    assert "+49 711 3905528-0" in response.delivered


VENDORS = """Vendor,Service,Contact,Email,Phone
Halvorsen Signs Ltd,Signage,Brigid Tammaro,brigid@halvorsensigns.co.uk,0161 496 0733
Copperleaf Catering,Catering,Anand Verhoeven,anand.v@copperleaf.co.uk,0161 496 0821
"""


@pytest.fixture(scope="module")
def vendors(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "vendors", {"vendors.csv": VENDORS})
    yield engine
    engine.close()


def test_a_vendor_rows_phone_reaches_its_contact_too(vendors):
    # The row is the firm's, and its number is how to reach the contact it names.
    assert only_entity(vendors, "Brigid Tammaro").attributes.get("phone") == "0161 496 0733"
    assert only_entity(vendors, "Halvorsen Signs Ltd").attributes.get("phone") == "0161 496 0733"
    answer = offline_answer(vendors, "What is Brigid Tammaro's phone number?", "vendors")
    assert "0161 496 0733" in answer and "0161 496 0821" not in answer
