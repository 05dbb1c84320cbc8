"""A physiotherapy clinic's folder in Aotearoa New Zealand: a Word handbook (fields, a staff table, a
project paragraph), an Excel roster, a mail that moves the pool works' finish date and signs off with the
practice's name beside its phone, and plain-text meeting notes. Real ChatEngine, SQLite, Chroma and spaCy;
names that appear nowhere in the code."""

from __future__ import annotations

import docx
import openpyxl
import pytest

from chatapp.engine import ChatEngine
from tests.conftest import checked, offline_answer

MAIL = """From: Mereana Pohatu <mereana@kowhaiphysio.co.nz>
To: Aroha Ngata <aroha@kowhaiphysio.co.nz>
Subject: Re: Pool upgrade - revised finish
Date: Thu, 14 Jan 2027 16:40:00 +1300

Kia ora Aroha,

The tiler has pulled out, so the pool works now finish on 19 March 2027 rather than in February.

Ngā mihi,
Mereana

Mereana Pohatu | Senior Physiotherapist
Kōwhai Physio | 09 555 0100 ext 207

On Wed, 13 Jan 2027 at 09:12, Aroha Ngata <aroha@kowhaiphysio.co.nz> wrote:
> Any news on the pool? We still have it down for 26 February.
"""

NOTES = """Staff meeting 20 January 2027
Present: Aroha, Wiremu, Mereana, Callum

1. Pool: finish moved to 19 March (see Mereana's email). Callum to update the booking system by 25 Jan.
2. ACC invoicing: Wiremu to chase the December batch (NZ$12,840 outstanding).
"""


def _handbook(path):
    document = docx.Document()
    document.add_heading("Kōwhai Physio — Clinic Handbook", 1)
    document.add_paragraph("Clinic director: Aroha Ngata")
    document.add_heading("Hydrotherapy pool upgrade", 2)
    document.add_paragraph("The hydrotherapy pool upgrade is led by Mereana Pohatu. The approved budget is "
                           "NZ$38,500 and works finish on 26 February 2027.")
    table = document.add_table(rows=1, cols=3)
    for cell, text in zip(table.rows[0].cells, ("Name", "Role", "Extension")):
        cell.text = text
    for row in (("Aroha Ngata", "Clinic Director", "201"), ("Wiremu Tāwhiri", "Practice Manager", "202"),
                ("Mereana Pohatu", "Senior Physiotherapist", "207"), ("Callum Reddaway", "Physiotherapist", "208")):
        for cell, text in zip(table.add_row().cells, row):
            cell.text = text
    document.save(path)


def _roster(path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Staff", "Email", "Mobile", "Days"])
    sheet.append(["Aroha Ngata", "aroha@kowhaiphysio.co.nz", "021 555 0147", "Mon–Thu"])
    sheet.append(["Wiremu Tāwhiri", "wiremu.t@kowhaiphysio.co.nz", "027 555 0192", "Mon–Fri"])
    sheet.append(["Mereana Pohatu", "mereana@kowhaiphysio.co.nz", "022 555 0118", "Tue–Sat"])
    sheet.append(["Callum Reddaway", "callum.r@kowhaiphysio.co.nz", "021 555 0163", "Mon, Wed, Fri"])
    book.save(path)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kowhai-physio")
    _handbook(folder / "clinic-handbook.docx")
    _roster(folder / "roster.xlsx")
    (folder / "2027-01-14-pool.eml").write_text(MAIL, encoding="utf-8")
    (folder / "staff-meeting-2027-01-20.txt").write_text(NOTES, encoding="utf-8")
    engine = ChatEngine.open(tmp_path_factory.mktemp("data"), load_sample_kb=False)
    assert not engine.ingest(folder).files_failed
    yield engine
    engine.close()


def test_the_practice_a_signature_names_beside_its_phone_is_no_colleague(engine):
    # "Kōwhai Physio | 09 555 0100 ext 207": the name the staff's shared mail domain spells.
    assert not [e for e in engine.kb.registry.find_by_alias("Kōwhai Physio") if e.type == "person"]
    assert {e.name for e in engine.kb.registry.all_entities() if e.type == "person"} >= {
        "Aroha Ngata", "Wiremu Tāwhiri", "Mereana Pohatu", "Callum Reddaway"}


def test_a_project_called_by_the_last_words_of_its_name_is_resolved(engine):
    assert "Mereana Pohatu" in offline_answer(engine, "who leads the pool upgrade", "lead").split("\n\n")[1]
    wrong = checked(engine, "who leads the pool upgrade", "Callum Reddaway is leading the pool upgrade.")
    assert [(f.hallucination_type, f.content) for f in wrong.hallucination_flags] == [("WrongAttribute", "Callum Reddaway")]


def test_the_handbooks_finish_date_a_later_mail_moved_is_corrected(engine):
    old = checked(engine, "When does the pool upgrade finish?", "The hydrotherapy pool upgrade finishes on 26 February 2027.")
    assert [f.hallucination_type for f in old.hallucination_flags] == ["TemporalError"]
    assert "19 March" in old.delivered


def test_a_wrong_address_from_the_excel_roster_is_corrected(engine):
    wrong = checked(engine, "What's Wiremu's email?", "Wiremu's email is wiremu@kowhaiphysio.co.nz.")
    assert "wiremu.t@kowhaiphysio.co.nz [corrected]" in wrong.delivered


def test_days_a_roster_cuts_short_bear_out_the_days_said_in_full(engine):
    right = checked(engine, "How do I reach Callum?", "Callum Reddaway is on extension 208; his mobile is 021 555 0163 "
                    "and he works Mondays, Wednesdays and Fridays.")
    assert right.hallucination_flags == []  # "Mon, Wed, Fri" in the roster
    inside = checked(engine, "What days is Mereana in?", "Mereana works Wednesdays and Thursdays.")
    assert inside.hallucination_flags == []  # inside her "Tue–Sat"
    # Another row's "Tue–Sat" has Tuesday and Thursday, but Callum's own row does not.
    wrong = checked(engine, "What days is Callum in?", "Callum works Tuesdays and Thursdays.")
    assert [(f.hallucination_type, f.content, f.suggestion) for f in wrong.hallucination_flags] == [
        ("ContradictsFact", "Tuesdays", "Mon, Wed, Fri"), ("ContradictsFact", "Thursdays", "Mon, Wed, Fri")]
    off = checked(engine, "When is Callum off?", "Callum is off on Tuesdays and Thursdays.")
    assert off.hallucination_flags == []  # days he does not work, as his row leaves them out
