"""``lucasrag graph WORKSPACE [--entity NAME] [--json]``: a workspace's entity graph.

The report is collected on the read side (:func:`lucasrag_query.graph_listing.collect`);
this module prints it.
"""

from __future__ import annotations

import json

import typer
from rich.table import Table

from lucasrag.settings import Settings, SettingsError
from lucasrag.vocabulary import check_workspace
from lucasrag_cli._console import fail, out


def graph_command(
    workspace: str = typer.Argument(..., help="technical, creative, personal or administrative."),
    entity: str | None = typer.Option(None, "--entity", "-e", help="Show one entity: relations and supporting notes."),
    limit: int = typer.Option(30, "--limit", help="How many entities (or relations) to list."),
    bridge: list[str] = typer.Option([], "--bridge", "-b", help="Show text about a deferred subject (repeatable)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """A workspace's entity graph: entities, relations and the notes that support them."""
    from lucasrag_query import _loop
    from lucasrag_query.graph_listing import collect

    try:
        check_workspace(workspace)
        settings = Settings.from_env()
    except (ValueError, SettingsError) as exc:
        fail(str(exc), 2)
    try:
        report = _loop.run(collect(settings, workspace, entity, limit=limit, bridge=tuple(bridge)))
    except FileNotFoundError as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    out.print(f"[bold]{workspace}[/]: {report['entities']} entities, {report['relations']} relations")
    for warning in report.get("warnings", []):
        out.print(f"[red]warning:[/] {warning}", highlight=False)
    if entity is None:
        table = Table(title="Entities with the most relations")
        for column in ("entity", "type", "relations", "notes"):
            table.add_column(column, justify="right" if column == "relations" else "left")
        for r in report["top"]:
            shown = ", ".join(r["notes"][:3]) + (f" (+{len(r['notes']) - 3})" if len(r["notes"]) > 3 else "")
            table.add_row(r["name"], r["type"], str(r["relations"]), shown)
        out.print(table)
        return
    e = report["entity"]
    if e is None:
        fail(f"no entity named {entity!r} in {workspace} (names are case-sensitive; tags start with #)")
    out.print(f"[bold]{e['name']}[/] ({e['type']}, {e['relations']} relations)", highlight=False)
    description = e["description"]
    for line in [description] if isinstance(description, str) else description:
        out.print(f"  {line}", highlight=False)
    out.print("Supporting notes:")
    for n in e["notes"]:
        out.print(
            f"  {n['path']}" + (f"  [deferred: {', '.join(n['deferred'])}]" if n["deferred"] else ""), highlight=False
        )
    table = Table(title="Relations")
    for column in ("with", "keywords", "weight", "description", "notes"):
        table.add_column(column, justify="right" if column == "weight" else "left")
    for r in report["entity_relations"]:
        d = r["description"]
        table.add_row(
            r["other"],
            r["keywords"],
            f"{r['weight']:.2f}",
            d if isinstance(d, str) else " | ".join(d),
            ", ".join(n["path"] for n in r["notes"]),
        )
    out.print(table)
