"""Failures of a model call: what went wrong, in one of a few kinds, and a
one-line message that tells the user what to do about it."""

from __future__ import annotations

import re
import time
from email.utils import parsedate_to_datetime

from chatapp.llm.settings import LLMSettings
from chatapp.redact import redact

# The kinds a caller can branch on; the first three are worth a retry when no text has arrived yet.
RETRYABLE_KINDS = frozenset({"rate_limit", "server", "connection"})
ERROR_KINDS = RETRYABLE_KINDS | {"auth", "bad_request", "bad_model", "bad_api_base", "not_found",
                                 "timeout_first_byte", "timeout_stall", "timeout_total", "interrupted"}
# The kinds that stop an answer part-way: what arrived is an interrupted answer, not a failed call.
CUT_OFF_KINDS = frozenset({"interrupted", "timeout_stall", "timeout_total"})


class LLMError(Exception):
    """A failed model call. `message` is one line that says what to do;
    `partial_text` is what arrived before the failure."""

    def __init__(self, kind: str, message: str, partial_text: str = "", attempts: int = 1,
                 status: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.partial_text = partial_text
        self.attempts = attempts
        self.status = status


def _exception_chain(exc: BaseException) -> list[BaseException]:
    """The exception and everything it wraps: litellm nests the real cause
    (an httpx error, an SSE error body) under generic wrappers."""
    seen, order, stack = set(), [], [exc]
    while stack:
        current = stack.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        order.append(current)
        stack += [getattr(current, "original_exception", None), current.__cause__, current.__context__]
    return order


def _status_of(chain: list[BaseException]) -> int | None:
    import openai

    for exc in chain:
        if isinstance(exc, openai.APIStatusError):
            return exc.status_code
    for exc in chain:  # an error event inside a stream carries its code in the body
        body = getattr(exc, "body", None)
        code = body.get("code") if isinstance(body, dict) else None
        if isinstance(code, int) or (isinstance(code, str) and code.isdigit()):
            return int(code)
        if isinstance(body, dict) and body.get("type") == "server_error":
            return 500
    return None


def _retry_after_seconds(chain: list[BaseException]) -> float | None:
    for exc in chain:
        headers = getattr(getattr(exc, "response", None), "headers", None) or getattr(
            exc, "litellm_response_headers", None)
        if not headers:
            continue
        if headers.get("retry-after-ms"):
            try:
                return float(headers["retry-after-ms"]) / 1000
            except ValueError:
                pass
        value = headers.get("retry-after")
        if value:
            try:
                return max(0.0, float(value))
            except ValueError:
                try:
                    return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
                except (TypeError, ValueError):
                    return None
    return None


MISSING_KEY = re.compile(r"missing credentials|missing \w* ?api[ _]key|no (api )?key is set|"
                         r"api_key (client option )?\w* ?must be set", re.I)


def classify_failure(exc: BaseException) -> tuple[str, int | None, float | None, str]:
    """(kind, HTTP status, Retry-After seconds, provider's own message) for an exception from litellm.

    litellm wraps causes in generic classes (a refused connection arrives as
    InternalServerError 500), so the chain is read cause first."""
    import httpx
    import openai

    chain = _exception_chain(exc)
    bodies = [e for e in chain if isinstance(getattr(e, "body", None), dict) and e.body.get("message")]
    detail = bodies[0].body["message"] if bodies else str(chain[-1]) or str(exc)
    detail = " ".join(str(detail).split())[:200]
    if any(isinstance(e, (httpx.TimeoutException, openai.APITimeoutError, TimeoutError)) for e in chain):
        return "timeout", None, None, detail
    if MISSING_KEY.search(" ".join(str(e) for e in chain)):
        return "auth", None, None, detail
    # An error object the server sent (also mid-stream, inside the SSE body) says what happened.
    status = _status_of(bodies) if bodies else None
    if status is None:
        transport = (openai.APIConnectionError, httpx.TransportError, ConnectionError)
        if any(isinstance(e, transport) and not type(e).__module__.startswith("litellm") for e in chain):
            return "connection", None, None, detail
        status = _status_of(chain)
    if status is None:
        text = " ".join(str(e) for e in chain).lower()
        return ("bad_request" if "provider not provided" in text else "server"), None, None, detail
    if status in (401, 403):
        kind = "auth"
    elif status == 404:
        kind = "not_found"
    elif status == 429:
        kind = "rate_limit"
    elif status == 408 or status >= 500:
        kind = "server"
    else:
        kind = "bad_request"
    return kind, status, _retry_after_seconds(chain), detail


def key_variable(litellm_model: str) -> str:
    """The environment variable litellm reads the key for `litellm_model` from (OPENAI_API_KEY,
    ANTHROPIC_API_KEY, …): litellm's own answer when it has one, else PROVIDER_API_KEY."""
    if litellm_model.startswith("openai/"):
        return "OPENAI_API_KEY"  # the openai route: litellm may not be loaded, and need not be
    try:
        import litellm  # loaded already whenever a remote call through it failed

        missing = litellm.validate_environment(model=litellm_model).get("missing_keys") or []
        named = [name for name in missing if name.endswith(("_KEY", "_TOKEN"))]
        if named:
            return named[0]
    except Exception:  # noqa: BLE001 - the guess below is right for most providers
        pass
    provider = litellm_model.split("/", 1)[0] if "/" in litellm_model else "openai"
    return f"{provider.upper().replace('-', '_')}_API_KEY"


def _setting(name: str) -> str:
    """How the user sets a timeout: its config.toml key and its environment variable."""
    return f"{name} (config.toml, or CHATAPP_{name.upper()})"


def failure_message(kind: str, status: int | None, detail: str, settings: LLMSettings, litellm_model: str,
                    attempts: int, partial_chars: int) -> str:
    """One line: what happened, then what to do about it; nothing secret in it (a provider's message
    may echo the key, an --api-base may carry one), since it is shown, stored and exported."""
    return redact(_message(kind, status, detail, settings, litellm_model, attempts, partial_chars))


def _message(kind: str, status: int | None, detail: str, settings: LLMSettings, litellm_model: str,
             attempts: int, partial_chars: int) -> str:
    model = settings.model
    code = f" ({status})" if status else ""
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    kept = f"; the partial answer ({partial_chars} characters) is kept" if partial_chars else ""
    where = settings.api_base or "the provider"
    if kind == "auth" and status == 403:
        return f"the provider refused access to {model} (403): check that your API key may use this model"
    if kind == "auth":
        variable = key_variable(litellm_model)
        return (f"the provider rejected the API key{code}: check the key in the environment variable {variable}"
                if status else f"no API key for {model}: set the environment variable {variable} to your key")
    if kind == "rate_limit":
        return f"{model} is rate-limited (429){tries}: wait a minute and try again, or use another --model"
    if kind == "server" and partial_chars:
        return f"the provider failed mid-answer{code}{kept}: ask again to retry"
    if kind == "server":
        return f"the provider had a server error{code}{tries}: try again shortly, or use another --model"
    if kind == "connection":
        return f"could not reach {where}{tries}: check that the server runs, the --api-base address and your network"
    if kind == "interrupted":
        return f"the connection dropped mid-answer{kept}: ask again to retry"
    if kind == "not_found":
        return f"the provider does not know the model '{model}'{code}: check --model and --api-base"
    if kind == "timeout_first_byte":
        return (f"no answer from {model} within {settings.first_byte_timeout:g}s: the server may be busy or "
                f"still loading the model; try again, or raise {_setting('first_byte_timeout')}")
    if kind == "timeout_stall":
        return (f"{model} sent nothing for {settings.stall_timeout:g}s mid-answer and was cut off{kept}: "
                f"ask again to retry, or raise {_setting('stall_timeout')}")
    if kind == "timeout_total":
        return (f"the answer from {model} took longer than {settings.total_timeout:g}s and was cut off{kept}: "
                f"raise {_setting('total_timeout')}, or ask for a shorter answer")
    return f"the provider rejected the request{code}: {detail or 'check the model name and parameters'}"
