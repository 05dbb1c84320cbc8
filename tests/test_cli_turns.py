"""The CLI turn commands as a script would use them."""

from __future__ import annotations

import json

from tests.conftest import SAMPLE_KB, run_cli


def test_first_ask_loads_sample_kb_but_kb_commands_never_do(tmp_path):
    data_dir = tmp_path / "data"
    stats = run_cli("kb", "stats", "--json", data_dir=data_dir, env={"CHATAPP_LOAD_SAMPLE_KB": "true"})
    assert json.loads(stats.stdout)["documents"] == 0
    pre = run_cli("preprocess", "hello there", "--json", data_dir=data_dir, env={"CHATAPP_LOAD_SAMPLE_KB": "true"})
    assert pre.returncode == 0 and json.loads(run_cli("kb", "stats", "--json", data_dir=data_dir).stdout)["documents"] == 0

    asked = run_cli("ask", "What is John Smith's email?", "--json", data_dir=data_dir,
                    env={"CHATAPP_LOAD_SAMPLE_KB": "true"})
    assert asked.returncode == 0, asked.stderr
    assert "sample knowledge base" in asked.stderr
    assert "john.smith@company.com" in json.loads(asked.stdout)["response"]["delivered"]
    assert json.loads(run_cli("kb", "stats", "--json", data_dir=data_dir).stdout)["documents"] >= 25

    again = run_cli("ask", "thanks!", "--json", data_dir=data_dir, env={"CHATAPP_LOAD_SAMPLE_KB": "true"})
    assert "sample knowledge base" not in again.stderr  # only an empty knowledge base gets it


def test_preprocess_json_and_session_records(registry_engine):
    data_dir = str(registry_engine.settings.data_dir)
    result = run_cli("preprocess", "can u help me find johns email from yesterdya", "--session", "pre",
                     "--json", "--data-dir", data_dir)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["corrected_input"] == "Can you help me find John's email from yesterday?"
    first = payload["corrections"][0]
    assert {"tier", "span", "original", "corrected", "correction_type", "confidence", "alternatives"} <= set(first)
    original = payload["original_input"]
    for record in payload["corrections"]:
        assert original[record["span"][0]:record["span"][1]] == record["original"]
    names = {e["canonical_name"] for e in payload["resolved_entities"]}
    assert "John Smith" in names
    assert payload["prompt"]["token_count"] <= 4096 and payload["prompt"]["budget_profile"] == "default"

    shown = json.loads(run_cli("sessions", "show", "pre", "--json", "--data-dir", data_dir).stdout)
    assert shown["turns"] == []  # kept as a preview: nothing was asked
    turn = shown["previews"][0]
    assert turn["content"] == "can u help me find johns email from yesterdya"
    assert turn["corrections"] and turn["resolved_entities"] and turn["prompt_sections"]


def test_bad_input_gets_one_clear_line(tmp_path):
    data_dir = tmp_path / "data"
    for args in (("ask", "   "), ("preprocess", ""), ("preprocess", "hi", "--level", "extreme"),
                 ("preprocess", "hi", "--profile", "huge"), ("export", "nope"), ("sessions", "show", "nope"),
                 ("check", "--response", "x", "--evidence", str(tmp_path / "missing.txt"))):
        result = run_cli(*args, data_dir=data_dir)
        assert result.returncode == 2, (args, result.stderr)
        assert "error:" in result.stderr and "Traceback" not in result.stderr


def test_check_reads_evidence_files_by_their_format_and_refuses_broken_ones(tmp_path):
    page = tmp_path / "helios.html"
    page.write_text("<html><head><style>p { color: red }</style></head><body><h1>Helios</h1>"
                    "<p>Helios launched on 17 November 2026.</p></body></html>")
    data_dir = tmp_path / "data"
    result = run_cli("check", "--response", "Helios launched on 20 November 2026.", "--evidence", str(page),
                     "--json", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    response = json.loads(result.stdout)["response"]
    assert response["delivered"] == "Helios launched on 17 November 2026 [corrected]."
    flag = response["hallucination_flags"][0]
    assert "<p>" not in flag["evidence"][0] and "color" not in flag["evidence"][0]  # the page's text, not its markup
    broken = tmp_path / "scan.pdf"
    broken.write_bytes(b"%PDF-1.4 " + bytes(range(256)) * 8)
    refused = run_cli("check", "--response", "Helios launched.", "--evidence", str(broken), data_dir=data_dir)
    assert refused.returncode == 2 and "cannot read evidence file" in refused.stderr and "PDF" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_check_an_answer_with_evidence(tmp_path):
    evidence = tmp_path / "evidence.txt"
    evidence.write_text("The Q4 budget review meeting is on Monday 30 November 2026 at 2pm in Conference Room B.")
    data_dir = tmp_path / "data"
    run_cli("ingest", str(SAMPLE_KB / "entities.jsonl"), str(SAMPLE_KB / "facts.jsonl"), data_dir=data_dir)
    good = run_cli("check", "--response", "The Q4 budget review is in Conference Room B.", "--question",
                   "Where is the budget review?", "--evidence", str(evidence), "--json", data_dir=data_dir)
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["response"]["recommendation"] == "Accept"
    bad = run_cli("check", "--response", "John Smith's email is john.s@company.org.", "--json", data_dir=data_dir)
    response = json.loads(bad.stdout)["response"]
    assert "john.smith@company.com [corrected]" in response["delivered"]


def test_check_says_why_an_unflagged_answer_is_trusted_less(tmp_path):
    evidence = tmp_path / "launch.txt"
    evidence.write_text("Atlas launched on 3 March 2025.")
    data_dir = tmp_path / "data"
    args = ("--question", "When did Atlas launch?", "--evidence", str(evidence))
    vague = run_cli("check", "--response", "Atlas launched.", *args, data_dir=data_dir)
    assert vague.returncode == 0, vague.stderr
    said = " ".join(vague.stdout.split())
    assert "Accept" in said and "asks for a date or time but the answer gives none" in said
    dated = run_cli("check", "--response", "Atlas launched on 3 March 2025.", *args, data_dir=data_dir)
    assert "Accept" in dated.stdout and "gives none" not in dated.stdout
