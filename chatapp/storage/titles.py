"""A session's title as lists show it: its first question on one line, cut to fit."""

from __future__ import annotations


def session_title(row: dict, width: int) -> str:
    """The first question asked in the session (SessionStore.list()'s `title`), whitespace folded to
    single spaces and cut with an ellipsis past `width` characters; "(no questions yet)" before one."""
    title = " ".join((row.get("title") or "").split())
    if not title:
        return "(no questions yet)"
    return title if len(title) <= width else title[: width - 1].rstrip() + "…"
