"""Reading the entity graph: counts, entities and relations for the CLI, and the graph
plan that turns a query naming an entity into LightRAG mix-mode retrieval (a mixin
of ``WorkspaceIndex``)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lucasrag.embedding import DIM, get_embedder
from lucasrag.index._lightrag._graph_rows import _entity_vdb_id, _node_name, _relation_key, _tracked_sources

#: Query-time knobs of graph retrieval (see docs/graph.md for how they were chosen).
GRAPH_QUERY_ENTITIES = 4
GRAPH_QUERY_WORDS = 8
GRAPH_EXTRA_ENTITIES = 0
#: Leave out entities supported by more chunks than the candidates asked for (see _graph_plan).
GRAPH_SKIP_HUBS = True
GRAPH_USE_RELATIONS = False


@dataclass
class _GraphPlan:
    ll: list[str]
    hl: list[str]
    strings: list[str]  # the keyword strings LightRAG will embed
    vectors: np.ndarray
    entity_top_k: int
    reached: frozenset[str]  # the chunks supporting the named entities


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

    async def _graph_plan(self, text: str, keywords: Sequence[str], top_k: int) -> _GraphPlan | None:
        """Mix mode when the query names an entity of this workspace's graph (no LLM: the
        structural recogniser on the query plus its content words); None → naive search.

        An entity that more chunks support than the ``top_k`` candidates asked for (a
        conversation partner named in every session, a tag on every journal entry)
        narrows nothing that vector search does not already cover; its chunks would only
        displace better vector candidates. Such hubs are left out."""
        from lucasrag.entities import query_terms

        _quiet_graph_queries()
        terms = query_terms(text)
        candidates = list(dict.fromkeys(n for n in (_node_name(c) for c in (*keywords, *terms.candidates)) if n))
        if not candidates:
            return None
        present = await self._rag.chunk_entity_relation_graph.has_nodes_batch(candidates)
        matched = [c for c in candidates if c in present]
        # longer phrases come first; drop a word already inside a matched phrase
        kept: list[str] = []
        for name in matched:
            low = name.lower()
            if not any(low != k.lower() and f" {low} " in f" {k.lower()} " for k in kept):
                kept.append(name)
        if not kept:
            return None
        sources = {
            n: _tracked_sources(row, None) for n, row in zip(kept, await self._rag.entity_chunks.get_by_ids(kept))
        }
        if GRAPH_SKIP_HUBS:
            kept = [n for n in kept if len(sources[n]) <= top_k]
        if not kept:
            return None
        ll = kept[:GRAPH_QUERY_ENTITIES]
        reached = frozenset(c for n in ll for c in sources[n])
        hl = list(terms.words)[:GRAPH_QUERY_WORDS] if GRAPH_USE_RELATIONS else []
        strings = [", ".join(ll)] + ([", ".join(hl)] if hl else [])
        # LightRAG embeds the keyword strings; the low-level one only feeds the entity
        # lookup, which _route_entity_lookup answers by name: no model call for it.
        vectors = np.zeros((len(strings), DIM), np.float32)
        vectors[:, 0] = 1.0  # a unit vector: nothing normalises a zero
        if hl:
            vectors[1:] = await _keyword_vectors(strings[1:])
        # LightRAG finds entities by vector similarity to the keyword string (every
        # workspace keeps cosine_better_than_threshold at -1, so it always returns top_k
        # of them): ask for as many as the query named, which are the nearest.
        return _GraphPlan(ll, hl, strings, vectors, len(ll) + GRAPH_EXTRA_ENTITIES, reached)

    def _route_entity_lookup(self) -> None:
        """Let a graph query name its entities exactly.

        LightRAG's local/mix retrieval finds entities by vector similarity to the
        keyword string; the uncased MiniLM cannot tell the note ``ellie`` from the person
        ``Ellie`` or from the alias ``El``, and a nearest neighbour is not the node the
        query named. While ``search`` runs with a plan (``_EXACT_ENTITIES`` set, per task),
        the entity lookup returns exactly the matched nodes; everything after it —
        degrees, related edges, chunk selection and the merge with vector chunks — is
        LightRAG's own mix mode. Any other caller gets LightRAG's lookup unchanged."""
        vdb = self._rag.entities_vdb
        if getattr(vdb, "_lucasrag_exact", False):
            return
        original = vdb.query

        async def query(query: str, top_k: int, query_embedding=None, **kwargs):
            names = _EXACT_ENTITIES.get()
            if names is None:
                return await original(query, top_k, query_embedding=query_embedding, **kwargs)
            return [{"entity_name": n, "id": _entity_vdb_id(n)} for n in names[:top_k]]

        vdb.query = query
        vdb._lucasrag_exact = True


class _DropKeywordWarnings(logging.Filter):
    """Graph queries pass only low-level keywords on purpose; LightRAG warns about the other kind."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not ("level_keywords is empty" in message or "Forced low_level_keywords" in message)


_KEYWORD_FILTER = _DropKeywordWarnings()


def _quiet_graph_queries() -> None:
    lightrag_logger = logging.getLogger("lightrag")
    if _KEYWORD_FILTER not in lightrag_logger.filters:
        lightrag_logger.addFilter(_KEYWORD_FILTER)


#: The entity names a running graph search asked for (see WorkspaceIndex._route_entity_lookup).
_EXACT_ENTITIES: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "lucasrag_exact_entities", default=None
)

_KEYWORD_VECTORS: dict[str, np.ndarray] = {}


async def _keyword_vectors(strings: list[str]) -> np.ndarray:
    """Query keyword strings → vectors, shared by the four workspaces of one query."""
    missing = [s for s in dict.fromkeys(strings) if s not in _KEYWORD_VECTORS]
    if missing:
        vectors = await asyncio.to_thread(get_embedder().embed, missing)
        if len(_KEYWORD_VECTORS) > 1024:
            _KEYWORD_VECTORS.clear()
        _KEYWORD_VECTORS.update(zip(missing, vectors))
    return np.stack([_KEYWORD_VECTORS[s] for s in strings])
