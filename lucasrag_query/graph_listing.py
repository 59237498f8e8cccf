"""A workspace's entity graph as ``lucasrag graph`` reports it (also its ``--json``).

Without an entity: the entities with the most relations, their type and how
many notes support them. With one: the entity's description, its relations and
the vault paths of the notes that support each. Care applies here as in a
query: text that comes from a chunk about a deferred subject is withheld
(its note is still listed, marked with the subject) unless ``bridge`` names it.
"""

from __future__ import annotations

import json

from lucasrag.settings import Settings


async def collect(
    settings: Settings, workspace: str, entity: str | None, *, limit: int = 50, bridge: tuple[str, ...] = ()
) -> dict:
    """The report ``lucasrag graph`` prints (also what ``--json`` emits)."""
    from lucasrag.deference import load_deference
    from lucasrag.index import index_exists, open_chunk_store, open_workspace_index
    from lucasrag_query.policy import bridge_warnings, care_withheld_subjects, resolve_bridge

    if not index_exists(settings, workspace):
        raise FileNotFoundError(f"no index for {workspace} under {settings.index_dir}: run `lucasrag ingest` first")
    subjects = load_deference(settings.vault)
    bridged = frozenset(b.casefold() for b in resolve_bridge(bridge, subjects))
    index = await open_workspace_index(settings, workspace)
    store = open_chunk_store(settings, workspace)
    try:
        entities_n, relations_n = await index.graph_counts()
        report: dict = {"workspace": workspace, "entities": entities_n, "relations": relations_n}
        if warnings := bridge_warnings(bridge, subjects):
            report["warnings"] = list(warnings)
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

        def withheld_by(chunk_ids) -> list[str]:  # the one care rule (lucasrag_query.policy)
            return sorted(
                {
                    s
                    for c in chunk_ids
                    if c in records
                    for s in care_withheld_subjects(records[c].charged, subjects, bridged)
                },
                key=str.casefold,
            )

        def notes(chunk_ids) -> list[dict]:
            by_path: dict[str, set] = {}
            for c in chunk_ids:
                if c in records:
                    by_path.setdefault(records[c].path, set()).update(records[c].charged)
            return [
                {"path": p, "deferred": care_withheld_subjects(subs, subjects, bridged)}
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
