"""Answers over a small arts charity's folder, in the words its team uses: a fee offer written in German
("zzgl.") that the answer gives in English ("net plus expenses"), and a grant the team asked for that
the answer tells as "we requested". Neither is a claim made up. Real ChatEngine, SQLite, Chroma and spaCy;
names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from

OFFER = """From: "Dr. Ilka Brenneisen" <brenneisen@statik-brenneisen.de>
To: "Joris Vanderlinde" <joris@quillmere-arts.org>
Subject: Prüfung Galerieboden - Honorarangebot
Date: Tue, 17 Nov 2026 09:12:44 +0100

Sehr geehrter Herr Vanderlinde,

anbei unser Angebot für die Prüfung des Galeriebodens:

  Prüfhonorar:                      EUR 18.400,00 netto
  Nebenkosten pauschal 4 %:         EUR 736,00
  zzgl. 19 % USt.

Mit freundlichen Grüßen
Ilka Brenneisen
"""

GRANT = """---
title: Elm Street Mural
lead: Joris Vanderlinde
---

# Elm Street Mural

Application to the Harwick Heritage Fund submitted on 3 November 2026. Amount requested: $42,000.
Decision due 12 February 2027.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "quillmere", {
        "2026-11-17-galerieboden-angebot.eml": OFFER, "project-elm-street-mural.md": GRANT})
    yield engine
    engine.close()


def test_an_offer_told_as_net_plus_expenses_is_accepted(engine):
    response = checked(engine, "What did Dr. Brenneisen offer for the Galerieboden?",
                       "Dr. Brenneisen offered EUR 18.400,00 net plus 4 % expenses (EUR 736,00).")
    assert response.hallucination_flags == []
    assert response.recommendation == "Accept"


def test_what_we_asked_for_is_the_teams_doing_not_the_assistants_story(engine):
    response = checked(engine, "How much did we request from the Harwick Heritage Fund?",
                       "We requested $42,000 from the Harwick Heritage Fund for the Elm Street mural.")
    assert response.hallucination_flags == []


def test_the_wrong_amount_we_asked_for_is_still_flagged(engine):
    response = checked(engine, "How much did we request from the Harwick Heritage Fund?",
                       "We requested $24,000 from the Harwick Heritage Fund for the Elm Street mural.")
    assert [f.content for f in response.hallucination_flags] == ["$24,000"]
