"""Readable rich views of turn records for the CLI (the TUI has its own widgets, built on these).

Everything a record holds that the user, a model or a document wrote goes in as `plain_text`:
shown as it is, never read as Rich markup, and without what would drive the terminal."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from chatapp.input_limits import read_part
from chatapp.records import ANSWER_LEVEL, AssembledPrompt, ClaimSupport, CorrectionResult, PostprocessedResponse, PreprocessedPrompt, ResolvedEntity
from chatapp.terminal_text import clean, plain_text


def correction_diff(original: str, corrections) -> Text:
    """The original input with each applied correction shown as ~~old~~ → new."""
    text = Text()
    position = 0
    for record in sorted((c for c in corrections if c.applied), key=lambda c: (c.span[0], c.span[1])):
        start, end = record.span
        if start < position:
            continue
        text.append(clean(original[position:start]))
        # Old and new side by side with an arrow, so the diff reads even where
        # the terminal cannot draw strike-through.
        if record.original:
            text.append(clean(record.original), style="strike red")
            text.append("→", style="dim")
        text.append(clean(record.corrected) or "∅", style="bold green")
        position = end
    text.append(clean(original[position:]))
    return text


def correction_table(result: CorrectionResult | PreprocessedPrompt) -> Table:
    table = Table(box=None, show_header=True, header_style="dim")
    for column in ("tier", "span", "original", "corrected", "type", "conf", "alternatives"):
        table.add_column(column)
    suggestions = getattr(result, "suggestions", [])
    for record in [*result.corrections, *suggestions]:
        style = "" if record.applied else "dim"
        alternatives = plain_text(", ".join(f"{w} {s:.2f}" for w, s in record.alternatives[:3]))
        table.add_row(record.tier, f"{record.span[0]}–{record.span[1]}", plain_text(record.original),
                      plain_text(record.corrected),
                      record.correction_type + ("" if record.applied else " (suggested)"),
                      f"{record.confidence:.2f}", alternatives, style=style)
    return table


def entity_table(entities: list[ResolvedEntity]) -> Table:
    table = Table(box=None, header_style="dim")
    for column in ("mention", "resolved to", "type", "conf", "other candidates"):
        table.add_column(column)
    for entity in entities:
        others = plain_text(", ".join(f"{c} {s:.2f}" for c, s in entity.candidates[1:3]))
        table.add_row(plain_text(entity.surface), plain_text(entity.canonical_name or "—"), plain_text(entity.entity_type),
                      f"{entity.confidence:.2f}", others)
    return table


def budget_bars(prompt: AssembledPrompt, width: int = 30) -> Table:
    table = Table(box=None, show_header=False)
    for section in prompt.sections:
        share = section.tokens / section.budget if section.budget else 0.0
        filled = min(width, round(share * width))
        colour = "red" if section.truncated else ("yellow" if share > 0.85 else "green")
        bar = Text("█" * filled, style=colour) + Text("░" * (width - filled), style="dim")
        table.add_row(section.name, bar, f"{section.tokens}/{section.budget}" + (" cut" if section.truncated else ""))
    return table


def preprocess_view(pre: PreprocessedPrompt) -> Group:
    # A paste is shown in the opening that was read; the note says how much more there is.
    shown = read_part(pre.original_input)
    parts = [Text("Input", style="bold"), correction_diff(shown, pre.corrections)]
    if len(shown) < len(pre.original_input):
        parts[-1].append(f" … ({len(pre.original_input) - len(shown):,} more characters)", style="dim")
    parts += [plain_text(note, style="yellow") for note in pre.notes]
    if pre.corrections or pre.suggestions:
        parts += [correction_table(pre)]
    parts += [Text(f"correction confidence {pre.correction_confidence:.2f}", style="dim")]
    if pre.resolved_entities:
        parts += [Text("\nEntities", style="bold"), entity_table(pre.resolved_entities)]
    if pre.rag_chunks:
        parts += [Text("\nKnowledge", style="bold")]
        parts += [plain_text(f"  {c.relevance:.2f}  {c.title or c.source}  ({(c.date or '')[:10]})") for c in pre.rag_chunks]
    prompt = pre.prompt
    parts += [Text(f"\nPrompt · {prompt.budget_profile} · {prompt.token_count} tokens", style="bold"), budget_bars(prompt)]
    if prompt.warnings:
        parts += [plain_text("warnings: " + ", ".join(prompt.warnings), style="yellow")]
    return Group(*parts)


def annotated_answer(text: str) -> Text:
    styled = plain_text(text)
    styled.highlight_words(["[corrected]"], style="bold green")
    styled.highlight_words(["[unverified]"], style="bold yellow")
    return styled


def response_view(response: PostprocessedResponse, include_answer: bool = True) -> Group:
    """The checked answer with its flags and verdict; `include_answer=False` when
    the same text was already shown as it streamed."""
    colours = {"Accept": "green", "AcceptWithFlags": "yellow", "CorrectAndDeliver": "cyan",
               "Regenerate": "red", "HumanReview": "red"}
    parts = [annotated_answer(response.delivered)] if include_answer else []
    if response.hallucination_flags:
        table = Table(box=None, header_style="dim")
        for column in ("flag", "content", "conf", "suggestion"):
            table.add_column(column)
        for flag in response.hallucination_flags:
            # A flag about the whole answer would repeat it: its table row says so instead.
            content = "(the answer as a whole)" if flag.hallucination_type in ANSWER_LEVEL else flag.content
            table.add_row(plain_text(flag.hallucination_type), plain_text(content), f"{flag.confidence:.2f}",
                          plain_text(flag.suggestion or ""))
        parts.append(table)
    colour = colours.get(response.recommendation, "white")
    parts.append(Text(f"{response.recommendation} · confidence {response.confidence:.2f} · coherence "
                      f"{response.coherence.score:.2f}", style=colour))
    if response.guidance:
        parts.append(plain_text(response.guidance, style="dim"))
    elif response.coherence.issues:  # why the confidence is lower, when nothing was flagged
        parts.append(plain_text("Coherence: " + "; ".join(response.coherence.issues) + ".", style="dim"))
    return Group(*parts)


def best_evidence(claim: ClaimSupport, none: str = "—") -> Text:
    """The evidence sentence closest to a claim, then its source dimmed: both as written, never markup."""
    best = plain_text(claim.evidence or none)
    if claim.source:
        best.append(f" ({clean(claim.source)})", style="dim")
    share = claim.features.get("best_share")
    if claim.evidence and isinstance(share, (int, float)) and share < 1:
        # The closest sentence can still be far: say how much of the claim it holds.
        best.append(f" · holds {share:.0%} of the claim's words", style="dim")
    return best


def explain_view(response: PostprocessedResponse) -> Group:
    """`check --explain` and `ask --explain`: how each sentence was held to the evidence, then the
    answer as a whole — its support, the line under which it is weak, and why it was flagged as a
    whole (UnsupportedAnswer) when it was."""
    if response.support_reason:
        whole = plain_text(f"the answer as a whole: UnsupportedAnswer — {response.support_reason}", style="yellow")
    elif response.support_threshold:
        whole = plain_text(f"the answer as a whole: support {response.support:.2f} (weak under "
                           f"{response.support_threshold:.2f})", style="dim")
    else:
        whole = plain_text("the answer as a whole: no evidence or retrieved document to hold it to", style="dim")
    return Group(claim_support_view(response.claim_support), whole)


def claim_support_view(claims: list[ClaimSupport]) -> Table:
    """`check --explain` and `ask --explain`: each sentence of the answer, how well the evidence
    supports it, the evidence sentence that says the most of it and where that came from, and why
    it was or was not flagged."""
    table = Table(box=None, header_style="dim", title="support per claim", title_justify="left", title_style="dim")
    for column in ("#", "claim", "support", "flagged", "best evidence (source)", "why"):
        table.add_column(column, overflow="fold")
    for number, claim in enumerate(claims, start=1):
        flagged = Text("yes", style="bold yellow") if claim.flagged else Text("no" if claim.claim else "—")
        table.add_row(str(number), plain_text(claim.text), f"{claim.score:.2f}" if claim.claim else "—", flagged,
                      best_evidence(claim), plain_text(claim.reason))
    return table
