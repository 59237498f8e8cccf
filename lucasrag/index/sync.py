"""Bring one workspace's index in line with the chunks the pipeline produced.

Incremental by document: a note whose chunks (ids, band, date, charged) are
unchanged costs nothing; a changed note is deleted and re-inserted; a note
that disappeared is removed. Vectors come from the embedding cache, so only
text never seen before reaches the model.

With ``LUCASRAG_GRAPH`` on (the default), the chunks being written also feed
the workspace's entity graph (``lucasrag.entities``; LightRAG's LLM
extraction on top when ``LUCASRAG_LLM_URL`` is set), and a removed document's
chunks leave it. The fingerprint then also covers the note file's hash (a
frontmatter-only edit changes tags or people) and the graph mode, so switching
the graph on or off redoes every document once (from cached vectors).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.index._lightrag import WorkspaceIndex
from lucasrag.index.graph_counts import read_graph_counts, write_graph_counts
from lucasrag.index.stores import damage_reported, open_chunk_store, open_workspace_index
from lucasrag.progress import Progress
from lucasrag.settings import Settings, mask_secrets
from lucasrag.vocabulary import ChunkRecord

_BATCH = 1000

#: doc id → what the entity extractor needs from that note (frontmatter, title, tags)
NoteMetaFor = Callable[[str], object]
#: Bump when the structural extractor changes what it writes: every document is redone once.
#: 2: relation vectors are no longer written (an older index drops them on the redo).
GRAPH_VERSION = 2


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
    # entity graph (zero when LUCASRAG_GRAPH is off)
    graph_entities: int = 0
    graph_relations: int = 0
    graph_entities_written: int = 0
    graph_relations_written: int = 0
    graph_entities_removed: int = 0
    graph_relations_removed: int = 0
    graph_texts_embedded: int = 0  # entity/relation texts the model embedded (cache misses)
    graph_embed_seconds: float = 0.0
    graph_extract_seconds: float = 0.0
    graph_write_seconds: float = 0.0
    llm_chunks: int = 0  # chunks LightRAG's LLM extraction ran on (LUCASRAG_LLM_URL)
    llm_seconds: float = 0.0
    #: the model the workspace was indexed with before this run rebuilt it for another ("" if none)
    model_changed_from: str = ""
    #: a document left the index and the store was purged of its bytes (ChunkStore.purge_removed)
    purged: bool = False


def doc_fingerprint(records: Sequence[ChunkRecord], graph_mode: str = "") -> str:
    """Everything about a document's chunks that the index stores (and, with the
    graph on, the note file and graph mode the entities came from)."""
    payload: list = [(r.chunk_id, r.band, r.band_rule, r.date, list(r.charged)) for r in records]
    if graph_mode:
        payload.append([graph_mode, sorted({r.content_hash for r in records})])
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()


class DocRows:
    """A workspace's chunk rows as :func:`sync_workspace` reads them: every document's fingerprint, and the
    chunk records of the documents it writes. This one holds every record (what a caller with a list has); the
    write side's chunk frame gives both without a record per chunk of an unchanged workspace
    (``lucasrag_assets.assets.indexes.FrameDocRows``)."""

    def __init__(self, records: Sequence[ChunkRecord]) -> None:
        self._by_doc: dict[str, list[ChunkRecord]] = defaultdict(list)
        for r in records:
            self._by_doc[r.doc_id].append(r)

    def grouped(self):
        """(doc id, its chunks in order) for every document."""
        return self._by_doc.items()

    def fingerprints(self, mode: str, salts: Mapping[str, str]) -> dict[str, str]:
        """doc id → :func:`doc_fingerprint` of its chunks under the graph ``mode`` and its salt."""
        return {d: doc_fingerprint(chunks, mode + salts.get(d, "")) for d, chunks in self._by_doc.items()}

    def records(self, doc_ids: Sequence[str]) -> list[ChunkRecord]:
        """The chunks of ``doc_ids``, document after document, each in its chunk order."""
        return [r for d in doc_ids for r in self._by_doc[d]]


def graph_mode(settings: Settings) -> str:
    """ "" when the graph is off, else what decides which entities a note yields: the extractor's
    version and, with LLM extraction, the server and model. The URL's password is masked: it decides
    nothing about the entities (a rotated password must not re-extract every note), and the mode is
    hashed into every document fingerprint the chunk store keeps."""
    if not settings.graph:
        return ""
    if not settings.llm_url:
        return f"graph-v{GRAPH_VERSION}"
    return f"graph-v{GRAPH_VERSION}+llm:{mask_secrets(settings.llm_url)}:{settings.llm_model}"


def _default_meta(record: ChunkRecord):
    from lucasrag.entities import note_meta

    return note_meta(record.path)


def in_line_report(settings: Settings, workspace: str, rows_digest: str) -> SyncReport | None:
    """The report of a sync with nothing to do, without reading a chunk row: when the workspace's last
    complete sync recorded ``rows_digest`` (a digest of every chunk-row field the document fingerprints,
    the document paths and the grouping depend on, and of the graph mode and model; see
    ``sync_workspace``), no write has happened since (``remove_docs`` and ``add_chunks`` clear it), no
    stopped run left writes in flight and the index was built with this embedding model. ``None``: sync."""
    with damage_reported(settings, workspace):
        store = open_chunk_store(settings, workspace)
    try:
        with damage_reported(settings, workspace):
            if (
                store.rows_digest() != rows_digest
                or store.writes_in_flight()
                or store.embedding_model() != settings.embedding_model
                or store.purge_pending()
            ):
                return None
            report = SyncReport(workspace)
            report.docs_total, report.chunks_total = store.counts()
        report.docs_unchanged = report.docs_total
        if graph_mode(settings):
            report.graph_entities, report.graph_relations = read_graph_counts(settings, workspace)
        return report
    finally:
        store.close()


async def sync_workspace(
    settings: Settings,
    workspace: str,
    records: Sequence[ChunkRecord] | DocRows,
    full_texts: Mapping[str, str],
    cache: EmbeddingCache,
    progress: Progress | None = None,
    note_meta: NoteMetaFor | None = None,
    rows_digest: str | None = None,
    doc_salts: Mapping[str, str] | None = None,
) -> SyncReport:
    """Bring ``workspace`` in line with ``records``. ``rows_digest`` (optional), a digest of ``records``, the
    graph mode and the embedding model, is recorded with the result so that the next sync with the same
    digest can be answered by :func:`in_line_report` without reading a row. ``doc_salts``: per document,
    what else its index entry depends on (the links to private notes its graph must leave out), added to
    its fingerprint. A document that leaves the index (its note deleted, moved or made private) leaves no
    bytes in the chunk store either (:meth:`ChunkStore.purge_removed`)."""
    report = SyncReport(workspace)
    rows = records if isinstance(records, DocRows) else DocRows(records)
    mode = graph_mode(settings)
    wanted = rows.fingerprints(mode, doc_salts or {})

    if cache.model != settings.embedding_model:
        raise ValueError(
            f"the embedding cache serves {cache.model!r} but the index is built with "
            f"LUCASRAG_EMBEDDING_MODEL={settings.embedding_model!r}"
        )
    with damage_reported(settings, workspace):
        store = open_chunk_store(settings, workspace)
    try:
        with damage_reported(settings, workspace):
            have = store.doc_fingerprints()
            indexed_with = store.embedding_model()
            # what a run that stopped before its final transaction may have left in LightRAG: redone
            in_flight = store.writes_in_flight()
        if indexed_with not in (None, settings.embedding_model):
            # Vectors of another model cannot be compared with this model's: rebuild every document.
            have = dict.fromkeys(have, "")
            report.model_changed_from = indexed_with
        stale = [d for d, fp in have.items() if wanted.get(d) != fp or d in in_flight]
        fresh = [d for d, fp in wanted.items() if have.get(d) != fp or d in in_flight]
        # written by a stopped run and gone from the vault since: in LightRAG only, the chunk store never had them
        orphans = [d for d in in_flight if d not in have and d not in wanted]
        report.docs_removed = sum(1 for d in stale if d not in wanted) + len(orphans)
        report.docs_added = len(fresh)
        report.docs_unchanged = len(wanted) - len(fresh)
        if not stale and not fresh and not orphans:
            with damage_reported(settings, workspace), store.transaction():
                store.stamp_embedding_model(settings.embedding_model)
                if rows_digest is not None:
                    store.record_rows_digest(rows_digest)
            if store.purge_pending():  # a run stopped while it purged: finish it
                with damage_reported(settings, workspace):
                    store.purge_removed()
                report.purged = True
            report.docs_total, report.chunks_total = store.counts()
            if mode:
                report.graph_entities, report.graph_relations = read_graph_counts(settings, workspace)
            return report

        with damage_reported(settings, workspace):
            index = await open_workspace_index(settings, workspace)
        try:
            if mode and settings.llm_url:
                index.enable_llm(settings)
            started = time.perf_counter()
            todo = rows.records(fresh)
            paths = {r.doc_id: r.path for r in todo}
            gone = stale + [d for d in in_flight if d not in have]  # every document a stopped run touched
            gone_chunks = list(
                dict.fromkeys([*store.chunk_ids_of(stale), *(c for d in gone for c in in_flight.get(d, ()))])
            )
            # The intent first, committed before LightRAG changes: every document this run touches and the chunk
            # ids it may leave in LightRAG. A run that stops before the final transaction leaves it behind, and
            # the next run removes those ids and redoes the documents (orphans, and a note put back as it was).
            touched: dict[str, list[str]] = {d: list(in_flight.get(d, ())) for d in gone}
            for r in todo:
                touched.setdefault(r.doc_id, list(in_flight.get(r.doc_id, ()))).append(r.chunk_id)
            with damage_reported(settings, workspace):
                store.record_writes_in_flight(touched)
            # the graph first: it reads the chunks it is about to lose (always, so a
            # graph written while LUCASRAG_GRAPH was on leaves with its documents)
            misses = cache.misses
            stats = await index.delete_graph(gone, gone_chunks, cache.embed)
            _add_graph_stats(report, stats, cache.misses - misses)
            await index.delete(gone, gone_chunks)
            report.write_seconds += time.perf_counter() - started

            written = []  # (records, vectors) for the chunk store, once LightRAG has flushed
            for start in range(0, len(todo), _BATCH):
                batch = todo[start : start + _BATCH]
                misses, t0 = cache.misses, time.perf_counter()
                vectors = cache.embed([r.text for r in batch])
                report.texts_embedded += cache.misses - misses
                report.embed_seconds += time.perf_counter() - t0

                t0 = time.perf_counter()
                docs = {r.doc_id for r in batch}
                await index.write(batch, vectors, {d: full_texts[d] for d in docs})
                written.append((batch, vectors))
                report.write_seconds += time.perf_counter() - t0
                if mode:
                    await _write_graph(index, batch, cache, note_meta, report, llm=bool(settings.llm_url))
                report.chunks_written += len(batch)
                if progress:
                    progress.update(f"index {workspace}", min(start + _BATCH, len(todo)), len(todo))
            t0 = time.perf_counter()
            await index.flush()
            # The graph's counts before the chunk store commits: a run killed between the two leaves the
            # store as it was, so the next run redoes the changed documents and counts again; counted after
            # the commit, a kill in between left the last run's counts beside the new graph for good.
            report.graph_entities, report.graph_relations = await index.graph_counts()
            write_graph_counts(settings, workspace, report.graph_entities, report.graph_relations)
            # The chunk store last, in one transaction. A query takes every result from it, so it sees
            # the last complete state of the workspace, never a half-written one; a run that dies before
            # the commit (kill -9) leaves the store as it was, and the next run finds the same documents
            # changed and redoes them (LightRAG's deletes and upserts by id are idempotent).
            with damage_reported(settings, workspace), store.transaction():
                store.remove_docs(stale)
                for batch, vectors in written:
                    store.add_chunks(batch, vectors)
                store.mark_docs({d: (paths[d], wanted[d]) for d in fresh})
                store.stamp_embedding_model(settings.embedding_model)
                if rows_digest is not None:
                    store.record_rows_digest(rows_digest)
                store.record_writes_in_flight({})
                if report.docs_removed:
                    store.mark_purge_pending()  # the purge below, owed until it is done
            report.write_seconds += time.perf_counter() - t0
            if store.purge_pending():  # last: a run stopped in here leaves it owed, and the next one pays it
                with damage_reported(settings, workspace):
                    store.purge_removed()
                report.purged = True
        finally:
            await index.close()
        report.docs_total, report.chunks_total = store.counts()
        return report
    finally:
        store.close()


def _add_graph_stats(report: SyncReport, stats, embedded: int) -> None:
    report.graph_entities_written += stats.entities_written
    report.graph_relations_written += stats.relations_written
    report.graph_entities_removed += stats.entities_removed
    report.graph_relations_removed += stats.relations_removed
    report.graph_texts_embedded += embedded
    report.graph_embed_seconds += stats.embed_seconds
    report.llm_chunks += stats.llm_chunks


async def _write_graph(
    index: WorkspaceIndex,
    batch: Sequence[ChunkRecord],
    cache: EmbeddingCache,
    note_meta: NoteMetaFor | None,
    report: SyncReport,
    *,
    llm: bool,
) -> None:
    """Structural extraction for a batch of written chunks, then (optionally) LightRAG's LLM extraction."""
    from lucasrag.entities import extract_chunk

    t0 = time.perf_counter()
    metas: dict[str, object] = {}
    items = []
    for r in batch:
        if r.doc_id not in metas:
            meta = note_meta(r.doc_id) if note_meta else None
            metas[r.doc_id] = meta if meta is not None else _default_meta(r)
        items.append((r, extract_chunk(r.text, metas[r.doc_id])))
    report.graph_extract_seconds += time.perf_counter() - t0
    t0, misses = time.perf_counter(), cache.misses
    stats = await index.write_graph(items, cache.embed)
    report.graph_write_seconds += time.perf_counter() - t0 - stats.embed_seconds
    if llm:
        t0 = time.perf_counter()
        stats.llm_chunks = (await index.extract_with_llm(batch)).llm_chunks
        report.llm_seconds += time.perf_counter() - t0
    _add_graph_stats(report, stats, cache.misses - misses)
