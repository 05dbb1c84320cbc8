"""A Japanese-owned parts plant's folder in the US: a staff table listing expatriates given name first with
their family name again in capitals ("Kazuo Ishida [ISHIDA]"), mails from the parent's suppliers signed
"FAMILY Given", a project page keeping a launch date and a tooling quote that later mails revise
("moves to Apr. 6, 2027 (was Mar. 9)", "JPY 22.4M (was JPY 24.1M)"), dates written year first with
slashes ("2027/03/09"), and meeting notes giving days as bare figures ("visit 10/27"). Real ChatEngine,
SQLite, Chroma and spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

STAFF = """# Plant staff directory

| Name | Title | Email | Ext. |
|---|---|---|---|
| Kazuo Ishida [ISHIDA] | General Coordinator / Liaison | kazuo.ishida@brightaxle-us.com | 3005 |
| Rhonda Pettibone | Quality Manager | rhonda.pettibone@brightaxle-us.com | 3210 |
| Noboru Fujikawa [FUJIKAWA] | Process Engineer | noboru.fujikawa@brightaxle-us.com | 3310 |
| Terrence Vuckovich | Buyer | terrence.vuckovich@brightaxle-us.com | 3402 |
"""

PROJECT = """---
title: Project Kestrel - housing line launch
owner: ISHIDA Kazuo
status: Tooling
---

# Project Kestrel

**Project lead:** Kazuo Ishida
**Capital budget:** $640,000

| Milestone | Date |
|---|---|
| Tooling trial parts at the plant | 2027/02/08 |
| PPAP submission to the customer | 2027/03/09 |

Mould quote Q-5512 from Hamana Kanagata: **¥24,100,000**.
"""

PPAP_MAIL = """From: Kazuo Ishida <kazuo.ishida@brightaxle-us.com>
To: Rhonda Pettibone <rhonda.pettibone@brightaxle-us.com>
Subject: Re: Kestrel PPAP timing
Date: Thu, 19 Nov 2026 08:05:44 -0500

Rhonda-san,

Decision: the PPAP submission for the housing moves to Apr. 6, 2027 (was Mar. 9).
The capital budget does not change.

Best regards,
Ishida

--
Kazuo Ishida (ISHIDA Kazuo)
General Coordinator / Liaison
"""

QUOTE_MAIL = """From: FUJIMORI Haruto <h.fujimori@hamana-kanagata.co.jp>
To: Terrence Vuckovich <terrence.vuckovich@brightaxle-us.com>
Subject: Q-5512 rev.1 - mould change
Date: Tue, 24 Nov 2026 09:30:00 +0900

Dear Mr. Vuckovich,

We revised the quotation because the cooling insert is reused from the old mould.

Q-5512 rev.1: JPY 22.4M (was JPY 24.1M), FOB Hamamatsu.
Trial parts: 2027/02/15 (one week later than before).

Best regards,
Haruto Fujimori (FUJIMORI Haruto)
Sales Manager
"""

QUALITY_NOTES = """# Quality review - October 20, 2026

- Supplier Dellwood Foundry: two rejected lots. Rhonda to visit 10/27 and issue a corrective action request.
- Rework cell: scrap 1.2%.
"""


@pytest.fixture(scope="module")
def plant(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "brightaxle", {
        "staff-directory.md": STAFF, "project-kestrel.md": PROJECT, "re-kestrel-ppap-timing.eml": PPAP_MAIL,
        "q-5512-rev1.eml": QUOTE_MAIL, "quality-review-2026-10-20.md": QUALITY_NOTES})
    yield engine
    engine.close()


def test_a_family_name_again_in_brackets_neither_hides_the_row_nor_is_a_role(plant):
    attributes = only_entity(plant, "Kazuo Ishida").attributes
    assert attributes.get("role") == "General Coordinator / Liaison"
    assert attributes.get("extension") == "3005"
    assert only_entity(plant, "Noboru Fujikawa").attributes.get("role") == "Process Engineer"


def test_a_name_written_family_name_first_in_capitals_is_the_same_person(plant):
    supplier = only_entity(plant, "Haruto Fujimori")
    assert supplier.attributes.get("email") == "h.fujimori@hamana-kanagata.co.jp"
    assert supplier.attributes.get("role") != "FUJIMORI Haruto"


def test_a_correct_answer_giving_the_lead_his_title_is_not_corrected_to_his_name(plant):
    result = checked(plant, "Who leads Project Kestrel?",
                     "Project Kestrel is led by Kazuo Ishida, the General Coordinator.")
    assert not result.hallucination_flags, result.hallucination_flags


def test_a_year_first_date_a_later_mail_moved_is_corrected_in_its_own_form(plant):
    result = checked(plant, "When is the Kestrel PPAP submission due?",
                     "The PPAP submission for the housing is due 2027/03/09.")
    assert "2027/04/06 [corrected]" in result.delivered
    assert any(f.content == "2027/03/09" for f in result.hallucination_flags)


def test_a_quote_revised_in_short_figures_replaces_the_full_figure(plant):
    result = checked(plant, "How much is the Hamana Kanagata mould?",
                     "Hamana Kanagata quoted ¥24,100,000 for the Kestrel mould and the cooling insert.")
    assert "[corrected]" in result.delivered and "¥24,100,000" not in result.delivered


def test_a_date_a_bracket_says_moved_replaces_the_pages_date(plant):
    result = checked(plant, "When do the trial parts arrive?",
                     "The Kestrel tooling trial parts arrive at the plant on 2027/02/08.")
    assert "2027/02/15 [corrected]" in result.delivered


def test_a_day_in_bare_figures_in_the_notes_supports_the_answer(plant):
    result = checked(plant, "When is Rhonda visiting Dellwood Foundry?",
                     "Rhonda Pettibone is visiting Dellwood Foundry on 10/27 to issue a corrective action request.")
    assert not result.hallucination_flags, result.hallucination_flags


def test_a_possessive_after_a_japanese_honorific_gets_its_apostrophe(plant):
    pre = plant.turns.preprocess("whats ishida-sans extention")
    assert pre.corrected_input == "What's Ishida-san's extension?"
    assert "Kazuo Ishida" in [r.canonical_name for r in pre.resolved_entities]
    assert plant.turns.preprocess("is the sans-serif font ok").corrected_input.startswith("Is the sans-serif")


def test_a_project_code_in_brackets_after_its_name_is_no_job(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "project-code", {
        "project-osterly.md": "# Project Osterly (OST-31)\n\nNew press line for the housings.\n\n"
                              "**Project lead:** Kazuo Ishida\n"})
    try:
        assert all(e.type != "person" or "role" not in e.attributes
                   for e in engine.kb.registry.find_by_alias("Project Osterly"))
    finally:
        engine.close()


def test_a_name_ending_its_line_or_said_with_a_possessive_is_one_person(tmp_path_factory):
    page = ("<html><body><nav><a href='/'>Home</a></nav><main>"
            "<h2>Employee of the month: Marisol Quintanilla</h2>"
            "<p>Marisol (press line operator, 1st shift) suggested the shadow board. Nominated by Garrick Oduya.</p>"
            "<p>Please keep the press area clean; Garrick Oduya's team runs a 5S walk on Monday.</p>"
            "</main></body></html>")
    engine, _ = engine_learnt_from(tmp_path_factory, "plant-news", {"plant-news.html": page})
    try:
        people = sorted(e.name for e in engine.kb.registry.all_entities() if e.type == "person")
        assert "Marisol Quintanilla" in people and set(people) <= {"Garrick Oduya", "Marisol Quintanilla"}, people
    finally:
        engine.close()


def test_a_four_digit_extension_with_two_digits_swapped_is_corrected(plant):
    # 3201 is within half a percent of 3210, but a whole number not ending in 0 is no rounding of another.
    result = checked(plant, "What is Kazuo Ishida's extension?",
                     "Kazuo Ishida is the General Coordinator. His extension is 3050.")
    assert "3005 [corrected]" in result.delivered
    result = checked(plant, "What is Rhonda Pettibone's extension?",
                     "Rhonda Pettibone is the Quality Manager. Her extension is 3201.")
    assert "3210 [corrected]" in result.delivered


def test_a_moved_date_written_with_an_abbreviated_month_keeps_its_dot(plant):
    result = checked(plant, "When is the PPAP submission for Project Kestrel?",
                     "The PPAP submission for the Kestrel housing is due Mar. 9, 2027.")
    assert "Apr. 6, 2027 [corrected]" in result.delivered


def test_a_person_who_did_something_to_the_sources_person_said_as_her_is_no_swap(tmp_path_factory):
    news = ("<html><body><nav><a href='/'>Home</a></nav><main><article>"
            "<h2>Employee of the month: Marisol Quintanilla</h2>"
            "<p>Marisol (press line operator, 1st shift) suggested the shadow board that saved 6 minutes per "
            "changeover. Nominated by Rhonda Pettibone, Quality Manager.</p></article></main></body></html>")
    engine, _ = engine_learnt_from(tmp_path_factory, "plant-news-page", {
        "staff-directory.md": STAFF, "plant-news.html": news})
    try:
        result = checked(engine, "Who was employee of the month?",
                         "Marisol Quintanilla, a press line operator on 1st shift, was employee of the month. "
                         "Rhonda Pettibone nominated her for the shadow board that saved 6 minutes per changeover.")
        assert not result.hallucination_flags, result.hallucination_flags
    finally:
        engine.close()
