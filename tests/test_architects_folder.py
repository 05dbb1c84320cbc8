"""An architects' studio folder: a project page with no date of its own and a later mail asking to
hold its planning submission until a day written on the next line, a fees sheet whose columns carry
their currency ("Invoiced (GBP)"), mails signed with a short name. Real ChatEngine, SQLite, Chroma
and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

PROJECT_PAGE = """---
title: Harbour Library extension
client: Wendlebury Borough Council
lead: Ines Calloway
---

# Harbour Library extension

Single-storey reading room on the east side of the Harbour Library, timber frame, green roof.

- Planning submission: 18 December 2026
- Fee: £46,500 (RIBA stages 1–4)
- Structural engineer: Pellowe Partnership
"""

# The mail wraps its line right after "until": the day is on the next line.
PLANNING_HOLD = """From: Ines Calloway <ines@kettlewellarchitects.co.uk>
To: Studio <studio@kettlewellarchitects.co.uk>
Date: Fri, 20 Nov 2026 16:40:00 +0000
Subject: Harbour Library - planning

Hi all,

Spoke to the council's planning officer this afternoon. They have asked us to hold the planning submission until
15 January 2027 so the heritage officer can review the elevations first.

Ines
"""

SITE_VISITS = """# Site visits

| Project | Site visit | Who |
|---|---|---|
| Harbour Library extension | 11 December 2026 | Ines, Tobiah |
| Quarry Lane houses | 16 December 2026 | Shivani |
"""

FEES = """Project,Client,Fee agreed (GBP),Invoiced (GBP),Stage
Harbour Library extension,Wendlebury Borough Council,46500,18600,Stage 3
Quarry Lane houses,Fenmoor Homes,31200,24960,Stage 4
"""

# Signed with a short form of her first name on the last line, and no closing.
WINDOWS = """From: Shivani Rautela <shivani@kettlewellarchitects.co.uk>
To: Ines Calloway <ines@kettlewellarchitects.co.uk>
Date: Thu, 26 Nov 2026 09:12:00 +0000
Subject: Quarry Lane - window schedule

Ines,

Fenmoor Homes signed off the window schedule yesterday. I'll issue the revised drawings on Monday.

Shiv
"""

# A closing, a blank line, then the name he goes by.
SAMPLES = """From: Tobiah Ashdown-Pryce <tobiah@kettlewellarchitects.co.uk>
To: Ines Calloway <ines@kettlewellarchitects.co.uk>
Date: Mon, 30 Nov 2026 11:05:00 +0000
Subject: Cladding samples

The larch cladding samples arrived this morning; they are on the plan chest.

Cheers,

Toby
"""

TEAM = """# Kettlewell Architects — studio

- Ines Calloway — Director (ines@kettlewellarchitects.co.uk)
- Shivani Rautela — Project Architect (shivani@kettlewellarchitects.co.uk)
- Tobiah Ashdown-Pryce — Part 2 Architectural Assistant (tobiah@kettlewellarchitects.co.uk)

Studio meeting: every Monday at 9:30.
"""


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "kettlewell", {
        "harbour-library-extension.md": PROJECT_PAGE, "2026-11-20-planning-hold.eml": PLANNING_HOLD,
        "site-visits.md": SITE_VISITS, "fees-2026.csv": FEES, "2026-11-26-quarry-lane.eml": WINDOWS,
        "2026-11-30-samples.eml": SAMPLES, "team.md": TEAM})
    yield engine
    engine.close()


def test_a_day_the_submission_is_held_until_replaces_the_project_pages_day(studio):
    result = checked(studio, "When is the Harbour Library planning submission?",
                     "The Harbour Library planning submission is on 18 December 2026.")
    assert "15 January 2027 [corrected]" in result.delivered
    assert [f.hallucination_type for f in result.hallucination_flags] == ["TemporalError"]


def test_held_until_replaces_only_a_day_the_sources_gave(studio):
    # 9 December is in no document: the hold says nothing of when Ines meets anyone.
    result = checked(studio, "When does Ines see the heritage officer?",
                     "Ines meets the Harbour Library heritage officer on 9 December.")
    assert "15 January" not in result.delivered


def test_a_column_with_its_currency_is_named_without_it(studio):
    answer = studio.ask("How much have we invoiced for Quarry Lane houses?", session="fees",
                        model="offline").response.delivered
    assert "invoiced (GBP) is 24960" in answer and "31200" not in answer


@pytest.mark.parametrize("alias, name", [("Shiv", "Shivani Rautela"), ("Toby", "Tobiah Ashdown-Pryce")])
def test_a_mail_signed_with_a_short_name_makes_it_an_alias(studio, alias, name):
    assert only_entity(studio, alias).name == name


def test_a_misspelt_last_word_is_corrected_by_the_word_before_it(studio):
    assert studio.turns.preprocess("when is the studio meting").corrected_input == "When is the studio meeting?"
