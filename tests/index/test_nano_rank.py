"""The embedded profile's own vector ranking (``_nano_rank``) returns exactly the rows LightRAG's
nano-vectordb query returns — order, ties and texts — and follows the index's own writes."""

from __future__ import annotations

import asyncio
import datetime as dt

import numpy as np

from lucasrag.embedding import DIM
from lucasrag.index import open_workspace_index
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _records(ids: range, tag: str) -> list[ChunkRecord]:
    return [
        ChunkRecord(f"c{i}", f"d{i}", "personal", f"n{i}.md", 0, f"{tag} {i}", "present", "date", None) for i in ids
    ]


async def _lightrag_rows(index, vector: np.ndarray, k: int) -> list[tuple[str, str]]:
    rows = await index._rag.chunks_vdb.query("", top_k=k, query_embedding=vector.tolist())
    return [(r["id"], r["content"]) for r in rows]


def test_ranking_matches_lightrags_query_ties_included_and_follows_writes(tmp_path):
    settings = Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=dt.date(2026, 6, 1))
    rng = np.random.default_rng(11)
    vectors = _unit(rng, 40)
    vectors[20:30] = vectors[10]  # ten exact copies of one vector: equal scores, argsort decides their order
    questions = [*_unit(rng, 5), vectors[10], vectors[3]]

    async def run() -> None:
        index = await open_workspace_index(settings, "personal")
        try:
            records = _records(range(40), "first")
            await index.write(records, vectors, {r.doc_id: r.text for r in records})
            await index.flush()
            for q in questions:
                for k in (1, 5, 15, 40, 100):
                    assert await index._nano.rank(q, k) == await _lightrag_rows(index, q, k)
            # a rewrite of the same rows: nano-vectordb updates its matrix in place (the same object)
            changed = _unit(rng, 40)
            records = _records(range(40), "second")
            await index.write(records, changed, {r.doc_id: r.text for r in records})
            await index.flush()
            for q in (*questions, changed[7]):
                assert await index._nano.rank(q, 12) == await _lightrag_rows(index, q, 12)
            assert (await index._nano.rank(changed[7], 1))[0] == ("c7", "second 7")
        finally:
            await index.close()

    asyncio.run(run())
