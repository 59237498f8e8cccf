"""Bring one workspace's index in line with the chunks the pipeline produced.

Incremental by document: a note whose chunks (ids, band, date, charged) are
unchanged costs nothing; a changed note is deleted and re-inserted; a note
that disappeared is removed. Vectors come from the embedding cache, so only
text never seen before reaches the model.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.index._lightrag import WorkspaceIndex
from lucasrag.index.stores import open_chunk_store
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord

_BATCH = 1000

Progress = Callable[[int, int], None]


@dataclass
class SyncReport:
    workspace: str
    docs_added: int = 0
    docs_removed: int = 0
    docs_unchanged: int = 0
    chunks_written: int = 0
    texts_embedded: int = 0
    embed_seconds: float = 0.0
    write_seconds: float = 0.0
    docs_total: int = 0
    chunks_total: int = 0


def doc_fingerprint(records: Sequence[ChunkRecord]) -> str:
    """Everything about a document's chunks that the index stores."""
    payload = [(r.chunk_id, r.band, r.band_rule, r.date, list(r.charged)) for r in records]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()


async def sync_workspace(
    settings: Settings,
    workspace: str,
    records: Sequence[ChunkRecord],
    full_texts: dict[str, str],
    cache: EmbeddingCache,
    progress: Progress | None = None,
) -> SyncReport:
    report = SyncReport(workspace)
    by_doc: dict[str, list[ChunkRecord]] = defaultdict(list)
    for r in records:
        by_doc[r.doc_id].append(r)
    wanted = {doc_id: doc_fingerprint(chunks) for doc_id, chunks in by_doc.items()}

    store = open_chunk_store(settings, workspace)
    try:
        have = store.doc_fingerprints()
        stale = [d for d, fp in have.items() if wanted.get(d) != fp]
        fresh = [d for d, fp in wanted.items() if have.get(d) != fp]
        report.docs_removed = sum(1 for d in stale if d not in wanted)
        report.docs_added = len(fresh)
        report.docs_unchanged = len(wanted) - len(fresh)
        if not stale and not fresh:
            report.docs_total, report.chunks_total = store.counts()
            return report

        index = await WorkspaceIndex.open(settings, workspace)
        try:
            started = time.perf_counter()
            await index.delete(stale, store.chunk_ids_of(stale))
            store.remove_docs(stale)
            report.write_seconds += time.perf_counter() - started

            todo = [r for d in fresh for r in by_doc[d]]
            for start in range(0, len(todo), _BATCH):
                batch = todo[start : start + _BATCH]
                misses, t0 = cache.misses, time.perf_counter()
                vectors = cache.embed([r.text for r in batch])
                report.texts_embedded += cache.misses - misses
                report.embed_seconds += time.perf_counter() - t0

                t0 = time.perf_counter()
                docs = {r.doc_id for r in batch}
                await index.write(batch, vectors, {d: full_texts[d] for d in docs})
                store.add_chunks(batch, vectors)
                report.write_seconds += time.perf_counter() - t0
                report.chunks_written += len(batch)
                if progress:
                    progress(min(start + _BATCH, len(todo)), len(todo))
            t0 = time.perf_counter()
            await index.flush()
            # Fingerprints last: a run that dies before LightRAG has flushed
            # leaves these documents 'changed', so the next run redoes them.
            store.mark_docs({d: (by_doc[d][0].path, wanted[d]) for d in fresh})
            report.write_seconds += time.perf_counter() - t0
        finally:
            await index.close()
        report.docs_total, report.chunks_total = store.counts()
        return report
    finally:
        store.close()
