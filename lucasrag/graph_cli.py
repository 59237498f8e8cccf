"""``lucasrag graph WORKSPACE [--entity NAME] [--json]``: a workspace's entity graph.

Without ``--entity``: the entities with the most relations, their type and how
many notes support them. With it: the entity's description, its relations and
the vault paths of the notes that support each. Care applies here as in a
query: text that comes from a chunk about a deferred subject is withheld
(its note is still listed, marked with the subject) unless ``--bridge`` names it.
"""

from __future__ import annotations

import json
import sys

import typer
from rich.console import Console
from rich.table import Table

from lucasrag.settings import Settings, SettingsError
from lucasrag.vocabulary import check_workspace

out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True)


def _fail(message: str, code: int = 1) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


async def collect(
    settings: Settings, workspace: str, entity: str | None, *, limit: int = 50, bridge: tuple[str, ...] = ()
) -> dict:
    """The report ``lucasrag graph`` prints (also what ``--json`` emits)."""
    from lucasrag.deference import load_deference
    from lucasrag.index import index_exists, open_chunk_store, open_workspace_index
    from lucasrag_query.policy import resolve_bridge

    if not index_exists(settings, workspace):
        raise FileNotFoundError(f"no index for {workspace} under {settings.index_dir}: run `lucasrag ingest` first")
    subjects = load_deference(settings.vault)
    bridged = {b.casefold() for b in resolve_bridge(bridge, subjects)}
    index = await open_workspace_index(settings, workspace)
    store = open_chunk_store(settings, workspace)
    try:
        entities_n, relations_n = await index.graph_counts()
        report: dict = {"workspace": workspace, "entities": entities_n, "relations": relations_n}
        if entity is None:
            rows = await index.graph_entities()
            rows.sort(key=lambda r: (-r["degree"], -len(r["chunk_ids"]), r["name"]))
            records = store.get(sorted({c for r in rows[:limit] for c in r["chunk_ids"]}))
            report["top"] = [
                {
                    "name": r["name"],
                    "type": r["type"],
                    "relations": r["degree"],
                    "notes": sorted({records[c].path for c in r["chunk_ids"] if c in records}),
                }
                for r in rows[:limit]
            ]
            return report
        found = await index.graph_entities([entity])
        if not found:
            report["entity"] = None
            return report
        e = found[0]
        relations = await index.graph_relations(e["name"])
        records = store.get(sorted({*e["chunk_ids"], *(c for r in relations for c in r["chunk_ids"])}))

        def withheld_by(chunk_ids) -> list[str]:
            return sorted(
                {s for c in chunk_ids if c in records for s in records[c].charged if s.casefold() not in bridged}
            )

        def notes(chunk_ids) -> list[dict]:
            by_path: dict[str, set] = {}
            for c in chunk_ids:
                if c in records:
                    by_path.setdefault(records[c].path, set()).update(records[c].charged)
            return [
                {"path": p, "deferred": sorted(s for s in subs if s.casefold() not in bridged)}
                for p, subs in sorted(by_path.items())
            ]

        def text(lines: list[str], chunk_ids) -> list[str] | str:
            held = withheld_by(chunk_ids)
            if held:
                q = json.dumps(held[0], ensure_ascii=False)
                return f"withheld out of care (notes about {', '.join(held)}); pass --bridge {q} to show it"
            return lines

        report["entity"] = {
            "name": e["name"],
            "type": e["type"],
            "relations": e["degree"],
            "description": text(e["description"], e["chunk_ids"]),
            "notes": notes(e["chunk_ids"]),
        }
        report["entity_relations"] = [
            {
                "other": r["target"],
                "keywords": r["keywords"],
                "weight": round(r["weight"], 3),
                "description": text(r["description"], r["chunk_ids"]),
                "notes": notes(r["chunk_ids"]),
            }
            for r in relations[:limit]
        ]
        return report
    finally:
        store.close()
        await index.close()


def graph_command(
    workspace: str = typer.Argument(..., help="technical, creative, personal or administrative."),
    entity: str | None = typer.Option(None, "--entity", "-e", help="Show one entity: relations and supporting notes."),
    limit: int = typer.Option(30, "--limit", help="How many entities (or relations) to list."),
    bridge: list[str] = typer.Option([], "--bridge", "-b", help="Show text about a deferred subject (repeatable)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """A workspace's entity graph: entities, relations and the notes that support them."""
    from lucasrag_query import _loop

    try:
        check_workspace(workspace)
        settings = Settings.from_env()
    except (ValueError, SettingsError) as exc:
        _fail(str(exc), 2)
    try:
        report = _loop.run(collect(settings, workspace, entity, limit=limit, bridge=tuple(bridge)))
    except FileNotFoundError as exc:
        _fail(str(exc))
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    out.print(f"[bold]{workspace}[/]: {report['entities']} entities, {report['relations']} relations")
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
        _fail(f"no entity named {entity!r} in {workspace} (names are case-sensitive; tags start with #)")
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
