"""Open one workspace's stores for the configured profile."""

from __future__ import annotations

from lucasrag.index.chunk_store import SqliteChunkStore
from lucasrag.settings import Settings


def open_chunk_store(settings: Settings, workspace: str):
    """The chunk-metadata store of ``workspace`` (SQLite embedded, PostgreSQL in production)."""
    if settings.profile == "production":
        from lucasrag.index.chunk_store_pg import PostgresChunkStore

        return PostgresChunkStore(settings, workspace)
    return SqliteChunkStore(settings.workspace_dir(workspace) / "chunks.sqlite")


def index_exists(settings: Settings, workspace: str) -> bool:
    """Whether an ingest has materialised this workspace (embedded: its files exist)."""
    if settings.profile == "production":
        return True
    return (settings.workspace_dir(workspace) / "chunks.sqlite").is_file()
