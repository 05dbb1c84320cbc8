"""The five prompt sections — system, entities, dialogue, rag, query — each
rendered from its editable template (chatapp/templates/*.txt) and cut to the
token budget assembly gives it: text at token boundaries (the dialogue from
its oldest end, the query from its tail), retrieved chunks only whole, in
rank order.

Text the model must take as information — retrieved chunks, the known
entities and the topic (registry text, some of it learnt from documents), the
summary of earlier turns — is fenced as <reference_data>
(chatapp.preprocess.reference_data) and the system prompt says what that
means, so instructions inside it never read as the system's. Only the
system template and the user's own instructions and preferences are rendered
unfenced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

from chatapp.token_count import TokenTally, truncate_tokens
from chatapp.preprocess.context import speaker
from chatapp.preprocess.reference_data import FENCE_TAG, REFERENCE_RULE, fence, fence_chunk, neutralise_fence_tags
from chatapp.records import ContextInjection, KnowledgeChunk

TEMPLATE_DIR = Path(__file__).parent / "templates"
TEMPLATE_NAMES = ("system", "dialogue", "entities", "rag", "query")
# A dialogue turn costs its text plus this much: its message framing, or its
# "User: " label and line break in the flat text, whichever is larger.
TURN_FRAMING = 5
# Less than this of a turn is noise, not context.
MIN_PARTIAL_TURN = 12


# --- templates -------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\$\{(\w+)\}|\$(\w+)")
_template_cache: dict[tuple, dict[str, str]] = {}


def load_templates(directory: Path | str | None = None) -> dict[str, str]:
    """The five section templates, re-read when a file changes."""
    folder = Path(directory) if directory else TEMPLATE_DIR
    paths = [folder / f"{name}.txt" for name in TEMPLATE_NAMES]
    key = (str(folder), *(p.stat().st_mtime_ns if p.exists() else 0 for p in paths))
    if key not in _template_cache:
        _template_cache[key] = {
            name: (path.read_text(encoding="utf-8") if path.exists() else f"${{{name}}}")
            for name, path in zip(TEMPLATE_NAMES, paths)
        }
    return _template_cache[key]


def render(template: str, values: dict[str, str], keep_static: bool = False) -> str:
    """Fill ${placeholders}. A paragraph whose placeholders are all empty is
    left out, and so is the whole section when every value is empty (unless
    `keep_static`: the system prompt stands on its own)."""
    if not keep_static and not any(values.get(name) for name in _placeholders(template)):
        return ""
    paragraphs = []
    for paragraph in re.split(r"\n[ \t]*\n", template.strip("\n")):
        names = _placeholders(paragraph)
        if names and not any(values.get(n) for n in names):
            continue
        paragraphs.append(Template(paragraph).safe_substitute({n: values.get(n, "") for n in names}).strip("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n\n".join(p for p in paragraphs if p.strip())).strip()


def _placeholders(text: str) -> set[str]:
    return {a or b for a, b in _PLACEHOLDER.findall(text)}


# --- reference data ---------------------------------------------------------------


def fenced(text: str, kind: str) -> str:
    """A rendered section as reference data, or nothing when it is empty."""
    return fence(text, kind=kind) if text.strip() else ""


_FENCE_START = re.compile(rf"(?<=\n)(?=<{FENCE_TAG} )")


def _fence_parts(text: str) -> list[str]:
    """A rendered RAG section cut into the text before the first fence, each
    fence, and the line breaks after each fence, for TokenTally.of_parts."""
    parts = []
    for piece in _FENCE_START.split(text):
        fence = piece.rstrip("\n")
        parts += [fence, piece[len(fence):]] if fence.endswith(">") else [piece]
    return parts


# --- sections ----------------------------------------------------------------------


@dataclass
class Section:
    name: str
    text: str = ""
    used: int = 0
    truncated: bool = False
    turns: list[dict[str, str]] = field(default_factory=list)  # dialogue as chat messages
    summary: str = ""  # the dialogue summary paragraph, fenced, sent in the user message
    recent: str = ""  # the dialogue turns as flat text ("User: ...")
    chunks: list[KnowledgeChunk] = field(default_factory=list)


class SectionRenderer:
    """Renders each section from its template, cut to the budget it is given."""

    def __init__(self, templates: dict[str, str], model: str, count: TokenTally | None = None):
        self.templates = templates
        self.model = model
        # One tally per prompt: entity lines, chunks and the system text are
        # counted again as sections are rebuilt, and the whole prompt at the end.
        self.count = count or TokenTally(model)

    def _cut_to_fit(self, render_with, text: str, budget: int, keep: str) -> tuple[str, str, bool]:
        """render_with(text) with `text` cut at a token boundary until it fits
        `budget`: (rendered, the text that went in, whether it was cut)."""
        rendered = render_with(text)
        if self.count(rendered) <= budget:
            return rendered, text, False
        limit = budget - self.count(render_with(""))
        while limit > 0:
            value = truncate_tokens(text, limit, self.model, keep=keep)
            rendered = render_with(value)
            over = self.count(rendered) - budget
            if over <= 0:
                return rendered, value, True
            limit -= over
        rendered = render_with("")
        if self.count(rendered) > budget:
            rendered = truncate_tokens(rendered, budget, self.model)
        return rendered, "", True

    def system(self, context: ContextInjection, budget: int, need_rule: bool) -> Section:
        template = self.templates["system"]
        if need_rule and FENCE_TAG not in template:
            template = template.rstrip() + "\n" + REFERENCE_RULE
        preferences = "\n".join(f"- {k}: {v}" for k, v in (context.preferences or {}).items())
        instructions = context.system_instructions or ""
        fill = lambda instructions, preferences: render(  # noqa: E731
            template, {"instructions": instructions, "preferences": preferences}, keep_static=True
        )
        text, cut = fill(instructions, preferences), False
        if self.count(text) > budget:
            cut = True
            # The user's own instructions outrank their preferences: the preferences give way first.
            if self.count(fill(instructions, "")) <= budget:
                text, _, _ = self._cut_to_fit(lambda p: fill(instructions, p), preferences, budget, "start")
            else:
                text, _, _ = self._cut_to_fit(lambda i: fill(i, ""), instructions, budget, "start")
        return Section("system", text, self.count(text), cut)

    def entities(self, lines: list[str], topic: dict, budget: int) -> Section:
        label, keywords = str(topic.get("label") or ""), [str(k) for k in topic.get("keywords") or []]
        topic_text = label or ", ".join(keywords)
        if label and keywords:
            topic_text = f"{label} (keywords: {', '.join(keywords)})"
        fill = lambda kept, topic_value: fenced(render(  # noqa: E731
            self.templates["entities"], {"entities": "\n".join(kept), "topic": topic_value}
        ), "known_entities")
        # Escaped before they are counted, so each line costs what is sent.
        lines = [neutralise_fence_tags(line) for line in lines]
        # Each line is counted once; lines are ranked, so the lowest go first.
        used = self.count(fill(["x"], topic_text)) - 1 if lines else 0
        kept = []
        for line in lines:
            cost = self.count(line) + 1
            if used + cost > budget:
                break
            kept.append(line)
            used += cost
        truncated = len(kept) < len(lines)
        text = fill(kept, topic_text)
        while kept and self.count(text) > budget:
            kept.pop()
            truncated = True
            text = fill(kept, topic_text)
        if self.count(text) > budget:  # not even the topic fits whole
            text, _, _ = self._cut_to_fit(lambda t: fill([], t), topic_text, budget, "start")
            truncated = True
        return Section("entities", text, self.count(text), truncated)

    def query(self, text: str, budget: int) -> Section:
        fill = lambda q: render(self.templates["query"], {"query": q})  # noqa: E731
        rendered, _, cut = self._cut_to_fit(fill, text, budget, "start")
        return Section("query", rendered, self.count(rendered), cut)

    def rag(self, chunks: list[KnowledgeChunk], budget: int) -> Section:
        header = self.count(render(self.templates["rag"], {"chunks": "x"})) + 1
        kept, fences, used, truncated = [], [], header, False
        for chunk in chunks:
            fence = fence_chunk(chunk)
            cost = self.count(fence) + 1
            if used + cost <= budget:
                kept.append(chunk)
                fences.append(fence)
                used += cost
            else:
                truncated = True  # whole chunks only; a smaller, lower-ranked one may still fit
        if not kept:
            return Section("rag", truncated=truncated)
        text = render(self.templates["rag"], {"chunks": "\n".join(fences)})
        # Counted fence by fence: most were counted just above.
        return Section("rag", text, max(used, self.count.of_parts(_fence_parts(text))), truncated, chunks=kept)

    def dialogue(self, context: ContextInjection, budget: int) -> Section:
        """The most recent text wins: whole turns newest first, then part of
        the next older one, then the summary of everything before."""
        turns = [(t.role if t.role in ("user", "assistant") else "user", t.content) for t in context.recent_turns]
        kept: list[tuple[str, str]] = []
        used, truncated = 0, False
        for index in range(len(turns) - 1, -1, -1):
            role, content = turns[index]
            cost = self.count(content) + TURN_FRAMING
            if used + cost <= budget:
                kept.insert(0, (role, content))
                used += cost
                continue
            room = budget - used - TURN_FRAMING - 1
            if room >= MIN_PARTIAL_TURN:
                tail = "…" + truncate_tokens(content, room, self.model, keep="end")
                kept.insert(0, (role, tail))
                used += self.count(tail) + TURN_FRAMING
            truncated = True
            break
        summary_text = ""
        if context.summary and not truncated:
            summary_only = lambda s: fenced(  # noqa: E731
                render(self.templates["dialogue"], {"summary": s}), "earlier_conversation")
            summary_text, _, cut = self._cut_to_fit(summary_only, context.summary, budget - used, "end")
            truncated = truncated or cut
            used += self.count(summary_text)
        elif context.summary:
            truncated = True
        flat_turns = "\n".join(f"{speaker(role)}: {content}" for role, content in kept)
        recent = render(self.templates["dialogue"], {"turns": flat_turns})
        text = "\n\n".join(t for t in (summary_text, recent) if t)
        messages = [{"role": role, "content": content} for role, content in kept]
        return Section("dialogue", text, used, truncated, turns=messages, summary=summary_text, recent=recent)
