"""What a chunk store is: the one interface both profiles' chunk-metadata stores implement.

LightRAG returns only ``chunk_id`` and text for a retrieved chunk; band, date,
charged subjects, vault path, the chunk's vector and its keyword terms live in a
chunk store keyed by the same id. ``SqliteChunkStore`` (embedded,
``lucasrag/index/chunk_store.py``) and ``PostgresChunkStore`` (production,
``lucasrag/index/chunk_store_pg.py``) implement it; ``tests/index/test_chunk_store_protocol.py``
checks that both do, method by method.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

import numpy as np

from lucasrag.vocabulary import ChunkRecord


@runtime_checkable
class ChunkStore(Protocol):
    """One workspace's chunk metadata, vectors and keyword index."""

    #: Whether a read waits on a server (a query runs it off its event loop, so that the workspaces' reads
    #: overlap) rather than answering from this process's memory and files.
    waits_on_server: bool

    def close(self) -> None: ...

    # ---- the write side (lucasrag.index.sync)

    def transaction(self) -> AbstractContextManager[None]:
        """Every write inside is one transaction: readers see all of it or none of it."""
        ...

    def doc_fingerprints(self) -> dict[str, str]:
        """doc id → fingerprint of what was indexed for it (decides what changed)."""
        ...

    def chunk_ids_of(self, doc_ids: Iterable[str]) -> list[str]: ...

    def remove_docs(self, doc_ids: Iterable[str]) -> None:
        """Forget these documents and their chunks."""
        ...

    def mark_purge_pending(self) -> None:
        """Inside the transaction that removed documents: a purge is owed (see :meth:`purge_removed`)."""
        ...

    def purge_pending(self) -> bool:
        """Whether a purge is owed (a run that removed documents stopped before it purged)."""
        ...

    def purge_removed(self) -> None:
        """Leave no byte of removed documents behind (a private note: lucasrag/privacy.py): what a removal
        only marked as deleted (a keyword index's old segments, free pages) is rewritten without it.
        Outside a transaction; costs a rewrite of the store, so it runs only when a document left."""
        ...

    def add_chunks(self, records: Sequence[ChunkRecord], vectors: np.ndarray) -> None: ...

    def mark_docs(self, fingerprints: dict[str, tuple[str, str]]) -> None:
        """Record documents as indexed: doc id → (vault path, fingerprint)."""
        ...

    def rows_digest(self) -> str | None:
        """The digest of the chunk rows the last complete sync wrote (``None`` once anything else wrote)."""
        ...

    def record_rows_digest(self, digest: str) -> None:
        """Record it (inside the final transaction, after the writes; ``remove_docs`` and ``add_chunks`` clear it)."""
        ...

    def writes_in_flight(self) -> dict[str, list[str]]:
        """doc id → chunk ids a sync was writing into LightRAG when it stopped before its final transaction
        (killed, failed): what the next sync removes from LightRAG before it writes (no orphan rows)."""
        ...

    def record_writes_in_flight(self, docs: dict[str, list[str]]) -> None:
        """Record them, committed before LightRAG is touched; ``{}`` clears them (inside the final transaction)."""
        ...

    # ---- the read side (lucasrag_query)

    def get(self, chunk_ids: Sequence[str]) -> dict[str, ChunkRecord]: ...

    def vectors(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """Stored unit vectors in the order of ``chunk_ids`` (zeros for unknown ids)."""
        ...

    def nearest_dated(
        self, vector: np.ndarray, periods: Sequence[tuple[str, str]], k: int, folders: Sequence[str] = ()
    ) -> list[str]:
        """The ``k`` chunks dated inside any period (ISO bounds, inclusive) nearest to ``vector``; with
        ``folders``, only chunks of notes under one of them (vault-relative, no trailing slash)."""
        ...

    def band_counts(self, periods: Sequence[tuple[str, str]] = (), folders: Sequence[str] = ()) -> dict[str, int]:
        """Chunks per band; only those dated inside any period (ISO bounds, inclusive) when ``periods`` are
        given, only those under one of ``folders`` when they are."""
        ...

    def keyword_search(self, query: Sequence[str], k: int) -> list[str]:
        """Chunk ids of the ``k`` best keyword matches for any of the ``query`` terms."""
        ...

    def term_stats(self, query: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of chunks, chunks containing each term) — the collection statistics BM25 needs."""
        ...

    def all_records(self) -> list[ChunkRecord]: ...

    def counts(self) -> tuple[int, int]:
        """(documents, chunks)."""
        ...

    # ---- which model wrote the vectors (lucasrag.index.sync stamps it; the query side checks it)

    def embedding_model(self) -> str | None:
        """The ``LUCASRAG_EMBEDDING_MODEL`` id the vectors were computed with; None for an empty store.
        (A store written before the stamp existed holds MiniLM vectors: ``"minilm"``.)"""
        ...

    def stamp_embedding_model(self, model: str) -> None:
        """Record that every vector of this workspace now comes from ``model``."""
        ...
