"""The chat's theme: the one the config names when the chat starts, and whichever the person picks
afterwards (palette or Ctrl+P → Theme) written back to the config, so it is there next time."""

from __future__ import annotations

from chatapp.config import ConfigError
from chatapp.config_file import save_settings

FALLBACK = "chatapp-dark"


def apply_saved_theme(app, settings) -> None:
    """Set the theme the settings name; one that is not installed is a notice, and the default is used."""
    wanted = settings.theme
    if wanted not in app.available_themes:
        app.notify(f"No theme called {wanted!r}; using {FALLBACK}. Pick one with Ctrl+P → Theme.",
                   severity="warning")
        wanted = FALLBACK if FALLBACK in app.available_themes else app.theme
    app.theme = wanted
    app.theme_changed_signal.subscribe(app, lambda theme: _save(app, settings, theme.name))


def _save(app, settings, name: str) -> None:
    # A small file rewritten on the spot: done before a quit that follows at once.
    try:
        save_settings(settings, theme=name)
    except ConfigError as exc:
        app.notify(f"Theme not saved: {exc}", severity="warning")
