"""`chatapp kb entities` and `chatapp kb entity NAME`: the people, projects and other things the
registry knows, where each came from, and every value an attribute had.

Names, values and paths come from the user's files and documents: they are escaped, never read as
Rich markup."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from chatapp.cli.kb import kb_app
from chatapp.cli.options import DataLocation, JsonOption, console, data_command, print_json
from chatapp.terminal_text import markup_safe

ORIGIN_STYLES = {"user": "green", "extracted": "cyan", "sample": "magenta"}
SOURCES_SHOWN = 3


def _confidence(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _short(path: str) -> str:
    """A source as the table shows it: the file name (the JSON has the whole path)."""
    return Path(path).name or path


def _origin(origin: str) -> str:
    return f"[{ORIGIN_STYLES.get(origin, 'white')}]{markup_safe(origin)}[/]"


@data_command(kb_app, "entities")
def kb_entities(
    data: DataLocation,
    entity_type: Annotated[Optional[str], typer.Option("--type", help="Only entities of this type (person, project…).")] = None,
    as_json: JsonOption = False,
):
    """The registry's entities: type, name, origin (user, extracted or sample), sources, confidence."""
    from chatapp.knowledge.provenance import entity_summaries, entity_types

    registry = data.open_engine().kb.registry
    summaries = entity_summaries(registry, entity_type)
    if as_json:
        print_json({"type": entity_type, "entities": summaries})
        return
    if not summaries:
        types = entity_types(registry)
        if entity_type and types:
            console.print(f"No entities of type '{markup_safe(entity_type)}' "
                          f"(types: {markup_safe(', '.join(types))}).",
                          highlight=False)
        else:
            console.print("No entities yet: ingest your documents, or an entities.jsonl (`chatapp ingest PATH`).")
        return
    from rich.table import Table

    table = Table("type", "name", "origin", "sources", "confidence", box=None, header_style="dim")
    for entity in summaries:
        shown = ", ".join(_short(s) for s in entity.sources[:SOURCES_SHOWN])
        more = f" +{len(entity.sources) - SOURCES_SHOWN}" if len(entity.sources) > SOURCES_SHOWN else ""
        table.add_row(markup_safe(entity.type), markup_safe(entity.name), _origin(entity.origin),
                      markup_safe(shown) + more, _confidence(entity.confidence))
    console.print(table)
    console.print(f"[dim]{len(summaries)} entities · `chatapp kb entity NAME` shows one[/]")


@data_command(kb_app, "entity")
def kb_entity(
    data: DataLocation,
    name: Annotated[str, typer.Argument(help="A name, alias or id (case-insensitive).")],
    as_json: JsonOption = False,
):
    """One entity: every attribute with its sources and the values it had before, and its facts.
    Exit code 1 when no entity, or more than one, has that name."""
    from chatapp.knowledge.provenance import entity_provenance, find_entity

    registry = data.open_engine().kb.registry
    lookup = find_entity(registry, name)
    if len(lookup.matches) == 1:
        found = entity_provenance(registry, lookup.matches[0])
        if as_json:
            print_json({"entity": found, "candidates": [], "close_matches": []})
        else:
            names = {r["id"]: r["name"] for r in registry.database.query("SELECT id, name FROM entities")}
            _print_entity(found, names)
        return
    if as_json:
        candidates = [{"id": e.id, "type": e.type, "name": e.name, "origin": e.origin} for e in lookup.matches]
        print_json({"entity": None, "candidates": candidates, "close_matches": lookup.close_matches})
    elif lookup.matches:
        console.print(f"{len(lookup.matches)} entities are called '{markup_safe(name)}'; name one by its id:",
                      highlight=False)
        for entity in lookup.matches:
            console.print(f"  {markup_safe(entity.id)}  [dim]{markup_safe(entity.type)} · {markup_safe(entity.name)} · "
                          f"{markup_safe(entity.origin)}[/]", highlight=False)
    else:
        close = f" Did you mean: {markup_safe(', '.join(lookup.close_matches))}?" if lookup.close_matches else ""
        console.print(f"No entity is called '{markup_safe(name)}'.{close}", highlight=False)
    raise typer.Exit(1)


def _source_line(source) -> str:
    """One source of a value: file, date, how it was read, confidence (what is known of them)."""
    details = [d for d in ((source.doc_date or "")[:10], source.method) if d]
    if source.method and source.confidence is not None:  # a value read from a document, not written down
        details.append(_confidence(source.confidence))
    suffix = f" ({', '.join(details)})" if details else ""
    return markup_safe(_short(source.source) + suffix)


def _print_entity(found, names: dict[str, str]) -> None:
    """`names`: entity id -> name, so a value that links to another entity reads as its name."""
    from rich.table import Table

    console.print(f"[bold]{markup_safe(found.name)}[/]  [dim]{markup_safe(found.type)} · "
                  f"{markup_safe(found.id)}[/] · "
                  f"{_origin(found.origin)} · confidence {_confidence(found.confidence)}", highlight=False)
    if found.aliases:
        console.print(f"[dim]also:[/] {markup_safe(', '.join(found.aliases))}", highlight=False)
    if found.description:
        console.print(markup_safe(found.description), highlight=False)
    if found.sources:
        console.print(f"[dim]sources:[/] {markup_safe(', '.join(found.sources))}", highlight=False,
                      soft_wrap=True)
    if found.attributes:
        table = Table("attribute", "value", "sources", "confidence", box=None, header_style="dim")
        for attribute in found.attributes:
            table.add_row(markup_safe(attribute.key), markup_safe(names.get(attribute.value, attribute.value)),
                          "\n".join(_source_line(s) for s in attribute.sources) or "–",
                          _confidence(attribute.confidence))
            for old in attribute.superseded:
                table.add_row("", f"[dim strike]{markup_safe(names.get(old.value, old.value))}[/]",
                              "[dim]superseded · " + "\n".join(_source_line(s) for s in old.sources) + "[/]", "")
            for other in attribute.disputed:
                table.add_row("", f"[dim]{markup_safe(names.get(other.value, other.value))}[/]",
                              "[dim]disputed, not used · " + "\n".join(_source_line(s) for s in other.sources) + "[/]",
                              "")
        console.print(table)
    else:
        console.print("[dim]no attributes[/]")
    if found.facts:
        console.print("[dim]facts:[/]")
        for fact in found.facts:
            console.print(f"  {markup_safe(fact.subject)} {markup_safe(fact.predicate)} {markup_safe(fact.object)} "
                          f"[dim]({markup_safe(fact.source)})[/]", highlight=False)
