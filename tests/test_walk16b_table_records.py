"""A Markdown table whose first column names each row though its header is no "Name" ("| Funder |
Awarded |"): each row is a record the answers are held to."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

GRANTS = """# Restricted funds, 2027

Kept by the finance office.

| Funder | Purpose | Requested | Awarded |
|---|---|---|---|
| Brindle Valley Foundation | Tidepool classroom | $40,000 | $31,500 |
| Harrowgate Civic Trust | Roof lantern repair | $12,000 | $12,000 |

| Step | Owner | When |
|---|---|---|
| send the final report | finance office | 7/31/2027 |
| check the roof lantern | estates | 3/1/2027 |
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "funds", {"restricted-funds.md": GRANTS})
    yield engine
    engine.close()


def test_a_first_column_of_names_names_each_row(engine):
    assert only_entity(engine, "Brindle Valley Foundation").attributes["awarded"] == "$31,500"
    # A column of lower-case steps is no list of names.
    assert not engine.kb.registry.find_by_alias("send the final report")


def test_a_wrong_amount_for_a_row_is_corrected_and_the_right_one_stands(engine):
    wrong = checked(engine, "how much did Brindle Valley give?", "The Brindle Valley Foundation awarded $13,500.")
    assert "$31,500" in wrong.delivered and "[corrected]" in wrong.delivered
    right = checked(engine, "how much did Brindle Valley give?", "The Brindle Valley Foundation awarded $31,500.")
    assert right.hallucination_flags == []
