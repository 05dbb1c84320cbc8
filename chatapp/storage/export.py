"""Session transcripts as Markdown, JSON or HTML: every turn with its
corrections, resolved entities, sources, flags and recommendation.

Nothing secret leaves: records hold no API keys, and anything shaped like a
key or bearer token, or holding a configured key's value, that found its way
into text is redacted on the way out (chatapp/redact.py).

Nothing in a transcript acts when the export is opened: the Markdown and HTML
escape HTML in what the user, the model or a document wrote (a `<script>` in an
answer reads as text), and no export holds a terminal escape sequence (so one
printed to a terminal, or `cat` of the file, shows text and does nothing else).
Exports named after a session go under the chosen folder with a safe file name
(`export_file`), whatever the session is called.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from chatapp.redact import redact_value
from chatapp.storage.filenames import file_under, slug
from chatapp.storage.sessions import Session, SessionStore
from chatapp.terminal_text import clean, escape_json_controls


def _scrub(value):
    """Every string with its secrets redacted (see chatapp/redact.py); fields that only ever hold a
    key or a process id left out."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if k not in ("api_key", "pid")}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return redact_value(value)


def session_transcript(store: SessionStore, session: Session) -> dict:
    """The conversation's turns, each with its records; `previews` holds what `chatapp preprocess
    --session` stored (records of a prompt never sent), apart from the conversation."""

    def with_records(row: dict) -> dict:
        return {"index": row["idx"], "role": row["role"], "status": row["status"], "created_at": row["created_at"],
                "content": row["content"], "meta": row["meta"], **store.turn_records(row["id"])}

    return _scrub({
        "session": {"id": session.id, "name": session.name, "created_at": session.created_at,
                    "updated_at": session.updated_at, "model": session.model},
        "usage": store.usage_totals(session),
        "turns": [with_records(row) for row in store.turns(session)],
        "previews": [with_records(row) for row in store.turns(session, previews=True)],
    })


def _superseded(turn: dict) -> bool:
    """A first answer the checks sent back: the regenerated answer after it is the one delivered."""
    return turn["role"] == "assistant" and bool((turn.get("meta") or {}).get("superseded"))


def to_json(transcript: dict) -> str:
    return escape_json_controls(json.dumps(transcript, ensure_ascii=False, indent=2))


def _md(text) -> str:
    """Text for the Markdown: HTML in it shown as text, never run by a Markdown viewer."""
    return html.escape(str(text or ""), quote=False)


def _status_note(turn: dict) -> str:
    return {"interrupted": " _(interrupted — the answer stopped here)_", "failed": " _(failed)_"}.get(turn["status"], "")


def to_markdown(transcript: dict) -> str:
    session = transcript["session"]
    lines = [f"# {_md(session['name'])}", "", f"Session `{session['id']}` · started {session['created_at']} · "
             f"model {_md(session['model'] or 'offline')}", ""]
    previous_superseded = False
    for turn in transcript["turns"]:
        if turn["role"] == "user":
            lines += [f"## You · {turn['created_at']}", "", _md(turn["content"]), ""]
            corrected = turn["meta"].get("corrected")
            if corrected and corrected != turn["content"]:
                lines += [f"Corrected to: {_md(corrected)}", ""]
            for c in turn["corrections"]:
                if c["applied"]:
                    lines.append(f"- {c['tier']} {c['correction_type']}: “{_md(c['original'])}” → “{_md(c['corrected'])}” "
                                 f"({c['confidence']:.2f})")
            for e in turn["resolved_entities"]:
                lines.append(f"- entity: {_md(e['surface'])} → {_md(e['canonical_name'])} ({_md(e['entity_type'])}, "
                             f"{e['confidence']:.2f})")
            if turn["rag_chunks"]:
                lines += ["", "Sources: " + "; ".join(f"{_md(title)} ({_md(source)})" for title, source in _documents(turn))]
            lines.append("")
        elif _superseded(turn):
            # Collapsed where Markdown renders HTML; the heading labels it where it does not.
            lines += [f"### Superseded first answer · {turn['created_at']}", "",
                      "_The checks asked for a new answer; the regenerated one follows._", "",
                      "<details><summary>The first answer</summary>", "",
                      "> " + _md(turn["content"]).replace("\n", "\n> "), "", "</details>", ""]
        else:
            regenerated = " (regenerated)" if previous_superseded else ""
            lines += [f"## Assistant{regenerated} · {turn['created_at']}", "",
                      _md(turn["content"]) + _status_note(turn), ""]
            post = turn["postprocessing"]
            for flag in turn["hallucination_flags"]:
                suggestion = f" — suggestion: {_md(flag['suggestion'])}" if flag["suggestion"] else ""
                action = " (corrected)" if flag.get("corrected") else ""
                lines.append(f"- flag {flag['hallucination_type']}{action}: “{_md(flag['content'])}”{suggestion}")
            if post:
                if post["original"] != post["delivered"]:
                    lines += ["", "Model's original answer:", "", "> " + _md(post["original"]).replace("\n", "\n> ")]
                lines += ["", f"Recommendation: **{post['recommendation']}** (confidence {post['confidence']:.2f})"]
            lines += _checked_markdown(turn.get("claim_support") or [])
            lines.append("")
        previous_superseded = _superseded(turn)
    usage = transcript["usage"]
    lines += ["---", f"{usage['calls']} model calls · {usage['prompt_tokens']} prompt + "
              f"{usage['completion_tokens']} completion tokens · ${usage['cost']:.4f}", ""]
    return clean("\n".join(lines))


def to_html(transcript: dict) -> str:
    esc = html.escape
    session = transcript["session"]

    def annotate(text: str) -> str:
        text = esc(text)
        text = text.replace("[corrected]", '<mark class="corrected">[corrected]</mark>')
        return text.replace("[unverified]", '<mark class="unverified">[unverified]</mark>')

    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{esc(session['name'])} — chatapp</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;line-height:1.5}"
        ".turn{border-left:4px solid #ccc;padding:.5rem 1rem;margin:1rem 0}.user{border-color:#4a7}"
        ".assistant{border-color:#47a}.meta{color:#666;font-size:.85em}mark.corrected{background:#cfc}"
        "mark.unverified{background:#fe9}.flag{color:#a40}.superseded{border-color:#bbb;color:#666}"
        ".checked table{border-collapse:collapse}.checked td,.checked th{text-align:left;vertical-align:top;"
        "padding:.2rem .4rem;border-top:1px solid #ddd}</style></head><body>",
        f"<h1>{esc(session['name'])}</h1><p class='meta'>session {esc(session['id'])} · model "
        f"{esc(session['model'] or 'offline')}</p>",
    ]
    previous_superseded = False
    for turn in transcript["turns"]:
        role = turn["role"]
        if _superseded(turn):
            parts.append(f"<details class='turn superseded'><summary class='meta'>Superseded first answer · "
                         f"{esc(turn['created_at'])} — the checks asked for a new answer; the regenerated one "
                         f"follows</summary><p>{annotate(turn['content'])}</p></details>")
            previous_superseded = True
            continue
        who = "You" if role == "user" else "Assistant (regenerated)" if previous_superseded else "Assistant"
        previous_superseded = False
        parts.append(f"<section class='turn {role}'><p class='meta'>{who} · "
                     f"{esc(turn['created_at'])} · {esc(turn['status'])}</p>")
        parts.append(f"<p>{annotate(turn['content'])}</p>")
        items = [f"{esc(c['correction_type'])}: “{esc(c['original'])}” → “{esc(c['corrected'])}”"
                 for c in turn["corrections"] if c["applied"]]
        items += [f"entity {esc(e['surface'])} → {esc(e['canonical_name'])}" for e in turn["resolved_entities"]]
        items += [f"source: {esc(title)} <span class='meta'>{esc(source)}</span>" for title, source in _documents(turn)]
        items += [f"<span class='flag'>{esc(f['hallucination_type'])}</span>"
                  + (" (corrected)" if f.get("corrected") else "") + f": {esc(f['content'])}"
                  + (f" — suggestion: {esc(f['suggestion'])}" if f["suggestion"] else "")
                  for f in turn["hallucination_flags"]]
        if turn["postprocessing"]:
            post = turn["postprocessing"]
            items.append(f"recommendation: <b>{esc(post['recommendation'])}</b> ({post['confidence']:.2f})")
            if post["original"] != post["delivered"]:
                items.append(f"model's original answer: {esc(post['original'])}")
        if items:
            parts.append("<ul class='meta'>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>")
        if turn.get("claim_support"):
            parts.append(_checked_html(turn["claim_support"]))
        parts.append("</section>")
    parts.append("</body></html>")
    return clean("\n".join(parts))


CHECKED_TITLE = "How this answer was checked"


def _checked_count(claims: list[dict]) -> str:
    stated = [c for c in claims if c["claim"]]
    flagged = sum(c["flagged"] for c in stated)
    return f"{len(stated)} claim{'s' if len(stated) != 1 else ''} held to the evidence, {flagged} flagged"


def _one_line(text) -> str:
    """A stored sentence on one line: a list item or table cell must not be broken by its newlines."""
    return " ".join(str(text or "").split())


def _checked_markdown(claims: list[dict]) -> list[str]:
    """Each sentence of the answer with its support score, why it was or was not flagged, and the
    evidence sentence closest to it with its source; collapsed where Markdown renders HTML."""
    if not claims:
        return []
    # The count opens the body too: a viewer that drops HTML (the terminal's) still says what the list is.
    lines = ["", f"<details><summary>{CHECKED_TITLE}</summary>", "", f"_{_checked_count(claims)}:_", ""]
    for claim in claims:
        said = f"“{_md(_one_line(claim['text']))}”"
        if not claim["claim"]:
            lines.append(f"- {said} — {_md(_one_line(claim['reason']))}")
            continue
        mark = "**flagged**" if claim["flagged"] else "not flagged"
        lines.append(f"- {said} — support {claim['score']:.2f}, {mark}: {_md(_one_line(claim['reason']))}")
        if claim["evidence"]:
            lines.append(f"  - best evidence: “{_md(_one_line(claim['evidence']))}” "
                         f"({_md(_one_line(claim['source']) or 'source unknown')})")
        else:
            lines.append("  - best evidence: none shares its words")
    return lines + ["", "</details>"]


def _checked_html(claims: list[dict]) -> str:
    esc = html.escape
    rows = []
    for claim in claims:
        score = f"{claim['score']:.2f}" if claim["claim"] else "—"
        flagged = "<b class='flag'>yes</b>" if claim["flagged"] else ("no" if claim["claim"] else "—")
        rows.append(f"<tr><td>{esc(claim['text'])}</td><td>{score}</td><td>{flagged}</td>"
                    f"<td>{esc(claim['evidence'] or '—')}</td><td>{esc(claim['source'])}</td>"
                    f"<td>{esc(claim['reason'])}</td></tr>")
    return (f"<details class='checked meta'><summary>{CHECKED_TITLE}: {_checked_count(claims)}</summary><table>"
            "<tr><th>claim</th><th>support</th><th>flagged</th><th>best evidence</th><th>source</th><th>why</th></tr>"
            + "".join(rows) + "</table></details>")


FORMATS = {"md": to_markdown, "json": to_json, "html": to_html}


def export_file(folder: Path, session: Session, fmt: str) -> Path:
    """Where the export of `session` as `fmt` goes in `folder`: named after the session, made safe
    (storage.filenames.slug); a name that had to change gets the session id, so that two sessions
    whose names make the same file name do not overwrite each other's export."""
    stem = slug(session.name, fallback="session")
    if stem != session.name:
        stem = f"{stem}-{slug(session.id)[:8]}"
    return file_under(folder, stem, fmt)


def write_export(store: SessionStore, session: Session, folder: Path, fmt: str) -> Path:
    """Export `session` as `fmt` into `folder` (made if missing), named by `export_file`; its path.
    OSError or UnsafePath when it cannot be written there."""
    folder.mkdir(parents=True, exist_ok=True)
    path = export_file(folder, session, fmt)
    path.write_text(FORMATS[fmt](session_transcript(store, session)), encoding="utf-8")
    return path


def _documents(turn: dict) -> list[tuple[str, str]]:
    """(title, source) of each document the turn drew on, once, however many of its chunks were used."""
    return list(dict.fromkeys((r["title"] or r["source"], r["source"]) for r in turn["rag_chunks"]))
