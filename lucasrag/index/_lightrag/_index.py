"""One workspace's LightRAG instance: chunks in, chunks out (see the package docstring)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import zip_longest

import numpy as np

from lucasrag.embedding import DIM, get_embedder
from lucasrag.index._lightrag._graph_llm import LlmExtraction
from lucasrag.index._lightrag._graph_read import GRAPH_RELATED_CHUNKS, GraphReader
from lucasrag.index._lightrag._graph_write import GraphWriter
from lucasrag.index._lightrag._production import _configure_production, _loop_lock, _require_services
from lucasrag.index._lightrag._setup import (
    _backend,
    _no_llm,
    _quiet_lightrag,
    _VectorCache,
    embedding_model_name,
    register_own_storages,
)
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    text: str
    graph: bool = False  # a chunk that supports an entity the query named (reached through the graph)


class WorkspaceIndex(GraphWriter, GraphReader, LlmExtraction):
    """One workspace's LightRAG instance (open with ``await WorkspaceIndex.open``)."""

    def __init__(self, rag, workspace: str, vectors: _VectorCache, prefix_ranked: bool = False) -> None:
        self._rag = rag
        self.workspace = workspace
        self._vectors = vectors
        self._prefix_ranked = prefix_ranked  # see _vector_rows
        self._anchors_before: dict[str, tuple[list[str], list[list[str]]]] = {}  # see GraphWriter.delete_graph

    @classmethod
    async def open(cls, settings: Settings, workspace: str) -> WorkspaceIndex:
        from lightrag import LightRAG
        from lightrag.utils import EmbeddingFunc, Tokenizer

        _quiet_lightrag()
        register_own_storages()
        backend = _backend(settings.profile)
        vectors = _VectorCache(settings.embedding_model)
        # Chunking counts tokens with the MiniLM word pieces (the same BERT uncased vocabulary in bge).
        embedder = get_embedder()
        working_dir = settings.index_dir
        working_dir.mkdir(parents=True, exist_ok=True)
        if backend.servers:
            # Before LightRAG retries a dead server for minutes: name the service and the setting.
            await asyncio.to_thread(_require_services, settings)
        # Server storages read the process environment while they initialise:
        # one open at a time per loop, each with its own settings in place.
        async with _loop_lock("open") if backend.servers else contextlib.nullcontext():
            if backend.servers:
                _configure_production(settings)
            rag = LightRAG(
                working_dir=str(working_dir),
                workspace=workspace,
                embedding_func=EmbeddingFunc(
                    embedding_dim=DIM,
                    max_token_size=256,
                    func=vectors.embed,
                    model_name=embedding_model_name(settings.embedding_model),
                ),
                llm_model_func=_no_llm,
                tokenizer=Tokenizer("all-MiniLM-L6-v2", embedder.tokenizer),
                vector_db_storage_cls_kwargs={"cosine_better_than_threshold": -1.0},
                **backend.storages,
            )
            try:
                await rag.initialize_storages()
            except BaseException:
                with contextlib.suppress(Exception):
                    await rag.finalize_storages()
                raise
        return cls(rag, workspace, vectors, backend.prefix_ranked)

    async def close(self) -> None:
        await self._rag.finalize_storages()

    async def drop(self) -> None:
        """Delete every row of this workspace in every LightRAG store (``lucasrag ingest --rebuild``)."""
        rag = self._rag
        stores = (rag.chunks_vdb, rag.text_chunks, rag.full_docs, rag.doc_status, *self._graph_stores())
        await asyncio.gather(*(s.drop() for s in stores))

    async def write(self, records: Sequence[ChunkRecord], vectors: np.ndarray, full_texts: dict[str, str]) -> None:
        """Insert chunks (with their precomputed vectors) and their documents, then flush."""
        if not records:
            return
        rag = self._rag
        tokenizer = rag.tokenizer
        self._vectors.add([r.text for r in records], vectors)
        chunks = {
            r.chunk_id: {
                "content": r.text,
                "full_doc_id": r.doc_id,
                "tokens": len(tokenizer.encode(r.text)),
                "chunk_order_index": r.chunk_index,
                "file_path": r.path,
            }
            for r in records
        }
        paths = {r.doc_id: r.path for r in records}
        now = datetime.now(UTC).isoformat()
        chunk_ids: dict[str, list[str]] = {}
        for r in records:
            chunk_ids.setdefault(r.doc_id, []).append(r.chunk_id)
        status = {
            doc_id: {
                "status": "processed",
                "content_summary": full_texts[doc_id][:100],
                "content_length": len(full_texts[doc_id]),
                "chunks_count": len(ids),
                "chunks_list": ids,
                "file_path": paths[doc_id],
                "created_at": now,
                "updated_at": now,
            }
            for doc_id, ids in chunk_ids.items()
        }
        await asyncio.gather(
            rag.chunks_vdb.upsert(chunks),
            rag.text_chunks.upsert(chunks),
            rag.full_docs.upsert({d: {"content": full_texts[d], "file_path": paths[d]} for d in chunk_ids}),
            rag.doc_status.upsert(status),
        )

    async def delete(self, doc_ids: Iterable[str], chunk_ids: Iterable[str]) -> None:
        doc_ids, chunk_ids = list(doc_ids), list(chunk_ids)
        if not doc_ids and not chunk_ids:
            return
        rag = self._rag
        # What the LLM answered about these chunks (LUCASRAG_LLM_URL): LightRAG keys its response cache by
        # prompt and lists a chunk's entries on the chunk's row, the only record of them, read before it goes.
        rows = await rag.text_chunks.get_by_ids(chunk_ids) if chunk_ids else []
        answers = sorted({key for row in rows if row for key in row.get("llm_cache_list") or ()})
        await asyncio.gather(
            rag.chunks_vdb.delete(chunk_ids),
            rag.text_chunks.delete(chunk_ids),
            rag.full_docs.delete(doc_ids),
            rag.doc_status.delete(doc_ids),
            *([rag.llm_response_cache.delete(answers)] if answers else []),
        )

    async def flush(self) -> None:
        """Persist every pending write (one file write per store on the embedded profile).

        The stores are files written one after another, so a run killed in here leaves some with its changes
        and some without. The next sync finds what to clean through the per-document anchors; so the anchors
        naming everything this run touched (the entities it removed and those it wrote) are saved FIRST,
        and the final anchors LAST."""
        rag = self._rag
        await self._save_anchors_touched()
        stores = (rag.chunks_vdb, rag.text_chunks, rag.full_docs, rag.doc_status, *self._graph_stores())
        for store in stores:
            if store not in (rag.full_entities, rag.full_relations):
                await store.index_done_callback()
        await asyncio.gather(rag.full_entities.index_done_callback(), rag.full_relations.index_done_callback())
        self._vectors.clear()

    async def search(
        self,
        text: str,
        top_k: int,
        *,
        query_vector: np.ndarray | None = None,
        keywords: Sequence[str] = (),
        graph: bool = True,
        ranking: dict | None = None,
        rank_ahead: int = 0,
        texts: bool = True,
    ) -> list[Hit]:
        """Retrieval only (no generation, no LLM): at most ``top_k`` of our chunks.

        Vector search straight from LightRAG's chunk vector store (``aquery_data``
        would re-tokenize the whole candidate list twice to fit a context window we
        never build). When ``graph`` is on and the query names an entity of this
        workspace's graph (see ``_graph_reach``), the entity's chunks nearest to the
        query are merged in round-robin after the vector chunks — what LightRAG's
        ``mix`` mode did, without its context assembly (docs/graph.md, "Mix mode
        replaced"). Every hit among the named entities' chunks is marked ``graph``.

        ``query_vector``, when given, spares a second embedding of the same query
        (the federated query embeds it once for all workspaces).

        ``ranking``, an empty dict the caller keeps for one question's over-fetch rounds
        (same text and vector, growing ``top_k``), with ``rank_ahead`` the most that any
        round will ask for: the vector store ranks ``rank_ahead`` chunks once and the
        rounds slice it. The same hits as separate searches where the vector store ranks
        exactly (see ``_Backend.prefix_ranked``); elsewhere each round searches again.

        ``texts=False``: every hit's ``text`` is left empty (the federated query takes a chunk's text from
        the chunk store, so reading LightRAG's copy is work for nothing)."""
        vector = query_vector if query_vector is not None else await self._vectors.embed_query(text)
        named, reached = await self._graph_reach(text, keywords, top_k, ranking) if graph else (0, [])
        rows = await self._vector_rows(text, vector, top_k, ranking, rank_ahead, texts)
        if not reached:
            return [Hit(cid, content) for cid, content in rows][:top_k]
        picked = await self._nearest_of(reached, vector, int(GRAPH_RELATED_CHUNKS * named / 2), ranking)
        if texts:
            stored = await self.stored_chunks(picked)
        else:  # which of them LightRAG holds, not their texts
            missing = await self._rag.text_chunks.filter_keys(set(picked))
            stored = {c: "" for c in picked if c not in missing}
        text_of = dict(rows) | stored
        # round-robin, vector first, each chunk once (LightRAG's _merge_all_chunks)
        merged = [c for pair in zip_longest([cid for cid, _ in rows], [c for c in picked if c in stored]) for c in pair]
        order = list(dict.fromkeys(c for c in merged if c is not None))
        reached_set = set(reached)
        return [Hit(c, text_of[c], c in reached_set) for c in order[:top_k]]

    async def _vector_rows(
        self, text: str, vector: np.ndarray, top_k: int, ranking: dict | None, ahead: int, texts: bool = True
    ) -> list[tuple[str, str]]:
        """(chunk id, text) of the vector store's ``top_k`` rows, from ``ranking`` when it already holds
        that many. With a ranking on the embedded profile (the federated query), the store ranks once for
        every round (``_sqlite_vectors``: exact, so a smaller k's rows are a prefix) and each round reads the
        texts of its own rows; otherwise LightRAG's query answers (the benchmarks' flat baseline goes
        through LightRAG's storage API)."""
        if ranking is None or not self._prefix_ranked:
            rows = await self._rag.chunks_vdb.query(text, top_k=top_k, query_embedding=vector.tolist())
            return [(r["id"], r.get("content") or "") for r in rows]
        if ranking.get("k", 0) < top_k:
            k = max(top_k, ahead)
            ranking["ids"] = [i for i, _ in await self._rag.chunks_vdb.rank_aside(vector, k)]
            ranking["k"] = k
        ids = ranking["ids"][:top_k]
        return await self._rag.chunks_vdb.contents(ids) if texts else [(i, "") for i in ids]  # this round's only

    async def naive_query(self, text: str, top_k: int) -> list[Hit]:
        """LightRAG's own naive-mode retrieval (``aquery_data``), for baselines:
        the path a plain LightRAG user gets, context assembly included."""
        from lightrag import QueryParam

        param = QueryParam(
            mode="naive", chunk_top_k=top_k, top_k=top_k, max_total_tokens=10_000_000, enable_rerank=False
        )
        data = await self._rag.aquery_data(text, param)
        return [Hit(c["chunk_id"], c["content"]) for c in (data.get("data") or {}).get("chunks") or []]

    async def stored_chunks(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """chunk id → text for the ids LightRAG holds (for checks and tools)."""
        rows = await self._rag.text_chunks.get_by_ids(list(chunk_ids))
        return {cid: row["content"] for cid, row in zip(chunk_ids, rows) if row}

    async def stored_vectors(self, chunk_ids: Sequence[str]) -> set[str]:
        """The ids among ``chunk_ids`` that the vector store holds."""
        rows = await self._rag.chunks_vdb.get_by_ids(list(chunk_ids))
        return {cid for cid, row in zip(chunk_ids, rows) if row}

    async def stored_documents(self, doc_ids: Sequence[str]) -> dict[str, str]:
        """doc id → full text for the ids LightRAG holds (``lucasrag migrate`` copies them)."""
        rows = await self._rag.full_docs.get_by_ids(list(doc_ids))
        return {d: row["content"] for d, row in zip(doc_ids, rows) if row}
