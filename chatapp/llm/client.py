"""LLMClient: one streamed model call, with our own retries, timeouts,
cancellation, token counts and cost.

A remote call takes one of two routes: an OpenAI-compatible endpoint goes
through the openai package (chatapp/llm/openai_compatible.py: it imports in a
fraction of litellm's time), every other provider through litellm.

The route's iterator runs in a worker thread that feeds a queue; the caller's
thread drains the queue, calls `on_delta` and watches the clock and the
cancel event. That way a server that stalls mid-read can never hold the
caller past a timeout: the worker is simply abandoned (it is a daemon and
ends when its socket read times out or the next chunk arrives).
"""

from __future__ import annotations

import logging
import os
import queue
import random
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from chatapp.config import url_problem
from chatapp.llm.errors import RETRYABLE_KINDS, LLMError, classify_failure, failure_message
from chatapp.llm.library_import import LibraryImport
from chatapp.llm.openai_compatible import (OPENAI_PREFIX, PLACEHOLDER_KEY, OpenAICompatibleRoute, load_openai,
                                           quiet_http_loggers, start_loading_openai, uses_openai_client)
from chatapp.llm.settings import OFFLINE_MODEL, LLMSettings
from chatapp.redact import redact, remember_secret

if TYPE_CHECKING:
    from chatapp.llm.offline import OfflineResponder

# How often the caller's thread wakes to look at the cancel event.
CANCEL_POLL_SECONDS = 0.05


@dataclass
class LLMResult:
    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost: float
    latency_ms: float
    first_byte_ms: float | None
    attempts: int
    finish_reason: str | None


# --- litellm, loaded lazily and kept quiet -------------------------------------------

def _quiet_litellm(litellm) -> None:
    # LITELLM_LOCAL_MODEL_COST_MAP is already set: chatapp/__init__ ran before this module.
    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners
    litellm.set_verbose = False
    if hasattr(litellm, "telemetry"):
        litellm.telemetry = False
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    quiet_http_loggers()


_LITELLM = LibraryImport("litellm", _quiet_litellm)
# Import litellm (slow: seconds) now, or in a worker so that a turn's preprocessing (much of it in
# numpy, onnxruntime and file reads, which let the thread run) overlaps it.
load_litellm = _LITELLM.load
start_loading_litellm = _LITELLM.start


def start_loading_client(settings: LLMSettings) -> None:
    """Start importing the library `settings` will be called through, in the background."""
    if settings.is_offline:
        return
    if uses_openai_client(settings):
        start_loading_openai()
    else:
        start_loading_litellm()


def load_client_library(model: str, api_base: str | None) -> None:
    """Import now the library a call to `model` will go through (seconds), not on the first message."""
    settings = LLMSettings(model=model, api_base=api_base)
    if not settings.is_offline:
        load_openai() if uses_openai_client(settings) else load_litellm()


def litellm_model_name(model: str, api_base: str | None) -> str:
    """litellm routes by a provider prefix; a bare name sent to a custom
    api_base means an OpenAI-compatible server."""
    if not api_base:
        return model
    prefix = model.split("/", 1)[0] if "/" in model else ""
    providers = {getattr(p, "value", p) for p in load_litellm().provider_list}
    return model if prefix in providers else f"openai/{model}"


def model_problem(model: str, api_base: str | None) -> str | None:
    """Why litellm cannot route `model` to a provider (None when it can), found without a network call:
    "notaprovider/xyz" or a bare unknown name with no --api-base would otherwise fail only after the
    request was built, with litellm's own message."""
    if model.strip().lower() == OFFLINE_MODEL:
        return None
    if api_base or model.startswith(OPENAI_PREFIX):
        # Sent to an OpenAI-compatible server, any name routes: one without a known provider prefix
        # goes as openai/<name> (litellm_model_name). No need to wait for litellm's import here.
        return None
    litellm = load_litellm()
    try:
        litellm.get_llm_provider(model=litellm_model_name(model, api_base), api_base=api_base)
    except Exception as exc:  # noqa: BLE001 - only litellm's "provider not provided" is a bad name
        if "provider" not in str(exc).lower():
            return None
        return (f"'{model}' is not a model name litellm can route: use provider/model (openai/gpt-4o-mini, "
                "anthropic/claude-3-5-haiku-latest, ollama/llama3), a known name such as gpt-4o-mini, "
                "or --api-base for an OpenAI-compatible server")
    return None


def api_base_problem(api_base: str | None) -> str | None:
    """Why `api_base` cannot be called (None when it can, or when there is none)."""
    problem = url_problem(api_base) if api_base else None
    return f"the api_base {problem}, got {redact(api_base)!r}" if problem else None


# --- the client --------------------------------------------------------------------


@dataclass
class _Attempt:
    text: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    first_byte_at: float | None = None
    failure: BaseException | None = None
    stopped: str | None = None  # "cancelled" | "timeout_first_byte" | "timeout_total"


def _read_stream(open_stream: Callable[[], Any], events: queue.Queue, abandon: threading.Event) -> None:
    """Worker thread: run a route's stream and put ("delta"|"usage"|"finish"|"end"|"error", value) events."""
    response = None
    try:
        response = open_stream()
        for chunk in response:
            if abandon.is_set():
                break
            usage = getattr(chunk, "usage", None)
            if usage is not None and getattr(usage, "completion_tokens", None) is not None:
                events.put(("usage", (usage.prompt_tokens, usage.completion_tokens)))
            for choice in getattr(chunk, "choices", None) or []:
                delta = getattr(choice, "delta", None)
                content = getattr(delta, "content", None)
                if content:
                    events.put(("delta", content))
                elif getattr(delta, "reasoning_content", None):
                    events.put(("alive", None))  # a reasoning model thinking aloud: not stalled
                if getattr(choice, "finish_reason", None):
                    events.put(("finish", choice.finish_reason))
        events.put(("end", None))
    except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread, which classifies it
        events.put(("error", exc))
    finally:
        # litellm wraps the openai package's stream; the OpenAI-compatible route's generator closes itself.
        close = getattr(getattr(response, "completion_stream", response), "close", None)
        if abandon.is_set() and callable(close):
            try:
                close()
            except Exception:  # noqa: BLE001 - best effort: frees the connection sooner
                pass


class LitellmRoute:
    """Every provider litellm knows: its completion call, its token counter and its price map."""

    def __init__(self, settings: LLMSettings):
        self.settings = settings
        self.litellm = load_litellm()
        self.model = litellm_model_name(settings.model, settings.api_base)

    def open(self, messages: list[dict], timeout: float):
        s = self.settings
        call: dict[str, Any] = {
            "model": self.model, "messages": messages, "stream": True, "timeout": timeout,
            "stream_options": {"include_usage": True}, "num_retries": 0, "max_retries": 0,
            "drop_params": True,  # a provider that lacks a parameter should not fail the call
        }
        if s.api_base:
            call["api_base"] = s.api_base
        if s.api_key:
            call["api_key"] = s.api_key
        elif s.api_base and self.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            call["api_key"] = PLACEHOLDER_KEY  # the openai SDK underneath sends nothing without a key
        if s.temperature is not None:
            call["temperature"] = s.temperature
        if s.max_tokens is not None:
            call["max_tokens"] = s.max_tokens
        return self.litellm.completion(**call)

    def count_tokens(self, messages: list[dict] | None = None, text: str | None = None) -> int:
        return count_tokens(self.model, messages=messages, text=text)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return cost_of(self.litellm, self.model, prompt_tokens, completion_tokens)


def remote_route(settings: LLMSettings) -> "OpenAICompatibleRoute | LitellmRoute":
    return OpenAICompatibleRoute(settings) if uses_openai_client(settings) else LitellmRoute(settings)


class LLMClient:
    def __init__(self, settings: LLMSettings, offline_responder: "OfflineResponder | None" = None):
        self.settings = settings
        self.offline_responder = offline_responder
        remember_secret(settings.api_key)  # never stored, even when a provider's error quotes it

    # --- public ----------------------------------------------------------------

    def stream(self, messages: list[dict], on_delta: Callable[[str], None] | None = None,
               cancel: threading.Event | None = None, context: dict | None = None) -> LLMResult:
        """Run one call, calling `on_delta` with each piece of text as it arrives.

        Returns the whole answer, or what arrived before `cancel` was set
        (finish_reason "cancelled"). Raises LLMError. `context` is only read by
        the offline responder (retrieved chunks, resolved entities, question).
        """
        if self.settings.is_offline:
            return self._stream_offline(messages, on_delta, cancel, context)
        return self._stream_remote(messages, on_delta, cancel)

    # --- remote models ---------------------------------------------------------

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        s = self.settings
        # Full jitter: spread retries of many clients over the whole window.
        delay = random.uniform(0, min(s.backoff_max, s.backoff_base * 2 ** (attempt - 1)))
        if retry_after is not None:
            delay = max(delay, retry_after)
        return min(delay, s.backoff_max)

    def _stream_remote(self, messages, on_delta, cancel) -> LLMResult:
        s = self.settings
        # A call that cannot be made is refused before the first attempt, not retried.
        problem = api_base_problem(s.api_base)
        if problem:
            raise LLMError("bad_api_base", problem)
        problem = model_problem(s.model, s.api_base)
        if problem:
            raise LLMError("bad_model", problem)
        route = remote_route(s)
        started = time.monotonic()
        total_deadline = started + s.total_timeout
        litellm_model = route.model
        attempt_number = 0
        while True:
            attempt_number += 1
            attempt = self._run_attempt(route, messages, on_delta, cancel, total_deadline)
            if attempt.stopped == "cancelled" or (attempt.failure is None and attempt.stopped is None):
                return self._result(route, messages, attempt, started, attempt_number)
            if attempt.stopped:
                raise LLMError(attempt.stopped, failure_message(
                    attempt.stopped, None, "", s, litellm_model, attempt_number, len(attempt.text)),
                    partial_text=attempt.text, attempts=attempt_number)
            kind, status, retry_after, detail = classify_failure(attempt.failure)
            if kind == "timeout":
                kind = "timeout_total" if attempt.text else "timeout_first_byte"
            elif kind == "connection" and attempt.text:
                kind = "interrupted"
            delay = self._backoff(attempt_number, retry_after)
            # Text already shown to the user cannot be taken back, so a failure
            # mid-stream is final; so is anything a retry cannot fix.
            final = (attempt.text or kind not in RETRYABLE_KINDS or attempt_number > s.max_retries
                     or time.monotonic() + delay >= total_deadline)
            if final:
                raise LLMError(kind, failure_message(kind, status, detail, s, litellm_model, attempt_number,
                                                     len(attempt.text)),
                               partial_text=attempt.text, attempts=attempt_number, status=status) from attempt.failure
            if cancel is not None and cancel.wait(delay):
                return self._result(route, messages, _Attempt(stopped="cancelled"), started, attempt_number)
            if cancel is None:
                time.sleep(delay)

    def _run_attempt(self, route, messages, on_delta, cancel, total_deadline) -> _Attempt:
        s = self.settings
        attempt_started = time.monotonic()
        first_byte_deadline = attempt_started + s.first_byte_timeout
        # The library's own socket timeout only frees the abandoned worker; ours decide.
        socket_timeout = max(1.0, total_deadline - attempt_started)
        events: queue.Queue = queue.Queue()
        abandon = threading.Event()
        worker = threading.Thread(target=_read_stream,
                                  args=(lambda: route.open(messages, socket_timeout), events, abandon),
                                  name="llm-stream", daemon=True)
        worker.start()
        attempt = _Attempt()
        # When the server last sent text (or, for a reasoning model, thought aloud): until it
        # first does, first_byte_timeout applies; from then on, stall_timeout between pieces.
        last_activity: float | None = None
        try:
            while True:
                now = time.monotonic()
                if cancel is not None and cancel.is_set():
                    attempt.stopped = "cancelled"
                    return attempt
                if now >= total_deadline:
                    attempt.stopped = "timeout_total"
                    return attempt
                if last_activity is None and now >= first_byte_deadline:
                    attempt.stopped = "timeout_first_byte"
                    return attempt
                if last_activity is not None and now >= last_activity + s.stall_timeout:
                    attempt.stopped = "timeout_stall"
                    return attempt
                next_deadline = first_byte_deadline if last_activity is None else last_activity + s.stall_timeout
                wait = min(total_deadline, next_deadline) - now
                if cancel is not None:
                    wait = min(wait, CANCEL_POLL_SECONDS)
                try:
                    kind, value = events.get(timeout=max(wait, 0.001))
                except queue.Empty:
                    continue
                if kind in ("delta", "alive"):
                    last_activity = time.monotonic()
                if kind == "delta":
                    if attempt.first_byte_at is None:
                        attempt.first_byte_at = last_activity
                    attempt.text += value
                    if on_delta is not None:
                        on_delta(value)
                elif kind == "alive":
                    pass  # not stalled: thinking counts as activity
                elif kind == "usage":
                    attempt.prompt_tokens, attempt.completion_tokens = value
                elif kind == "finish":
                    attempt.finish_reason = value
                elif kind == "error":
                    attempt.failure = value
                    return attempt
                else:  # "end"
                    return attempt
        finally:
            abandon.set()

    # --- the offline responder ---------------------------------------------------

    def _stream_offline(self, messages, on_delta, cancel, context) -> LLMResult:
        if self.offline_responder is None:
            from chatapp.llm.offline import OfflineResponder

            self.offline_responder = OfflineResponder(None)
        started = time.monotonic()
        attempt = _Attempt(finish_reason="stop")
        for piece in self.offline_responder.answer(messages, context):
            if cancel is not None and cancel.is_set():
                attempt.stopped = "cancelled"
                break
            if attempt.first_byte_at is None:
                attempt.first_byte_at = time.monotonic()
            attempt.text += piece
            if on_delta is not None:
                on_delta(piece)
        return self._result(None, messages, attempt, started, 1)

    # --- accounting ----------------------------------------------------------------

    def _result(self, route, messages, attempt: _Attempt, started: float, attempts: int) -> LLMResult:
        """The answer with its accounting; `route` is None for the offline responder."""
        prompt_tokens, completion_tokens = attempt.prompt_tokens, attempt.completion_tokens
        if prompt_tokens is None or completion_tokens is None or attempt.stopped == "cancelled":
            count = route.count_tokens if route is not None else offline_token_count
            prompt_tokens = count(messages=messages)
            completion_tokens = count(text=attempt.text)
        cost = 0.0 if route is None else route.cost(prompt_tokens, completion_tokens)
        return LLMResult(
            text=attempt.text, model=self.settings.model, prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens, cost=cost,
            latency_ms=round((time.monotonic() - started) * 1000, 1),
            first_byte_ms=None if attempt.first_byte_at is None else round(
                (attempt.first_byte_at - started) * 1000, 1),
            attempts=attempts,
            finish_reason="cancelled" if attempt.stopped == "cancelled" else attempt.finish_reason,
        )


def offline_token_count(messages: list[dict] | None = None, text: str | None = None) -> int:
    return count_tokens(OFFLINE_MODEL, messages=messages, text=text)


def count_tokens(model: str, messages: list[dict] | None = None, text: str | None = None) -> int:
    """Tokens as litellm counts them for `model`; the offline model is counted
    with chatapp's tiktoken counter so that it never imports litellm."""
    if not messages and not text:
        return 0
    from chatapp.token_count import count_tokens as tiktoken_count

    source = text if text is not None else "\n".join(str(m.get("content", "")) for m in messages or [])
    if model == OFFLINE_MODEL:
        return tiktoken_count(source)
    try:
        litellm = load_litellm()
        if messages is not None:
            return int(litellm.token_counter(model=model, messages=messages))
        return int(litellm.token_counter(model=model, text=text))
    except Exception:  # noqa: BLE001 - a count is an estimate; never fail the turn over it
        return tiktoken_count(source)


def cost_of(litellm, model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """Dollars from litellm's local price map; 0.0 for models it does not price."""
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        return float(prompt_cost + completion_cost)
    except Exception:  # noqa: BLE001 - local servers and new models have no price
        return 0.0
