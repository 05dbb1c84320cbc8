"""A value the sources give only on the "from" side of a stated change ("the site visit has moved
from 3 December to 10 December") is out of date: an answer repeating it is corrected to the "to"
side, in a chat turn over retrieved documents and with `check --evidence` alike. An answer that
gives the new value, or tells the change, is left alone; a range ("open from 9:00 to 17:00") is
no change."""

from __future__ import annotations

import json

import pytest

from chatapp.postprocess.stated_changes import stated_changes
from tests.conftest import run_cli

NOTE = ("The walk-through with the building inspector has moved from 3 December to 10 December "
        "because the inspector is away. The fit-out budget goes from £12,400 to £15,100 after the survey.")
QUESTION = "When is the walk-through with the building inspector?"


def flags(result):
    return [(f.hallucination_type, f.content, f.suggestion) for f in result.hallucination_flags]


def test_the_old_side_of_a_stated_change_is_corrected_to_the_new_one(open_post):
    result = open_post.process("The walk-through with the building inspector is on 3 December.",
                               question=QUESTION, evidence=[NOTE])
    assert flags(result) == [("TemporalError", "3 December", "10 December")]
    assert "10 December" in result.delivered and "3 December" not in result.delivered


def test_an_old_amount_is_corrected_too(open_post):
    result = open_post.process("The fit-out budget is £12,400.", question="What is the fit-out budget?",
                               evidence=[NOTE])
    assert flags(result) == [("TemporalError", "£12,400", "£15,100")]


@pytest.mark.parametrize("answer", [
    "The walk-through with the building inspector is on 10 December.",
    "The walk-through with the building inspector was originally on 3 December but is now on 10 December.",
    "It moved from 3 December to 10 December.",
])
def test_the_new_value_or_the_change_itself_gets_no_flag(open_post, answer):
    assert flags(open_post.process(answer, question=QUESTION, evidence=[NOTE])) == []


def test_a_date_about_something_else_is_not_tied_to_the_change(open_post):
    # The same day, said of another event the note does not speak of: nothing ties it to the change.
    result = open_post.process("The staff party is on 3 December.", question="When is the staff party?",
                               evidence=[NOTE])
    assert all(kind != "TemporalError" for kind, _, _ in flags(result))


def test_a_range_is_not_a_change():
    assert stated_changes("The depot is open from 9:00 to 17:00 on weekdays.") == ()
    old, new = stated_changes("Stand-up has moved from Monday 7 December to Wednesday 9 December.")[0]
    assert (old.text, new.text) == ("7 December", "9 December")


def test_a_chat_turn_over_an_ingested_note_corrects_the_stale_date(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "depot-refit.md").write_text("# Harbour depot refit\n\n" + NOTE + "\n", encoding="utf-8")
    data = tmp_path / "data"
    assert run_cli("ingest", str(folder), data_dir=data).returncode == 0
    done = run_cli("check", "--response", "The walk-through with the building inspector is on 3 December.",
                   "--question", QUESTION, "--json", data_dir=data)
    assert done.returncode == 0, done.stderr
    response = json.loads(done.stdout)["response"]
    assert [(f["hallucination_type"], f["suggestion"]) for f in response["hallucination_flags"]] == [
        ("TemporalError", "10 December")]
    assert "10 December" in response["delivered"]


def test_a_change_wrapped_across_lines_of_a_mail_is_read_whole(open_post):
    mail = ("Hi all,\n\nThe inspector is away that week, so the walk-through with the building inspector has\n"
            "moved from 3 December to 10 December.\n\nThanks,\nEsme")
    result = open_post.process("The walk-through with the building inspector is on 3 December.",
                               question=QUESTION, evidence=[mail])
    assert flags(result) == [("TemporalError", "3 December", "10 December")]


def test_ingest_reads_a_change_wrapped_across_lines_of_a_mail(tmp_path):
    from chatapp.engine import ChatEngine
    from tests.conftest import only_entity

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "wren.md").write_text("---\ndate: 2026-09-01\n---\n\n# Project Wren\n\nLead: Esme Faraday-Quist\n"
                                    "Launch: 4 May 2027\n", encoding="utf-8")
    (folder / "wren-moved.eml").write_text(
        "From: Esme Faraday-Quist <esme@quist.example>\nTo: Team <team@quist.example>\n"
        "Subject: Wren launch\nDate: Tue, 10 Nov 2026 09:00:00 +0000\n\n"
        "Hi all,\n\nThe printer cannot deliver in time, so the Wren launch has\nmoved to 11 May 2027.\n\nEsme\n",
        encoding="utf-8")
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        assert only_entity(engine, "Project Wren").attributes["launch"] == "11 May 2027"
