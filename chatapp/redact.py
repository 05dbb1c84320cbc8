"""Secrets taken out of text before it is stored or exported.

A provider's error may echo the API key it was sent, an --api-base may carry a key in its query
string, and a pasted curl line carries a bearer token. `redact` replaces what is shaped like a key
(`sk-…`, `Bearer …`, `api_key=…`, a password in a URL, common token formats) and the value of every
key-like environment variable (OPENAI_API_KEY and its kin: the key litellm sends is read from one of
them) with SECRET_MARK. `redact_value` does the same inside the strings of JSON-like data, so a
record's structure survives.

Separate from chatapp/terminal_text.py on purpose: that one makes text safe to show; this one makes
it safe to keep. Imports nothing from the package.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

SECRET_MARK = "[secret removed]"

# Shapes of keys and tokens, whatever their value. `sk-` keys have no fixed length (test keys, proxies'
# virtual keys are short), so any `sk-` word of four characters or more counts; the rarer prefixes
# need a key's length, so a product code like "rk-2024" stays.
_SHAPES = re.compile(
    r"\bsk-[A-Za-z0-9_\-]{4,}"
    r"|\b(?:pk|rk|sess|key)-[A-Za-z0-9_\-]{12,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bxox[abpr]-[A-Za-z0-9-]{10,}"
    r"|\bAIza[0-9A-Za-z_\-]{30,}"
)
# A token after its scheme: "Authorization: Bearer abc…" keeps "Bearer ". The token may hold dots
# (a JWT) but does not end with one, so the full stop of the sentence it sits in stays.
_SCHEMED = re.compile(r"\b((?:Bearer|Basic|Token)\s+)[A-Za-z0-9._~+/\-]*[A-Za-z0-9_~+/\-]=*", re.I)
# key=value in a URL's query string or fragment; the name stays, the value goes.
_QUERY = re.compile(
    r"([?&;#](?:api[_-]?key|key|token|access[_-]?token|auth[_-]?token|secret|client[_-]?secret|password"
    r"|sig|signature|code)=)[^&#\s\"'<>]+",
    re.I,
)
# `api_key: "…"`, `"x-api-key": "…"`, `password=…` anywhere in a message or a JSON body.
_ASSIGNED = re.compile(
    r"\b((?:x-)?api[_-]?key|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|password)"
    r"([\"']?\s*[:=]\s*[\"']?)[^\s\"'&,;{}()\[\]]+",
    re.I,
)
# The password in https://user:password@host.
_URL_PASSWORD = re.compile(r"(//[^/\s:@]+:)[^@\s/]+(@)")

# Environment variables that hold a secret by their name: OPENAI_API_KEY, ANTHROPIC_API_KEY,
# AZURE_API_KEY, HF_TOKEN, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, …
_SECRET_VARIABLE = re.compile(r"(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(?:_ID)?$", re.I)
# Shorter values are placeholders ("no-key", "none") or would mask ordinary words.
MIN_SECRET_LENGTH = 8

_given: set[str] = set()
_given_lock = threading.Lock()


def remember_secret(value: str | None) -> None:
    """A key handed over in code rather than the environment (LLMSettings.api_key): redacted from now on."""
    if value and len(value.strip()) >= MIN_SECRET_LENGTH:
        with _given_lock:
            _given.add(value.strip())


def _known_values() -> list[str]:
    values = {v.strip() for name, v in os.environ.items() if _SECRET_VARIABLE.search(name)}
    with _given_lock:
        values |= _given
    # Longest first: a key that contains another is removed whole.
    return sorted((v for v in values if len(v) >= MIN_SECRET_LENGTH), key=len, reverse=True)


def redact(text: str | None, known: list[str] | None = None) -> str:
    """`text` with every secret replaced by SECRET_MARK ("" for None). `known`: the secret values to
    look for, when the caller has them already (reading the environment per string is slow)."""
    if not text:
        return text or ""
    for value in _known_values() if known is None else known:
        if value in text:
            text = text.replace(value, SECRET_MARK)
    text = _SHAPES.sub(SECRET_MARK, text)
    text = _SCHEMED.sub(lambda m: m.group(1) + SECRET_MARK, text)
    text = _QUERY.sub(lambda m: m.group(1) + SECRET_MARK, text)
    text = _ASSIGNED.sub(lambda m: m.group(1) + m.group(2) + SECRET_MARK, text)
    return _URL_PASSWORD.sub(lambda m: m.group(1) + SECRET_MARK + m.group(2), text)


def redact_value(value: Any, known: list[str] | None = None) -> Any:
    """`value` with `redact` applied to every string in it (dict keys included), lists and dicts rebuilt."""
    if known is None:
        known = _known_values()  # once for the whole value: a conversation's memory holds thousands of strings
    if isinstance(value, str):
        return redact(value, known)
    if isinstance(value, dict):
        return {redact(k, known) if isinstance(k, str) else k: redact_value(v, known) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v, known) for v in value]
    return value
