"""Email (.eml): headers, body (plain or HTML) and attachment names."""

from __future__ import annotations

import re
from email import policy
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from pathlib import Path

from .base import ParsedDocument, _aware, _filename_date, _make_doc, _TextBuilder
from .markup import _extract_html


# The line a reply puts above the message it quotes, as mail clients write it in the languages a
# team's mail comes in: "On Tue, 1 Dec 2026 at 16:33, Dana Kim <dana@…> wrote:", "Em qui., 26 de nov.
# de 2026 às 08:04, … escreveu:", "Le mar. 1 déc. 2026 à 16:33, … a écrit :", "Am 01.12.2026 um 16:33
# schrieb … <…>:". It says who wrote what follows; it is no part of the writer's own text.
ATTRIBUTION_VERB = r"(?:wrote|escreveu|escribió|a écrit|schrieb|schreef|scrisse|skrev)"
ATTRIBUTION_OPENER = r"(?:On|Em|El|Le|Am|Op|Il|Den)"
REPLY_ATTRIBUTION = re.compile(
    rf"^[ \t>]*{ATTRIBUTION_OPENER}\s.{{4,200}}?(?<!\w){ATTRIBUTION_VERB}(?!\w)[^\n:]{{0,160}}\s?:[ \t]*$"
)


def is_reply_attribution(line: str) -> bool:
    return bool(REPLY_ATTRIBUTION.match(line.rstrip()))


# Outlook's "-----Original Message-----" and a forwarded message's banner open a quoted earlier message too.
_EARLIER_BANNER = re.compile(r"^[ \t>]*-{2,}\s*(?:Original Message|Forwarded message)\s*-{2,}[ \t]*$", re.IGNORECASE)


def opens_earlier_message(line: str) -> bool:
    """The line opens a quote of an earlier message: a reply's attribution line or a banner."""
    return is_reply_attribution(line) or bool(_EARLIER_BANNER.match(line))


# A mail client wraps a paragraph's lines at 72–78 characters, so every line but its last runs long; a
# signature, an address block or a list has short lines, and is left as written.
_WRAPPED_LINE_MIN, _WRAPPED_LINE_MAX = 45, 90
_QUOTE_PREFIX = re.compile(r"^(?:>[ \t]?)*")
# A line that is no wrapped prose: a list item, an indented or tabbed line, a "Label: value" field or a
# mail header ("Sent: …"), a table's or signature's "a | b", columns lined up with runs of spaces.
_NOT_PROSE = re.compile(r"^(?:[-*•+]\s|\d{1,2}[.)]\s|[ \t]|[\w'’ -]{1,30}:(?:\s|$))|\s\|\s|\t|\S {3,}\S")


def unwrapped_paragraph(paragraph: str) -> str:
    """A paragraph a mail client hard-wrapped, as the one line its writer typed: "That takes the approved
    budget for Tōtara\nPark Cycleway Stage 3 from $940,000 to $1,010,000" is one sentence, so what
    reads a sentence (a stated change, a claim's evidence) sees it whole. A quoted paragraph ("> …") is
    joined under its quote marks; any other block keeps its lines."""
    lines = paragraph.strip("\n").split("\n")
    if len(lines) < 2:
        return paragraph
    prefix = _QUOTE_PREFIX.match(lines[0]).group(0)
    if any(_QUOTE_PREFIX.match(line).group(0).strip() != prefix.strip() for line in lines):
        return paragraph
    bodies = [line[len(_QUOTE_PREFIX.match(line).group(0)):].rstrip() for line in lines]
    if any(not body or _NOT_PROSE.search(body) for body in bodies):
        return paragraph
    if not all(_WRAPPED_LINE_MIN <= len(body) <= _WRAPPED_LINE_MAX for body in bodies[:-1]):
        return paragraph
    return prefix + " ".join(bodies)


def _part_text(part) -> str:
    payload = part.get_payload(decode=True) or b""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # an unknown charset name: emails are messy
        return payload.decode("utf-8", errors="replace")


def _header(msg, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:  # a malformed header must not lose the whole message
        value = next((raw for key, raw in msg.raw_items() if key.lower() == name.lower()), None)
    return " ".join(str(value).split()) if value is not None else ""


def _parse_email(data: bytes, path: Path) -> ParsedDocument:
    msg = BytesParser(policy=policy.default).parsebytes(data)
    fields = {name: _header(msg, name) for name in ("From", "To", "Cc", "Subject", "Date", "Message-ID")}
    try:
        date = _aware(parsedate_to_datetime(fields["Date"])) if fields["Date"] else None
    except (TypeError, ValueError, IndexError):
        date = None
    body = msg.get_body(preferencelist=("plain", "html"))
    attachments: list[str] = []
    for part in msg.walk():
        try:
            name = part.get_filename()
        except Exception:  # a garbled Content-Disposition names nothing
            name = None
        if part is not body and name and " ".join(name.split()) not in attachments:
            attachments.append(" ".join(name.split()))
    header_lines = [f"{name}: {fields[name]}" for name in ("From", "To", "Cc", "Date", "Subject") if fields[name]]
    if attachments:
        header_lines.append("Attachments: " + ", ".join(attachments))
    builder = _TextBuilder()
    builder.add("header", "\n".join(header_lines))
    if body is not None:
        content = _part_text(body).replace("\r\n", "\n").replace("\r", "\n")
        if body.get_content_subtype() == "html":
            for kind, piece, level in _extract_html(content).pieces:
                builder.add(kind, piece, level)
        else:
            for paragraph in re.split(r"\n[ \t]*\n", content):
                builder.add("paragraph", unwrapped_paragraph(paragraph))
    metadata = {
        "from": fields["From"], "to": fields["To"], "cc": fields["Cc"], "subject": fields["Subject"],
        "message_id": fields["Message-ID"], "attachments": ", ".join(attachments),
    }
    date = date or _filename_date(path)
    return _make_doc(path, "email", fields["Subject"], builder.text, builder.blocks, date, metadata)
