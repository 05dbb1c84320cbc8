"""The model call, end to end over real HTTP: every test talks to an
OpenAI-compatible server on 127.0.0.1 (tests/openai_server.py) through
the openai package (or litellm, for another provider's prefix), or to the
offline responder over a real knowledge base."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import chatapp  # noqa: F401 - offline environment first
from chatapp.engine import ChatEngine
from chatapp.llm import LLMClient, LLMError, LLMSettings, OfflineResponder
from chatapp.llm.client import load_litellm
from chatapp.llm.offline import passage_sentences
from chatapp.records import KnowledgeChunk, ResolvedEntity
from tests.openai_server import Scripted, split_into_pieces  # the fixtures come from tests/conftest.py
from tests.conftest import RUN_CHATAPP

# litellm's own pydantic deprecation noise is not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SAMPLE_KB = Path(__file__).resolve().parent.parent / "sample_kb"
QUESTION = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello to the team"}]


@pytest.fixture(scope="module", autouse=True)
def litellm_loaded():
    load_litellm()  # seconds, once: not inside the first test's timeouts


def client_for(server, **overrides) -> LLMClient:
    settings = dict(model="test-model", api_base=server.url, api_key="sk-test-123", backoff_base=0.01,
                    backoff_max=0.05, first_byte_timeout=10, total_timeout=30)
    settings.update(overrides)
    return LLMClient(LLMSettings(**settings))


def failure(call) -> LLMError:
    with pytest.raises(LLMError) as caught:
        call()
    return caught.value


class RecordingCancel(threading.Event):
    """A cancel event nobody sets. The client waits on it between attempts, so
    the timeouts it is asked to wait are the backoff delays it computed."""

    # A client that ignored its cap would ask for a minute: waiting that long
    # adds nothing, since `waits` already shows the mistake.
    LONGEST_REAL_WAIT = 5.0

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout)
        return super().wait(self.LONGEST_REAL_WAIT if timeout is None else min(timeout, self.LONGEST_REAL_WAIT))


# --- streaming -----------------------------------------------------------------------


def test_text_streams_in_pieces_through_on_delta(openai_server):
    answer = "Hello team, the Q4 budget review is on Monday at 14:00."
    openai_server.script(Scripted.reply(answer, pieces=6))
    pieces: list[str] = []
    result = client_for(openai_server).stream(QUESTION, on_delta=pieces.append)

    assert len(pieces) == 6 and "".join(pieces) == answer
    assert result.text == answer and result.finish_reason == "stop" and result.attempts == 1
    assert result.model == "test-model" and result.first_byte_ms is not None
    assert result.latency_ms >= result.first_byte_ms
    sent = openai_server.chat_requests[0]
    # A bare model name with --api-base goes out as-is, and the key as a bearer token.
    assert sent.body["model"] == "test-model" and sent.body["stream"] is True
    assert sent.body["messages"] == QUESTION
    assert sent.body["stream_options"] == {"include_usage": True}
    assert sent.headers["authorization"] == "Bearer sk-test-123"


def test_keep_alive_comments_named_events_and_multi_line_data_are_read_as_one_answer(openai_server):
    openai_server.script(Scripted.reply("Read past the comments.", pieces=4, prompt_tokens=9, completion_tokens=4,
                                        verbose_events=True))
    pieces: list[str] = []
    result = client_for(openai_server).stream(QUESTION, on_delta=pieces.append)
    assert pieces == split_into_pieces("Read past the comments.", 4)
    assert (result.text, result.finish_reason) == ("Read past the comments.", "stop")
    assert (result.prompt_tokens, result.completion_tokens) == (9, 4)


def test_model_options_reach_the_server(openai_server):
    client = client_for(openai_server, model="openai/test-model", temperature=0.2, max_tokens=64)
    client.stream(QUESTION)
    body = openai_server.chat_requests[0].body
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.2 and body["max_tokens"] == 64


def test_usage_numbers_come_from_the_server(openai_server):
    openai_server.script(Scripted.reply("Fine.", prompt_tokens=42, completion_tokens=7))
    result = client_for(openai_server).stream(QUESTION)
    assert (result.prompt_tokens, result.completion_tokens) == (42, 7)
    assert result.cost == 0.0  # a local model has no price


def test_tokens_are_counted_when_the_server_sends_no_usage(openai_server):
    openai_server.script(Scripted.reply("one two three four five six seven eight", pieces=3, send_usage=False))
    result = client_for(openai_server).stream(QUESTION)
    assert result.prompt_tokens > 5 and 6 <= result.completion_tokens <= 12


def test_cost_comes_from_the_local_price_map_for_known_models(openai_server):
    openai_server.script(Scripted.reply("Hi.", prompt_tokens=1000, completion_tokens=1000))
    result = client_for(openai_server, model="gpt-4o-mini").stream(QUESTION)
    assert 0.0 < result.cost < 0.01


# --- retries ---------------------------------------------------------------------------


def test_rate_limit_then_success_takes_two_attempts(openai_server):
    openai_server.script(Scripted.error(429, retry_after=0), Scripted.reply("Done.", pieces=2))
    result = client_for(openai_server).stream(QUESTION)
    assert result.text == "Done." and result.attempts == 2
    assert len(openai_server.chat_requests) == 2


def test_retry_after_is_waited_for_but_capped_at_backoff_max(openai_server):
    openai_server.script(Scripted.error(429, retry_after=0.4), Scripted.reply("A"),
                         Scripted.error(429, retry_after=60), Scripted.reply("B"))
    client = client_for(openai_server, backoff_max=1.0)
    assert client.stream(QUESTION).text == "A"
    waits = RecordingCancel()
    assert client.stream(QUESTION, cancel=waits).text == "B"
    # backoff_base is 0.01, so the jittered part is tiny: the delay asked for is
    # the server's Retry-After, except that 60 s gives way to backoff_max.
    assert waits.waits == [1.0]
    first, second, third, fourth = openai_server.chat_requests
    assert second.received_at - first.received_at >= 0.4
    assert fourth.received_at - third.received_at >= 0.9


def test_server_error_before_any_text_is_retried(openai_server):
    openai_server.script(Scripted.error(500), Scripted.error(503), Scripted.reply("Recovered.", pieces=3))
    result = client_for(openai_server).stream(QUESTION)
    assert result.text == "Recovered." and result.attempts == 3


def test_retries_stop_after_max_retries(openai_server):
    openai_server.script(*[Scripted.error(500)] * 5)
    error = failure(lambda: client_for(openai_server, max_retries=2).stream(QUESTION))
    assert error.kind == "server" and error.attempts == 3
    assert len(openai_server.chat_requests) == 3
    assert "after 3 attempts" in error.message


@pytest.mark.parametrize("mode", ["close", "error_event"])
def test_a_stream_that_breaks_before_any_text_is_retried(openai_server, mode):
    openai_server.script(Scripted.broken_stream("never seen", pieces=2, break_after=0, mode=mode),
                         Scripted.reply("Second try."))
    result = client_for(openai_server).stream(QUESTION)
    assert result.text == "Second try." and result.attempts == 2


# --- failures mid-stream keep the partial text and are not retried -------------------------


def test_server_error_mid_stream_keeps_partial_text(openai_server):
    openai_server.script(Scripted.broken_stream("John's email is john.smith@company.com.", pieces=4, break_after=2))
    shown: list[str] = []
    error = failure(lambda: client_for(openai_server).stream(QUESTION, on_delta=shown.append))
    assert error.kind == "server" and error.status == 500
    assert error.partial_text == "".join(shown) and error.partial_text.startswith("John's email")
    assert len(openai_server.chat_requests) == 1 and error.attempts == 1
    assert "partial answer" in error.message and "\n" not in error.message


def test_connection_dropped_mid_stream_is_reported_as_interrupted(openai_server):
    openai_server.script(Scripted.broken_stream("abcdefghij", pieces=5, break_after=3, mode="close"))
    error = failure(lambda: client_for(openai_server).stream(QUESTION))
    assert error.kind == "interrupted" and error.partial_text == "abcdef"
    assert len(openai_server.chat_requests) == 1


# --- timeouts -------------------------------------------------------------------------------


def test_first_byte_timeout_fires_before_the_slow_answer(openai_server):
    openai_server.script(Scripted.reply("too late", first_byte_delay=10))
    started = time.monotonic()
    error = failure(lambda: client_for(openai_server, first_byte_timeout=1.0).stream(QUESTION))
    answered = openai_server.chat_requests[0].responded
    assert error.kind == "timeout_first_byte" and time.monotonic() - started >= 1.0
    assert not answered  # it gave up while the server still held its answer back
    assert error.partial_text == "" and "first_byte_timeout" in error.message
    assert len(openai_server.chat_requests) == 1  # a timeout is not retried


def test_a_stall_mid_stream_hits_the_total_timeout_with_text_kept(openai_server):
    text = "first piece, then nothing"
    openai_server.script(Scripted.reply(text, pieces=3, piece_delay=10))
    started = time.monotonic()
    error = failure(lambda: client_for(openai_server, total_timeout=1.5).stream(QUESTION))
    delivered = openai_server.chat_requests[0].pieces_sent
    assert error.kind == "timeout_total" and time.monotonic() - started >= 1.5
    assert delivered == 1  # it gave up during the stall, not after the server went on
    assert error.partial_text == split_into_pieces(text, 3)[0]


# --- errors that a retry cannot fix ------------------------------------------------------------


@pytest.mark.parametrize("status, kind, hint", [
    (401, "auth", "OPENAI_API_KEY"),
    (403, "auth", "API key"),
    (400, "bad_request", "max_tokens is too large"),
    (404, "not_found", "--model"),
])
def test_client_errors_are_not_retried(openai_server, status, kind, hint):
    openai_server.script(Scripted.error(status, message="max_tokens is too large"), Scripted.reply("unused"))
    error = failure(lambda: client_for(openai_server).stream(QUESTION))
    assert (error.kind, error.status, error.attempts) == (kind, status, 1)
    assert hint in error.message
    assert len(openai_server.chat_requests) == 1


def test_unreachable_server_is_a_connection_error_after_retries(closed_port_url):
    client = LLMClient(LLMSettings(model="test-model", api_base=closed_port_url, max_retries=2, backoff_base=0.01))
    error = failure(lambda: client.stream(QUESTION))
    assert error.kind == "connection" and error.attempts == 3
    assert closed_port_url in error.message


def test_missing_api_key_says_which_variable_to_set(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    client = LLMClient(LLMSettings(model="anthropic/claude-3-5-haiku-20241022", backoff_base=0.01))
    error = failure(lambda: client.stream(QUESTION))
    assert error.kind == "auth" and error.attempts == 1
    assert "ANTHROPIC_API_KEY" in error.message


def test_litellm_prints_nothing_of_its_own(openai_server, capfd):
    openai_server.script(Scripted.error(500), Scripted.error(400))
    failure(lambda: client_for(openai_server, max_retries=0).stream(QUESTION))
    failure(lambda: client_for(openai_server, max_retries=0).stream(QUESTION))
    out, err = capfd.readouterr()
    assert "Give Feedback" not in out + err and "LiteLLM" not in out + err


# --- which library carries the call -----------------------------------------------------------


def test_an_openai_compatible_call_never_imports_litellm(openai_server):
    """litellm's import costs seconds; a call to an OpenAI-compatible server does not wait for it."""
    openai_server.script(Scripted.reply("Hello there.", pieces=3))
    script = (
        "import sys, chatapp\n"
        "from chatapp.llm import LLMClient, LLMSettings\n"
        f"client = LLMClient(LLMSettings(model='test-model', api_base={openai_server.url!r}))\n"
        "result = client.stream([{'role': 'user', 'content': 'hi'}])\n"
        "print(result.text, '|', 'litellm' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "Hello there. | False"
    # A local server wants no key; the client still sends one, since the openai package insists.
    assert openai_server.chat_requests[0].headers["authorization"] == "Bearer no-key"


def _ask_in_a_process(openai_server, tmp_path, *python_args: str) -> subprocess.CompletedProcess:
    """`chatapp ask "who leads the project"` on the test server, run as `python PYTHON_ARGS ask …`; the
    answer the server was scripted with must come back."""
    env = {**os.environ, "CHATAPP_LOAD_SAMPLE_KB": "false"}
    done = subprocess.run(
        [sys.executable, *python_args, "ask", "who leads the project", "--model", "test-model",
         "--api-base", openai_server.url, "--data-dir", str(tmp_path / "data")],
        capture_output=True, text=True, timeout=300, env=env, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Nobody leads it yet." in done.stdout
    return done


def test_a_whole_ask_against_an_openai_compatible_server_never_imports_litellm(openai_server, tmp_path):
    openai_server.script(Scripted.reply("Nobody leads it yet.", pieces=2))
    done = _ask_in_a_process(openai_server, tmp_path, "-X", "importtime", "-m", "chatapp")
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "spacy" in imported  # the listing is whole: the turn was preprocessed
    # Imports in the background thread may interleave their lines with the main thread's: look at
    # every module of each package, not only its top line.
    def package_imported(name):
        return any(module == name or module.startswith(name + ".") for module in imported)

    assert not package_imported("litellm") and package_imported("openai")  # the openai package alone carries the call


def test_a_whole_ask_against_an_openai_compatible_server_loads_no_aiohttp_trio_or_h2(openai_server, tmp_path):
    """aiohttp backs only the openai package's async client, trio only async code run under trio, h2
    only HTTP/2 (together 0.15 s of CPU and 15 MiB to import)."""
    openai_server.script(Scripted.reply("Nobody leads it yet.", pieces=2))
    probe = (
        RUN_CHATAPP +
        "print('aiohttp, trio, h2 loaded:', [name in sys.modules for name in ('aiohttp', 'trio', 'h2')],\n"
        "      'openai loaded:', 'openai' in sys.modules)\n"
    )
    done = _ask_in_a_process(openai_server, tmp_path, "-c", probe)
    assert done.stdout.rstrip().endswith("aiohttp, trio, h2 loaded: [False, False, False] openai loaded: True")


def test_a_whole_ask_against_an_openai_compatible_server_loads_only_the_chat_types_of_the_openai_package(
        openai_server, tmp_path):
    """`openai.types` and `openai.types.responses` would import, in their `__init__`, the models of every
    endpoint (the Responses API alone is hundreds of modules); a streamed chat completion needs a few."""
    openai_server.script(Scripted.reply("Nobody leads it yet.", pieces=2))
    probe = (
        RUN_CHATAPP +
        "types = [name for name in sys.modules if name.startswith('openai.types.')]\n"
        "print('responses types:', len([name for name in types if name.startswith('openai.types.responses.')]))\n"
        "print('chat types:', any(name.startswith('openai.types.chat.') for name in types))\n"
    )
    done = _ask_in_a_process(openai_server, tmp_path, "-c", probe)
    *_, responses_line, chat_line = done.stdout.rstrip().splitlines()
    assert chat_line == "chat types: True"
    # one parameter type the chat code imports by its own name, against about 250 with the whole package
    assert int(responses_line.removeprefix("responses types: ")) <= 5


def _after_one_streamed_answer(openai_server, then: str) -> str:
    """What a fresh interpreter prints running `then` after one answer ("Hello there.") streamed from the
    test server through chatapp's client."""
    openai_server.script(Scripted.reply("Hello there.", pieces=1))
    script = (
        "import sys, chatapp\n"
        "from chatapp.llm import LLMClient, LLMSettings\n"
        f"client = LLMClient(LLMSettings(model='test-model', api_base={openai_server.url!r}))\n"
        "answer = client.stream([{'role': 'user', 'content': 'hi'}]).text\n" + then
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_the_openai_types_package_answers_every_name_once_asked(openai_server):
    """Whatever asks the package itself for a name later (a caller of another endpoint) gets it."""
    printed = _after_one_streamed_answer(openai_server, (
        "import openai.types, openai.types.responses\n"
        "from openai.types import CompletionUsage\n"
        "print(answer, openai.types.Embedding.__name__, openai.types.responses.Response.__name__, CompletionUsage.__name__)\n"
    ))
    assert printed == "Hello there. Embedding Response CompletionUsage"


def test_modules_left_out_of_the_openai_route_still_load_for_whatever_needs_them_later(openai_server):
    """litellm (every other provider) imports aiohttp, maybe later in the same chat. trio is no
    dependency of ours (the HTTP library imports it when it is installed): checked where it is."""
    import importlib.util

    trio = importlib.util.find_spec("trio") is not None
    printed = _after_one_streamed_answer(openai_server, (
        "before = [name in sys.modules for name in ('aiohttp', 'trio', 'h2')]\n"
        "import aiohttp, h2.connection\n"
        + ("import trio\nlock = trio.Lock.__name__\n" if trio else "lock = 'Lock'\n") +
        "print(answer, before, aiohttp.ClientSession.__name__, lock, h2.connection.H2Connection.__name__)\n"
    ))
    assert printed == "Hello there. [False, False, False] ClientSession Lock H2Connection"


def test_an_openai_name_without_api_base_follows_the_openai_environment(openai_server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-456")
    openai_server.script(Scripted.reply("Routed.", pieces=2))
    result = LLMClient(LLMSettings(model="openai/test-model")).stream(QUESTION)
    sent = openai_server.chat_requests[0]
    assert result.text == "Routed."
    assert sent.body["model"] == "test-model" and sent.headers["authorization"] == "Bearer sk-from-env-456"


def test_an_openai_name_with_no_key_anywhere_says_which_variable_to_set(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    error = failure(lambda: LLMClient(LLMSettings(model="openai/gpt-4o-mini", backoff_base=0.01)).stream(QUESTION))
    assert error.kind == "auth" and error.attempts == 1
    assert "OPENAI_API_KEY" in error.message and "\n" not in error.message


def test_another_provider_prefix_still_goes_through_litellm(openai_server):
    """hosted_vllm/ is an OpenAI-compatible provider litellm knows: its call is litellm's, over the same wire."""
    openai_server.script(Scripted.reply("Via litellm.", pieces=3, prompt_tokens=11, completion_tokens=3))
    result = client_for(openai_server, model="hosted_vllm/test-model").stream(QUESTION)
    assert result.text == "Via litellm." and (result.prompt_tokens, result.completion_tokens) == (11, 3)
    assert openai_server.chat_requests[0].body["model"] == "test-model"


# --- cancellation ---------------------------------------------------------------------------


def test_cancel_mid_stream_returns_what_arrived(openai_server):
    openai_server.script(Scripted.reply("x" * 40, pieces=40, piece_delay=0.1))
    cancel = threading.Event()
    shown: list[str] = []

    def on_delta(piece: str) -> None:
        shown.append(piece)
        if len(shown) == 3:
            cancel.set()

    result = client_for(openai_server).stream(QUESTION, on_delta=on_delta, cancel=cancel)
    request = openai_server.chat_requests[0]
    sent, finished = request.pieces_sent, request.completed
    assert result.finish_reason == "cancelled"
    assert not finished and sent < 40  # it returned while the server still had pieces to send
    assert result.text == "".join(shown) == "xxx"  # nothing after the cancel is shown or kept
    assert result.completion_tokens > 0


def test_cancel_while_waiting_for_the_first_byte(openai_server):
    openai_server.script(Scripted.reply("late", first_byte_delay=10))
    cancel = threading.Event()
    # Cancel once the request is at the server: the client is then waiting for the first byte.
    threading.Thread(target=lambda: openai_server.wait_for_chat_requests(1) and cancel.set(), daemon=True).start()
    result = client_for(openai_server).stream(QUESTION, cancel=cancel)
    answered = openai_server.chat_requests[0].responded
    assert result.finish_reason == "cancelled" and result.text == ""
    assert not answered  # it returned before the server sent a byte, not at the 10 s first-byte timeout
    assert len(openai_server.chat_requests) == 1


# --- the offline responder -------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory):
    """The registry plus two emails: enough for attribute answers and retrieval."""
    engine = ChatEngine.open(tmp_path_factory.mktemp("llm-kb"), load_sample_kb=False)
    engine.ingest(SAMPLE_KB / "entities.jsonl", SAMPLE_KB / "facts.jsonl",
                  SAMPLE_KB / "emails" / "2026-11-26-q4-budget-review.eml",
                  SAMPLE_KB / "emails" / "2026-11-24-conference-room-b-maintenance.eml")
    yield engine.kb
    engine.close()


def offline_client(kb) -> LLMClient:
    return LLMClient(LLMSettings(model="offline"), OfflineResponder(kb))


def ask(kb, *turns: str, **kwargs):
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(turns)]
    pieces: list[str] = []
    result = offline_client(kb).stream(messages, on_delta=pieces.append, **kwargs)
    return result, pieces


def test_offline_answers_an_email_question_from_the_registry(small_kb):
    result, pieces = ask(small_kb, "what is John Smith's email?")
    assert "John Smith's email is john.smith@company.com." in result.text
    assert result.text.startswith("(offline")
    assert "team-directory.md" in result.text  # the fact's source, by file name
    assert len(pieces) >= 5 and "".join(pieces) == result.text
    assert result.model == "offline" and result.cost == 0.0 and result.finish_reason == "stop"
    assert result.prompt_tokens > 0 and result.completion_tokens > 0


def test_offline_resolves_aliases_and_follow_up_pronouns(small_kb):
    result, _ = ask(small_kb, "What's John's phone number?")
    assert "John Smith's phone is +1 555 0142." in result.text
    result, _ = ask(small_kb, "What's Sarah's email?", "Sarah Chen's email is sarah.chen@company.com.",
                    "and where is she based?")
    assert "Sarah Chen's location is San Francisco, CA." in result.text


def test_offline_knows_people_added_to_the_knowledge_base_after_its_first_answer(tmp_path):
    """The responder indexes the registry once per version: an ingest in the same session shows."""
    engine = ChatEngine.open(tmp_path / "data", load_sample_kb=False)
    people = tmp_path / "people"
    people.mkdir()

    def add_person(slug: str, name: str, email: str, role: str) -> None:
        entity = {"id": f"person:{slug}", "type": "person", "name": name, "aliases": [name.split()[0]],
                  "description": f"{role} in the harbour office.", "attributes": {"email": email, "role": role},
                  "prior": 0.5}
        (people / slug).mkdir()
        (people / slug / "entities.jsonl").write_text(json.dumps(entity) + "\n")
        engine.ingest(people / slug / "entities.jsonl")

    try:
        add_person("ines-moreau", "Ines Moreau", "ines.moreau@harbour.example", "Harbour Master")
        client = offline_client(engine.kb)
        asked = lambda question: client.stream([{"role": "user", "content": question}]).text  # noqa: E731
        assert "Ines Moreau's email is ines.moreau@harbour.example." in asked("what is Ines Moreau's email?")
        assert "Tomasz" not in asked("what is Tomasz Kowal's email?")
        add_person("tomasz-kowal", "Tomasz Kowal", "t.kowal@harbour.example", "Dock Engineer")
        assert "Tomasz Kowal's email is t.kowal@harbour.example." in asked("what is Tomasz Kowal's email?")
        assert "Tomasz Kowal" in asked("whose email is t.kowal@harbour.example?")
        assert "Tomasz Kowal" in asked("who is the dock engineer?")
    finally:
        engine.close()


def test_offline_answers_when_from_event_attributes(small_kb):
    result, _ = ask(small_kb, "When is the Q4 budget review?")
    assert "2026-11-30 at 14:00" in result.text


def test_offline_quotes_retrieved_passages_with_their_file_names(small_kb):
    result, _ = ask(small_kb, "Why is conference room B closed?")
    assert "2026-11-24-conference-room-b-maintenance.eml" in result.text
    assert "From your documents:" in result.text


def test_offline_answers_with_the_sentence_that_gives_the_value_asked_for(small_kb):
    note = KnowledgeChunk(chunk_id="m", source="/kb/notes/winter-market.md", relevance=0.9, document_id="m",
                          title="Winter market", content=(
                              "# Winter market — 2 December 2026\n\nWren will run the stall at the Hollins Street "
                              "winter market on 12 December.\nStall fee is £85. We'll bring the celadon bowls.\n"))
    result, _ = ask(small_kb, "whats the stall fee for the winter market", context={"rag_chunks": [note]})
    quoted = [line for line in result.text.splitlines() if line.startswith("- ")]
    # The short sentence with the amount comes first; the heading is never quoted as an answer.
    assert quoted[0] == "- Stall fee is £85. (winter-market.md)"
    assert not any("Winter market — 2 December" in line for line in quoted)
    result, _ = ask(small_kb, "who runs the market stall?", context={"rag_chunks": [note]})
    assert result.text.split("From your documents:", 1)[1].strip().startswith("- Wren will run the stall")


STANDUP_NOTES = KnowledgeChunk(chunk_id="s", source="/kb/notes/standup.md", relevance=0.9, document_id="s",
                               title="Standup", content=(
                                   "# Standup\n\nPresent: Ilse Varga, Tomas Orr\n\n"
                                   "- Ilse is leading the Quayside migration; cut-over moved to 14 December.\n"
                                   "- Tomas sent the export on Friday. Totals came to 48,310 EUR.\n"
                                   "- Next standup: Monday.\n"))


def quoted_lines(kb, question: str, **context) -> list[str]:
    result, _ = ask(kb, question, context={"rag_chunks": [STANDUP_NOTES], **context})
    return [line for line in result.text.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("question, first", [
    ("when is the cut over?", "cut-over moved to 14 December"),  # a hyphenated word asked as two words
    ("when is the cutover?", "cut-over moved to 14 December"),  # or as one
    ("what was the total of the export?", "Totals came to 48,310 EUR."),  # a word's other forms
    ("who attended the standup?", "Present: Ilse Varga, Tomas Orr"),  # names for "who", the words aside
], ids=["two-words", "one-word", "plural", "who"])
def test_offline_quotes_the_sentence_that_answers_first(small_kb, question, first):
    assert first in quoted_lines(small_kb, question)[0]


def test_offline_who_reads_a_surname_with_a_particle_as_a_name(small_kb):
    register = KnowledgeChunk(chunk_id="r", source="/kb/tools.json", relevance=0.9, document_id="r", title="tools",
                              content=("tag: T-09; item: Band saw; location: Bay 1; owner: Maarten van Dijk\n\n"
                                       "Blade orders are owned by Greta Holm in purchasing."))
    lines = quoted_lines(small_kb, "who owns the band saw?", rag_chunks=[register])
    assert "owner: Maarten van Dijk" in lines[0]


def test_offline_does_not_summarise_a_date_the_question_names(small_kb):
    day = ResolvedEntity(surface="on 30 November", span=(24, 38), entity_id="date:2026-11-30",
                         canonical_name="2026-11-30", entity_type="DATE", confidence=0.9,
                         attributes={"date": "2026-11-30"})
    result, _ = ask(small_kb, "who attended the standup on 30 November?",
                    context={"rag_chunks": [STANDUP_NOTES], "resolved_entities": [day]})
    assert "2026-11-30:" not in result.text
    assert "Present: Ilse Varga, Tomas Orr" in result.text


def test_offline_lists_documents_when_asked_to_find_one(small_kb):
    result, _ = ask(small_kb, "Can you help me find the email from John about the Q4 budget?")
    assert "The document that matches:" in result.text or "Documents that match:" in result.text
    first = result.text.split("match:", 1)[1].strip().splitlines()[0]
    assert "2026-11-26-q4-budget-review.eml, 2026-11-26" in first
    assert "john.smith@company.com" not in result.text  # a document was asked for, not the address
    # Asking for the attribute still gets the attribute.
    result, _ = ask(small_kb, "What is John's email?")
    assert "john.smith@company.com" in result.text and "match:" not in result.text


def test_offline_puts_documents_of_the_asked_day_first(small_kb):
    later = KnowledgeChunk(chunk_id="a", source="/kb/emails/b.eml", relevance=0.9, content="Budget numbers attached.",
                           title="Budget numbers", document_id="b", date="2026-11-26T09:00:00+00:00")
    asked = KnowledgeChunk(chunk_id="b", source="/kb/emails/a.eml", relevance=0.5, content="Room B is closed.",
                           title="Room B", document_id="a", date="2026-11-24T09:00:00+00:00")
    day = ResolvedEntity(surface="on Tuesday", span=(0, 0), entity_id="date:2026-11-24", canonical_name="2026-11-24",
                         entity_type="DATE", confidence=0.9)
    result, _ = ask(small_kb, "find the email from Tuesday",
                    context={"rag_chunks": [later, asked], "resolved_entities": [day]})
    listed = result.text.split("match:", 1)[1].strip().splitlines()
    assert listed[0].startswith("- Room B (a.eml, 2026-11-24)") and "Budget numbers" in listed[1]


def test_offline_uses_the_chunks_and_entities_it_is_given(small_kb):
    chunk = KnowledgeChunk(chunk_id="c1", source="/kb/notes/atlas-sync.md", relevance=1.0,
                           content="The Atlas backfill is at 88% and on track for December 4.")
    result, _ = ask(small_kb, "How far along is the backfill?", context={"rag_chunks": [chunk]})
    assert "88%" in result.text and "atlas-sync.md" in result.text


def test_offline_says_so_when_it_knows_nothing(small_kb):
    result, _ = ask(small_kb, "What is the frobnication quota for xyzzy?")
    assert result.text.startswith("(offline") and "found nothing" in result.text
    no_kb, _ = ask(None, "what is John Smith's email?")
    assert "no knowledge base" in no_kb.text and "@" not in no_kb.text


def test_offline_answers_both_parts_of_a_two_part_question(small_kb):
    result, _ = ask(small_kb, "Who's working on Project Atlas and what's the deadline?")
    assert "Project Atlas's owner is John Smith." in result.text
    assert "Project Atlas's deadline is 2027-01-15." in result.text
    only_deadline, _ = ask(small_kb, "What is the Atlas deadline?")
    assert "deadline is 2027-01-15" in only_deadline.text and "owner" not in only_deadline.text


def test_offline_answers_who_someone_is_beside_another_part(small_kb):
    result, _ = ask(small_kb, "who is sarah chen and when is the q4 budget review")
    assert "Sarah Chen: Finance Manager" in result.text
    assert "Q4 Budget Review Meeting is on 2026-11-30 at 14:00." in result.text
    assert result.text.index("Sarah Chen:") < result.text.index("Q4 Budget Review Meeting is on")


def test_offline_cue_words_find_keys_of_their_kind(small_kb):
    result, _ = ask(small_kb, "Who leads Helios?")  # as the correction tier hands it on
    assert "Helios's eng lead is Kenji Watanabe." in result.text
    assert "Helios's marketing lead is Priya Patel." in result.text
    owner, _ = ask(small_kb, "Who owns Helios?")
    assert "Helios's product owner is Miguel Alvarez." in owner.text and "lead" not in owner.text


def test_offline_quotes_no_mail_signature_or_reply_attribution():
    mail = ("Thanks, I'll sign the Northwind contract today.\n\n"
            "On Tue, 27 Oct 2026 at 15:22, Sarah Chen <sarah.chen@company.com> wrote:\n"
            "> The contract is attached for your signature.\n\n--\nSarah Chen | Finance Manager\n+1 555 0117\n")
    assert passage_sentences(mail) == ["Thanks, I'll sign the Northwind contract today.",
                                       "The contract is attached for your signature."]


def test_offline_quotes_a_directory_entry_a_line_each():
    # Entries written a line each, fields set apart by dots, are no wrapped paragraph to rejoin: quoting
    # one person's line must not run on into the next person's.
    directory = ("**Vigdis Vassbotn** · Managing Director · vigdis@fjordlaks.example · +47 917 44 210\n"
                 "**Sigrid Aaslund** · Finance Manager · sigrid.aaslund@fjordlaks.example · +47 934 18 652\n"
                 "Brynhild Kvalsund · Licensing Advisor · brynhild@fjordlaks.example · +47 992 07 514\n\n"
                 "The office closes at 16:00 on Fridays and the switchboard\nmoves to the emergency line.\n")
    assert passage_sentences(directory) == [
        "Vigdis Vassbotn · Managing Director · vigdis@fjordlaks.example · +47 917 44 210",
        "Sigrid Aaslund · Finance Manager · sigrid.aaslund@fjordlaks.example · +47 934 18 652",
        "Brynhild Kvalsund · Licensing Advisor · brynhild@fjordlaks.example · +47 992 07 514",
        "The office closes at 16:00 on Fridays and the switchboard moves to the emergency line."]


def test_offline_answers_small_talk_in_kind(small_kb):
    assert "Hello!" in ask(small_kb, "hi there")[0].text
    assert "You're welcome" in ask(small_kb, "thanks a lot!")[0].text
    assert "Goodbye" in ask(small_kb, "bye")[0].text
    assert "found nothing" not in ask(small_kb, "ok")[0].text


def test_offline_stream_can_be_cancelled(small_kb):
    cancel = threading.Event()
    pieces: list[str] = []

    def on_delta(piece: str) -> None:
        pieces.append(piece)
        cancel.set()

    result = offline_client(small_kb).stream([{"role": "user", "content": "Tell me about Project Atlas"}],
                                             on_delta=on_delta, cancel=cancel)
    assert result.finish_reason == "cancelled" and result.text == pieces[0]
