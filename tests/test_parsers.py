"""Parsers read real files from disk: every format, and every reason to skip one."""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from pathlib import Path

import pytest
from pypdf import PdfWriter

from chatapp.knowledge.parsers import SUPPORTED_SUFFIXES, FileRejected, ParsedDocument, parse_file


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def block_texts(doc: ParsedDocument, kind: str | None = None) -> list[str]:
    return [doc.text[b.start : b.end] for b in doc.blocks if kind is None or b.kind == kind]


def assert_well_formed(doc: ParsedDocument) -> None:
    """Blocks are ordered, disjoint, inside the text and trimmed; metadata is flat strings."""
    assert doc.blocks, "a document with text has blocks"
    previous_end = 0
    for block in doc.blocks:
        assert previous_end <= block.start < block.end <= len(doc.text)
        span = doc.text[block.start : block.end]
        assert span == span.strip()
        previous_end = block.end
    assert doc.metadata["format"] == doc.format
    assert all(isinstance(v, str) and v for v in doc.metadata.values())


def rejection(path: Path, **kwargs) -> str:
    with pytest.raises(FileRejected) as caught:
        parse_file(path, **kwargs)
    return caught.value.reason


def minimal_pdf(text: str, info: dict[str, str] | None = None) -> bytes:
    """A one-page PDF written by hand, with a real text stream and a correct xref."""
    stream = f"BT /F1 12 Tf 72 712 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    if info:
        entries = " ".join(f"/{key} ({value})" for key, value in info.items())
        objects.append(f"<< {entries} >>".encode("latin-1"))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    info_ref = b" /Info %d 0 R" % len(objects) if info else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\n" % (len(objects) + 1, info_ref)
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def test_supported_suffixes():
    assert SUPPORTED_SUFFIXES == frozenset(
        {".txt", ".md", ".markdown", ".rst", ".html", ".htm", ".eml", ".pdf", ".csv", ".json", ".docx", ".xlsx"}
    )


# --- plain text, Markdown, reStructuredText ----------------------------------


def test_text_title_paragraphs_and_filename_date(tmp_path):
    path = write(tmp_path, "2026-11-12-standup.txt", "\n\n  Standup notes  \nTeam sync.\n\nSecond paragraph\nwraps here.\n")
    doc = parse_file(path)
    assert doc.format == "text"
    assert doc.title == "Standup notes"
    assert block_texts(doc, "paragraph") == ["Standup notes  \nTeam sync.", "Second paragraph\nwraps here."]
    assert doc.date == datetime(2026, 11, 12, tzinfo=timezone.utc)
    assert doc.metadata == {"format": "text", "file_name": "2026-11-12-standup.txt"}
    assert_well_formed(doc)


def test_text_title_is_clipped_and_crlf_normalised(tmp_path):
    path = write(tmp_path, "long.txt", ("word " * 60).strip() + "\r\n\r\nnext")
    doc = parse_file(path)
    assert len(doc.title) <= 120 and doc.title.startswith("word word")
    assert "\r" not in doc.text
    assert doc.date is None


def test_markdown_structure(tmp_path):
    source = (
        "# Project **Atlas**\n\n"
        "Intro paragraph that\nwraps.\n\n"
        "## Owners\n\n"
        "- Emma: tech lead\n- Tom: validation\n  continues here\n\n- loose item\n\n"
        "| Milestone | Date |\n|---|---|\n| Kickoff | 2026-10-20 |\n\n"
        "```python\n# not a heading\nprint('hi')\n```\n\n"
        "Setext heading\n--------------\n\n"
        "---\n\n"
        "### Deep\nText right under a heading.\n"
    )
    doc = parse_file(write(tmp_path, "atlas.md", source))
    assert doc.format == "markdown"
    assert doc.text == source  # the text is kept as written
    assert doc.title == "Project Atlas"
    headings = [(doc.text[b.start : b.end], b.level) for b in doc.blocks if b.kind == "heading"]
    assert headings == [
        ("# Project **Atlas**", 1),
        ("## Owners", 2),
        ("Setext heading\n--------------", 2),
        ("### Deep", 3),
    ]
    assert block_texts(doc, "list") == ["- Emma: tech lead\n- Tom: validation\n  continues here\n\n- loose item"]
    assert block_texts(doc, "row") == ["| Milestone | Date |", "| Kickoff | 2026-10-20 |"]
    paragraphs = block_texts(doc, "paragraph")
    assert "```python\n# not a heading\nprint('hi')\n```" in paragraphs
    assert "Text right under a heading." in paragraphs
    assert_well_formed(doc)


def test_markdown_date_line_and_title_fallback(tmp_path):
    source = "**Date:** 2026-11-12\n**Location:** Room B\n\nNo headings here at all.\n"
    doc = parse_file(write(tmp_path, "meeting-notes.markdown", source))
    assert doc.title == "meeting-notes"
    assert doc.date == datetime(2026, 11, 12, tzinfo=timezone.utc)


@pytest.mark.parametrize("name, source, expected", [
    ("standup.md", "# Standup — 12 March 2026\n\nDana: vendor call moved.\n", datetime(2026, 3, 12, tzinfo=timezone.utc)),
    ("sync.txt", "Weekly sync, November 3, 2026\n\nBudget approved.\n", datetime(2026, 11, 3, tzinfo=timezone.utc)),
    ("retro.md", "# 2026-02-01 retro\n\nWent well.\n", datetime(2026, 2, 1, tzinfo=timezone.utc)),
    ("page.md", "# Heron\n\nLast updated: 4 Sep 2026\n\nOwner: Dana\n", datetime(2026, 9, 4, tzinfo=timezone.utc)),
    # A date the document is about is not the day it was written, and a log of dated entries has no one day.
    ("plan.md", "# Launch plan for 11 May 2027\n\nSteps.\n", None),
    ("log.md", "## 2026-12-03\nStarted.\n## 2026-12-04\nFinished.\n", None),
])
def test_a_document_dated_by_its_heading_or_an_updated_line(tmp_path, name, source, expected):
    assert parse_file(write(tmp_path, name, source)).date == expected


def test_markdown_front_matter(tmp_path):
    source = "---\ntitle: 'Runbook'\ndate: 2026-01-05\n---\n\nBody text.\n"
    doc = parse_file(write(tmp_path, "runbook.md", source))
    assert doc.title == "Runbook"
    assert doc.date == datetime(2026, 1, 5, tzinfo=timezone.utc)
    assert block_texts(doc)[-1] == "Body text."


def test_rst_headings(tmp_path):
    source = (
        "=================\n Project Beacon\n=================\n\n"
        ":Owner: Emma\n\n"
        "Overview\n========\n\nBeacon overhauls alerting.\n\n"
        "Details\n-------\n\n* first\n* second\n\n"
        "----\n\n"
        "Another\n=======\n\nHi\n==\n\nToo long title\n===\n\nplain text\n"
    )
    doc = parse_file(write(tmp_path, "beacon.rst", source))
    assert doc.format == "rst"
    assert doc.title == "Project Beacon"
    # Heading blocks keep their adornment lines; the title is the line that isn't one.
    headings = [
        (next(line.strip() for line in doc.text[b.start : b.end].split("\n") if line.strip("=- ")), b.level)
        for b in doc.blocks
        if b.kind == "heading"
    ]
    # Levels follow the order adornment styles first appear in.
    assert headings == [("Project Beacon", 1), ("Overview", 2), ("Details", 3), ("Another", 2), ("Hi", 2)]
    assert block_texts(doc, "list") == ["* first\n* second"]
    # An underline shorter than its title does not make a heading.
    assert "Too long title\n===" in block_texts(doc, "paragraph")
    assert_well_formed(doc)


# --- HTML ----------------------------------------------------------------------


def test_html_extracts_text_and_skips_scripts(tmp_path):
    source = """<!DOCTYPE html><html><head><title>Onboarding &amp; Setup</title>
    <style>body { color: red }</style><script>var secret = "do not index";</script></head>
    <body><nav><a href="/">Home</a> &raquo; Wiki</nav>
    <h1>Welcome</h1>
    <p>First   para with <strong>bold</strong>
       and&nbsp;an entity &#8217;s.</p>
    <div>Loose div text<br>on two lines</div>
    <h2>Steps</h2>
    <ul><li>One</li><li>Two<ul><li>Nested</li></ul></li></ul>
    <table><tr><th>Item</th><th>Cost</th></tr><tr><td>Laptop</td><td>$750</td></tr></table>
    <script>alert("nope")</script>
    </body></html>"""
    doc = parse_file(write(tmp_path, "onboarding.html", source))
    assert doc.format == "html"
    assert doc.title == "Onboarding & Setup"
    for hidden in ("secret", "nope", "color", "Home"):
        assert hidden not in doc.text
    assert [(doc.text[b.start : b.end], b.level) for b in doc.blocks if b.kind == "heading"] == [
        ("Welcome", 1),
        ("Steps", 2),
    ]
    paragraphs = block_texts(doc, "paragraph")
    assert "First para with bold and an entity \u2019s." in paragraphs
    assert "Loose div text\non two lines" in paragraphs
    assert block_texts(doc, "list") == ["- One\n- Two\n  - Nested"]
    assert block_texts(doc, "row") == ["Item | Cost", "Laptop | $750"]
    assert_well_formed(doc)


def test_html_title_falls_back_to_first_h1(tmp_path):
    doc = parse_file(write(tmp_path, "page.htm", "<h2>Minor</h2><h1>Main  Title</h1><p>x</p>"))
    assert doc.title == "Main Title"
    doc = parse_file(write(tmp_path, "bare-page.htm", "<p>only text</p>"))
    assert doc.title == "bare-page"


def test_an_address_only_a_mail_link_holds_is_kept_beside_its_text(tmp_path):
    page = ('<div class="card"><h3>Dr Kirsty Menzies</h3><p>Head of Perception</p>'
            '<p><a href="mailto:kirsty.menzies@saltire.example?subject=Hi">Email Kirsty</a></p>'
            '<p><a href="mailto:farhan@saltire.example">farhan@saltire.example</a></p>'
            '<p><a href="mailto:&lt;b&gt;x">bad</a></p></div>')
    text = parse_file(write(tmp_path, "people.html", page)).text
    assert "Email Kirsty (kirsty.menzies@saltire.example)" in text
    assert text.count("farhan@saltire.example") == 1  # the link's text already says it
    assert "bad" in text and "<b>" not in text  # no address in the link: nothing added


def test_html_with_only_script_is_empty(tmp_path):
    assert rejection(write(tmp_path, "app.html", "<html><script>x()</script></html>")) == "empty"


# --- email ------------------------------------------------------------------------


def test_email_with_attachment(tmp_path):
    msg = EmailMessage()
    msg["From"] = "John Smith <john.smith@company.com>"
    msg["To"] = "Sarah Chen <sarah.chen@company.com>, David Okafor <david.okafor@company.com>"
    msg["Subject"] = "Q4 Budget Review"
    msg["Date"] = "Thu, 26 Nov 2026 09:14:00 -0800"
    msg["Message-ID"] = "<abc@company.com>"
    msg.set_content("Hi all,\n\nThe Q4 numbers are attached.\nPlease review.\n\nThanks,\nJohn\n")
    msg.add_attachment(b"PK\x03\x04fake", maintype="application", subtype="octet-stream",
                       filename="Q4_Budget_Review.xlsx")
    msg.add_attachment(b"%PDF-1.4", maintype="application", subtype="pdf", filename="plan.pdf")
    doc = parse_file(write(tmp_path, "budget.eml", bytes(msg)))

    assert doc.format == "email"
    assert doc.title == "Q4 Budget Review"
    assert doc.date == datetime(2026, 11, 26, 9, 14, tzinfo=timezone(timedelta(hours=-8)))
    assert doc.metadata == {
        "format": "email",
        "file_name": "budget.eml",
        "from": "John Smith <john.smith@company.com>",
        "to": "Sarah Chen <sarah.chen@company.com>, David Okafor <david.okafor@company.com>",
        "subject": "Q4 Budget Review",
        "message_id": "<abc@company.com>",
        "attachments": "Q4_Budget_Review.xlsx, plan.pdf",
    }  # no "cc": the message has none, and empty values are dropped
    header, *body = doc.blocks
    assert header.kind == "header" and header.start == 0
    assert doc.text[header.start : header.end] == (
        "From: John Smith <john.smith@company.com>\n"
        "To: Sarah Chen <sarah.chen@company.com>, David Okafor <david.okafor@company.com>\n"
        "Date: Thu, 26 Nov 2026 09:14:00 -0800\n"
        "Subject: Q4 Budget Review\n"
        "Attachments: Q4_Budget_Review.xlsx, plan.pdf"
    )
    assert [doc.text[b.start : b.end] for b in body] == [
        "Hi all,", "The Q4 numbers are attached.\nPlease review.", "Thanks,\nJohn"
    ]
    assert "PK" not in doc.text  # attachments are named, not read
    assert_well_formed(doc)


def test_email_html_body_and_messy_charset(tmp_path):
    raw = (
        b"From: a@example.com\r\nSubject: Launch\r\nDate: not a date\r\n"
        b"Content-Type: text/html; charset=x-unknown-charset\r\n\r\n"
        b"<html><body><h1>Helios</h1><p>Live \xff today</p><script>x()</script></body></html>\r\n"
    )
    doc = parse_file(write(tmp_path, "launch.eml", raw))
    assert doc.date is None
    assert doc.title == "Launch"
    assert [b.kind for b in doc.blocks] == ["header", "heading", "paragraph"]
    assert block_texts(doc, "paragraph") == ["Live \ufffd today"]
    assert "x()" not in doc.text


def test_email_latin1_body_is_decoded_with_its_charset(tmp_path):
    raw = (
        b"From: b@example.com\nSubject: Caf\xe9\nContent-Type: text/plain; charset=iso-8859-1\n\n"
        b"Caf\xe9 au lait.\n"
    )
    doc = parse_file(write(tmp_path, "2026-03-04-cafe.eml", raw))
    assert "Café au lait." in doc.text
    assert doc.date == datetime(2026, 3, 4, tzinfo=timezone.utc)  # no Date header: the file name's


def test_not_really_an_email_is_parsed_best_effort(tmp_path):
    doc = parse_file(write(tmp_path, "notes.eml", "just some notes\nwithout headers\n\nsecond part\n"))
    assert doc.title == "notes"
    assert "second part" in doc.text
    assert doc.date is None


# --- PDF --------------------------------------------------------------------------


def test_pdf_text_title_and_date(tmp_path):
    pdf = minimal_pdf("Hello budget", {"Title": "Q4 Plan", "CreationDate": "D:20261112093000Z"})
    doc = parse_file(write(tmp_path, "plan.pdf", pdf))
    assert doc.format == "pdf"
    assert "Hello budget" in doc.text
    assert doc.title == "Q4 Plan"
    assert doc.date == datetime(2026, 11, 12, 9, 30, tzinfo=timezone.utc)
    assert doc.metadata["pages"] == "1"
    assert [b.kind for b in doc.blocks] == ["paragraph"]
    assert_well_formed(doc)


def test_pdf_title_falls_back_to_first_line(tmp_path):
    doc = parse_file(write(tmp_path, "untitled.pdf", minimal_pdf("Hello budget")))
    assert doc.title == "Hello budget"
    assert doc.date is None


def test_encrypted_pdf_is_rejected(tmp_path):
    writer = PdfWriter(clone_from=io.BytesIO(minimal_pdf("Hello budget")))
    writer.encrypt("secret")
    out = io.BytesIO()
    writer.write(out)
    assert rejection(write(tmp_path, "locked.pdf", out.getvalue())) == "encrypted PDF"


def test_pdf_with_only_an_owner_password_opens(tmp_path):
    writer = PdfWriter(clone_from=io.BytesIO(minimal_pdf("Hello budget")))
    writer.encrypt(user_password="", owner_password="owner")
    out = io.BytesIO()
    writer.write(out)
    assert "Hello budget" in parse_file(write(tmp_path, "restricted.pdf", out.getvalue())).text


def test_broken_and_textless_pdfs(tmp_path):
    assert rejection(write(tmp_path, "broken.pdf", b"%PDF-1.4 garbage")).startswith("broken PDF: ")
    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    out = io.BytesIO()
    writer.write(out)
    assert rejection(write(tmp_path, "scan.pdf", out.getvalue())) == "no extractable text (scanned PDF?)"


# --- CSV, JSON ------------------------------------------------------------------------


def test_csv_rows(tmp_path):
    source = "department,q3_actual,note\nEngineering,1080000,\"up, a lot\"\n\nProduct,310000,\n"
    doc = parse_file(write(tmp_path, "q4-budget_summary.csv", source))
    assert doc.format == "csv"
    assert doc.title == "q4 budget summary"
    assert block_texts(doc, "row") == [
        "department: Engineering; q3_actual: 1080000; note: up, a lot",
        "department: Product; q3_actual: 310000",
    ]
    assert doc.text == "\n\n".join(block_texts(doc))
    assert doc.metadata["columns"] == "department, q3_actual, note"
    assert doc.metadata["rows"] == "2"
    assert_well_formed(doc)


def test_csv_semicolons_are_sniffed(tmp_path):
    doc = parse_file(write(tmp_path, "people.csv", "name;city\nAda;London\nGrace;Arlington\n"))
    assert block_texts(doc, "row") == ["name: Ada; city: London", "name: Grace; city: Arlington"]


def test_json_list_of_objects(tmp_path):
    data = [
        {"week": "2026-11-16", "primary": {"name": "Emma"}, "notes": None},
        {"week": "2026-11-23", "primary": {"name": "Tom"}, "tags": ["a", "b"]},
    ]
    doc = parse_file(write(tmp_path, "oncall_rotation.json", json.dumps(data, indent=2)))
    assert doc.title == "oncall rotation"
    # An object inside a record is spread into its fields, its name field the value of its own key.
    assert block_texts(doc, "row") == [
        "week: 2026-11-16; primary: Emma",
        'week: 2026-11-23; primary: Tom; tags: ["a", "b"]',
    ]
    assert doc.metadata["records"] == "2"


def test_an_object_inside_a_json_record_reads_as_fields_of_its_own(tmp_path):
    data = {"sites": [{"site": "Kitui", "contact": {"name": "Joseph Mutua", "email": "j.mutua@example.co.ke"},
                       "plant": {"rig": {"model": "DR-40"}}}]}
    doc = parse_file(write(tmp_path, "sites.json", json.dumps(data)))
    assert block_texts(doc, "row") == [
        'sites: site: Kitui; contact: Joseph Mutua; contact_email: j.mutua@example.co.ke; plant: {"rig": {"model": "DR-40"}}']


def test_json_object_holding_lists_of_records_gives_a_line_per_record(tmp_path):
    data = {"updated": "2026-11-24", "vans": [{"fleet_no": "HW-1", "rego": "YK71 QZP"}, {"fleet_no": "HW-2"}]}
    doc = parse_file(write(tmp_path, "fleet.json", json.dumps(data)))
    assert block_texts(doc, "row") == ["updated: 2026-11-24", "vans: fleet_no: HW-1; rego: YK71 QZP",
                                       "vans: fleet_no: HW-2"]


def test_a_text_file_starting_with_mail_headers_is_a_mail(tmp_path):
    text = "From: Idris Pennock <idris@example.com>\nSubject: Ladders\nDate: Wed, 2 Dec 2026 11:30:00 +0000\n\nBooked.\n"
    doc = parse_file(write(tmp_path, "ladders.txt", text))
    assert (doc.format, doc.title, doc.date.day) == ("email", "Ladders", 2)
    # A note that only mentions a sender is still a note.
    assert parse_file(write(tmp_path, "note.txt", "From: the office\nPlease lock up.\n")).format == "text"


def test_json_object_and_other_values(tmp_path):
    doc = parse_file(write(tmp_path, "settings.json", '{"name": "Atlas", "budget": 350000, "live": true}'))
    assert block_texts(doc) == ["name: Atlas", "budget: 350000", "live: true"]
    doc = parse_file(write(tmp_path, "numbers.json", "[1, 2, 3]"))
    assert [b.kind for b in doc.blocks] == ["paragraph"]
    assert doc.text == "[\n  1,\n  2,\n  3\n]"


def test_invalid_json_names_the_line(tmp_path):
    assert rejection(write(tmp_path, "bad.json", '{\n  "a": 1,\n  "b": \n}')) == "invalid JSON: line 4"


# --- rejections -----------------------------------------------------------------------


def test_rejections(tmp_path):
    assert rejection(write(tmp_path, "blob.txt", b"abc\x00\x01\x02def")) == "binary file"
    assert rejection(write(tmp_path, "mail.eml", b"From: x\x00\n")) == "binary file"
    assert rejection(write(tmp_path, "latin1.md", "Café".encode("latin-1"))) == "not valid UTF-8"
    assert rejection(write(tmp_path, "empty.txt", b"")) == "empty"
    assert rejection(write(tmp_path, "blank.md", " \n\t\n  ")) == "empty"
    assert rejection(write(tmp_path, "bom-only.txt", b"\xef\xbb\xbf\n")) == "empty"
    assert rejection(write(tmp_path, "empty.json", "[]")) == "empty"
    assert rejection(write(tmp_path, "slides.xyz", "text")) == "unsupported format .xyz"
    assert rejection(write(tmp_path, "big.txt", "x" * 2048), max_bytes=1024) == "larger than 1 KB"
    assert rejection(write(tmp_path, "huge.pdf", b"%PDF" + b"0" * 100), max_bytes=10) == "larger than 10 bytes"
    assert rejection(tmp_path / "missing.txt").startswith("unreadable: ")


def test_utf8_bom_is_accepted(tmp_path):
    doc = parse_file(write(tmp_path, "bom.txt", b"\xef\xbb\xbfHello\n"))
    assert doc.text.startswith("Hello") and doc.title == "Hello"


def test_suffix_override_reads_unknown_files_as_text(tmp_path):
    doc = parse_file(write(tmp_path, "README", "Read me\n\nfirst"), suffix=".txt")
    assert doc.format == "text" and doc.title == "Read me"
