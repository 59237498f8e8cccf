"""The embedded profile's own vector ranking (``_nano_rank``) returns exactly the rows LightRAG's
nano-vectordb query returns — order, ties and texts — on one BLAS thread whatever the process's thread
count, and follows the index's own writes."""

from __future__ import annotations

import asyncio
import datetime as dt

import numpy as np

from lucasrag.blas import _blas_libraries, one_blas_thread
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


def test_ranking_is_lightrags_on_one_blas_thread_whatever_the_process_thread_count(tmp_path):
    """OpenBLAS gives the last row of each thread's share of a product a different last bit, so on two
    threads one of several exact copies scores apart from its twins and moves among them. The ranker
    runs the product on one thread: its rows are LightRAG's query on one thread, while the process
    keeps its own count (two or more on this machine, which the second half checks)."""
    settings = Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=dt.date(2026, 6, 1))
    rng = np.random.default_rng(11)
    vectors = _unit(rng, 2001)  # odd: two threads share it 1,000 + 1,001, each share ending in its tail
    vectors[::200] = vectors[5]  # rows 0, 200, ..., 2000: eleven copies, two of them at the shares' ends
    questions = [vectors[5] + 3 * q for q in _unit(rng, 12)]  # the copies' last bit differs for some of these
    process_threads = [lib.get_num_threads() for lib in _blas_libraries()]

    async def one_thread_rows(index, q, k):
        with one_blas_thread():
            return await _lightrag_rows(index, q, k)

    async def run() -> list[bool]:
        index = await open_workspace_index(settings, "personal")
        try:
            records = _records(range(2001), "copy")
            await index.write(records, vectors, {r.doc_id: r.text for r in records})
            await index.flush()
            for q in questions:
                for k in (1, 11, 30):
                    assert await index._nano.rank(q, k) == await one_thread_rows(index, q, k)
            assert [lib.get_num_threads() for lib in _blas_libraries()] == process_threads
            return [await _lightrag_rows(index, q, 11) != await one_thread_rows(index, q, 11) for q in questions]
        finally:
            await index.close()

    differs = asyncio.run(run())
    if max(process_threads) >= 2:  # the process's own split does reorder the copies: the limit matters
        assert any(differs)


def test_one_blas_thread_holds_in_any_thread_and_restores_the_count():
    """threadpoolctl lets one Python thread at a time set OpenBLAS's (process-wide) count and silently
    ignores the others: the limit must hold in the query loop's thread even after another thread set it."""
    import threading

    libraries = _blas_libraries()
    process = [lib.get_num_threads() for lib in libraries]
    seen: dict[str, list[int]] = {}

    def limited(name: str) -> None:
        with one_blas_thread():
            seen[name] = [lib.get_num_threads() for lib in libraries]

    limited("this thread")  # takes threadpoolctl's control here
    other = threading.Thread(target=limited, args=("another thread",))
    other.start()
    other.join()
    limited("this thread again")
    assert seen == {name: [1] * len(libraries) for name in ("this thread", "another thread", "this thread again")}
    assert [lib.get_num_threads() for lib in libraries] == process
