"""Settings: defaults, then the data dir's config.toml (or --config), then
CHATAPP_* environment variables, then command-line flags — later wins.

Every value is checked where it comes in (its type, its range, the names it may take) and every
bad one is reported, each on its own line naming the file, variable or flag it came from."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CONFIG_FILE_NAME = "config.toml"
ENV_PREFIX = "CHATAPP_"


class ConfigError(Exception):
    """Config the user must fix: one problem or several, each a line that says where and how."""

    def __init__(self, *problems: str):
        super().__init__("\n".join(problems))
        self.problems = list(problems)


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
    # The chat's colour theme: one in themes/ or one Textual ships; the chat saves the one picked.
    theme: str = "chatapp-dark"

    # Where each part lives inside the data dir.
    database_path = property(lambda self: self.data_dir / "chatapp.db")
    chroma_dir = property(lambda self: self.data_dir / "chroma")
    keyword_index_dir = property(lambda self: self.data_dir / "bm25")
    write_lock_path = property(lambda self: self.data_dir / "kb.lock")
    # Word tables derived from installed packages (chatapp.table_cache): safe to delete. CHATAPP_CACHE_DIR
    # puts them elsewhere, to share one copy between data dirs (the test suite does).
    cache_dir = property(lambda self: Path(os.environ.get(ENV_PREFIX + "CACHE_DIR") or self.data_dir / "cache"))


def default_data_dir() -> Path:
    env = os.environ.get(ENV_PREFIX + "HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("chatapp", appauthor=False))


_SETTABLE = {f.name: f for f in fields(Settings) if f.name not in ("data_dir", "config_file")}

# The names the pipeline accepts, kept here so that checking a config loads no pipeline module;
# tests/test_config_and_secrets.py holds them equal to chatapp/preprocess/correction/levels.py's
# LEVELS and chatapp/preprocess/assembly/budgets.py's PROFILES.
CORRECTION_LEVEL_NAMES = ("off", "minimal", "standard", "aggressive")
BUDGET_PROFILE_NAMES = ("default", "compact", "standard", "extended")


class _Bad(ValueError):
    """What a value should have been, e.g. "should be a whole number of 1 or more"; `part` names the
    entry of a table at fault and `value` is that entry's value."""

    def __init__(self, what: str, part: str | None = None, value: Any = None):
        super().__init__(what)
        self.part, self.value = part, value


def url_problem(value: str) -> str | None:
    """Why `value` is not an http(s) URL with a host (None when it is one)."""
    try:
        parsed = urlsplit(value.strip())
        parsed.port  # noqa: B018 - raises ValueError on a port that is not a number in range
    except ValueError:
        return "should be a URL such as http://localhost:8000"
    if parsed.scheme.lower() not in ("http", "https"):
        return "should be an http:// or https:// URL"
    if not parsed.hostname or any(c.isspace() for c in value.strip()):
        return "should be a URL with a host, such as http://localhost:8000"
    return None


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise _Bad("should be text in quotes")
    return value


def _model(value: Any) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if not text or any(c.isspace() for c in text):
        raise _Bad('should be a model name such as "offline", "gpt-4o-mini" or "ollama/llama3"')
    return text


def _theme(value: Any) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if not text or any(c.isspace() for c in text):
        raise _Bad('should be a theme name such as "chatapp-dark", "chatapp-light" or "nord"')
    return text


def _optional_url(value: Any) -> str | None:
    text = _text(value).strip()
    if not text:
        return None
    problem = url_problem(text)
    if problem:
        raise _Bad(problem)
    return text


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if isinstance(value, str) else None
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise _Bad("should be true or false")


def _number(value: Any) -> float:
    """A finite number from TOML (int or float) or from text ("2.5")."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _Bad("should be a number")
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise _Bad("should be a number") from None
    if not math.isfinite(number):
        raise _Bad("should be a finite number")
    return number


def _positive(value: Any) -> float:
    number = _number(value)
    if not number > 0:
        raise _Bad("should be a number above 0")
    return number


def _seconds(value: Any) -> float:
    number = _number(value)
    if not number > 0:
        raise _Bad("should be a number of seconds above 0")
    return number


def _count(value: Any) -> int:
    """A whole number of 1 or more: 5 or "5", not 2.5, "2.5" or true."""
    if isinstance(value, bool) or isinstance(value, float) or not isinstance(value, (int, str)):
        raise _Bad("should be a whole number of 1 or more")
    try:
        number = int(value.strip()) if isinstance(value, str) else value
    except ValueError:
        raise _Bad("should be a whole number of 1 or more") from None
    if number < 1:
        raise _Bad("should be a whole number of 1 or more")
    return number


def _correction_level(value: Any) -> str:
    """A level name, or a number from 0.0 to 1.0 (kept as text, as --level takes it)."""
    if isinstance(value, str) and value.strip().lower() in CORRECTION_LEVEL_NAMES:
        return value.strip().lower()
    try:
        number = _number(value)
    except _Bad:
        number = math.nan
    if not 0.0 <= number <= 1.0:
        raise _Bad(f"should be one of {', '.join(CORRECTION_LEVEL_NAMES)}, or a number from 0.0 to 1.0")
    return str(value).strip()


def _budget_profile(value: Any) -> str:
    if isinstance(value, str) and value.strip().lower() in BUDGET_PROFILE_NAMES:
        return value.strip().lower()
    raise _Bad(f"should be one of {', '.join(BUDGET_PROFILE_NAMES)}")


def _preferences(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad("should be a table ([preferences] with one setting a line)")
    regenerations = value.get("auto_regenerations", 0)
    if isinstance(regenerations, bool) or not isinstance(regenerations, int) or regenerations < 0:
        raise _Bad("should be a whole number of 0 or more", "auto_regenerations", regenerations)
    return dict(value)


def _disabled_checks(value: Any) -> list[str]:
    items = [v.strip() for v in value.split(",")] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise _Bad("should be a list of check names")
    items = [v for v in items if v]
    from chatapp.components import CHECKS
    from chatapp.postprocess import checks  # noqa: F401 - registers the answer checks

    unknown = [n for n in items if n not in CHECKS]
    if unknown:
        raise _Bad(f"has no check named {unknown[0]!r} (known: {', '.join(CHECKS.names())})")
    return items


# What each setting accepts: a function that returns the value as Settings holds it, or raises _Bad.
_CHECKS: dict[str, Callable[[Any], Any]] = {
    "model": _model,
    "api_base": _optional_url,
    "first_byte_timeout": _seconds,
    "stall_timeout": _seconds,
    "total_timeout": _seconds,
    "chroma_url": _optional_url,
    "load_sample_kb": _flag,
    "keep_sample_kb": _flag,
    "correction_level": _correction_level,
    "budget_profile": _budget_profile,
    "max_file_mb": _positive,
    "max_table_rows": _count,
    "learn_from_documents": _flag,
    "embedding_batch_size": _count,
    "search_k": _count,
    "system_prompt": _text,
    "preferences": _preferences,
    "disabled_checks": _disabled_checks,
    "theme": _theme,
}
assert _CHECKS.keys() == _SETTABLE.keys(), "every setting needs a check"
# Set only in config.toml: a table has no one-line form for an environment variable.
_FILE_ONLY = {"preferences"}


def checked_value(name: str, value: Any, origin: str) -> Any:
    """`value` for the setting `name` as Settings holds it; a ConfigError naming `origin` (a file,
    an environment variable or a flag) when it is not acceptable."""
    try:
        return _CHECKS[name](value)
    except _Bad as bad:
        where, value = (f"{name}.{bad.part}", bad.value) if bad.part else (name, value)
        raise ConfigError(_problem(origin, where, f"{bad}, got {_shown(value)}")) from None


def _problem(origin: str, name: str, what: str) -> str:
    return f"{origin}: '{name}' {what}"


def _shown(value: Any) -> str:
    """The rejected value as the user wrote it, cut short: a whole pasted prompt is not repeated."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load_settings(
    data_dir: Path | str | None = None,
    config_file: Path | str | None = None,
    overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
) -> Settings:
    """Settings from the defaults, the config file, CHATAPP_* variables and `overrides`, in that
    order. Every unacceptable value is found before any is used: the ConfigError lists them all."""
    environ = dict(os.environ) if environ is None else environ
    data_dir = Path(data_dir).expanduser() if data_dir else default_data_dir()
    values: dict[str, Any] = {}
    problems: list[str] = []

    def take(name: str, value: Any, origin: str) -> None:
        try:
            values[name] = checked_value(name, value, origin)
        except ConfigError as exc:
            problems.append(str(exc))

    path = Path(config_file).expanduser() if config_file else data_dir / CONFIG_FILE_NAME
    if config_file and not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    if path.is_file():
        import tomllib  # only when there is a file to read: `chatapp --help` imports this module

        try:
            parsed = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML: {' '.join(str(exc).split())}") from None
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
        for key, value in parsed.items():
            if key in _SETTABLE:
                take(key, value, str(path))
            else:
                problems.append(f"{path}: unknown setting '{key}' (known: {', '.join(sorted(_SETTABLE))})")
    else:
        path = None

    for name in _SETTABLE:
        env_name = ENV_PREFIX + name.upper()
        if env_name in environ:
            if name in _FILE_ONLY:
                problems.append(f"{env_name}: '{name}' can only be set in {CONFIG_FILE_NAME}")
            else:
                take(name, environ[env_name], env_name)

    for key, value in (overrides or {}).items():
        flag = f"--{key.replace('_', '-')}"
        if key not in _SETTABLE:
            problems.append(f"{flag}: no such setting (known: {', '.join(sorted(_SETTABLE))})")
        elif value is not None:
            take(key, value, flag)

    if problems:
        raise ConfigError(*problems)
    return replace(Settings(data_dir=data_dir, config_file=path), **values)
