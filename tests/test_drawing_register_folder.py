"""A German drawing register (semicolons, "Titel" over each drawing's title) beside a Swedish staff
table ("Titel" over each person's job). A drawing's title is no job: asked who drew a drawing, the
offline answer gives the register's row, with its author. Real ingest and offline answers; names
that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import engine_learnt_from, offline_answer, only_entity

REGISTER = """Plannummer;Titel;Index;Maßstab;Datum;Ersteller;Prüfer;Status
QB-3107-TW-001;Übersichtsplan Steg / General arrangement;B;1:200;07.12.2026;Mirko Falkenhain;Greta Uhlendorf;Entwurf
QB-3107-TW-002;Auflagerdetail / Bearing seat detail;A;1:10;02.12.2026;Tomke Brauneis;Greta Uhlendorf;Entwurf
"""

STAFF = """Namn;Titel;E-post
Liv Sandquist;Projektledare;liv.sandquist@fjordbro.se
Oskar Wennberg;Konstruktör;oskar.wennberg@fjordbro.se
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "quaybridge", {"planliste.csv": REGISTER, "personal.csv": STAFF})
    yield engine
    engine.close()


def test_a_staff_tables_titel_is_each_persons_job(engine):
    assert only_entity(engine, "Liv Sandquist").attributes.get("role") == "Projektledare"


def test_a_drawing_registers_titel_names_the_drawing_and_is_no_job(engine):
    drawing = only_entity(engine, "Auflagerdetail / Bearing seat detail")
    assert "role" not in drawing.attributes
    assert drawing.attributes.get("plannummer") == "QB-3107-TW-002"


def test_asked_who_drew_a_drawing_the_answer_gives_its_row_and_author(engine):
    answer = offline_answer(engine, "Who drew the bearing seat detail?", "drawings")
    assert "Tomke Brauneis" in answer
    assert "role is" not in answer
