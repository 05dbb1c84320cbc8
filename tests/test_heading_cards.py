"""A staff list written one heading per person, the job on the line under the name with a dash and what
the job covers ("Senior Estimator — tenders and pricing"): that line is the card's job, not another
person's entry that would make the heading a section. Real ingest; names that appear nowhere in the code."""

from __future__ import annotations

from tests.conftest import engine_learnt_from, only_entity

STAFF = """# Kestrel Ridge Builders — staff contact list

## Management & office

### Anneke Vorster
Contracts Manager — Building (retail and refurbishment jobs)
Cell: 082 555 0199 · anneke.vorster@kestrelridge.example

### Lwazi Mthembu
Senior Estimator — tenders and pricing
Cell: 083 555 0177 · lwazi.mthembu@kestrelridge.example
"""


def test_the_line_under_a_headed_name_is_its_job(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "kestrel", {"staff-contacts.md": STAFF})
    try:
        person = only_entity(engine, "Lwazi Mthembu")
        assert person.attributes.get("role") == "Senior Estimator"
        assert person.attributes.get("email") == "lwazi.mthembu@kestrelridge.example"
    finally:
        engine.close()
