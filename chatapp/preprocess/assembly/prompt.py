"""Stage 5, assembly: the prompt the model sees, within a token budget.

The sections (chatapp.preprocess.assembly.sections) are rendered from editable templates,
each cut to its share of the budget profile. Budget a section leaves unused
flows to retrieval first, then to the dialogue. The result is counted as the
final chat messages and as flat text, and trimmed further if either would
pass the profile's total, so the budget is never exceeded.
"""

from __future__ import annotations

import re

from chatapp.intents import ALL_CHANNELS, triage_channels
from chatapp.preprocess.assembly.budgets import get_profile
from chatapp.preprocess.assembly.sections import TEMPLATE_NAMES, Section, SectionRenderer, load_templates
from chatapp.preprocess.context import EntityDescriber
from chatapp.records import AssembledPrompt, ContextInjection, KnowledgeChunk, PromptSection, ResolvedEntity
from chatapp.token_count import CountTokens, TokenTally, token_counter

# Chat framing per message (OpenAI's count: 3 + the role), and 3 to prime the reply.
MESSAGE_FRAMING = 4
REPLY_PRIMING = 3
# The system and user messages' framing, the reply priming and the blank lines
# that join sections inside a message; charged to the system section.
FRAMING_RESERVE = REPLY_PRIMING + 2 * MESSAGE_FRAMING + 4

WARNINGS = {
    "system": "SystemTruncated",
    "dialogue": "DialogueTruncated",
    "entities": "EntityContextTruncated",
    "rag": "RAGTruncated",
    "query": "QueryTruncated",
}


# --- the prompt ------------------------------------------------------------------


def _messages(sections: dict[str, Section], tally: TokenTally) -> list[dict[str, str]]:
    # The system message holds only our own text and the user's settings: everything
    # taken from the registry, the documents or the conversation is fenced data in the
    # user message, before the question.
    system = sections["system"].text
    user_parts = [t for t in (sections["entities"].text, sections["dialogue"].summary, sections["rag"].text,
                              sections["query"].text) if t]
    # Counted from its sections (the RAG text was counted as its section was built).
    tally.of_parts(_interleave(user_parts, "\n\n"))
    user = "\n\n".join(user_parts)
    return [{"role": "system", "content": system}, *sections["dialogue"].turns, {"role": "user", "content": user}]


def _interleave(texts: list[str], separator: str) -> list[str]:
    return [piece for n, text in enumerate(texts) for piece in ((separator, text) if n else (text,))]


def count_message_tokens(messages: list[dict[str, str]], model: str, count: CountTokens | None = None) -> int:
    """Tokens of a chat request, framing included (OpenAI's cookbook count)."""
    count = count or token_counter(model)
    return REPLY_PRIMING + sum(3 + count(m["role"]) + count(m["content"]) for m in messages)


def _flat_text(sections: dict[str, Section], user: str) -> str:
    """The prompt as one text, in the order of the messages."""
    return "\n\n".join(t for t in (sections["system"].text, sections["dialogue"].recent, user) if t)


def _flat_tokens(text: str, user: str, tally: TokenTally) -> int:
    """Tokens of the flat text. It ends with the user message, counted just
    before as a message: only the head in front of it is encoded again."""
    if user and text.endswith(user):
        return tally.of_parts([text[: len(text) - len(user)], user])
    return tally(text)


def assemble(
    corrected_input: str,
    context: ContextInjection,
    rag_chunks: list[KnowledgeChunk],
    resolved: list[ResolvedEntity],
    profile: str = "default",
    model: str = "gpt-4o-mini",
    channels: list[str] | None = None,
    templates: dict[str, str] | None = None,
) -> AssembledPrompt:
    """The prompt for one turn, within the profile's total budget.

    `resolved` describes the entities when the context carries none (a
    caller that skipped context injection)."""
    budget = get_profile(profile)
    channels = list(triage_channels(corrected_input) if channels is None else channels)
    tally = TokenTally(model)
    assembler = SectionRenderer(templates or load_templates(), model, tally)
    context = context or ContextInjection()
    base = dict(budget.sections)

    entity_context = list(context.entity_context)
    if not entity_context and resolved:
        describer = EntityDescriber(None)
        entity_context = [line for line in (describer.describe_resolved(e) for e in resolved) if line]
    chunks = list(rag_chunks or []) if "rag" in channels else []
    # The system prompt explains the fence whenever something may be sent inside one.
    topic = context.topic or {}
    fenced_data = bool(chunks or context.summary
                       or ("entities" in channels and (entity_context or topic.get("label") or topic.get("keywords"))))

    # caps: the most a section may use after a trim, whatever it could borrow.
    def build(caps: dict[str, int]) -> dict[str, Section]:
        own = dict(base, system=max(0, base["system"] - FRAMING_RESERVE))
        own = {n: min(own[n], caps.get(n, own[n])) for n in own}
        sections = {
            "system": assembler.system(context, own["system"], need_rule=fenced_data),
            "entities": assembler.entities(entity_context, context.topic or {}, own["entities"])
            if "entities" in channels else Section("entities"),
            "query": assembler.query(corrected_input or "", own["query"]),
        }
        spare = sum(own[n] - sections[n].used for n in ("system", "entities", "query"))
        rag_budget = min(base["rag"] + spare, caps.get("rag", budget.total)) if chunks else 0
        sections["rag"] = assembler.rag(chunks, rag_budget) if chunks else Section("rag")
        left = base["rag"] + spare - sections["rag"].used
        dialogue_budget = min(base["dialogue"] + left, caps.get("dialogue", budget.total))
        sections["dialogue"] = (
            assembler.dialogue(context, dialogue_budget) if "dialogue" in channels else Section("dialogue")
        )
        dialogue_left = base["dialogue"] + left - sections["dialogue"].used
        if sections["rag"].truncated and chunks and dialogue_left > 0:
            grown = min(rag_budget + dialogue_left, caps.get("rag", budget.total))
            sections["rag"] = assembler.rag(chunks, grown)
        return sections

    caps: dict[str, int] = {}
    sections = build(caps)
    # The section estimates leave room for framing; this check makes the
    # guarantee exact by counting what is actually sent.
    trim_order = ("dialogue", "rag", "entities", "query", "system")
    for _ in range(64):
        messages = _messages(sections, tally)
        text = _flat_text(sections, messages[-1]["content"])
        total = max(count_message_tokens(messages, model, tally), _flat_tokens(text, messages[-1]["content"], tally))
        if total <= budget.total:
            break
        name = next((n for n in trim_order if sections[n].used > 0), "system")
        # Freeze every section at its size so nothing re-borrows what this frees.
        for other, section in sections.items():
            caps.setdefault(other, section.used)
        caps[name] = max(0, sections[name].used - (total - budget.total) - 1)
        sections = build(caps)
    else:  # unreachable in practice; never send an over-budget prompt
        sections = {n: Section(n) for n in TEMPLATE_NAMES}
        messages, text = _messages(sections, tally), ""
        total = count_message_tokens(messages, model, tally)

    warnings = [WARNINGS[n] for n in ("system", "dialogue", "entities", "rag", "query") if sections[n].truncated]
    prompt_sections, meta_sections, borrowed = [], {}, {}
    for name in ("system", "dialogue", "entities", "rag", "query"):
        section = sections[name]
        extra = max(0, section.used - base[name])
        if extra:
            borrowed[name] = extra
        prompt_sections.append(PromptSection(name, section.used, base[name] + extra, section.truncated, section.text))
        meta_sections[name] = {"used": section.used, "budget": base[name] + extra, "base_budget": base[name]}
    included = sections["rag"].chunks
    meta = {
        "mode": "rag" if included else "chat",
        "budget_profile": budget.name,
        "budget_total": budget.total,
        "total_tokens_est": total,
        "model": model,
        "channels_requested": channels,
        "channels_used": [n for n in ALL_CHANNELS if sections[n].text or (n == "dialogue" and sections[n].turns)],
        "source_refs": [
            {"chunk_id": c.chunk_id, "source": c.source, "title": c.title, "date": c.date,
             "document_id": c.document_id, "relevance": c.relevance}
            for c in included
        ],
        "sections": meta_sections,
        # Budget other sections left unused, taken up by retrieval or the dialogue.
        "borrowed": borrowed,
    }
    return AssembledPrompt(prompt_sections, total, budget.name, warnings, messages, text, meta)
