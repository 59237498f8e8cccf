"""One index asset per workspace: that workspace's LightRAG instance and chunk metadata.

Each asset reads only its own workspace's rows and writes only under its own
workspace folder, so a rebuild or failure in one never touches the others.
"""

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence

import polars as pl
from dagster import AssetExecutionContext, AssetsDefinition, MaterializeResult, ResourceParam, asset

from lucasrag.index import SyncReport, in_line_report, open_workspace_index, sync_workspace
from lucasrag.index.sync import DocRows, doc_fingerprint, graph_mode
from lucasrag.progress import Progress
from lucasrag.seen import RecentlyUsed, row_hashes
from lucasrag.settings import Settings
from lucasrag.vocabulary import CHUNK_COLUMNS, WORKSPACES, ChunkRecord
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.chunking import doc_id

#: Every chunk-row field a workspace's sync reads except the text (document fingerprints: ids, band, its rule,
#: date, charged; the file hash with the graph on; paths; order), so equal digests mean equal fingerprints.
#: What the index sync compares: every chunk column but the text (its content hash stands for it).
_SYNCED_COLUMNS = tuple(c for c in CHUNK_COLUMNS if c != "text")


#: A few digests :func:`chunk_rows_digest` worked out in this process, by their rows' 64-bit row hashes (two seeds,
#: in order) and graph mode: an unchanged workspace's rows are not JSON-encoded and digested again each run.
_DIGESTS: RecentlyUsed[bytes, str] = RecentlyUsed(16)


def chunk_rows_digest(chunks: pl.DataFrame, settings: Settings) -> str:
    """A digest of one workspace's chunk rows as the sync sees them, its graph mode and embedding model: equal to
    the one its last complete sync recorded means nothing to do (``in_line_report``). Rows are JSON-encoded
    by polars in one pass (0.03 s for 5,000 rows), not turned into records and fingerprinted one by one; a
    long-lived process recognises rows it digested before by their row hashes (≈ 0.1 s less a workspace at
    100,000 notes)."""
    head = json.dumps([graph_mode(settings), settings.embedding_model])
    synced = chunks.select(_SYNCED_COLUMNS)
    seen_as = hashlib.blake2b(head.encode(), digest_size=16)
    for hashes in row_hashes(synced):
        seen_as.update(hashes.to_numpy().tobytes())
    seen_as.update(str(synced.schema).encode())
    if (known := _DIGESTS.get(seen_as.digest())) is not None:
        return known
    encoded = synced.select(pl.struct(_SYNCED_COLUMNS).struct.json_encode()).to_series()
    digest = hashlib.blake2b(head.encode(), digest_size=16)
    digest.update("\n".join(encoded.to_list()).encode("utf-8", "surrogatepass"))
    _DIGESTS.put(seen_as.digest(), digest.hexdigest())
    return digest.hexdigest()


def chunk_records(chunks: pl.DataFrame) -> list[ChunkRecord]:
    return [ChunkRecord.from_row(r) for r in chunks.iter_rows(named=True)]


#: (data folder, workspace) → doc id → (its rows as the sync sees them, graph mode and salt, fingerprint), from
#: the last sync of that workspace in this process: a long-lived writer fingerprints only what changed.
_FINGERPRINTS: RecentlyUsed[tuple[str, str], dict[str, tuple[str, str, str]]] = RecentlyUsed(8)  # two data folders


class FrameDocRows(DocRows):
    """One workspace's chunk frame as ``sync_workspace`` reads it. Each document's rows are JSON-encoded by
    polars (the synced columns ``chunk_rows_digest`` hashes: equal text, equal fingerprint), and a document is
    fingerprinted from its records only when this process has not fingerprinted the same rows under the same
    graph mode and salt before; records are built only for the documents the sync writes. At 100,000 notes a
    record and a fingerprint for every chunk of the changed workspace cost ≈ 0.8 s a run."""

    def __init__(self, chunks: pl.DataFrame, settings: Settings, workspace: str) -> None:
        self._chunks = chunks
        self._key = (str(settings.data), workspace)

    def fingerprints(self, mode: str, salts: Mapping[str, str]) -> dict[str, str]:
        encoded = (
            self._chunks.select("doc_id", pl.struct(_SYNCED_COLUMNS).struct.json_encode().alias("row"))
            .group_by("doc_id", maintain_order=True)
            .agg(pl.col("row").str.join("\n"))
        )
        known = _FINGERPRINTS.get(self._key) or {}
        current: dict[str, tuple[str, str, str]] = {}
        unknown: list[str] = []
        for doc, rows in encoded.iter_rows():
            salt = mode + salts.get(doc, "")
            seen = known.get(doc)
            if seen is not None and seen[0] == rows and seen[1] == salt:
                current[doc] = seen
            else:
                current[doc] = (rows, salt, "")
                unknown.append(doc)
        for doc, chunks in self._rows_of(unknown).grouped():
            rows, salt, _ = current[doc]
            current[doc] = (rows, salt, doc_fingerprint(chunks, salt))
        _FINGERPRINTS.put(self._key, current)
        return {doc: fingerprint for doc, (_, _, fingerprint) in current.items()}

    def records(self, doc_ids: Sequence[str]) -> list[ChunkRecord]:
        return self._rows_of(doc_ids).records(doc_ids)

    def _rows_of(self, doc_ids: Sequence[str]) -> DocRows:
        """The records of ``doc_ids`` only, grouped by document."""
        return DocRows(chunk_records(self._chunks.filter(pl.col("doc_id").is_in(list(doc_ids)))) if doc_ids else [])


def private_link_salts(docs: pl.DataFrame) -> dict[str, str]:
    """doc id → a salt of its links to private notes (none for most notes: their fingerprints stay as they
    were), so a note whose link target became private, or public again, has its graph redone."""
    if "private_links" not in docs.columns:
        return {}
    return {
        doc_id(path): ":private-links:" + hashlib.sha256(json.dumps(sorted(links)).encode()).hexdigest()[:16]
        for path, links in docs.select("path", "private_links").iter_rows()
        if links
    }


class NoteRows(Mapping):
    """A workspace's routed notes by document id, read row by row when asked: a change looks up the few notes
    it writes, not every note of the workspace (a dict of every body and frontmatter was built per run)."""

    def __init__(self, docs: pl.DataFrame) -> None:
        self._docs = docs
        self._row = {doc_id(p): i for i, p in enumerate(docs["path"].to_list())}

    def __getitem__(self, doc: str) -> str:
        """The note's body (what LightRAG keeps as the full document)."""
        return self._docs["body"][self._row[doc]]

    def __iter__(self):
        return iter(self._row)

    def __len__(self) -> int:
        return len(self._row)

    def note_meta(self, doc: str):
        """The entity extractor's view of the note (title, tags, frontmatter aliases and people), from the
        columns the scan wrote (``entity_properties``): the vault is not read again. None: no such note."""
        from lucasrag.entities import note_meta

        if (i := self._row.get(doc)) is None:
            return None
        row = self._docs.row(i, named=True)
        return note_meta(
            row["path"],
            json.loads(row.get("entity_properties") or "{}"),
            title=row.get("title") or "",
            tags=list(row.get("tags") or ()),
            links=list(row.get("links") or ()),
        )


def name_a_server_gone(settings: Settings) -> None:
    """Raise the ServiceError of a production server that does not answer now (naming it, its address and
    its setting); return when both answer (the failure was something else)."""
    if settings.profile != "production":
        return
    from lucasrag.services import require_neo4j, require_postgres

    require_postgres(settings.postgres_dsn, timeout=3)
    require_neo4j(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password), timeout=3)


def _sync(
    settings: Settings,
    lucasrag: LucasragSettings,
    progress: Progress,
    workspace: str,
    mine: pl.DataFrame,
    routed_documents: pl.DataFrame,
    rows_digest: str,
    salts: dict[str, str],
) -> SyncReport:
    """``sync_workspace`` for the workspace's rows ``mine``, with the note bodies and frontmatter it writes;
    ``salts``: :func:`private_link_salts` of its documents."""
    notes = NoteRows(routed_documents.filter(pl.col("workspace") == workspace))
    cache = lucasrag.embedding_cache()
    try:
        return asyncio.run(
            sync_workspace(
                settings,
                workspace,
                FrameDocRows(mine, settings, workspace),
                notes,
                cache,
                progress=progress,
                note_meta=notes.note_meta,
                rows_digest=rows_digest,
                doc_salts=salts,
            )
        )
    finally:
        cache.close()


def workspace_rows(
    banded_chunks: pl.DataFrame, routed_documents: pl.DataFrame, workspace: str
) -> tuple[pl.DataFrame, dict[str, str]]:
    """What ``workspace``'s index step syncs: its chunk rows, and its documents' :func:`private_link_salts`."""
    mine = banded_chunks.filter(pl.col("workspace") == workspace)
    return mine, private_link_salts(routed_documents.filter(pl.col("workspace") == workspace))


def warm_workspace(
    settings: Settings, banded_chunks: pl.DataFrame, routed_documents: pl.DataFrame, workspace: str
) -> None:
    """What this process's first sync of ``workspace`` would otherwise pay for before writing a change, done now
    and kept: every document fingerprinted (``FrameDocRows``) and, on the embedded profile, the LightRAG index
    opened and closed (its entity graph stays in memory for the next open, ``_sqlite_graph``). Writes nothing."""
    mine, salts = workspace_rows(banded_chunks, routed_documents, workspace)
    FrameDocRows(mine, settings, workspace).fingerprints(graph_mode(settings), salts)
    if settings.profile == "embedded":

        async def open_and_close() -> None:
            await (await open_workspace_index(settings, workspace)).close()

        asyncio.run(open_and_close())


def index_asset(workspace: str) -> AssetsDefinition:
    @asset(
        name=f"{workspace}_index",
        group_name="indexes",
        description=f"The {workspace} workspace: its LightRAG index and chunk metadata (incremental).",
    )
    def _index(
        context: AssetExecutionContext,
        lucasrag: LucasragSettings,
        progress: ResourceParam[Progress],
        banded_chunks: pl.DataFrame,
        routed_documents: pl.DataFrame,
    ) -> MaterializeResult:
        settings = lucasrag.get()
        mine, salts = workspace_rows(banded_chunks, routed_documents, workspace)
        rows_digest = chunk_rows_digest(mine, settings) + "".join(sorted(salts.values()))
        try:
            report = in_line_report(settings, workspace, rows_digest) or _sync(
                settings, lucasrag, progress, workspace, mine, routed_documents, rows_digest, salts
            )
        except Exception:
            name_a_server_gone(settings)  # a server that went away mid-step: its name and setting, not a driver error
            raise
        if report.model_changed_from:
            context.log.info(
                f"{workspace}: rebuilt for embedding model {settings.embedding_model!r} "
                f"(indexed with {report.model_changed_from!r} before)"
            )
        context.log.info(
            f"{workspace}: +{report.docs_added} -{report.docs_removed} ={report.docs_unchanged} documents, "
            f"{report.texts_embedded} texts embedded in {report.embed_seconds:.1f}s"
        )
        return MaterializeResult(
            metadata={
                "documents": report.docs_total,
                "chunks": report.chunks_total,
                "documents_added": report.docs_added,
                "documents_removed": report.docs_removed,
                "documents_unchanged": report.docs_unchanged,
                "texts_embedded": report.texts_embedded,
                "embedding_model": settings.embedding_model,
                "embed_seconds": round(report.embed_seconds, 3),
                "write_seconds": round(report.write_seconds, 3),
                "graph_entities": report.graph_entities,
                "graph_relations": report.graph_relations,
                "graph_entities_written": report.graph_entities_written,
                "graph_relations_written": report.graph_relations_written,
                "graph_entities_removed": report.graph_entities_removed,
                "graph_relations_removed": report.graph_relations_removed,
                "graph_texts_embedded": report.graph_texts_embedded,
                "graph_embed_seconds": round(report.graph_embed_seconds, 3),
                "graph_extract_seconds": round(report.graph_extract_seconds, 3),
                "graph_write_seconds": round(report.graph_write_seconds, 3),
            }
        )

    return _index


INDEX_ASSETS = [index_asset(ws) for ws in WORKSPACES]
