"""Word (.docx) and Excel (.xlsx) files in a user's folder: real files written here with python-docx and
openpyxl, read by the real parsers, ingested by a real ChatEngine (SQLite, Chroma, spaCy) and asked
about offline. Names that appear nowhere in the code."""

from __future__ import annotations

import io
import json
import os
import zipfile
from datetime import date, datetime, timezone
from pathlib import Path

import docx
import openpyxl
import pytest

from chatapp.engine import ChatEngine
from chatapp.knowledge.parsers import FileRejected, parse_file
from tests.conftest import run_cli

NOW = datetime(2026, 12, 4, 9, 0, tzinfo=timezone.utc)


def write_memo(path: Path, created: datetime | None = datetime(2026, 10, 14, 9, 30)) -> Path:
    memo = docx.Document()
    if created is not None:
        memo.core_properties.created = created
    memo.add_heading("Quarry Lane allotments — committee memo", 0)
    memo.add_paragraph("The water trough by plot 17 leaks again; the treasurer will ring the plumber on Thursday.")
    memo.add_heading("Committee", 1)
    table = memo.add_table(rows=2, cols=3)
    table.cell(0, 0).merge(table.cell(0, 2)).text = "Committee for 2026–27"  # a title across the table
    for cell, text in zip(table.rows[1].cells, ("Name", "Role", "Email")):
        cell.text = text
    for person in (("Tamsin Oyelaran-Voss", "Treasurer", "tamsin.ov@quarrylane.example"),
                   ("Bartholomew Ncube", "Secretary", "bart.ncube@quarrylane.example")):
        for cell, text in zip(table.add_row().cells, person):
            cell.text = text
    memo.add_heading("Actions", 2)
    memo.add_paragraph("Order wood chip for the paths", style="List Bullet")
    memo.add_paragraph("Fix the north gate latch", style="List Number")
    memo.add_paragraph("Repaint the seed shed", style="List Number")
    memo.save(path)
    return path


def write_budget(path: Path, cached_total: str | None = None) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Budget 2027"
    sheet.append(["Line", "Amount", "Due", "Share"])
    sheet.append(["Wood chip delivery", 412.5, date(2027, 3, 2), 0.125])
    sheet.append(["Trough repair", 0.1 + 0.2, datetime(2027, 4, 1, 14, 30), 0.5])
    sheet.append(["Total", "=SUM(B2:B3)"])
    sheet["B2"].number_format = '"£"#,##0.00'
    sheet["D2"].number_format = "0%"
    sheet["D3"].number_format = "0.0%"
    holders = book.create_sheet("Plot holders")
    holders.append(["Name", "Plot", "Phone"])
    holders.append(["Ezinne Halloran", 17, "07700 900 414"])
    book.save(path)
    if cached_total is not None:
        # openpyxl writes a formula without the value Excel computes for it; put one in as Excel would.
        _rewrite_part(path, "xl/worksheets/sheet1.xml",
                      lambda xml: xml.replace("<f>SUM(B2:B3)</f><v></v>", f"<f>SUM(B2:B3)</f><v>{cached_total}</v>"))
    return path


def _rewrite_part(path: Path, part: str, change) -> None:
    with zipfile.ZipFile(path) as package:
        parts = {info.filename: package.read(info) for info in package.infolist()}
    changed = change(parts[part].decode("utf-8"))
    assert changed != parts[part].decode("utf-8")
    parts[part] = changed.encode("utf-8")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        for name, data in parts.items():
            package.writestr(name, data)


def _texts(doc, kind: str) -> list[str]:
    return [doc.text[b.start:b.end] for b in doc.blocks if b.kind == kind]


# --- Word --------------------------------------------------------------------------


def test_a_word_memo_reads_as_headings_paragraphs_a_list_and_a_table_in_order(tmp_path):
    doc = parse_file(write_memo(tmp_path / "memo.docx"))
    assert doc.format == "docx"
    assert doc.title == "Quarry Lane allotments — committee memo"
    assert [(b.kind, b.level) for b in doc.blocks] == [
        ("heading", 1), ("paragraph", 0), ("heading", 1), ("paragraph", 0), ("row", 0), ("row", 0), ("row", 0),
        ("heading", 2), ("list", 0)]
    assert _texts(doc, "heading") == ["# Quarry Lane allotments — committee memo", "# Committee", "## Actions"]
    # The table is the pipe table a Markdown page would hold: what reads tables reads it the same way.
    assert ("Committee for 2026–27\n\n| Name | Role | Email |\n| --- | --- | --- |\n| Tamsin Oyelaran-Voss | Treasurer |"
            in doc.text)
    assert _texts(doc, "list") == [
        "- Order wood chip for the paths\n1. Fix the north gate latch\n2. Repaint the seed shed"]
    assert doc.date == datetime(2026, 10, 14, 9, 30, tzinfo=timezone.utc)  # Word's creation date, as a PDF's


def test_a_date_the_memo_states_beats_its_creation_date_and_a_templates_date_is_none(tmp_path):
    path = write_memo(tmp_path / "memo.docx")
    memo = docx.Document(path)
    memo.paragraphs[1].insert_paragraph_before("Date: 3 November 2026")
    memo.save(path)
    assert parse_file(path).date == datetime(2026, 11, 3, tzinfo=timezone.utc)
    # A file a script wrote without setting a date carries its library's template date, from 2013.
    assert parse_file(write_memo(tmp_path / "undated.docx", created=None)).date is None


_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def test_tracked_changes_read_as_accepted_content_controls_read_contents_not_and_merged_cells_keep_columns(tmp_path):
    from docx.oxml import parse_xml

    notes = docx.Document()
    notes.add_paragraph("Contents", style="TOC Heading")  # a table of contents lists headings read anyway
    key = notes.add_paragraph("The shed key is with ")
    key._p.append(parse_xml(f'<w:ins {_W} w:id="1" w:author="a" w:date="2026-11-02T10:00:00Z">'
                            '<w:r><w:t xml:space="preserve">Ezinne</w:t></w:r></w:ins>'))
    key._p.append(parse_xml(f'<w:del {_W} w:id="2" w:author="a" w:date="2026-11-02T10:00:00Z">'
                            "<w:r><w:delText>Tamsin</w:delText></w:r></w:del>"))
    key._p.append(parse_xml(f'<w:r {_W}><w:t xml:space="preserve"> this winter.</w:t></w:r>'))
    notes.element.body.insert(0, parse_xml(
        f"<w:sdt {_W}><w:sdtContent><w:p><w:r><w:t>Plot rents are due in March.</w:t></w:r></w:p>"
        "</w:sdtContent></w:sdt>"))
    table = notes.add_table(rows=3, cols=3)
    for (row, column), text in {(0, 0): "Plot", (0, 1): "Holder", (0, 2): "Since", (1, 0): "17",
                                (1, 1): "Ezinne Halloran", (1, 2): "2019", (2, 2): "none yet"}.items():
        table.cell(row, column).text = text
    table.cell(2, 0).merge(table.cell(2, 1)).text = "Waiting list"
    notes.save(tmp_path / "notes.docx")
    doc = parse_file(tmp_path / "notes.docx")
    assert _texts(doc, "paragraph") == ["Plot rents are due in March.", "The shed key is with Ezinne this winter."]
    assert _texts(doc, "row")[-1] == "| Waiting list |  | none yet |"


def test_a_word_table_of_people_teaches_the_registry_as_a_markdown_table_does(tmp_path):
    from chatapp.knowledge.extraction import extract

    observations = extract(parse_file(write_memo(tmp_path / "memo.docx")))
    found = {(o.subject, o.key, o.value) for o in observations}
    assert ("Bartholomew Ncube", "email", "bart.ncube@quarrylane.example") in found
    assert ("Tamsin Oyelaran-Voss", "role", "Treasurer") in found


# --- Excel -------------------------------------------------------------------------


def test_each_sheet_is_a_section_of_rows_with_values_as_excel_shows_them(tmp_path):
    doc = parse_file(write_budget(tmp_path / "budget.xlsx", cached_total="412.8"))
    assert doc.format == "xlsx"
    assert _texts(doc, "heading") == ["# Budget 2027", "# Plot holders"]
    assert _texts(doc, "row") == [
        "Line: Wood chip delivery; Amount: £412.50; Due: 2027-03-02; Share: 13%",
        "Line: Trough repair; Amount: 0.3; Due: 2027-04-01 14:30; Share: 50.0%",
        "Line: Total; Amount: 412.8",  # the formula's value as Excel computed it, not "=SUM(B2:B3)"
        "Name: Ezinne Halloran; Plot: 17; Phone: 07700 900 414",
    ]
    assert doc.metadata["sheets"] == "Budget 2027, Plot holders"


def test_a_title_above_the_table_is_a_line_of_its_own_and_a_wrong_declared_size_loses_no_cells(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet["A1"] = "Harvest log — north beds"
    sheet["C3"], sheet["D3"], sheet["E3"] = "Crop", "Kg", "Picked by"
    sheet["C4"], sheet["D4"], sheet["E4"] = "Runner beans", 12.4, "Ezinne Halloran"
    book.save(tmp_path / "harvest.xlsx")
    # Some programs declare every sheet as "A1" whatever it holds.
    _rewrite_part(tmp_path / "harvest.xlsx", "xl/worksheets/sheet1.xml",
                  lambda xml: xml.replace('<dimension ref="A1:E4"/>', '<dimension ref="A1"/>'))
    doc = parse_file(tmp_path / "harvest.xlsx")
    assert _texts(doc, "paragraph") == ["Harvest log — north beds"]
    assert _texts(doc, "row") == ["Crop: Runner beans; Kg: 12.4; Picked by: Ezinne Halloran"]


def test_a_workbook_over_max_rows_keeps_its_first_rows_and_says_how_many_it_had(tmp_path):
    book = openpyxl.Workbook()
    for n in range(1, 31):
        book.active.append(["Seed", "Packets"] if n == 1 else [f"Variety {n}", n])
    book.save(tmp_path / "seeds.xlsx")
    doc = parse_file(tmp_path / "seeds.xlsx", max_rows=10)
    assert len(_texts(doc, "row")) == 10
    assert (doc.metadata["rows"], doc.metadata["rows_indexed"]) == ("29", "10")
    assert "Variety 11" in doc.text and "Variety 12" not in doc.text


# --- files that cannot be read -------------------------------------------------------


def _ole(*streams: str) -> bytes:
    # The start of an OLE compound file, with its directory's stream names (UTF-16), as Office writes one.
    return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + b"".join(s.encode("utf-16-le") for s in streams)


def _empty_workbook(path: Path) -> None:
    openpyxl.Workbook().save(path)


def _plain_zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("minutes.txt", "Minutes of the October meeting.")


@pytest.mark.parametrize("name, write, reason", [
    ("random.docx", lambda p: p.write_bytes(os.urandom(3000)), "broken Word document: not a zip package"),
    ("cut-short.docx", lambda p: p.write_bytes(write_memo(p).read_bytes()[:2000]),
     "broken Word document: damaged zip package"),
    ("zipped.docx", _plain_zip, "broken Word document: a zip file, but not an Office package"),
    ("sheet.docx", lambda p: p.write_bytes(write_budget(p).read_bytes()),
     "not a Word document: an Office package of another kind"),
    ("locked.docx", lambda p: p.write_bytes(_ole("EncryptionInfo", "EncryptedPackage")),
     "password-protected Word document: save a copy without the password to index it"),
    ("old.xlsx", lambda p: p.write_bytes(_ole("Workbook")),
     "an old-format .xls file under a new suffix: save it in the new format"),
    ("empty.xlsx", _empty_workbook, "empty: no values in any sheet"),
    ("blank.docx", lambda p: docx.Document().save(p), "empty: no text in the document (images only?)"),
])
def test_a_file_that_cannot_be_read_gives_one_clear_reason(tmp_path, name, write, reason):
    path = tmp_path / name
    write(path)
    with pytest.raises(FileRejected) as caught:
        parse_file(path)
    assert caught.value.reason == reason


# --- a folder, end to end ---------------------------------------------------------------


def _office_folder(folder: Path) -> Path:
    folder.mkdir()
    write_memo(folder / "committee-memo.docx")
    write_budget(folder / "budget.xlsx", cached_total="412.8")
    (folder / "minutes-draft.docx").write_bytes(os.urandom(3000))
    _empty_workbook(folder / "ledger.xlsx")
    (folder / "compost.md").write_text("# Compost\n\nThe compost bays are turned every second Saturday.\n")
    # The owner file Word leaves beside a document open on someone's desktop.
    (folder / "~$mmittee-memo.docx").write_bytes(b"\x0bTamsin O-V " + b"\x00" * 150)
    return folder


def test_an_ingested_folder_answers_from_a_word_table_and_a_budget_sheet_naming_the_file(tmp_path):
    folder = _office_folder(tmp_path / "allotments")
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        report = engine.ingest(folder)
        failed = {Path(f.path).name: f.reason for f in report.files_failed}
        assert failed == {"minutes-draft.docx": "broken Word document: not a zip package",
                          "ledger.xlsx": "empty: no values in any sheet"}
        assert report.files_ingested == 3
        assert [(Path(f.path).name, f.reason) for f in report.files_skipped] == [
            ("~$mmittee-memo.docx", "an Office lock file (kept while the document is open), not a document")]

        result = engine.ask("what is Bartholomew Ncube's email?", session="memo", model="offline", now=NOW)
        assert "bart.ncube@quarrylane.example" in result.response.delivered
        assert "Sources: committee-memo.docx" in result.response.delivered

        result = engine.ask("how much is the wood chip delivery?", session="budget", model="offline", now=NOW)
        assert "£412.50" in result.response.delivered
        assert "Sources: budget.xlsx" in result.response.delivered

        result = engine.ask("what is Ezinne Halloran's phone number?", session="plots", model="offline", now=NOW)
        assert "07700 900 414" in result.response.delivered
        found = engine.search("when are the compost bays turned", k=1)
        assert found[0].source.endswith("compost.md")


def test_the_command_line_ingest_lists_the_bad_files_without_a_traceback_and_shows_text_as_text(tmp_path):
    folder = _office_folder(tmp_path / "allotments")
    # A document's text is never markup nor a terminal control: a bidi override would reorder the line.
    notice = docx.Document()
    notice.add_paragraph("Gate code [bold]4471[/bold] \u202eis changed monthly.")
    notice.save(folder / "gate-notice.docx")
    data, wide = tmp_path / "data", {"COLUMNS": "200"}  # each reason on one line of the table
    result = run_cli("ingest", str(folder), data_dir=data, env=wide)
    assert result.returncode == 1  # a file failed
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert "broken Word document: not a zip package" in output and "empty: no values in any sheet" in output
    report = json.loads(run_cli("ingest", str(folder), "--json", data_dir=data).stdout)
    assert report["files_unchanged"] == 4
    search = run_cli("kb", "search", "gate code changed monthly", data_dir=data, env=wide)
    assert search.returncode == 0 and "Traceback" not in search.stderr
    assert "[bold]4471[/bold]" in search.stdout and "\u202e" not in search.stdout


def test_a_word_document_is_evidence_for_check_as_an_ingested_one_is(tmp_path):
    memo = write_memo(tmp_path / "committee-memo.docx")
    result = run_cli("check", "--response", "Bartholomew Ncube's email is b.ncube@quarrylane.example.",
                     "--question", "what is Bartholomew Ncube's email?", "--evidence", str(memo),
                     data_dir=tmp_path / "data", env={"COLUMNS": "200"})
    assert "Traceback" not in result.stderr
    assert "bart.ncube@quarrylane.example" in result.stdout, result.stdout
