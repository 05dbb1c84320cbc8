"""The models a server offers: an OpenAI-compatible `api_base` lists them at GET /models, Ollama at
GET /api/tags. One short request with a timeout; a failure is one line saying why."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

from chatapp.redact import redact

OLLAMA_PREFIXES = ("ollama/", "ollama_chat/")
LIST_TIMEOUT = 3.0
MAX_LISTED = 200


class ModelListError(Exception):
    """Why the server's models could not be listed, as one line."""


def list_models(api_base: str, model: str = "", timeout: float = LIST_TIMEOUT) -> list[str]:
    """Model names as the chat would use them with this `api_base`: Ollama's (when `model` is an
    Ollama one) prefixed like `model`, an OpenAI-compatible server's as it lists them."""
    base = api_base.rstrip("/")
    prefix = next((p for p in OLLAMA_PREFIXES if model.startswith(p)), None)
    if prefix is not None:
        payload = _get_json(base.removesuffix("/v1") + "/api/tags", timeout)
        names = [m.get("name") or m.get("model") for m in _items(payload, "models")]
        return [prefix + name for name in names if isinstance(name, str)][:MAX_LISTED]
    try:
        payload = _get_json(base + "/models", timeout)
    except ModelListError:
        if base.endswith("/v1"):
            raise
        payload = _get_json(base + "/v1/models", timeout)  # a base given without its /v1
    return [m["id"] for m in _items(payload, "data") if isinstance(m.get("id"), str)][:MAX_LISTED]


def _items(payload, key: str) -> list[dict]:
    items = payload.get(key) if isinstance(payload, dict) else None
    if not isinstance(items, list):
        raise ModelListError(f"the server's answer has no '{key}' list")
    return [item for item in items if isinstance(item, dict)]


def _get_json(url: str, timeout: float):
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    key = os.environ.get("OPENAI_API_KEY")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the user's api_base
            return json.loads(response.read(2_000_000).decode("utf-8", "replace"))
    except urllib.error.HTTPError as exc:
        raise ModelListError(f"{redact(url)} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ModelListError(f"cannot reach {redact(url)}: {reason}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ModelListError(f"{redact(url)} did not answer with JSON") from None
