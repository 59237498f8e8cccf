"""Reading the entity graph: counts, entities and relations for the CLI, and the chunks a
query reaches through the entities it names (a mixin of ``WorkspaceIndex``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from lucasrag.index._lightrag._graph_rows import _node_name, _relation_key, _tracked_sources

#: Query-time knobs of graph retrieval (see docs/graph.md for how they were chosen).
GRAPH_QUERY_ENTITIES = 4
#: Chunks taken per named entity, as LightRAG's mix mode takes them (its
#: ``related_chunk_number`` 5, halved per entity: ``int(5 * entities / 2)``).
GRAPH_RELATED_CHUNKS = 5
#: Leave out entities supported by more chunks than the candidates asked for (see _graph_reach).
GRAPH_SKIP_HUBS = True


@lru_cache(maxsize=256)
def _entity_candidates(text: str, keywords: tuple[str, ...]) -> tuple[str, ...]:
    """The graph node names a query might name (the same for every workspace and every
    over-fetch round of one query, so worked out once)."""
    from lucasrag.entities import query_terms

    names = (_node_name(c) for c in (*keywords, *query_terms(text).candidates))
    return tuple(dict.fromkeys(n for n in names if n))


class GraphReader:
    """Graph reads of ``WorkspaceIndex`` (uses ``self._rag``)."""

    async def graph_counts(self) -> tuple[int, int]:
        """(entities, relations) in this workspace's graph."""
        graph = self._rag.chunk_entity_relation_graph
        inner = getattr(graph, "_get_graph", None)
        if inner is not None:  # NetworkX: count without copying every node
            g = await inner()
            return g.number_of_nodes(), g.number_of_edges()
        if getattr(graph, "_driver", None) is not None:  # Neo4j: count in the database, not in Python
            label = graph._get_workspace_label()
            query = (
                f"MATCH (n:`{label}`) WITH count(n) AS nodes "
                f"OPTIONAL MATCH (:`{label}`)-[r]->(:`{label}`) RETURN nodes, count(r) AS edges"
            )
            async with graph._driver.session(database=graph._DATABASE, default_access_mode="READ") as session:
                record = await (await session.run(query)).single()
            return int(record["nodes"]), int(record["edges"])
        return len(await graph.get_all_nodes()), len(await graph.get_all_edges())

    async def graph_entities(self, names: Sequence[str] | None = None) -> list[dict]:
        """Entities (all, or the named ones) with type, description, degree and full chunk ids."""
        from lightrag.utils import GRAPH_FIELD_SEP as SEP

        rag, graph = self._rag, self._rag.chunk_entity_relation_graph
        if names is None:
            rows = await graph.get_all_nodes()
            nodes = {r.get("entity_id") or r.get("id"): r for r in rows}
        else:
            nodes = await graph.get_nodes_batch([_node_name(n) for n in names])
        keys = [k for k in nodes if k]
        tracked, degrees = await asyncio.gather(rag.entity_chunks.get_by_ids(keys), graph.node_degrees_batch(keys))
        out = []
        for key, row in zip(keys, tracked):
            node = nodes[key]
            out.append(
                {
                    "name": key,
                    "type": node.get("entity_type") or "",
                    "description": [d for d in (node.get("description") or "").split(SEP) if d],
                    "degree": int(degrees.get(key, 0)),
                    "chunk_ids": _tracked_sources(row, node),
                }
            )
        return out

    async def graph_relations(self, name: str) -> list[dict]:
        """The relations of one entity: other end, keywords, weight, description, chunk ids."""
        from lightrag.utils import GRAPH_FIELD_SEP as SEP

        rag, graph = self._rag, self._rag.chunk_entity_relation_graph
        name = _node_name(name)
        pairs = [tuple(p) for p in (await graph.get_node_edges(name) or [])]
        if not pairs:
            return []
        edges, tracked = await asyncio.gather(
            graph.get_edges_batch([{"src": a, "tgt": b} for a, b in pairs]),
            rag.relation_chunks.get_by_ids([_relation_key(a, b) for a, b in pairs]),
        )
        out = []
        for (a, b), row in zip(pairs, tracked):
            edge = edges.get((a, b)) or edges.get((b, a)) or {}
            out.append(
                {
                    "source": name,
                    "target": b if a == name else a,
                    "keywords": edge.get("keywords") or "",
                    "weight": float(edge.get("weight") or 0.0),
                    "description": [d for d in (edge.get("description") or "").split(SEP) if d],
                    "chunk_ids": _tracked_sources(row, edge),
                }
            )
        return sorted(out, key=lambda r: -r["weight"])

    async def _graph_reach(
        self, text: str, keywords: Sequence[str], top_k: int, memo: dict | None = None
    ) -> tuple[int, list[str]]:
        """(how many entities, the chunks supporting them): the entities the query names in
        this workspace's graph (no LLM: the structural recogniser on the query plus its
        content words); (0, []) when it names none.

        An entity that more chunks support than the ``top_k`` candidates asked for (a
        conversation partner named in every session, a tag on every journal entry)
        narrows nothing that vector search does not already cover; its chunks would only
        displace better vector candidates. Such hubs are left out.

        ``memo``: a dict the caller keeps for one question's over-fetch rounds (``search``'s ``ranking``): the
        named entities and their chunks are read once (on Neo4j, two round trips a round), each round leaves
        out the hubs its own ``top_k`` makes."""
        found = memo.get("graph") if memo is not None else None
        if found is None:
            found = await self._named_entities(text, keywords)
            if memo is not None:
                memo["graph"] = found
        kept, sources = found
        if not kept:
            return 0, []
        if GRAPH_SKIP_HUBS:
            kept = [n for n in kept if len(sources[n]) <= top_k]
        named = kept[:GRAPH_QUERY_ENTITIES]
        return len(named), list(dict.fromkeys(c for n in named for c in sources[n]))

    async def _named_entities(self, text: str, keywords: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
        """The entities of this workspace's graph the query names, longer phrases first, each with the chunks
        that support it (see :meth:`_graph_reach`)."""
        candidates = _entity_candidates(text, tuple(keywords))
        if not candidates:
            return [], {}
        present = await self._rag.chunk_entity_relation_graph.has_nodes_batch(list(candidates))
        matched = [c for c in candidates if c in present]
        # longer phrases come first; drop a word already inside a matched phrase
        kept: list[str] = []
        for name in matched:
            low = name.lower()
            if not any(low != k.lower() and f" {low} " in f" {k.lower()} " for k in kept):
                kept.append(name)
        if not kept:
            return [], {}
        rows = await self._rag.entity_chunks.get_by_ids(kept)
        return kept, {n: _tracked_sources(row, None) for n, row in zip(kept, rows)}

    async def _nearest_of(
        self, chunk_ids: list[str], query_vector: np.ndarray, k: int, memo: dict | None = None
    ) -> list[str]:
        """The ``k`` of ``chunk_ids`` nearest to the query (how LightRAG's mix mode picks an entity's chunks).
        ``memo``: as :meth:`_graph_reach`'s; the vectors a round read are kept for the next."""
        if len(chunk_ids) <= 1 or k < 1:
            return chunk_ids[:k]
        known: dict[str, object] = memo.setdefault("vectors", {}) if memo is not None else {}
        missing = [c for c in chunk_ids if c not in known]
        if missing:
            fetched = await self._rag.chunks_vdb.get_vectors_by_ids(missing)
            known.update({c: fetched.get(c) for c in missing})
        stored = {c: v for c in chunk_ids if (v := known.get(c)) is not None}
        ids = [c for c in chunk_ids if c in stored]
        if not ids:
            return []
        scores = np.asarray([stored[c] for c in ids], dtype=np.float32) @ query_vector.astype(np.float32)
        return [ids[i] for i in np.argsort(-scores, kind="stable")[:k]]
