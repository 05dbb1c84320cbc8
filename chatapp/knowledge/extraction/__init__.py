"""Knowledge learnt from the user's own documents at ingest: who people are and how to reach
them, what projects there are and who leads them, and the facts documents state, each with
its source. `extract` reads one parsed document; `merge` joins what every document said."""

from __future__ import annotations

from dataclasses import replace

from chatapp.knowledge.extraction.observations import Observation

# Formats whose rows are records, read by their columns rather than as prose.
RECORD_FORMATS = ("csv", "json", "xlsx")


def extract(parsed, raw_text: str | None = None, with_mentions: bool = True) -> list[Observation]:
    """Everything one parsed document says about people, projects and things. `raw_text` is the
    file's own text, for CSV and JSON whose records the parsed text has flattened (a workbook's sheets
    come as the parsed document's record_tables). Without
    `with_mentions` the recogniser's names are left out, for a caller that reads them in batches
    (mentions.read_mentions_many)."""
    from chatapp.knowledge.extraction.fields import read_fields
    from chatapp.knowledge.extraction.leads import read_handovers, read_leads
    from chatapp.knowledge.extraction.legal_names import firm_names, read_legal_names
    from chatapp.knowledge.extraction.mentions import read_mentions
    from chatapp.knowledge.extraction.people import mail_writer, reach_key, read_people
    from chatapp.knowledge.extraction.records import read_csv, read_json, read_table

    if parsed.format == "csv":
        found = read_csv(raw_text or "")
    elif parsed.format == "json":
        found = read_json(raw_text or "")
    elif parsed.format == "xlsx":
        found = [o for table in parsed.record_tables or [] for o in read_table(table)]
    else:
        is_email = parsed.format == "email"
        headings = frozenset(block.start for block in parsed.blocks if block.kind == "heading")
        firms = read_legal_names(parsed.text)
        # "Calçada Tech, Lda. | +351 …" under a signature is the firm's line: its name is nobody's.
        found = [o for o in read_people(parsed.text, parsed.metadata, is_email, headings)
                 if not (o.subject_type == "person" and o.subject in firm_names(firms))]
        found += read_fields(parsed.text, parsed.title, is_email, parsed.date.date() if parsed.date else None)
        found += firms
        found += read_leads(parsed.text, headings)
        found += read_handovers(parsed.text, mail_writer(parsed.metadata) if is_email else "")
        if with_mentions:
            found += read_mentions(parsed.text)
        # A page's table of records (an intranet rota, a price list) is read by its columns as a sheet is.
        found += [o for table in parsed.record_tables or [] for o in read_table(table)]
    # A "Contact" column of addresses is their email, one of numbers their phone, whatever the format.
    return [o if (key := reach_key(o.key, o.value)) == o.key else replace(o, key=key) for o in found]


def reads_mentions(parsed) -> bool:
    """Whether the recogniser reads this document (records are read by their columns)."""
    return parsed.format not in RECORD_FORMATS
