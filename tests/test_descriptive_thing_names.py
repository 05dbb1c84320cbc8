"""A table's first cell that is a phrase, not a name: a project page's risk register makes "things" of its
risks ("Curd mill breaking down in the fair week"), and the everyday word that opens one is no short name
for it, as "Northgate" is for Northgate Cycle Works Ltd. Real ChatEngine, SQLite, Chroma and spaCy."""

from __future__ import annotations

import pytest

from tests.conftest import engine_learnt_from

PROJECT = """---
title: Dairy extension
owner: Nerys Podmore
---
# Dairy extension

A second cheese vat and a whey holding tank, in use from March 2027.

## Risks

| Risk | Owner | Mitigation |
|---|---|---|
| Curd mill breaking down in the fair week | Nerys Podmore | Keep the spare blades on site |
| Vat delivery slipping into the fair week | Tamsin Ogilvie | Confirm the delivery date by 15 January |
"""

SUPPLIERS = """# Suppliers

Pellowe Dairy Engineering Ltd installs the vat. Pellowe's engineer is on site for two days.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "dairy", {"dairy-extension.md": PROJECT,
                                                               "suppliers.md": SUPPLIERS})
    yield engine
    engine.close()


def test_the_everyday_word_opening_a_risk_is_not_capitalised_as_its_name(engine):
    pre = engine.turns.preprocess("how long does curd rest before milling?")
    assert pre.corrected_input == "How long does curd rest before milling?"
    assert not any("curd mill" in r.canonical_name.lower() for r in pre.resolved_entities)


def test_a_firms_coined_first_word_still_names_the_firm(engine):
    pre = engine.turns.preprocess("when is pellowe on site?")
    assert "Pellowe" in pre.corrected_input
