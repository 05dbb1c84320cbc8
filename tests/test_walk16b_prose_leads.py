"""Who leads what, said in sentences of a staff page and a planning note rather than in "Lead:"
fields: the offline answer names the lead, and "his" in the next question means that person."""

from __future__ import annotations

import json

import pytest

from tests.conftest import engine_learnt_from, run_cli

STAFF = """# Saltwick Maritime Archive — the team

Ignatius Holloway-Baptiste, our Keeper of Charts, catalogues the Admiralty sheets and is leading Tidemark Atlas.
ignatius.holloway@saltwick-archive.org, ext. 31.

Perpetua Nwachukwu is Archivist and heads the Harbour Ledgers digitisation project.
perpetua.nwachukwu@saltwick-archive.org, ext. 32.
"""

NOTE = """# Lantern Rock oral histories

Working notes. The recording programme is being led by Perpetua Nwachukwu; Lantern Rock is led by
Ignatius Holloway-Baptiste until March.
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    engine, folder = engine_learnt_from(tmp_path_factory, "saltwick", {"team.md": STAFF, "lantern-rock.md": NOTE})
    yield engine, folder
    engine.close()


def _lead(engine, name: str):
    found = [e for e in engine.kb.registry.find_by_alias(name) if e.type != "person"]
    assert len(found) == 1, [e.name for e in found]
    return found[0].attributes.get("lead")


def test_a_lead_said_in_a_sentence_is_the_projects_lead(folder):
    engine, _ = folder
    assert engine.kb.registry.get(_lead(engine, "Tidemark Atlas")).name == "Ignatius Holloway-Baptiste"
    assert engine.kb.registry.get(_lead(engine, "Harbour Ledgers")).name == "Perpetua Nwachukwu"
    assert engine.kb.registry.get(_lead(engine, "Lantern Rock")).name == "Ignatius Holloway-Baptiste"


def test_offline_who_leads_names_the_lead_and_his_then_means_him(folder, tmp_path):
    _, docs = folder
    data = tmp_path / "data"
    env = {"CHATAPP_LOAD_SAMPLE_KB": "false"}
    run_cli("ingest", str(docs), "--json", data_dir=data, env=env)
    asked = run_cli("ask", "who leads tidemark atlas?", "--model", "offline", "--session", "s1", "--json",
                    data_dir=data, env=env)
    assert "Ignatius Holloway-Baptiste" in json.loads(asked.stdout)["response"]["delivered"]
    pre = run_cli("preprocess", "whats his email", "--session", "s1", "--json", data_dir=data, env=env)
    names = [r["canonical_name"] for r in json.loads(pre.stdout)["resolved_entities"]]
    assert names and names[0] == "Ignatius Holloway-Baptiste"
