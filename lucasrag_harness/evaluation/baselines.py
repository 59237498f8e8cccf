"""Baselines for retrieval evaluations: Okapi BM25 and a flat LightRAG index.

BM25: lowercase ``\\w+`` tokens, no stemming, no stop words, k1 = 1.5,
b = 0.75, idf = ln(1 + (N − n + 0.5) / (n + 0.5)) (the always-positive form
Lucene uses). Ties keep corpus order.

Flat index: the same chunks written into one extra LightRAG instance (workspace
``flat``) with :func:`lucasrag.index.sync.sync_workspace` and queried in LightRAG's
naive (vector) mode — never the entity-graph mix mode — with no policy, no
temporal weighting and no rerank.
Vectors come from the embedding cache, so building it embeds nothing new.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from lucasrag.lexical import idf
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord

_TOKEN = re.compile(r"\w+")
FLAT_WORKSPACE = "flat"


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class BM25:
    """Okapi BM25 over an in-memory corpus (postings per term, numpy scoring)."""

    def __init__(self, documents: Sequence[str], *, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.size = len(documents)
        tokens = [tokenize(d) for d in documents]
        self.lengths = np.array([len(t) for t in tokens], dtype=np.float64)
        avg = float(self.lengths.mean()) if self.size and self.lengths.sum() else 1.0
        self._norm = k1 * (1 - b + b * self.lengths / avg)  # per-document length normalisation
        postings: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for i, toks in enumerate(tokens):
            for term, tf in Counter(toks).items():
                docs, tfs = postings[term]
                docs.append(i)
                tfs.append(tf)
        self._postings = {t: (np.array(d), np.array(f, dtype=np.float64)) for t, (d, f) in postings.items()}
        self._idf = {t: idf(self.size, len(d)) for t, (d, _) in self._postings.items()}

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.float64)
        for term in tokenize(query):  # a repeated query term counts again, as in Okapi BM25
            if term not in self._postings:
                continue
            docs, tfs = self._postings[term]
            out[docs] += self._idf[term] * tfs * (self.k1 + 1) / (tfs + self._norm[docs])
        return out

    def top(self, query: str, k: int) -> list[int]:
        """Indices of the ``k`` best documents (score > 0 first, ties in corpus order)."""
        scores = self.scores(query)
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order[:k]]


async def build_flat_index(settings: Settings, records: Sequence[ChunkRecord]):
    """Write ``records`` into the ``flat`` workspace (incremental) and return its sync report."""
    from lucasrag.embedding_cache import EmbeddingCache
    from lucasrag.index import sync_workspace

    by_doc: dict[str, list[ChunkRecord]] = defaultdict(list)
    for r in records:
        by_doc[r.doc_id].append(r)
    full_texts = {d: "\n\n".join(r.text for r in sorted(rs, key=lambda r: r.chunk_index)) for d, rs in by_doc.items()}
    cache = EmbeddingCache(settings.data / "embeddings.sqlite", settings.embedding_model)
    try:
        return await sync_workspace(settings, FLAT_WORKSPACE, records, full_texts, cache)
    finally:
        cache.close()


class FlatIndex:
    """The ``flat`` LightRAG instance of one data folder, opened for searching."""

    def __init__(self, index) -> None:
        self._index = index

    @classmethod
    async def open(cls, settings: Settings) -> FlatIndex:
        from lucasrag.index import open_workspace_index

        return cls(await open_workspace_index(settings, FLAT_WORKSPACE))

    async def search(self, text: str, k: int, vector: np.ndarray | None = None) -> list[str]:
        return [h.text for h in await self._index.search(text, k, query_vector=vector, graph=False)]

    async def close(self) -> None:
        await self._index.close()
