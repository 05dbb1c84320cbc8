"""Writing settings back to the config file, for choices made in the chat (the model, the theme).

Only top-level `name = value` lines are touched: the line that sets the name is replaced, or a new
one goes before the first [table]; comments and everything else stay as the user wrote them. Each
value is checked as load_settings would check it, and the file is replaced whole (a temporary file
renamed over it), so a crash never leaves half a config.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from chatapp.config import CONFIG_FILE_NAME, ConfigError, Settings, checked_value

_TABLE_HEADER = re.compile(r"^\s*\[")


def config_path(settings: Settings) -> Path:
    """The file the settings came from, or the data dir's config.toml when there was none."""
    return settings.config_file or settings.data_dir / CONFIG_FILE_NAME


def save_settings(settings: Settings, **values: Any) -> Path:
    """Set each `name=value` in the config file the settings came from; returns its path.
    A value load_settings would refuse raises ConfigError and nothing is written."""
    path = config_path(settings)
    checked = {name: checked_value(name, value, str(path)) for name, value in values.items()}
    if any(not isinstance(value, (str, bool, int, float, type(None))) for value in checked.values()):
        raise ConfigError(f"{path}: only text, numbers and true/false are saved from the chat")
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    for name, value in checked.items():
        text = _with_setting(text, name, value)
    try:
        tomllib.loads(text)  # what is written must read back (a value spread over lines is not edited here)
    except tomllib.TOMLDecodeError:
        raise ConfigError(f"{path}: cannot set {', '.join(checked)} here without breaking the file; "
                          "edit it by hand") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def _with_setting(text: str, name: str, value: Any) -> str:
    """`text` with the top-level `name` set to `value` (removed when `value` is None)."""
    lines = text.splitlines()
    setting = re.compile(rf"^\s*{re.escape(name)}\s*=")
    first_table = next((n for n, line in enumerate(lines) if _TABLE_HEADER.match(line)), len(lines))
    new_line = [] if value is None else [f"{name} = {_toml_value(value)}"]
    for number, line in enumerate(lines[:first_table]):
        if setting.match(line):
            lines[number:number + 1] = new_line
            break
    else:
        lines[first_table:first_table] = new_line
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    # A JSON string is a TOML basic string: the same quotes and escapes (controls as \uXXXX).
    return json.dumps(value, ensure_ascii=False)
