"""A small charity's folder: minutes whose date is only in their header, a project page that gives a
new date before the one it replaced ("9 June 2027 (moved from 26 May)"), a price table that writes
"incl. VAT". Real ChatEngine, SQLite, Chroma; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from

MINUTES = """# Trustees' meeting minutes

7pm, Rowan Hall

Present: Ailsa Drummond (Chair), Kwabena Asante, Zofia Mazur

## 1. Apologies
None.

## 2. Accounts
The treasurer's report was noted.

## 3. Orchard path resurfacing
Kwabena presented the tenders. The path contractor's start has moved to 14 April 2027 because the
ground is still waterlogged.

**Decision:** the trustees approved the orchard path resurfacing at a cost of £18,750.
"""

PAGE = """# Kitchen garden polytunnel

**Lead:** Zofia Mazur
**Build date:** 9 June 2027 (moved from 26 May, see Zofia's note)

## Costs

| Item | Amount |
|---|---|
| Polytunnel kit (Greenvale Frames, incl. VAT) | £4,380 |
| Staging and benches | £1,120 |
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "rowan", {
        "2027-03-10-trustees.md": MINUTES, "polytunnel.md": PAGE})
    yield engine
    engine.close()


def test_the_date_of_the_retrieved_minutes_is_no_invention(engine):
    # Only the file name dates the minutes; they also say the contractor's start "has moved to" another
    # day, which is no reason to move the meeting's.
    answer = "At their meeting on 10 March 2027 the trustees approved the orchard path resurfacing at £18,750."
    response = checked(engine, "what did the trustees approve for the orchard path?", answer)
    assert response.hallucination_flags == []
    assert response.delivered == answer


def test_a_date_the_minutes_say_something_moved_away_from_is_corrected_to_the_new_one(engine):
    # Nothing retrieved gives the old date at all; the minutes say the start has moved, and to when.
    response = checked(engine, "when does the orchard path contractor start?",
                       "The orchard path contractor starts on 31 March 2027.")
    assert "14 April 2027 [corrected]" in response.delivered
    assert "31 March 2027" not in response.delivered


def test_a_new_date_written_before_the_one_it_replaced_corrects_the_old_one(engine):
    response = checked(engine, "when is the polytunnel being built?", "The kitchen garden polytunnel is built on 26 May.")
    assert [f.hallucination_type for f in response.hallucination_flags] == ["TemporalError"]
    assert "9 June [corrected]" in response.delivered


def test_the_new_date_itself_is_accepted(engine):
    answer = "The kitchen garden polytunnel is built on 9 June 2027."
    response = checked(engine, "when is the polytunnel being built?", answer)
    assert response.hallucination_flags == []
    assert response.delivered == answer


def test_an_amount_a_digit_off_a_price_written_incl_vat_is_a_contradiction_not_an_invention(engine):
    response = checked(engine, "how much is the polytunnel kit?",
                       "The Greenvale Frames polytunnel kit costs £4,830 including VAT.")
    flags = [(f.hallucination_type, f.suggestion) for f in response.hallucination_flags]
    assert flags == [("ContradictsFact", "£4,380")]
