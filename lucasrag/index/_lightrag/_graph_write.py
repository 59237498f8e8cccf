"""Writing and deleting the entity graph (a mixin of ``WorkspaceIndex``).

Entity graph — owned by the graph work (docs/graph.md); nothing above depends on it
except flush() (which persists these stores too) and search() (which asks
_graph_reach which chunks support the entities a query names).

What is written mirrors LightRAG's own merge (operate._merge_nodes_then_upsert /
_merge_edges_then_upsert), in the same formats (listed in ``_contract.RECORD_FORMATS``),
so LightRAG's deletion helpers, its tools and an LLM merge read it unchanged: graph
nodes and edges whose ``source_id`` lists OUR chunk ids (joined by GRAPH_FIELD_SEP,
capped as LightRAG caps them), entities_vdb rows, the uncapped chunk lists in
entity_chunks / relation_chunks, and the per-document anchors full_entities /
full_relations. Relation vectors (relationships_vdb) are not written: only
LightRAG's global/hybrid retrieval reads them, LucasRAG never runs it, and they were
57 % of the graph's embedding work (docs/graph.md); the rows of an index written
before are deleted with their edges. Batched over a whole sync and persisted by
flush(): no per-document file rewrite. LightRAG's adelete_by_doc_id is not used for
removal: it journals and flushes per document and rebuilds surviving entities from
its LLM extraction cache, which the structural extractor never fills; delete_graph()
applies the same rule (drop the document's chunk ids from every entity/relation it
anchors; what has no source left disappears) and recomputes descriptions and
weights from the stored chunks (lucasrag.entities makes them pure functions of
chunk text and path).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from lucasrag.index._lightrag._graph_rows import (
    _FRAGMENTS,
    GraphStats,
    _best_type,
    _entity_vdb_id,
    _entity_vdb_row,
    _GraphAcc,
    _keywords,
    _merge_fragments,
    _merge_paths,
    _merged_sources,
    _node_name,
    _relation_key,
    _split,
    _tracked_sources,
)
from lucasrag.vocabulary import ChunkRecord


class GraphWriter:
    """Graph writes of ``WorkspaceIndex`` (uses ``self._rag``)."""

    def _graph_stores(self) -> list:
        rag = self._rag
        return [
            rag.chunk_entity_relation_graph,
            rag.entities_vdb,
            rag.relationships_vdb,
            rag.entity_chunks,
            rag.relation_chunks,
            rag.full_entities,
            rag.full_relations,
            rag.llm_response_cache,
        ]

    async def write_graph(
        self, items: Sequence[tuple[ChunkRecord, object]], embed: Callable[[list[str]], np.ndarray]
    ) -> GraphStats:
        """Merge the entities/relations each chunk contributes (``ChunkGraph``s from
        ``lucasrag.entities.extract_chunk``) into the graph; vectors of the new
        entity/relation texts come from ``embed`` (the embedding cache). Call after ``write``
        of the same chunks and before ``flush``."""
        rag, graph = self._rag, self._rag.chunk_entity_relation_graph
        stats = GraphStats()
        ents: dict[str, _GraphAcc] = {}
        rels: dict[tuple[str, str], _GraphAcc] = {}
        doc_ents: dict[str, set[str]] = {}
        doc_rels: dict[str, set[tuple[str, str]]] = {}
        for record, chunk_graph in items:
            for e in chunk_graph.entities:
                name = _node_name(e.name)
                if name:
                    ents.setdefault(name, _GraphAcc()).add(record.chunk_id, record.path, e.description, type_=e.type)
                    doc_ents.setdefault(record.doc_id, set()).add(name)
            for r in chunk_graph.relations:
                a, b = sorted((_node_name(r.source), _node_name(r.target)))
                if a and b and a != b:
                    rels.setdefault((a, b), _GraphAcc()).add(
                        record.chunk_id, record.path, r.description, weight=r.weight, keywords=r.keywords
                    )
                    doc_rels.setdefault(record.doc_id, set()).add((a, b))
                    for end in (a, b):  # an endpoint always exists as a node of the same chunk
                        if end not in ents:
                            ents[end] = _GraphAcc()
                        if record.chunk_id not in ents[end].sources:
                            ents[end].add(record.chunk_id, record.path, "", type_=None)
        if not ents:
            return stats

        names = list(ents)
        nodes, tracked = await asyncio.gather(graph.get_nodes_batch(names), rag.entity_chunks.get_by_ids(names))
        node_rows: list[tuple[str, dict]] = []
        entity_vdb: dict[str, dict] = {}
        entity_tracking: dict[str, dict] = {}
        for name, row in zip(names, tracked):
            acc, old = ents[name], nodes.get(name) or {}
            full = _merged_sources(_tracked_sources(row, old), acc.sources)
            fragments = _merge_fragments(old.get("description"), acc.fragments)
            node = self._node_row(
                name,
                _best_type(old.get("entity_type"), acc.type),
                fragments,
                full,
                _merge_paths(_split(old.get("file_path")), acc.paths, rag.max_file_paths),
            )
            node_rows.append((name, node))
            entity_vdb[_entity_vdb_id(name)] = _entity_vdb_row(name, node)
            entity_tracking[name] = {"chunk_ids": full, "count": len(full)}
        pairs = list(rels)
        edges, rel_tracked = await asyncio.gather(
            graph.get_edges_batch([{"src": a, "tgt": b} for a, b in pairs]),
            rag.relation_chunks.get_by_ids([_relation_key(a, b) for a, b in pairs]),
        )
        edge_rows: list[tuple[str, str, dict]] = []
        relation_tracking: dict[str, dict] = {}
        for (a, b), row in zip(pairs, rel_tracked):
            acc = rels[(a, b)]
            old = edges.get((a, b)) or edges.get((b, a)) or {}
            full = _merged_sources(_tracked_sources(row, old), acc.sources)
            weight = float(old.get("weight") or 0.0) + acc.weight
            keywords = ", ".join(dict.fromkeys(_keywords(old.get("keywords")) + acc.keywords))
            edge = self._edge_row(
                _merge_fragments(old.get("description"), acc.fragments),
                full,
                weight,
                keywords,
                _merge_paths(_split(old.get("file_path")), acc.paths, rag.max_file_paths),
            )
            edge_rows.append((a, b, edge))
            relation_tracking[_relation_key(a, b)] = {"chunk_ids": full, "count": len(full)}

        stats.texts, stats.embed_seconds = self._prepare_vectors(entity_vdb, embed)
        # The anchors first: server stores write at once, and a run stopped after this point must leave
        # every entity it wrote findable from its document's anchors.
        await self._union_anchors(doc_ents, doc_rels)
        await graph.upsert_nodes_batch(node_rows)
        if edge_rows:
            await graph.upsert_edges_batch(edge_rows)
        await asyncio.gather(
            rag.entities_vdb.upsert(entity_vdb),
            rag.entity_chunks.upsert(entity_tracking),
            rag.relation_chunks.upsert(relation_tracking),
        )
        stats.entities_written, stats.relations_written = len(node_rows), len(edge_rows)
        return stats

    async def delete_graph(
        self, doc_ids: Iterable[str], chunk_ids: Iterable[str], embed: Callable[[list[str]], np.ndarray]
    ) -> GraphStats:
        """Remove the documents' chunk ids from every entity/relation they anchor; an entity
        or relation left without a source disappears (node, edges, vectors, tracking rows).
        Survivors get their source lists, weights and — when one of the chunks that wrote it
        went — their description recomputed. Call BEFORE ``delete`` (it reads the chunks)."""
        from lucasrag.entities import entity_fragment, relation_fragment, relation_weight

        rag, graph = self._rag, self._rag.chunk_entity_relation_graph
        doc_ids, removed = list(doc_ids), set(chunk_ids)
        stats = GraphStats()
        if not doc_ids:
            return stats
        anchors_e, anchors_r = await asyncio.gather(
            rag.full_entities.get_by_ids(doc_ids), rag.full_relations.get_by_ids(doc_ids)
        )
        names = list(dict.fromkeys(n for row in anchors_e if row for n in row.get("entity_names") or []))
        pairs = list(
            dict.fromkeys(
                tuple(sorted(p)) for row in anchors_r if row for p in row.get("relation_pairs") or [] if len(p) == 2
            )
        )
        for doc, e_row, r_row in zip(doc_ids, anchors_e, anchors_r):
            if e_row or r_row:
                self._anchors_before.setdefault(
                    doc, ((e_row or {}).get("entity_names") or [], (r_row or {}).get("relation_pairs") or [])
                )
        if not names and not pairs:
            await asyncio.gather(rag.full_entities.delete(doc_ids), rag.full_relations.delete(doc_ids))
            return stats
        gone_rows = await rag.text_chunks.get_by_ids(list(removed))
        gone = {cid: row for cid, row in zip(removed, gone_rows) if row}
        gone_paths = {row.get("file_path") for row in gone.values()}

        nodes, tracked = await asyncio.gather(graph.get_nodes_batch(names), rag.entity_chunks.get_by_ids(names))
        edges, rel_tracked = await asyncio.gather(
            graph.get_edges_batch([{"src": a, "tgt": b} for a, b in pairs]),
            rag.relation_chunks.get_by_ids([_relation_key(a, b) for a, b in pairs]),
        )
        shrunk_nodes, dead_nodes = _losing_sources(
            ((name, nodes.get(name), row) for name, row in zip(names, tracked)), removed
        )
        shrunk_edges, dead_edges = _losing_sources(
            (((a, b), edges.get((a, b)) or edges.get((b, a)), row) for (a, b), row in zip(pairs, rel_tracked)), removed
        )
        # name → (old node, remaining, recompute the description); pair → (old edge, remaining, lost, recompute).
        # Every description that lost a source is recomputed from the sources left: fragments are merged
        # without repeats, so a source past the first _FRAGMENTS may have written one, and a removed note (a
        # private one above all) must leave no sentence behind in an entity it shared with other notes.
        ent_plan = {name: (old, remaining, True) for name, (old, full, remaining) in shrunk_nodes.items()}
        rel_plan = {
            key: (old, remaining, [c for c in full if c in removed], True)
            for key, (old, full, remaining) in shrunk_edges.items()
        }

        # edges of nodes that go (LightRAG removes them with the node; their rows must go too)
        if dead_nodes:
            incident = await graph.get_nodes_edges_batch(dead_nodes)
            for node_edges in incident.values():
                for a, b in node_edges or []:
                    key = tuple(sorted((a, b)))
                    if key not in dead_edges:
                        dead_edges.append(key)
                    rel_plan.pop(key, None)
        dead_set = set(dead_nodes)
        for key in [k for k in rel_plan if k[0] in dead_set or k[1] in dead_set]:
            rel_plan.pop(key)
            dead_edges.append(key)

        # fragments to recompute need the text of the surviving first sources
        wanted = {c for name, (_, rem, again) in ent_plan.items() if again for c in rem[:_FRAGMENTS]}
        wanted |= {c for key, (_, rem, _, again) in rel_plan.items() if again for c in rem[:_FRAGMENTS]}
        wanted_ids = list(wanted)
        rows = await rag.text_chunks.get_by_ids(wanted_ids) if wanted_ids else []
        texts = {cid: row for cid, row in zip(wanted_ids, rows) if row}

        node_rows, entity_vdb, entity_tracking = [], {}, {}
        for name, (old, remaining, again) in ent_plan.items():
            fragments = _split(old.get("description"))
            if again:
                fragments = list(
                    dict.fromkeys(
                        entity_fragment(name, texts[c]["content"], texts[c].get("file_path", ""))
                        for c in remaining[:_FRAGMENTS]
                        if c in texts
                    )
                )
            paths = [p for p in _split(old.get("file_path")) if p not in gone_paths]
            node = self._node_row(name, old.get("entity_type") or "concept", fragments, remaining, paths)
            node_rows.append((name, node))
            entity_vdb[_entity_vdb_id(name)] = _entity_vdb_row(name, node)
            entity_tracking[name] = {"chunk_ids": remaining, "count": len(remaining)}
        edge_rows, relation_tracking = [], {}
        for (a, b), (old, remaining, lost, again) in rel_plan.items():
            weight = float(old.get("weight") or 0.0) - sum(
                relation_weight(a, b, gone[c]["content"], gone[c].get("file_path", "")) for c in lost if c in gone
            )
            weight = max(round(weight, 6), float(len(remaining)))
            fragments = _split(old.get("description"))
            if again:
                fragments = list(
                    dict.fromkeys(
                        relation_fragment(a, b, texts[c]["content"], texts[c].get("file_path", ""))
                        for c in remaining[:_FRAGMENTS]
                        if c in texts
                    )
                )
            paths = [p for p in _split(old.get("file_path")) if p not in gone_paths]
            edge = self._edge_row(fragments, remaining, weight, old.get("keywords") or "", paths)
            edge_rows.append((a, b, edge))
            relation_tracking[_relation_key(a, b)] = {"chunk_ids": remaining, "count": len(remaining)}

        stats.texts, stats.embed_seconds = self._prepare_vectors(entity_vdb, embed)
        from lightrag.utils import make_relation_vdb_ids

        if dead_nodes:
            await graph.remove_nodes(dead_nodes)
        if dead_edges:
            await graph.remove_edges(dead_edges)
        if node_rows:
            await graph.upsert_nodes_batch(node_rows)
        if edge_rows:
            await graph.upsert_edges_batch(edge_rows)
        await asyncio.gather(
            rag.entities_vdb.delete([_entity_vdb_id(n) for n in dead_nodes]),
            rag.relationships_vdb.delete(sorted({i for a, b in dead_edges for i in make_relation_vdb_ids(a, b)})),
            rag.entity_chunks.delete(dead_nodes),
            rag.relation_chunks.delete([_relation_key(a, b) for a, b in dead_edges]),
        )
        await asyncio.gather(
            rag.entities_vdb.upsert(entity_vdb),
            rag.entity_chunks.upsert(entity_tracking),
            rag.relation_chunks.upsert(relation_tracking),
            rag.full_entities.delete(doc_ids),
            rag.full_relations.delete(doc_ids),
        )
        stats.entities_removed, stats.relations_removed = len(dead_nodes), len(dead_edges)
        stats.entities_written, stats.relations_written = len(node_rows), len(edge_rows)
        return stats

    def _prepare_vectors(self, entity_vdb: dict, embed) -> tuple[int, float]:
        """Vectors for the entity vector-store rows about to be upserted, from the embedding cache."""
        import time

        contents = list(dict.fromkeys(r["content"] for r in entity_vdb.values()))
        if not contents:
            return 0, 0.0
        t0 = time.perf_counter()
        self._vectors.add(contents, embed(contents))
        return len(contents), time.perf_counter() - t0

    def _node_row(self, name: str, type_: str, fragments: list[str], sources: list[str], paths: list[str]) -> dict:
        import time

        from lightrag.utils import GRAPH_FIELD_SEP as SEP
        from lightrag.utils import apply_source_ids_limit

        rag = self._rag
        kept = apply_source_ids_limit(sources, rag.max_source_ids_per_entity, rag.source_ids_limit_method)
        return {
            "entity_id": name,
            "entity_type": type_ or "concept",
            "description": SEP.join(fragments) or f"Entity {name}",
            "source_id": SEP.join(kept),
            "file_path": SEP.join(paths[: rag.max_file_paths]),
            "created_at": int(time.time()),
            "truncate": "",
        }

    def _edge_row(
        self, fragments: list[str], sources: list[str], weight: float, keywords: str, paths: list[str]
    ) -> dict:
        import time

        from lightrag.utils import GRAPH_FIELD_SEP as SEP
        from lightrag.utils import apply_source_ids_limit

        rag = self._rag
        kept = apply_source_ids_limit(sources, rag.max_source_ids_per_relation, rag.source_ids_limit_method)
        return {
            "weight": round(float(weight), 6),
            "description": SEP.join(fragments) or "related",
            "keywords": keywords,
            "source_id": SEP.join(kept),
            "file_path": SEP.join(paths[: rag.max_file_paths]),
            "created_at": int(time.time()),
            "truncate": "",
        }

    async def _save_anchors_touched(self) -> None:
        """Save (persist) each document's anchors as the union of what they named before this run's deletions
        and what they name now, then put the current rows back in memory for the final save (see ``flush``)."""
        rag, before = self._rag, self._anchors_before
        self._anchors_before = {}
        if not before:
            return
        docs = sorted(before)
        now_e, now_r = await asyncio.gather(rag.full_entities.get_by_ids(docs), rag.full_relations.get_by_ids(docs))
        union_e, union_r = {}, {}
        for doc, e_row, r_row in zip(docs, now_e, now_r):
            old_names, old_pairs = before[doc]
            names = sorted(set(old_names) | set((e_row or {}).get("entity_names") or []))
            pairs = {
                tuple(sorted(p)) for p in [*old_pairs, *((r_row or {}).get("relation_pairs") or [])] if len(p) == 2
            }
            union_e[doc] = {"entity_names": names, "count": len(names)}
            union_r[doc] = {"relation_pairs": [list(p) for p in sorted(pairs)], "count": len(pairs)}
        await asyncio.gather(rag.full_entities.upsert(union_e), rag.full_relations.upsert(union_r))
        await asyncio.gather(rag.full_entities.index_done_callback(), rag.full_relations.index_done_callback())
        await asyncio.gather(
            rag.full_entities.upsert({d: r for d, r in zip(docs, now_e) if r}),
            rag.full_relations.upsert({d: r for d, r in zip(docs, now_r) if r}),
            rag.full_entities.delete([d for d, r in zip(docs, now_e) if not r]),
            rag.full_relations.delete([d for d, r in zip(docs, now_r) if not r]),
        )

    async def _union_anchors(self, doc_ents: dict[str, set[str]], doc_rels: dict[str, set[tuple[str, str]]]) -> None:
        """Per-document recovery anchors, united with what an LLM merge already wrote."""
        rag = self._rag
        docs = sorted(set(doc_ents) | set(doc_rels))
        if not docs:
            return
        old_e, old_r = await asyncio.gather(rag.full_entities.get_by_ids(docs), rag.full_relations.get_by_ids(docs))
        ent_rows, rel_rows = {}, {}
        for doc, e_row, r_row in zip(docs, old_e, old_r):
            names = sorted(set((e_row or {}).get("entity_names") or []) | doc_ents.get(doc, set()))
            pairs = {tuple(sorted(p)) for p in (r_row or {}).get("relation_pairs") or [] if len(p) == 2}
            pairs = sorted(pairs | doc_rels.get(doc, set()))
            ent_rows[doc] = {"entity_names": names, "count": len(names)}
            rel_rows[doc] = {"relation_pairs": [list(p) for p in pairs], "count": len(pairs)}
        await asyncio.gather(rag.full_entities.upsert(ent_rows), rag.full_relations.upsert(rel_rows))


def _losing_sources(items, removed: set[str]) -> tuple[dict, list]:
    """Of (key, graph row, tracking row) triples, those that lose sources to ``removed``:
    key → (graph row, all sources, remaining sources), and the keys left with none.

    The sources are the tracking row's and the graph row's together: after a run stopped halfway through
    its flush one of the two may still hold chunks the other has lost, or exist alone. In a consistent
    index the graph's (capped) list is part of the tracking row's, so nothing changes there."""
    shrunk, dead = {}, []
    for key, old, row in items:
        full = list(dict.fromkeys([*_tracked_sources(row, old), *_split((old or {}).get("source_id"))]))
        remaining = [c for c in full if c not in removed]
        if len(remaining) == len(full):
            continue
        if remaining and old is not None:
            shrunk[key] = (old, full, remaining)
        else:
            dead.append(key)
    return shrunk, dead
