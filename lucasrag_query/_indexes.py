"""Opened workspace indexes, kept for the life of the process and reopened when
an ingest has rewritten them (the query side only ever reads)."""

from __future__ import annotations

from dataclasses import dataclass

from lucasrag.data_folder import open_data_folder
from lucasrag.index._lightrag import WorkspaceIndex
from lucasrag.index.stores import index_exists, open_chunk_store
from lucasrag.settings import Settings


class IndexMissing(FileNotFoundError):
    """No workspace asked for has been ingested under LUCASRAG_DATA."""


@dataclass
class OpenWorkspace:
    workspace: str
    index: WorkspaceIndex
    store: object  # SqliteChunkStore | PostgresChunkStore
    stamp: tuple


_open: dict[tuple, OpenWorkspace] = {}


def _stamp(settings: Settings, workspace: str) -> tuple:
    """Changes whenever an ingest rewrites the workspace's files (embedded profile)."""
    if settings.profile == "production":
        return ()
    folder = settings.workspace_dir(workspace)
    return tuple(p.stat().st_mtime_ns for p in sorted(folder.glob("*")) if p.is_file())


async def open_workspaces(settings: Settings, workspaces: tuple[str, ...]) -> list[OpenWorkspace]:
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
        stamp = _stamp(settings, ws)
        entry = _open.get(key)
        if entry is None or entry.stamp != stamp:
            if entry is not None:
                await entry.index.close()
                entry.store.close()
            entry = OpenWorkspace(ws, await WorkspaceIndex.open(settings, ws), open_chunk_store(settings, ws), stamp)
            _open[key] = entry
        opened.append(entry)
    return opened


async def close_all() -> None:
    """Close every opened index (releases files and database connections)."""
    while _open:
        _, entry = _open.popitem()
        await entry.index.close()
        entry.store.close()
