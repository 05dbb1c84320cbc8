"""`chatapp doctor` tells a user what works, checked for real."""

from __future__ import annotations

import json

from tests.conftest import run_cli
from tests.openai_server import Scripted


def test_doctor_reports_models_data_and_an_answering_provider(tmp_path, openai_server):
    openai_server.script(Scripted.reply("OK"))
    result = run_cli("doctor", "--json", data_dir=tmp_path / "data",
                     env={"CHATAPP_MODEL": "gpt-4o-mini", "CHATAPP_API_BASE": openai_server.url})
    assert result.returncode == 0, result.stdout + result.stderr
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["embeddings"]["status"] == "ok" and "384-d" in checks["embeddings"]["detail"]
    assert checks["spaCy pipeline"]["status"] == "ok"
    assert checks["data dir"]["detail"] == str(tmp_path / "data")
    assert checks["model"]["status"] == "ok" and openai_server.url in checks["model"]["detail"]
    assert checks["knowledge base"]["status"] == "warn"  # empty: it says to ingest


def test_doctor_fails_clearly_when_the_provider_is_down(tmp_path, closed_port_url):
    result = run_cli("doctor", "--json", data_dir=tmp_path / "data",
                     env={"CHATAPP_MODEL": "gpt-4o-mini", "CHATAPP_API_BASE": closed_port_url})
    assert result.returncode == 1
    model = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "model")
    assert model["status"] == "fail" and model["detail"]
    assert "Traceback" not in result.stderr


def test_doctor_timings_measures_each_start_up_stage_before_the_usual_checks(tmp_path):
    result = run_cli("doctor", "--timings", "--json", data_dir=tmp_path / "data", env={"CHATAPP_MODEL": "offline"})
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    stages = [t["stage"] for t in report["timings"]]
    # In the order a cold turn meets them, from opening the data dir to a warm preprocess.
    assert stages[0].startswith("open the data dir") and stages[-2:] == ["first preprocess", "second preprocess (warm)"]
    for wanted in ("import chromadb", "import spacy", "import litellm", "spaCy pipeline load",
                   "correction dictionary load", "word-frequency table load", "embedder load (first embedding)",
                   "dense index open (Chroma)"):
        assert wanted in stages
    assert all(t["status"] in ("ok", "cached") and t["ms"] >= 0 for t in report["timings"]), report["timings"]
    # Loading the models is measured, so memory grows along the stages.
    peaks = [t["peak_mib"] for t in report["timings"]]
    assert peaks == sorted(peaks) and peaks[-1] > peaks[0]
    assert {c["name"] for c in report["checks"]} >= {"spaCy pipeline", "embeddings", "model"}
