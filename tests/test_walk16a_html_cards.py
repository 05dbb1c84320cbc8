"""A staff page written as HTML cards: each person's name is an <h3>, their job a sentence under it
(sometimes only in prose: "as our Workshop Technician"), then a line of phone and address. The parsed text
carries no "##" for the heading, so the parser's heading blocks are what make each card an entry.
Real ChatEngine, SQLite, Chroma; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

CARDS = """<!DOCTYPE html><html><head><title>Our people - Brackenmoor Trust</title></head><body>
<h1>Our people</h1>
<h2>Front of house</h2>
<div class="card"><h3>Oyelaran Adesanya</h3>
  <p>Oyelaran came to us from a museum in Leeds and has been our Collections Director since 2021.</p>
  <p>Tel: 01632 960 301<br>oyelaran.adesanya@brackenmoor.org.uk</p></div>
<div class="card"><h3>Wiktoria Zielinska</h3>
  <p>Bookings Manager (group visits, school trips, venue hire). Goes by Wiki.</p>
  <p>01632 960 318 &middot; wiktoria.zielinska@brackenmoor.org.uk</p></div>
<h2>Behind the scenes</h2>
<div class="card"><h3>Fergus Lennox</h3>
  <p>Fergus keeps the workshop running as our Workshop Technician, and is usually in the basement.</p>
  <p>07700 900 775 &middot; fergus.lennox@brackenmoor.org.uk</p></div>
<div class="card"><h3>Nadia Rahman</h3>
  <p>Our Volunteer Coordinator, Nadia recruits and trains the weekend guides.</p>
  <p>Office 01632 960 340 &middot; mobile 07700 900 912<br>nadia.rahman@brackenmoor.org.uk</p></div>
</body></html>
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "brackenmoor", {"our-people.html": CARDS})
    yield engine
    engine.close()


def test_each_card_of_an_html_staff_page_gives_its_person_a_role_phone_and_address(engine):
    bookings = only_entity(engine, "Wiktoria Zielinska").attributes
    # The bracketed list describes the job; it is no part of the title.
    assert bookings["role"] == "Bookings Manager"
    assert bookings["email"] == "wiktoria.zielinska@brackenmoor.org.uk"
    assert bookings["phone"] == "01632 960 318"
    # "Our" opens the sentence, not the title.
    assert only_entity(engine, "Nadia Rahman").attributes["role"] == "Volunteer Coordinator"


def test_a_job_told_only_in_a_cards_sentence_is_the_persons_role(engine):
    assert only_entity(engine, "Oyelaran Adesanya").attributes["role"] == "Collections Director"
    assert only_entity(engine, "Fergus Lennox").attributes["role"] == "Workshop Technician"


def test_the_name_a_card_says_someone_goes_by_finds_them(engine):
    assert only_entity(engine, "Wiki").name == "Wiktoria Zielinska"


def test_a_wrong_role_for_a_card_person_is_corrected_to_the_cards(engine):
    response = checked(engine, "what does fergus lennox do?", "Fergus Lennox is the Volunteer Coordinator.")
    assert [f.hallucination_type for f in response.hallucination_flags] == ["WrongAttribute"]
    assert response.delivered == "Fergus Lennox is the Workshop Technician [corrected]."


def test_the_right_role_and_phone_from_a_card_are_accepted(engine):
    answer = "Wiktoria Zielinska is the Bookings Manager; her number is 01632 960 318."
    response = checked(engine, "who handles bookings?", answer)
    assert response.hallucination_flags == []
    assert response.delivered == answer


def test_a_cards_second_number_is_another_way_to_reach_them_not_an_old_one(engine):
    # Two numbers on one card: neither replaced the other, so the mobile is no out-of-date value.
    answer = "Nadia Rahman's mobile is 07700 900 912."
    response = checked(engine, "whats nadia's mobile?", answer)
    assert response.hallucination_flags == []
    assert response.delivered == answer
    offline = engine.ask("what is nadia rahman's phone number?", model="offline").response.delivered
    assert "before" not in offline, offline
