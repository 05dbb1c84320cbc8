"""Which session a person means by what they typed: `/resume bud` or `chatapp chat --session bud`.

An exact id or name is looked up by the store itself; here the rest is decided over the listed
sessions: a prefix of exactly one session's name or id, else the one session whose name or first
question clearly matches best (rapidfuzz). Anything else is SessionNotFound with the closest
candidates named, so the person can type one of them.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from chatapp.storage.session_errors import AmbiguousSession, SessionNotFound

# A fuzzy match below this score (0–100) is no match: "projx" must not open "holiday plans".
MIN_SCORE = 75.0
# The best match must lead the next session by this much, or the key is ambiguous.
MIN_LEAD = 8.0
CANDIDATES_NAMED = 3


def match_session(rows: list[dict], key: str) -> dict:
    """The row of `rows` (SessionStore.list()) that `key` names by prefix or fuzzy match."""
    wanted = key.strip().casefold()
    if not wanted:
        raise SessionNotFound("which session? give a name, or the start of one")
    prefixed = [row for row in rows if row["name"].casefold().startswith(wanted) or row["id"].startswith(wanted)]
    if len(prefixed) == 1:
        return prefixed[0]
    if len(prefixed) > 1:
        raise AmbiguousSession(f"{key!r} starts more than one session's name: {_named(prefixed)}")
    scored = sorted(((_score(wanted, row), row) for row in rows), key=lambda pair: pair[0], reverse=True)
    if not scored or scored[0][0] < MIN_SCORE:
        closest = f"; the closest: {_named([row for _, row in scored])}" if scored else ""
        raise SessionNotFound(f"no session named like {key!r}{closest}")
    if len(scored) > 1 and scored[0][0] - scored[1][0] < MIN_LEAD:
        raise AmbiguousSession(f"{key!r} matches more than one session: "
                              f"{_named([row for score, row in scored if scored[0][0] - score < MIN_LEAD])}")
    return scored[0][1]


def _score(wanted: str, row: dict) -> float:
    """How well `wanted` matches the session's name, or the words of its first question."""
    name = fuzz.WRatio(wanted, row["name"].casefold())
    title = fuzz.partial_ratio(wanted, (row.get("title") or "").casefold()) if len(wanted) >= 3 else 0.0
    return max(name, title)


def _named(rows: list[dict]) -> str:
    names = [repr(row["name"]) for row in rows[:CANDIDATES_NAMED]]
    more = f" and {len(rows) - CANDIDATES_NAMED} more" if len(rows) > CANDIDATES_NAMED else ""
    return ", ".join(names) + more
