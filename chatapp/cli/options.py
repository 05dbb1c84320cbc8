"""What every `chatapp` command shares: its options, written once, and the helpers that open the data
dir, print JSON and turn a user's mistake into one line and exit code 2.

Imports nothing from the rest of chatapp.cli, and nothing heavy: `chatapp --help` loads this module.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Callable, Optional, get_type_hints

import typer
from rich.console import Console

import chatapp  # noqa: F401 - sets the offline environment before anything heavy loads
from chatapp.config import ConfigError, default_data_dir
from chatapp.storage.problems import StorageError
from chatapp.storage.problems import describe as describe_storage_problem
from chatapp.terminal_text import cleaned_argument, escape_json_controls, markup_safe

console = Console()
err_console = Console(stderr=True)

DataDirOption = Annotated[
    Optional[Path],
    typer.Option("--data-dir", help="Where chatapp keeps everything (env CHATAPP_HOME).", show_default=False),
]
ConfigOption = Annotated[
    Optional[Path], typer.Option("--config", help="A config TOML file (default: config.toml in the data dir).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the readable view.")]
ModelOption = Annotated[
    Optional[str], typer.Option("--model", help="Model, e.g. gpt-4o-mini, ollama/llama3, offline.")
]
ApiBaseOption = Annotated[
    Optional[str], typer.Option("--api-base", help="Base URL of an OpenAI-compatible server.")
]


class UserError(Exception):
    """Something the user can fix; printed as one line."""


def fail(*messages: str, code: int = 2) -> None:
    """Each message as one error line: it may quote the user's input or a file's name, so it is not markup."""
    # soft_wrap: one line however long, never cut at the console's width.
    for message in messages:
        err_console.print(f"[bold red]error:[/] {markup_safe(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def print_json(data) -> None:
    from chatapp.records import to_jsonable  # its dataclasses cost `--help`, which prints no JSON

    sys.stdout.write(escape_json_controls(json.dumps(to_jsonable(data), ensure_ascii=False, indent=2)) + "\n")


def print_note(note: str) -> None:
    """A note on how the input was read (a paste read in its opening), on stderr: --json output on
    stdout stays one object."""
    if note:
        err_console.print(markup_safe(note), style="yellow")


class OptionGroup:
    """A dataclass of options that several commands take together. A command parameter annotated
    with one becomes the fields' options, in field order, and arrives as one object."""


@dataclass(frozen=True)
class TurnSettings(OptionGroup):
    """How a turn corrects the input and budgets the prompt: --level and --profile."""

    level: Annotated[
        Optional[str], typer.Option("--level", help="Correction level: off, minimal, standard, aggressive or 0.0–1.0.")
    ] = None
    profile: Annotated[
        Optional[str], typer.Option("--profile", help="Token budget profile: default, compact, standard, extended.")
    ] = None

    def checked(self) -> dict:
        """level= and profile= for a turn; a value the turn would refuse is the user's one-line error."""
        from chatapp.preprocess.assembly.budgets import get_profile
        from chatapp.preprocess.correction.levels import parse_level

        return {"level": _validated(self.level, parse_level), "profile": _validated(self.profile, get_profile)}


@dataclass(frozen=True)
class ModelChoice(OptionGroup):
    """Which model answers: --model and --api-base."""

    model: ModelOption = None
    api_base: ApiBaseOption = None

    def checked(self) -> dict:
        """model= and api_base= as given, each checked as the config checks it (ConfigError: one line)."""
        from chatapp.config import checked_value

        return {"model": None if self.model is None else checked_value("model", self.model, "--model"),
                "api_base": None if self.api_base is None else checked_value("api_base", self.api_base, "--api-base")}


def check_routable(model: str, api_base: str | None) -> None:
    """A model name litellm cannot route is the user's mistake, found without calling anyone. The
    library the model goes through (the openai package for an OpenAI-compatible server, litellm for
    any other provider) starts loading now, in the background, while the turn is preprocessed."""
    from chatapp.llm.client import model_problem, start_loading_client
    from chatapp.llm.settings import LLMSettings

    start_loading_client(LLMSettings(model=model, api_base=api_base))
    problem = model_problem(model, api_base)
    if problem:
        raise UserError(problem)


def _validated(value: str | None, check) -> str | None:
    """`value` if `check` accepts it; its ValueError becomes the user's one-line error."""
    if value is None:
        return None
    try:
        check(value)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return value


@dataclass(frozen=True)
class DataLocation:
    """The data dir and config file a command works on (None: the defaults)."""

    data_dir: Path | None = None
    config: Path | None = None

    @classmethod
    def given(cls, ctx: typer.Context | None, data_dir: Path | None, config: Path | None) -> DataLocation:
        """--data-dir/--config given before the command name apply unless repeated after it."""
        before = ctx.find_root().obj if ctx is not None else None
        if not isinstance(before, DataLocation):
            before = cls()
        return cls(data_dir or before.data_dir, config or before.config)

    def open_engine(self):
        from chatapp.engine import ChatEngine

        return ChatEngine.open(self.data_dir, self.config)

    def load_settings(self):
        """The settings alone (config file, environment), without opening the data dir."""
        from chatapp.config import load_settings

        return load_settings(self.data_dir, self.config)


def data_command(group: typer.Typer, name: str | None = None) -> Callable[[Callable], Callable]:
    """Register `func(data: DataLocation, ...)` on `group` as the command `name` (default: the
    function's name). The command takes --data-dir and --config as its last options and gets them as
    `data`; an OptionGroup parameter takes its fields' options in its place. A ConfigError or
    UserError becomes one line and exit code 2, a data dir that cannot be used (damaged, read-only, full)
    one line and exit code 1, Ctrl+C a line saying what is kept and exit code 130."""

    def register(func: Callable) -> Callable:
        group.command(name)(_as_command(func))
        return func

    return register


SHARED_PARAMETERS = [
    inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context, default=None),
    inspect.Parameter("data_dir", inspect.Parameter.KEYWORD_ONLY, annotation=DataDirOption, default=None),
    inspect.Parameter("config", inspect.Parameter.KEYWORD_ONLY, annotation=ConfigOption, default=None),
]


def _as_command(func: Callable) -> Callable:
    """`func` as typer should call it: with the options its signature lists, unpacked."""
    own = [p for p in inspect.signature(func, eval_str=True).parameters.values() if p.name != "data"]
    groups = {p.name: p.annotation for p in own if _is_option_group(p.annotation)}
    listed: list[inspect.Parameter] = []
    for parameter in own:
        listed += _group_parameters(groups[parameter.name]) if parameter.name in groups else [parameter]
    # Typer reads the options, in this order, from the signature.
    signature = inspect.Signature(listed + SHARED_PARAMETERS)

    @functools.wraps(func)
    def command(ctx=None, data_dir=None, config=None, **options):
        options = {name: _cleaned(value) for name, value in options.items()}
        for name, group in groups.items():
            options[name] = group(**{field.name: options.pop(field.name) for field in dataclasses.fields(group)})
        try:
            return func(**options, data=DataLocation.given(ctx, data_dir, config))
        except ConfigError as exc:
            fail(*exc.problems)
        except UserError as exc:
            fail(str(exc))
        except StorageError as exc:
            fail(str(exc), code=1)
        except (sqlite3.DatabaseError, OSError) as exc:  # the data dir failing mid-command (a full disk)
            data_dir = DataLocation.given(ctx, data_dir, config).data_dir or default_data_dir()
            message = describe_storage_problem(exc, data_dir)
            if message is None:
                raise
            fail(message, code=1)
        except KeyboardInterrupt:
            err_console.print("interrupted — what was finished is saved; run the command again to continue.")
            raise typer.Exit(130) from None

    command.__signature__ = signature
    command.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    return command


def _cleaned(value):
    """An option's or argument's text as the command should see it: undecodable bytes as U+FFFD,
    no control characters (see `cleaned_argument`). Paths are left as given: a file's name may hold
    bytes that are not UTF-8, and they must still name that file."""
    if isinstance(value, str):
        return cleaned_argument(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_cleaned(v) for v in value)
    return value


def _is_option_group(annotation) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, OptionGroup)


def _group_parameters(group: type[OptionGroup]) -> list[inspect.Parameter]:
    hints = get_type_hints(group, include_extras=True)  # the Annotated typer.Option of each field
    return [
        inspect.Parameter(field.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=hints[field.name],
                          default=field.default)
        for field in dataclasses.fields(group)
    ]
