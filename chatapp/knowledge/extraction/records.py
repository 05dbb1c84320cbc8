"""CSV rows and JSON objects as records: a row is a record, its name-like column the subject.

A people list ("name, role, email") gives person entities; a column of firms (supplier,
client…) organisations; a list of other things (rooms, equipment) entities of type "thing".
Their other columns are attributes; a "known_as" or "nickname" column is a name the person goes
by. Columns
that pair a person's name with their address ("contact_name", "contact_email") also give
that person.
"""

from __future__ import annotations

import csv
import io
import json
import re

from chatapp.knowledge.extraction.fields import names_the_rows, subject_column
from chatapp.knowledge.parsers.tabular import spread_record
from chatapp.knowledge.extraction.people import address_spells_name
from chatapp.knowledge.extraction.values import find_dates
from chatapp.lexicon import concepts_of_key, is_common
from chatapp.knowledge.extraction.observations import (
    ALIAS,
    MENTION,
    NICKNAME_KEYS,
    ORGANISATION_COLUMNS,
    SPLIT_NAME_KEYS,
    Observation,
    clean_name,
    key_for_label,
    looks_like_person,
    natural_order_names,
    person_key,
    row_keys,
    table_subject_type,
    with_whole_names,
    without_legal_form,
)

MAX_RECORDS = 20_000  # a larger table is data, not a registry: its rows are still searchable as text
_JSON_DEPTH = 6


# What a JSON list of records holds when its key says so: {"projects": [{"name": "Kitui Boreholes", …}]} lists
# pieces of work and things, whose names may read like people's ("Kitui Boreholes").
_LISTS_OF_THINGS = frozenset("""project programme program job site work contract grant study scheme initiative
    campaign asset vehicle van property building room event booking order tender bid account engagement matter
    case ticket item product""".split())


def _records_observations(keys: list[str], rows: list[list[str]], method: str,
                          things: bool = False, listed_as: str = "") -> list[Observation]:
    """`things`: the records are known to be things (their list says so), whatever their names read as.
    `listed_as`: what the list holding them calls one ("vendor" for a JSON list "vendors"), or ""."""
    found: list[Observation] = []
    if not rows or len(rows) > MAX_RECORDS:
        return found
    keys, rows = with_whole_names(keys, rows)
    # Only a header says which column names the record: people in an "assigned_to" column are
    # the rooms' occupants, not the records. Without one, the first column is the record's key.
    column = subject_column(keys, rows, named_only=True)
    if column is None:
        column = _named_column_of_a_log(rows)
    subjects = [clean_name(cell) for cell in natural_order_names([row[column] if column < len(row) else ""
                                                                  for row in rows])]
    subject_type = "thing" if things else table_subject_type(keys[column], subjects, keys, listed_as)
    if subject_type == "person":
        # A "Position" column of numbers is each one's place in the list, no job ("Position: Treasurer" is).
        cells = [[row[index] for row in rows if index < len(row)] for index in range(len(keys))]
        keys = ["position" if person_key(key) == "role" and _numbers_only(rows, index) else person_key(key, cells[index])
                for index, key in enumerate(keys)]
    for number, (row, subject) in enumerate(zip(rows, subjects)):
        if not subject or len(subject) > 120:
            continue
        wanted = row_keys(subject_type, keys[column], subject, keys)
        if wanted is None:
            continue
        found.append(Observation(subject, subject_type, MENTION, subject, 0.85, method, number))
        if subject_type == "organization" and (bare := without_legal_form(subject)) != subject and (
                len(bare.split()) > 1 or not is_common(bare.lower(), 3.0)):
            # A firm's record, "Valokaari Oy", is the "Valokaari" of notes and mails (as legal_names reads
            # prose); one common word alone ("Smith") stays no alias.
            found.append(Observation(subject, subject_type, ALIAS, bare, 0.8, method, number))
        for key, cell in zip(keys, row):
            cell = " ".join(str(cell).split())
            if cell and key != keys[column] and key in wanted:
                found.append(Observation(subject, subject_type, key, cell, 0.88, method, number))
            if cell and key in NICKNAME_KEYS and subject_type == "person" and cell.casefold() != subject.casefold():
                found.append(Observation(subject, subject_type, ALIAS, cell, 0.85, method, number))
        found += _paired_people(keys, row, number, method)
        found += _people_in_cells(keys, row, column, number, method)
    return found


def _people_in_cells(keys: list[str], row: list[str], column: int, number: int, method: str) -> list[Observation]:
    """ "venue: St Anselm's Hall; contact: Sakari Heikkilä": a cell that is a person's full
    name and nothing else names someone the user may ask about, though the row is the venue's."""
    found = []
    for index, (key, cell) in enumerate(zip(keys, row)):
        if index == column or key.endswith("_name") or key in ORGANISATION_COLUMNS or key in SPLIT_NAME_KEYS:
            continue  # the record itself, a name paired with its address (above), or a firm
        name = clean_name(str(cell))
        if name and looks_like_person(name):
            found.append(Observation(name, "person", MENTION, name, 0.8, method, number))
            # "Supplier: MedCool Ltd; Contact: Declan Hayes; Email: declan@medcool.ie": an address in the row
            # that spells the contact's name is theirs, though the row is the firm's.
            contact = "contact" in concepts_of_key(key)
            for other, value in zip(keys, row):
                address = str(value).strip().lower()
                if other == "email" and "@" in address and address_spells_name(address.split("@")[0], name):
                    found.append(Observation(name, "person", "email", address, 0.8, method, number))
                elif contact and other in ("phone", "mobile") and str(value).strip():
                    # "Contact: Brigid Tammaro; Phone: 0161 496 0733": the number the row gives is how to reach
                    # the one it names as its contact (the firm keeps it too).
                    found.append(Observation(name, "person", other, " ".join(str(value).split()), 0.8, method, number))
    return found


def _named_column_of_a_log(rows: list[list[str]]) -> int:
    """The column naming each record when no header says: the first. But a log keyed by date
    ("2026-11-23, Eastgate Rotary Club, cash, £1,000") is a list of what each named party did, and a
    list numbered by its first column ("1, Hollis Teague, …" under "Position") is a list of who or
    what is in each place: its first text column whose every cell is a different capitalised name is
    the record's name."""
    first = [row[0] for row in rows if row and row[0]]
    if len(rows) < 2 or not first or not all(_whole_date(cell) or _BARE_NUMBER.fullmatch(cell.strip())
                                             for cell in first):
        return 0
    for index in range(1, max(len(row) for row in rows)):
        if names_the_rows(rows, index):
            return index
    return 0


def _numbers_only(rows: list[list[str]], index: int) -> bool:
    cells = [row[index].strip() for row in rows if index < len(row) and row[index].strip()]
    return bool(cells) and all(_BARE_NUMBER.fullmatch(cell) for cell in cells)


# A place in a numbered list: "1", "#2", "03", "4."
_BARE_NUMBER = re.compile(r"#?\d{1,6}\.?")


def _whole_date(cell: str) -> bool:
    """ "2026-11-23", "23 November 2026", "2026-12-04T17:30": the cell is a date (a time after it aside)."""
    cell = cell.strip()
    found = find_dates(cell)
    return bool(found) and found[0][0].start() == 0 and not cell[found[0][0].end():].strip(" T:0123456789")


def _paired_people(keys: list[str], row: list[str], number: int, method: str) -> list[Observation]:
    """ "contact_name: Wouter Smeets; contact_email: w.smeets@…" -> Wouter Smeets's email; so does
    "contact: Wouter Smeets; contact_email: …" (a JSON record's {"contact": {"name": …, "email": …}}), and
    "contact_person: Wouter Smeets; contact_role: …"."""
    found = []
    for key, cell in zip(keys, row):
        if key.endswith("_name"):
            prefix = key[: -len("name")]
        elif key.endswith("_person") and key != "_person":
            # "Contact person: Dana Kim; Contact role: Project Lead": the contact's own role.
            prefix = key[: -len("person")]
        elif any(other.startswith(key + "_") for other in keys):
            prefix = key + "_"
        else:
            continue
        name = clean_name(str(cell))
        if not looks_like_person(name):
            continue
        found.append(Observation(name, "person", MENTION, name, 0.85, method, number))
        for other, value in zip(keys, row):
            if other.startswith(prefix) and other != key and str(value).strip():
                attribute = key_for_label(other[len(prefix):])
                found.append(Observation(name, "person", attribute, str(value).strip(), 0.85, method, number))
    return found


def read_csv(text: str) -> list[Observation]:
    try:
        dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline=""), dialect) if any(c.strip() for c in row)]
    except csv.Error:
        return []
    return read_table(rows)


def read_table(rows: list[list[str]]) -> list[Observation]:
    """A table's records: its first row the header, each other row a record (a CSV file, a sheet)."""
    if len(rows) < 2:
        return []
    keys = [key_for_label(h) or f"column_{n}" for n, h in enumerate(rows[0], 1)]
    return _records_observations(keys, rows[1:], "record")


def read_json(text: str) -> list[Observation]:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return []
    found: list[Observation] = []
    for records, list_key in _record_lists(data, 0):
        records = [spread_record(record) for record in records]
        keys = list(dict.fromkeys(key_for_label(str(k)) for record in records for k in record))
        raw_keys = list(dict.fromkeys(str(k) for record in records for k in record))
        rows = [[_scalar(record.get(k)) for k in raw_keys] for record in records]
        one = _singular(key_for_label(list_key))
        found += _records_observations(keys, rows, "record", things=one in _LISTS_OF_THINGS, listed_as=one)
    return found


def _singular(key: str) -> str:
    """ "vendors" → "vendor", "companies" → "company": what one item of a list so named is."""
    return key[:-3] + "y" if key.endswith("ies") else key.removesuffix("s")


def _record_lists(data, depth: int, listed: bool = False, key: str = ""):
    """Every list of objects inside `data` (the equipment list of a register, a rota's shifts), and every
    object that is one record on its own (`listed`: an item of a list, read with its list already), each
    with the key it is under ("" at the top)."""
    if depth > _JSON_DEPTH:
        return
    if isinstance(data, list):
        objects = [item for item in data if isinstance(item, dict)]
        if objects and len(objects) * 2 > len(data):
            yield objects, key
        for item in data[:MAX_RECORDS]:
            if isinstance(item, (dict, list)):
                yield from _record_lists(item, depth + 1, listed=True)
    elif isinstance(data, dict):
        if not listed and _one_record(data):
            yield [data], key
        for inner, value in data.items():
            if isinstance(value, (dict, list)):
                yield from _record_lists(value, depth + 1, key=str(inner))


# The fewest plain fields (text, numbers) that make an object on its own a record.
MIN_RECORD_FIELDS = 3


def _one_record(data: dict) -> bool:
    """An object that is itself one record, not a list of them: a grant's or a project's file ("title": …,
    "pi": …, "budget_eur": …, "end": …) with a field naming it and a few more plain fields."""
    keys = [key_for_label(str(k)) for k in data]
    row = [_scalar(v) for v in data.values()]
    return (sum(bool(cell.strip()) for cell in row) >= MIN_RECORD_FIELDS
            and subject_column(keys, [row], named_only=True) is not None)


def _scalar(value) -> str:
    if value is None or isinstance(value, (dict, list)):
        return ""
    return str(value)
