"""The one module that calls into LightRAG.

LightRAG's API moves between minor versions and its modules run to thousands of
lines; everything LucasRAG needs from it goes through the small surface below.

Design choice: LucasRAG chunks, bands and embeds notes itself, then writes the
chunks into each workspace's LightRAG storages directly (``text_chunks``,
``chunks_vdb``, ``full_docs``, ``doc_status``) and flushes once per batch. That
keeps chunk ids 1:1 with our chunk table, needs no LLM, and avoids LightRAG's
per-document pipeline (which rewrites every JSON store once per document).
Retrieval goes through LightRAG's own ``aquery_data``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from lucasrag.embedding import DIM, get_embedder
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord

# LightRAG reads these at import time; a stray value would redirect every
# workspace into one (see docs/design.md, "workspace isolation").
for _var in ("WORKSPACE", "NEO4J_WORKSPACE", "POSTGRES_WORKSPACE", "ENTITY_TYPES"):
    os.environ.pop(_var, None)
os.environ.setdefault("LIGHTRAG_LOAD_DOTENV", "false")

_STORAGES = {
    "embedded": {
        "kv_storage": "JsonKVStorage",
        "vector_storage": "NanoVectorDBStorage",
        "graph_storage": "NetworkXStorage",
        "doc_status_storage": "JsonDocStatusStorage",
    },
    "production": {
        "kv_storage": "PGKVStorage",
        "vector_storage": "PGVectorStorage",
        "graph_storage": "Neo4JStorage",
        "doc_status_storage": "PGDocStatusStorage",
    },
}


class _VectorCache:
    """Vectors we already computed, handed to LightRAG's deferred embedding."""

    def __init__(self) -> None:
        self._by_text: dict[str, np.ndarray] = {}

    def add(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self._by_text.update(zip(texts, vectors))

    def clear(self) -> None:
        self._by_text.clear()

    def discard(self, texts: Sequence[str]) -> None:
        for t in texts:
            self._by_text.pop(t, None)

    def __deepcopy__(self, memo: dict) -> "_VectorCache":
        # LightRAG deep-copies its config (the embedding function's bound
        # instance included) on every query: share the cache, do not copy it.
        return self

    async def embed(self, texts: list[str], **_: object) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._by_text]
        if missing:
            vectors = await asyncio.to_thread(get_embedder().embed, missing)
            self.add(missing, vectors)
        return np.stack([self._by_text[t] for t in texts]) if texts else np.zeros((0, DIM), np.float32)


async def _no_llm(*_args, **_kwargs) -> str:
    raise RuntimeError(
        "LucasRAG indexes without an LLM; LightRAG asked for one (a code path that should not run)"
    )


def _quiet_lightrag() -> None:
    for name in ("lightrag", "nano-vectordb", "nano_vectordb"):
        logging.getLogger(name).setLevel(logging.WARNING)


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    text: str


class WorkspaceIndex:
    """One workspace's LightRAG instance (open with ``await WorkspaceIndex.open``)."""

    def __init__(self, rag, workspace: str, vectors: _VectorCache) -> None:
        self._rag = rag
        self.workspace = workspace
        self._vectors = vectors

    @classmethod
    async def open(cls, settings: Settings, workspace: str) -> "WorkspaceIndex":
        from lightrag import LightRAG
        from lightrag.utils import EmbeddingFunc, Tokenizer

        _quiet_lightrag()
        vectors = _VectorCache()
        embedder = get_embedder()
        working_dir = settings.index_dir
        working_dir.mkdir(parents=True, exist_ok=True)
        rag = LightRAG(
            working_dir=str(working_dir),
            workspace=workspace,
            embedding_func=EmbeddingFunc(embedding_dim=DIM, max_token_size=256, func=vectors.embed),
            llm_model_func=_no_llm,
            tokenizer=Tokenizer("all-MiniLM-L6-v2", embedder.tokenizer),
            vector_db_storage_cls_kwargs={"cosine_better_than_threshold": -1.0},
            **_STORAGES[settings.profile],
        )
        await rag.initialize_storages()
        return cls(rag, workspace, vectors)

    async def close(self) -> None:
        await self._rag.finalize_storages()

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
        now = datetime.now(timezone.utc).isoformat()
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
        await asyncio.gather(
            rag.chunks_vdb.delete(chunk_ids),
            rag.text_chunks.delete(chunk_ids),
            rag.full_docs.delete(doc_ids),
            rag.doc_status.delete(doc_ids),
        )

    async def flush(self) -> None:
        """Persist every pending write (one file write per store on the embedded profile)."""
        rag = self._rag
        await asyncio.gather(
            *(s.index_done_callback() for s in (rag.chunks_vdb, rag.text_chunks, rag.full_docs, rag.doc_status))
        )
        self._vectors.clear()

    async def search(
        self, text: str, top_k: int, *, query_vector: np.ndarray | None = None, keywords: Sequence[str] = ()
    ) -> list[Hit]:
        """Retrieval only (no generation, no LLM): LightRAG's naive vector search.

        ``query_vector``, when given, spares a second embedding of the same query
        (the federated query embeds it once for all workspaces)."""
        from lightrag import QueryParam

        if query_vector is not None:
            self._vectors.add([text], query_vector[None, :])

        param = QueryParam(
            mode="naive",
            chunk_top_k=top_k,
            top_k=top_k,
            max_total_tokens=10_000_000,  # its default silently trims the candidate list
            enable_rerank=False,
            hl_keywords=list(keywords),
            ll_keywords=list(keywords),
        )
        try:
            data = await self._rag.aquery_data(text, param)
        finally:
            if query_vector is not None:  # one vector per query would otherwise pile up
                self._vectors.discard([text])
        chunks = (data.get("data") or {}).get("chunks") or []
        return [Hit(c["chunk_id"], c["content"]) for c in chunks]

    async def stored_chunks(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """chunk id → text for the ids LightRAG holds (for checks and tools)."""
        rows = await self._rag.text_chunks.get_by_ids(list(chunk_ids))
        return {cid: row["content"] for cid, row in zip(chunk_ids, rows) if row}

    async def stored_vectors(self, chunk_ids: Sequence[str]) -> set[str]:
        """The ids among ``chunk_ids`` that the vector store holds."""
        rows = await self._rag.chunks_vdb.get_by_ids(list(chunk_ids))
        return {cid for cid, row in zip(chunk_ids, rows) if row}
