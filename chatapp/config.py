"""Settings: defaults, then the data dir's config.toml (or --config), then
CHATAPP_* environment variables, then command-line flags — later wins."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

CONFIG_FILE_NAME = "config.toml"
ENV_PREFIX = "CHATAPP_"


class ConfigError(Exception):
    """A config file or value the user must fix; the message says how."""


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    config_file: Path | None = None
    # The model: "offline" answers from the knowledge base with no network.
    model: str = "offline"
    api_base: str | None = None
    # Seconds to wait for the model: for the first piece of an answer, between two pieces once it
    # streams, and for the whole answer. What arrived before a timeout is kept.
    first_byte_timeout: float = 30.0
    stall_timeout: float = 60.0
    total_timeout: float = 600.0
    # Team deployments point at a Chroma server; otherwise Chroma lives in the data dir.
    chroma_url: str | None = None
    # Load sample_kb on the first chat when the knowledge base is empty.
    load_sample_kb: bool = True
    # Keep the sample when the user's own documents are first ingested (by default it makes way for them).
    keep_sample_kb: bool = False
    correction_level: str = "standard"
    budget_profile: str = "default"
    # Files larger than this are skipped by ingest with a reason.
    max_file_mb: float = 25.0
    # A CSV or JSON table is indexed with its first this many rows; the ingest summary names the files cut.
    max_table_rows: int = 100_000
    # Learn people, projects and facts from ingested documents into the registry.
    learn_from_documents: bool = True
    embedding_batch_size: int = 32
    search_k: int = 5
    system_prompt: str = ""
    preferences: dict[str, Any] = field(default_factory=dict)
    # Answer checks switched off by name (chatapp/postprocess/checks.py lists them).
    disabled_checks: list[str] = field(default_factory=list)

    # Where each part lives inside the data dir.
    database_path = property(lambda self: self.data_dir / "chatapp.db")
    chroma_dir = property(lambda self: self.data_dir / "chroma")
    keyword_index_dir = property(lambda self: self.data_dir / "bm25")
    write_lock_path = property(lambda self: self.data_dir / "kb.lock")


def default_data_dir() -> Path:
    env = os.environ.get(ENV_PREFIX + "HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("chatapp", appauthor=False))


_SETTABLE = {f.name: f for f in fields(Settings) if f.name not in ("data_dir", "config_file")}
_POSITIVE = {"first_byte_timeout", "stall_timeout", "total_timeout"}


def _coerce(name: str, value: Any, origin: str) -> Any:
    """Turn a TOML or environment value into the field's type, or say what is wrong."""
    current = getattr(Settings(data_dir=Path(".")), name)
    kind = type(current) if current is not None else str
    try:
        if kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if kind is dict:
            if not isinstance(value, dict):
                raise ValueError(value)
            return dict(value)
        if kind is list:
            items = [v.strip() for v in value.split(",")] if isinstance(value, str) else value
            if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
                raise ValueError(value)
            items = [v for v in items if v]
            if name == "disabled_checks":
                _require_known_checks(items, origin)
            return items
        if kind in (int, float):
            if isinstance(value, bool):
                raise ValueError(value)
            number = kind(value)
            if name in _POSITIVE and not number > 0:
                raise ConfigError(f"{origin}: '{name}' should be a number of seconds above 0, got {value!r}")
            return number
        return None if value in ("", None) else str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{origin}: '{name}' should be a {kind.__name__}, got {value!r}") from None


def _require_known_checks(names: list[str], origin: str) -> None:
    from chatapp.components import CHECKS
    from chatapp.postprocess import checks  # noqa: F401 - registers the answer checks

    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ConfigError(f"{origin}: 'disabled_checks' has no check named {unknown[0]!r} "
                          f"(known: {', '.join(CHECKS.names())})")


def load_settings(
    data_dir: Path | str | None = None,
    config_file: Path | str | None = None,
    overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
) -> Settings:
    environ = dict(os.environ) if environ is None else environ
    data_dir = Path(data_dir).expanduser() if data_dir else default_data_dir()
    values: dict[str, Any] = {}

    path = Path(config_file).expanduser() if config_file else data_dir / CONFIG_FILE_NAME
    if config_file and not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    if path.is_file():
        try:
            parsed = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML: {exc}") from None
        for key, value in parsed.items():
            if key not in _SETTABLE:
                raise ConfigError(f"{path}: unknown setting '{key}' (known: {', '.join(sorted(_SETTABLE))})")
            values[key] = _coerce(key, value, str(path))
    else:
        path = None

    for name in _SETTABLE:
        env_name = ENV_PREFIX + name.upper()
        if env_name in environ and _SETTABLE[name].type not in ("dict[str, Any]",):
            values[name] = _coerce(name, environ[env_name], env_name)

    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = _coerce(key, value, f"--{key.replace('_', '-')}")

    return replace(Settings(data_dir=data_dir, config_file=path), **values)
