"""nano-vectordb's cosine ranking (the embedded profile's chunk vector store), reproduced bit for bit,
without its per-call costs.

``NanoVectorDBStorage.query`` multiplies the float32 matrix by the question in float64, so numpy
converts the whole matrix to float64 on every call, and every returned row is copied into two dicts.
Here the float64 copy is made once per matrix and only the ids and texts are kept. The product is the
same BLAS call on the same values (so the same bits: numpy's mixed-type dot converts, then calls it),
then the same ``argsort`` (ties included) and threshold cut: ``tests/index/test_nano_rank.py`` checks
the rows against LightRAG's query.

The product runs on one BLAS thread (``lucasrag.blas.one_blas_thread``). OpenBLAS splits a product of this size
over every core, and on a busy machine the hand-off costs more than the product (13 ms on two busy
threads against 0.7 ms on one for 4,000 × 384), and the idle worker then spins for a while,
slowing the query's own work after the product. Where the split falls also changes the last bit of
some scores, so the ranking of exact copies (equal vectors, equal scores but for that bit) depended on
the machine's core count; on one thread it does not. The rows are exactly LightRAG's query run on
one BLAS thread (the test checks both). docs/benchmarks.md, "Query speed at scale".
"""

from __future__ import annotations

import numpy as np
from nano_vectordb.dbs import normalize

from lucasrag.blas import one_blas_thread


class NanoRanker:
    """Ranks one nano-vectordb store's chunks for a query vector (one per open workspace index)."""

    def __init__(self, vdb) -> None:
        self._vdb = vdb
        self._matrix: np.ndarray | None = None  # the store's matrix the copy below was made from
        self._matrix64: np.ndarray | None = None

    def forget(self) -> None:
        """Drop the float64 copy (this index wrote: nano-vectordb may have updated rows in place)."""
        self._matrix = self._matrix64 = None

    def _float64(self, matrix: np.ndarray) -> np.ndarray:
        # nano-vectordb replaces the matrix object on insert, delete and reload; in-place row
        # updates come only from this index's own writes, which call forget()
        if self._matrix is not matrix:
            self._matrix, self._matrix64 = matrix, matrix.astype(np.float64)
        return self._matrix64

    async def rank(self, vector: np.ndarray, top_k: int) -> list[tuple[str, str]]:
        """(chunk id, text) of the ``top_k`` best rows, best first: what ``chunks_vdb.query`` returns."""
        storage = await self._vdb.client_storage  # reloads a store another process rewrote, as query() does
        data = storage["data"]
        matrix = self._float64(storage["matrix"])
        query = normalize(vector.astype(np.float64))  # query() hands nano-vectordb a list of Python floats
        with one_blas_thread():
            scores = np.dot(matrix, query)
        order = np.argsort(scores)[-top_k:][::-1]
        threshold = self._vdb.cosine_better_than_threshold
        rows = []
        for i in order:
            if threshold is not None and scores[i] < threshold:
                break
            rows.append((data[i]["__id__"], data[i].get("content") or ""))
        return rows
