"""Calls to OpenAI-compatible endpoints through the `openai` package itself.

litellm reaches such an endpoint through the very same package, but importing
litellm costs seconds of CPU and about 200 MiB (every provider's adapters,
its price tables) where `openai` alone costs about a fifth of that. So a model
that litellm would send as `openai/<name>` (a bare name with an --api-base, or
an `openai/` name) goes straight through the openai client; litellm stays for
every other provider. Prices come from litellm's own bundled price table,
read as a JSON file without importing litellm.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path

from chatapp.environment import litellm_package_dir
from chatapp.llm.library_import import LibraryImport
from chatapp.llm.settings import LLMSettings
from chatapp.optional_imports import left_out
from chatapp.token_count import count_tokens as tiktoken_count

OPENAI_PREFIX = "openai/"
# Local OpenAI-compatible servers (llama.cpp, vLLM, LM Studio) need no key, but the openai
# client refuses to send a request without one; a server that does want a key answers 401.
PLACEHOLDER_KEY = "no-key"


def uses_openai_client(settings: LLMSettings) -> bool:
    """Whether litellm would only hand this call to the openai package anyway.

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


# --- the openai package, loaded once and kept quiet ------------------------------------

def quiet_http_loggers(_library=None) -> None:
    """The openai package and the HTTP client under it log every request: warnings only. (litellm,
    which calls through them, needs the same.)"""
    for name in ("httpx", "httpcore", "openai"):
        logging.getLogger(name).setLevel(logging.WARNING)


# aiohttp only backs the package's DefaultAioHttpClient, an option of its async client; chatapp calls
# the synchronous one. Without it the import is a fifth cheaper (0.1 s of CPU, 10 MiB).
# `openai.types` and `openai.types.responses` import, in their `__init__`, the pydantic models of every
# endpoint (about 400 modules); chatapp streams chat completions, whose code imports the modules it
# needs by their own names. The package's `__init__`s run only if something asks them for a name:
# the import takes half the CPU (0.23 → 0.11 s).
_OPENAI = LibraryImport("openai", quiet_http_loggers, without=("aiohttp", "httpx._main"),
                        initialised_on_use=("openai.types",))
load_openai = _OPENAI.load  # about half a second of CPU, once
start_loading_openai = _OPENAI.start  # in a worker, while the turn is preprocessed


# --- one route for the client ----------------------------------------------------------


class OpenAICompatibleRoute:
    """Opens streamed chat completions on an OpenAI-compatible endpoint, prices and counts them."""

    def __init__(self, settings: LLMSettings):
        self.settings = settings
        self.model = routed_name(settings.model.strip())  # for messages and prices
        self.wire_model = self.model[len(OPENAI_PREFIX):]  # what the server is sent
        self.openai = load_openai()

    def _client(self, timeout: float):
        s = self.settings
        # The base URL and key as litellm would find them: the setting, then the environment.
        base_url = s.api_base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or None
        api_key = s.api_key or os.environ.get("OPENAI_API_KEY") or (PLACEHOLDER_KEY if s.api_base else None)
        # The first client's HTTP transport imports the HTTP library's connection code, which imports trio
        # (for async code run under trio) and h2 (for HTTP/2, which it offers only when asked to) whenever
        # they are installed; chatapp's calls are synchronous HTTP/1.1 (0.05 s of CPU and 5 MiB).
        with left_out("trio", "h2"):
            # max_retries=0: the caller retries, with its own backoff and deadlines.
            return self.openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout)

    def open(self, messages: list[dict], timeout: float) -> Iterable:
        """The chunks of one streamed answer; raises the openai package's errors."""
        s = self.settings
        options: dict = {}
        if s.temperature is not None:
            options["temperature"] = s.temperature
        if s.max_tokens is not None:
            options["max_tokens"] = s.max_tokens
        return self._client(timeout).chat.completions.create(
            model=self.wire_model, messages=messages, stream=True, stream_options={"include_usage": True},
            timeout=timeout, **options)

    def count_tokens(self, messages: list[dict] | None = None, text: str | None = None) -> int:
        source = text if text is not None else "\n".join(str(m.get("content", "")) for m in messages or [])
        return tiktoken_count(source, self.model) if source else 0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Dollars for a model OpenAI prices; 0.0 for one it does not (a local server's)."""
        price = openai_prices().get(self.wire_model)
        if price is None:
            return 0.0
        return prompt_tokens * price[0] + completion_tokens * price[1]


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
