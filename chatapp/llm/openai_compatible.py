"""Calls to OpenAI-compatible endpoints: the chat-completions protocol spoken over httpx.

litellm reaches such an endpoint through the openai package, and importing litellm costs seconds of
CPU and about 200 MiB (every provider's adapters, its price tables); even the openai package alone
costs about 0.7 s of CPU in a turn's process (its type modules). httpx is loaded already by then
(Chroma's client uses it), so a model litellm would send as `openai/<name>` (a bare name with an
--api-base, or an `openai/` name) is called here directly: one POST, the answer read as
server-sent events. litellm stays for every other provider. Prices come from litellm's own bundled
price table, read as a JSON file without importing litellm.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

from chatapp.environment import litellm_package_dir
from chatapp.llm.errors import EndpointError
from chatapp.llm.settings import LLMSettings
from chatapp.token_count import count_tokens as tiktoken_count

OPENAI_PREFIX = "openai/"
OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local OpenAI-compatible servers (llama.cpp, vLLM, LM Studio) need no key; one that does want a
# key answers 401 and the user is told which variable to set.
PLACEHOLDER_KEY = "no-key"


def is_openai_compatible(settings: LLMSettings) -> bool:
    """Whether litellm would only send this call to an OpenAI-compatible endpoint anyway.

    A bare name with an --api-base, and any `openai/…` name with one, go to that server as-is.
    An `openai/…` name without one goes to OpenAI itself, where litellm knows which models refuse
    which parameters (a reasoning model refuses a temperature): that case stays with litellm
    whenever a temperature or max_tokens is set."""
    model = settings.model.strip()
    if settings.api_base:
        return "/" not in model or model.startswith(OPENAI_PREFIX)
    return model.startswith(OPENAI_PREFIX) and settings.temperature is None and settings.max_tokens is None


def routed_name(model: str) -> str:
    """The name as litellm would spell it (`openai/<name>`): what error messages and prices go by."""
    return model if model.startswith(OPENAI_PREFIX) else OPENAI_PREFIX + model


# --- one route for the client ----------------------------------------------------------


class OpenAICompatibleRoute:
    """Streams chat completions from an OpenAI-compatible endpoint, prices and counts them."""

    def __init__(self, settings: LLMSettings):
        self.settings = settings
        self.model = routed_name(settings.model.strip())  # for messages and prices
        self.wire_model = self.model[len(OPENAI_PREFIX):]  # what the server is sent

    def _request(self, messages: list[dict]) -> tuple[str, dict, dict]:
        """The URL, headers and body of one call, from the settings and then the environment
        (the same variables, in the same order, as litellm and the openai package read)."""
        s = self.settings
        base_url = (s.api_base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")
                    or OPENAI_BASE_URL)
        api_key = s.api_key or os.environ.get("OPENAI_API_KEY") or (PLACEHOLDER_KEY if s.api_base else None)
        if api_key is None:
            raise EndpointError("no API key is set for OpenAI")
        headers = {"Authorization": f"Bearer {api_key}", "Accept": "text/event-stream"}
        for variable, header in (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
            if os.environ.get(variable):
                headers[header] = os.environ[variable]
        body: dict = {"model": self.wire_model, "messages": messages, "stream": True,
                      "stream_options": {"include_usage": True}}
        if s.temperature is not None:
            body["temperature"] = s.temperature
        if s.max_tokens is not None:
            body["max_tokens"] = s.max_tokens
        return base_url.rstrip("/") + "/chat/completions", headers, body

    def open(self, messages: list[dict], timeout: float) -> Iterator[SimpleNamespace]:
        """The chunks of one streamed answer, each with the attributes of the JSON object the server
        sent (`chunk.choices[0].delta.content`). Raises EndpointError for an error the server
        answered with, httpx's errors for a transport that failed."""
        import httpx

        url, headers, body = self._request(messages)
        with httpx.Client(timeout=httpx.Timeout(timeout)) as client:
            with client.stream("POST", url, json=body, headers=headers) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _status_failure(response)
                for payload in _event_data(response.iter_lines()):
                    if payload.strip() == "[DONE]":
                        return
                    try:
                        data = json.loads(payload)
                    except ValueError:
                        raise EndpointError(f"the server sent an event that is not JSON: {payload[:80]!r}") from None
                    if isinstance(data, dict) and data.get("error"):  # an error object mid-stream
                        raise _error_object(data["error"], None, response)
                    yield _with_attributes(data)

    def count_tokens(self, messages: list[dict] | None = None, text: str | None = None) -> int:
        source = text if text is not None else "\n".join(str(m.get("content", "")) for m in messages or [])
        return tiktoken_count(source, self.model) if source else 0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Dollars for a model OpenAI prices; 0.0 for one it does not (a local server's)."""
        price = openai_prices().get(self.wire_model)
        if price is None:
            return 0.0
        return prompt_tokens * price[0] + completion_tokens * price[1]


def _event_data(lines: Iterator[str]) -> Iterator[str]:
    """The data of each server-sent event: its `data:` lines joined, comments and other fields skipped."""
    data: list[str] = []
    for line in lines:
        if not line:  # a blank line ends an event
            if data:
                yield "\n".join(data)
                data = []
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def _with_attributes(value):
    """JSON objects as attribute bags, so a chunk reads like the openai package's (and litellm's)."""
    if isinstance(value, dict):
        return SimpleNamespace(**{key: _with_attributes(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_with_attributes(item) for item in value]
    return value


def _error_object(error, status: int | None, response) -> EndpointError:
    body = error if isinstance(error, dict) else {"message": str(error)}
    message = body.get("message") if isinstance(body.get("message"), str) else None
    return EndpointError(message or f"the server answered with an error{f' ({status})' if status else ''}",
                         status_code=status, body=body, response=response)


def _status_failure(response) -> EndpointError:
    """An HTTP error status, with the error object the server sent when it sent one."""
    try:
        data = response.json()
    except ValueError:
        data = None
    error = data.get("error") if isinstance(data, dict) and data.get("error") else data
    if not isinstance(error, (dict, str)) or not error:
        error = {"message": response.text[:200] or response.reason_phrase}
    return _error_object(error, response.status_code, response)


@functools.lru_cache(maxsize=1)
def openai_prices() -> dict[str, tuple[float, float]]:
    """{model: (dollars per prompt token, per completion token)} for OpenAI's chat models, from the
    price table litellm ships (the one it reads itself with LITELLM_LOCAL_MODEL_COST_MAP)."""
    table = _bundled_price_table()
    if table is None:
        return {}
    try:
        entries = json.loads(table.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    prices: dict[str, tuple[float, float]] = {}
    for name, entry in entries.items():
        if not isinstance(entry, dict) or entry.get("litellm_provider") != "openai":
            continue
        prompt, completion = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
        if isinstance(prompt, (int, float)) and isinstance(completion, (int, float)):
            prices[name.removeprefix(OPENAI_PREFIX)] = (float(prompt), float(completion))
    return prices


def _bundled_price_table() -> Path | None:
    package = litellm_package_dir()
    path = package / "model_prices_and_context_window_backup.json" if package else None
    return path if path is not None and path.is_file() else None
