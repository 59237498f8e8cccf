"""Opened workspace indexes, kept for the life of the process: they follow an ingest's writes, and are
opened again only when a workspace's files were made anew (a rebuild). The query side only ever reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from lucasrag.data_folder import open_data_folder
from lucasrag.index import (
    ChunkStore,
    IndexDamaged,
    WorkspaceIndex,
    WorkspaceStores,
    index_exists,
    index_stamp,
    open_workspace,
)
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord
from lucasrag_query.policy import Candidate


class IndexMissing(FileNotFoundError):
    """No workspace asked for has been ingested under LUCASRAG_DATA."""


class IndexModelMismatch(IndexMissing):
    """A workspace was indexed with another embedding model than ``LUCASRAG_EMBEDDING_MODEL``: its
    vectors cannot be compared with this model's query vector (no index for this model exists)."""


def check_embedding_model(settings: Settings, workspace: str, indexed_with: str | None) -> None:
    if indexed_with not in (None, settings.embedding_model):
        raise IndexModelMismatch(
            f"the {workspace} index was built with embedding model {indexed_with!r} but "
            f"LUCASRAG_EMBEDDING_MODEL={settings.embedding_model!r}: set LUCASRAG_EMBEDDING_MODEL={indexed_with} "
            f"to query it, or run `lucasrag ingest` to rebuild it with {settings.embedding_model!r}"
        )


@dataclass
class OpenWorkspace:
    stores: WorkspaceStores
    stamp: tuple
    model: str | None = None  # the embedding model its vectors come from (read from the store once)
    #: chunk id → (the store's row, its candidate): every question makes hundreds, mostly made before
    _candidates: dict[str, tuple[ChunkRecord, Candidate]] = field(default_factory=dict, repr=False)

    def candidate(self, record: ChunkRecord) -> Candidate:
        """``Candidate.from_record(record)``, made once per row the store hands out (a row it reads
        again after a write is a new object, so it gets a new candidate)."""
        made = self._candidates.get(record.chunk_id)
        if made is None or made[0] is not record:
            made = self._candidates[record.chunk_id] = (record, Candidate.from_record(record))
        return made[1]

    @property
    def workspace(self) -> str:
        return self.stores.workspace

    @property
    def index(self) -> WorkspaceIndex:
        return self.stores.index

    @property
    def store(self) -> ChunkStore:
        return self.stores.chunks


_open: dict[tuple, OpenWorkspace] = {}


async def open_workspaces(
    settings: Settings, workspaces: tuple[str, ...], damaged: list[IndexDamaged] | None = None
) -> list[OpenWorkspace]:
    """The opened stores of every ingested workspace asked for. A workspace whose files do not read is
    left out and reported in ``damaged`` (the others answer); when every one is damaged, or no list is
    given, :class:`IndexDamaged` is raised."""
    if settings.data.is_dir():  # a query never creates the data folder, but it does tighten it
        open_data_folder(settings.data)
    present = [ws for ws in workspaces if index_exists(settings, ws)]
    if not present:
        raise IndexMissing(
            f"no index for {', '.join(workspaces)} under {settings.index_dir}: run `lucasrag ingest` first "
            f"(LUCASRAG_DATA={settings.data})"
        )
    opened = []
    for ws in present:
        key = (str(settings.data), settings.profile, ws)
        stamp = index_stamp(settings, ws)
        entry = _open.get(key)
        if entry is None or entry.stamp != stamp:
            if entry is not None:
                _open.pop(key)
                await entry.stores.close()
            try:
                entry = _open[key] = OpenWorkspace(await open_workspace(settings, ws), stamp)
            except IndexDamaged as exc:
                if damaged is None:
                    raise
                damaged.append(exc)
                continue
        if entry.model != settings.embedding_model:  # read once per opening (the stamp changes with it)
            entry.model = entry.store.embedding_model() or settings.embedding_model
        check_embedding_model(settings, ws, entry.model)
        opened.append(entry)
    if damaged and not opened:
        raise damaged[0]
    return opened


async def close_all() -> None:
    """Close every opened index (releases files and database connections)."""
    while _open:
        _, entry = _open.popitem()
        await entry.stores.close()
