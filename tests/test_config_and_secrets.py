"""Config that cannot work is refused with one line per bad value and exit code 2; a model call
that cannot be made (a bad --api-base, a model name litellm cannot route) is refused before any
request; and no key reaches the database, an export or the terminal, even when a provider echoes it.

The CLI runs as a separate process, as a user runs it; the provider is the stand-in server on
127.0.0.1 (tests/openai_server.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import chatapp  # noqa: F401 - offline environment first
from chatapp.config import BUDGET_PROFILE_NAMES, CORRECTION_LEVEL_NAMES, ConfigError, load_settings
from chatapp.llm import LLMClient, LLMError, LLMSettings
from chatapp.redact import SECRET_MARK, redact
from tests.conftest import run_cli
from tests.openai_server import Scripted

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

QUESTION = [{"role": "user", "content": "What is on the roadmap?"}]

# (setting, as written in config.toml, as set in CHATAPP_<NAME>, what the error line says)
BAD_VALUES = [
    ("correction_level", '"bogus"', "bogus", "off, minimal, standard, aggressive"),
    ("correction_level", "1.5", "1.5", "0.0 to 1.0"),
    ("budget_profile", '"nope"', "nope", "default, compact, standard, extended"),
    ("max_file_mb", "-5", "-5", "above 0"),
    ("search_k", "0", "0", "whole number"),
    ("search_k", "2.5", "2.5", "whole number"),
    ("embedding_batch_size", "true", "many", "whole number"),
    ("model", "42", "   ", "model name"),
    ("api_base", '"not a url"', "not a url", "http:// or https://"),
    ("chroma_url", '"ftp://chroma.internal"', "ftp://chroma.internal", "http:// or https://"),
    ("stall_timeout", "0", "-1", "seconds above 0"),
    ("total_timeout", "nan", "inf", "finite"),
    ("load_sample_kb", '"maybe"', "maybe", "true or false"),
    ("disabled_checks", '["spelling"]', "spelling", "no check named 'spelling'"),
]
BAD_IDS = [f"{name}={env}" for name, _, env, _ in BAD_VALUES]


def test_config_knows_the_same_level_and_profile_names_as_the_pipeline():
    from chatapp.preprocess.assembly.budgets import PROFILES
    from chatapp.preprocess.correction.levels import LEVELS

    assert CORRECTION_LEVEL_NAMES == tuple(LEVELS)
    assert BUDGET_PROFILE_NAMES == tuple(PROFILES)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


@pytest.mark.parametrize("name, in_file, _env, says", BAD_VALUES, ids=BAD_IDS)
def test_a_bad_value_in_config_toml_is_one_line_and_exit_code_2(tmp_path, name, in_file, _env, says):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "config.toml").write_text(f"{name} = {in_file}\n", encoding="utf-8")
    result = run_cli("sessions", "list", data_dir=data_dir)
    assert result.returncode == 2, result.stderr
    [line] = error_lines(result.stderr)
    assert line.startswith("error: ") and "config.toml" in line and f"'{name}'" in line and says in line


@pytest.mark.parametrize("name, _in_file, env, says", BAD_VALUES, ids=BAD_IDS)
def test_a_bad_value_in_the_environment_is_one_line_naming_the_variable(tmp_path, name, _in_file, env, says):
    variable = "CHATAPP_" + name.upper()
    result = run_cli("sessions", "list", data_dir=tmp_path / "data", env={variable: env})
    assert result.returncode == 2, result.stderr
    [line] = error_lines(result.stderr)
    assert line.startswith(f"error: {variable}: '{name}'") and says in line


def test_every_bad_value_is_reported_at_once(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "config.toml").write_text(
        'correction_level = "bogus"\nbudget_profile = "nope"\nmax_file_mb = -5\nsearch_k = 0\nmodel = 42\n'
        'colour = "blue"\n[preferences]\nauto_regenerations = -1\n', encoding="utf-8")
    result = run_cli("kb", "stats", data_dir=data_dir, env={"CHATAPP_STALL_TIMEOUT": "soon"})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = error_lines(result.stderr)
    assert len(lines) == 8 and all(line.startswith("error: ") for line in lines)
    named = " ".join(lines)
    for name in ("correction_level", "budget_profile", "max_file_mb", "search_k", "'model'", "'colour'",
                 "preferences.auto_regenerations", "CHATAPP_STALL_TIMEOUT"):
        assert name in named


def test_good_values_are_read_in_the_form_the_pipeline_takes(tmp_path):
    (tmp_path / "config.toml").write_text(
        'correction_level = "Aggressive"\nbudget_profile = " Compact "\nsearch_k = 8\nmax_file_mb = 0.5\n'
        'api_base = "http://127.0.0.1:8080/v1"\n[preferences]\nauto_regenerations = 0\ntone = "brief"\n',
        encoding="utf-8")
    settings = load_settings(tmp_path, environ={"CHATAPP_EMBEDDING_BATCH_SIZE": " 16 ",
                                                "CHATAPP_CORRECTION_LEVEL": "0.7"})
    assert (settings.correction_level, settings.budget_profile) == ("0.7", "compact")
    assert (settings.search_k, settings.max_file_mb, settings.embedding_batch_size) == (8, 0.5, 16)
    assert settings.api_base == "http://127.0.0.1:8080/v1"
    assert settings.preferences == {"auto_regenerations": 0, "tone": "brief"}
    # A flag (or a library caller's keyword) is checked like the rest and named as a flag.
    with pytest.raises(ConfigError, match="--search-k: 'search_k'"):
        load_settings(tmp_path, overrides={"search_k": -1}, environ={})


def test_ingest_of_a_path_that_does_not_exist_is_one_line_and_exit_code_2(tmp_path):
    result = run_cli("ingest", str(tmp_path / "no-such-folder"), data_dir=tmp_path / "data")
    assert result.returncode == 2
    assert error_lines(result.stderr) == [f"error: no such file or directory: {tmp_path / 'no-such-folder'}"]


# --- a model call that cannot be made --------------------------------------------------------


def no_sessions(data_dir: Path) -> bool:
    """Nothing was stored: the mistake was caught before the turn began."""
    listed = run_cli("sessions", "list", "--json", data_dir=data_dir)
    return listed.returncode == 0 and json.loads(listed.stdout)["sessions"] == []


@pytest.mark.parametrize("api_base", ["not a url", "localhost:8000", "http://", "ftp://models.internal/v1"])
def test_a_bad_api_base_is_refused_before_any_request(tmp_path, api_base):
    result = run_cli("ask", "what is on the roadmap?", "--model", "test-model", "--api-base", api_base,
                     data_dir=tmp_path / "data")
    assert result.returncode == 2, result.stderr
    [line] = error_lines(result.stderr)
    assert line.startswith("error: --api-base: 'api_base' should be") and "URL" in line
    assert no_sessions(tmp_path / "data")
    # The client itself (the TUI, a library caller) refuses it too: one attempt, no retries.
    client = LLMClient(LLMSettings(model="test-model", api_base=api_base, backoff_base=0.01))
    with pytest.raises(LLMError) as caught:
        client.stream(QUESTION)
    assert (caught.value.kind, caught.value.attempts) == ("bad_api_base", 1)


def test_a_model_name_litellm_cannot_route_is_a_bad_model_name_not_a_provider_failure(tmp_path):
    result = run_cli("ask", "what is on the roadmap?", "--model", "notaprovider/xyz", data_dir=tmp_path / "data")
    assert result.returncode == 2, result.stderr
    [line] = error_lines(result.stderr)
    assert "'notaprovider/xyz' is not a model name" in line and "provider/model" in line
    assert no_sessions(tmp_path / "data")
    with pytest.raises(LLMError) as caught:
        LLMClient(LLMSettings(model="notaprovider/xyz")).stream(QUESTION)
    assert (caught.value.kind, caught.value.attempts) == ("bad_model", 1)


def test_a_rejected_key_says_which_environment_variable_to_set(openai_server):
    openai_server.script(Scripted.error(401, message="Incorrect API key provided"))
    client = LLMClient(LLMSettings(model="test-model", api_base=openai_server.url, api_key="sk-wrong-0000"))
    with pytest.raises(LLMError) as caught:
        client.stream(QUESTION)
    assert caught.value.kind == "auth" and "OPENAI_API_KEY" in caught.value.message
    assert "--api-key" not in caught.value.message  # no such option


# --- secrets --------------------------------------------------------------------------------


@pytest.mark.parametrize("text, kept", [
    ("the provider said: invalid key sk-secret-XYZ", "the provider said: invalid key "),
    ("Authorization: Bearer eyJhbGciOi.payload.sig", "Authorization: Bearer "),
    ("could not reach https://llm.example/v1?api_key=abc123&region=eu", "region=eu"),
    ("GET /v1/models?key=AIzaShort&token=t0k3n", "/v1/models?key="),
    ('{"error": {"api_key": "hunter22", "code": 400}}', '"code": 400'),
    ("proxy at https://ana:pa55word@proxy.example:8080", "https://ana:"),
])
def test_redact_removes_keys_whatever_their_shape(text, kept):
    cleaned = redact(text)
    assert SECRET_MARK in cleaned and kept in cleaned
    for secret in ("sk-secret-XYZ", "eyJhbGciOi", "abc123", "AIzaShort", "t0k3n", "hunter22", "pa55word"):
        assert secret not in cleaned


def test_redact_keeps_the_full_stop_after_a_bearer_token():
    assert redact("Send it as Bearer eyJhbGciOi.payload.sig. Then retry.") == (
        f"Send it as Bearer {SECRET_MARK}. Then retry.")


def test_redact_leaves_ordinary_text_alone():
    text = "a risk-free task-list, the key=value syntax, and the rk-2024 release"
    assert redact(text) == text


def test_redact_removes_the_value_of_a_configured_key(monkeypatch):
    monkeypatch.setenv("ACME_LLM_API_KEY", "team-7f3a9c2e")
    assert redact("rejected credential team-7f3a9c2e for model x") == f"rejected credential {SECRET_MARK} for model x"


def stored_errors(data_dir: Path) -> str:
    """Every error and meta text the database holds about turns and model calls."""
    with sqlite3.connect(data_dir / "chatapp.db") as db:
        calls = [row[0] or "" for row in db.execute("SELECT error FROM llm_calls")]
        metas = [row[0] or "" for row in db.execute("SELECT meta FROM turns")]
    return "\n".join(calls + metas)


@pytest.mark.parametrize("key", ["sk-secret-XYZ", "team-7f3a9c2e"], ids=["sk-shaped", "any-shape"])
def test_a_provider_error_echoing_the_key_stores_and_exports_no_key(tmp_path, openai_server, key):
    data_dir = tmp_path / "data"
    openai_server.script(Scripted.error_echoing_key(400))
    result = run_cli("ask", "what is on the roadmap?", "--session", "echo", "--model", "test-model",
                     "--api-base", openai_server.url, data_dir=data_dir, env={"OPENAI_API_KEY": key})
    assert openai_server.chat_requests[0].headers["Authorization"] == f"Bearer {key}"  # the server did see it
    assert result.returncode == 1 and "rejected the request (400)" in result.stderr
    assert key not in result.stdout + result.stderr
    stored = stored_errors(data_dir)
    assert "Invalid request for key" in stored and SECRET_MARK in stored and key not in stored
    for fmt in ("json", "md", "html"):
        exported = run_cli("export", "echo", "--format", fmt, data_dir=data_dir, env={"OPENAI_API_KEY": key})
        assert exported.returncode == 0 and "what is on the roadmap?" in exported.stdout
        assert key not in exported.stdout
        if fmt == "json":  # the one format that carries each turn's error
            assert "Invalid request for key" in exported.stdout
    # With the key no longer in the environment, an sk- key is still recognised by its shape.
    if key.startswith("sk-"):
        exported = run_cli("export", "echo", "--format", "json", data_dir=data_dir, env={"OPENAI_API_KEY": ""})
        assert key not in exported.stdout and json.loads(exported.stdout)["turns"]


def test_an_api_base_with_a_key_in_its_query_string_is_stored_redacted(tmp_path, closed_port_url):
    data_dir = tmp_path / "data"
    api_base = f"{closed_port_url}?api_key=q5-private-2219"
    result = run_cli("ask", "what is on the roadmap?", "--session", "query", "--model", "test-model",
                     "--api-base", api_base, data_dir=data_dir)
    assert result.returncode == 1 and "could not reach" in result.stderr
    assert "q5-private-2219" not in result.stderr
    stored = stored_errors(data_dir)
    assert f"api_key={SECRET_MARK}" in stored and "q5-private-2219" not in stored
