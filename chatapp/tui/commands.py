"""The chat's own commands in the command palette (Ctrl+P): correction level, budget profile, model,
theme, new / open / resume / export session, ingest, the side panel, help. Each runs what the
matching key or /command runs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from chatapp.config import BUDGET_PROFILE_NAMES, CORRECTION_LEVEL_NAMES
from chatapp.terminal_text import clean

RECENT_SESSIONS = 10
EXPORT_FORMATS = ("md", "json", "html")

Command = tuple[str, str, Callable[[], object]]


class ChatCommands(Provider):
    async def _commands(self) -> list[Command]:
        app = self.app
        commands: list[Command] = [
            (f"Correction level: {level}", "how boldly your input is corrected", partial(app.set_level, level))
            for level in CORRECTION_LEVEL_NAMES
        ]
        commands += [(f"Budget profile: {profile}", "how the prompt's token budget is shared",
                      partial(app.set_profile, profile)) for profile in BUDGET_PROFILE_NAMES]
        commands += [
            ("Model: choose…", "the configured model, offline, or one the api_base lists", app.action_pick_model),
            ("Session: new", "start a new session", app.action_new_session),
            ("Session: open…", "open, rename, delete or export a session", app.action_sessions),
        ]
        commands += [(f"Session: export as {fmt}", "write this session to data_dir/exports", partial(app.export, fmt))
                     for fmt in EXPORT_FORMATS]
        commands += [
            ("Ingest a file or folder…", "type its path after /ingest", partial(app.fill_prompt, "/ingest ")),
            ("Toggle the side panel", "show or hide entities, budget and knowledge", app.action_toggle_side_panel),
            ("Help: keys and commands", "every key and /command", app.action_help),
        ]
        commands += [(f"Theme: {name}", "colours of the chat (saved to the config)", partial(setattr, app, "theme", name))
                     for name in sorted(app.available_themes)]
        rows = await asyncio.to_thread(app.engine.sessions.list)
        commands += [(f"Session: resume {clean(row['name'])}", clean((row.get("title") or "")[:60]),
                      partial(app.resume, row["name"])) for row in rows[:RECENT_SESSIONS]]
        return commands

    async def discover(self) -> Hits:
        for name, help_text, run in await self._commands():
            yield DiscoveryHit(name, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, run in await self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), run, help=help_text)
