"""A log written with day-first dates ("22/01/2027"), as offices in the UK and most of the world write
them. A date whose first number cannot be a month is the day: not a date off the calendar.
Real ChatEngine, SQLite, Chroma; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from

LOG = """ticket,raised,site,fault,engineer,status
T-7731,19/03/2027,Glenbervie Depot,Roller shutter jammed,Ruairidh Baxter,Closed
T-7738,24/03/2027,Kinloch Yard,Gate intercom dead,Halima Yusuf,Open
T-7742,29/03/2027,Glenbervie Depot,Forklift charger tripping,Ruairidh Baxter,Open
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "depots", {"fault-log.csv": LOG})
    yield engine
    engine.close()


def test_a_day_first_date_in_an_answer_is_a_real_date_that_the_log_states(engine):
    answer = "Ticket T-7738 for the Kinloch Yard gate intercom was raised on 24/03/2027 and is still open."
    response = checked(engine, "when was the kinloch yard intercom ticket raised?", answer)
    assert [f.hallucination_type for f in response.hallucination_flags] == []
    assert response.delivered == answer


def test_the_offline_answer_quoting_a_day_first_row_is_not_flagged(engine):
    response = engine.ask("when was the kinloch yard intercom ticket raised?", model="offline").response
    assert "24/03/2027" in response.delivered
    assert response.hallucination_flags == [], response.delivered
