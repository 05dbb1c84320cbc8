"""Answers over a small arts charity's folder, in the words its team uses: a fee offer written in German
("zzgl.") that the answer gives in English ("net plus expenses"), and a grant the team asked for that
the answer tells as "we requested". Neither is a claim made up. A volunteer allowance the answer words its
own way with the wrong amount is corrected, the two amounts being said of the same words, and so is a
wrong date of a fund's decision, which the notes give beside the fund's initials: the fund's long name
is one thing, not three words that pull the answer to another of its dates. Real ChatEngine, SQLite, Chroma and spaCy;
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

## Notes
- The Harwick Heritage Fund confirmed receipt of the application on 5 November 2026.
- HHF decision: expected 12 February 2027.
"""

VOLUNTEERS = """From: Joris Vanderlinde <joris@quillmere-arts.org>
To: volunteers@quillmere-arts.org
Subject: Mural weekends - volunteer shifts
Date: Mon, 9 Nov 2026 10:05:00 +0000

Hello everyone,

Shifts on the Elm Street mural run 9 to 1 and 1 to 5 on Saturdays. An $18 allowance per shift covers
bus fare and lunch. Please sign up on the sheet by Friday.

Joris
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "quillmere", {
        "2026-11-17-galerieboden-angebot.eml": OFFER, "project-elm-street-mural.md": GRANT,
        "2026-11-09-mural-volunteer-shifts.eml": VOLUNTEERS})
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


def test_a_wrong_amount_said_of_the_same_words_in_other_words_is_corrected(engine):
    response = checked(engine, "How much is the volunteer allowance per shift?",
                       "Volunteers receive an allowance of $25 per shift to pay for bus fare and lunch.")
    assert [(f.content, f.suggestion) for f in response.hallucination_flags] == [("$25", "$18")]
    assert "$18 [corrected]" in response.delivered


def test_a_long_name_counts_once_and_its_initials_name_it(engine):
    response = checked(engine, "When will the Harwick Heritage Fund decide?",
                       "A decision from the Harwick Heritage Fund is expected on 12 March 2027.")
    assert [(f.content, f.suggestion) for f in response.hallucination_flags] == [("12 March 2027", "12 February 2027")]
    assert "12 February 2027 [corrected]" in response.delivered
