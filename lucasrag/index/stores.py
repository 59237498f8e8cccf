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
    """Whether an ingest has materialised this workspace (embedded: its files exist;
    production: the workspace has rows in PostgreSQL — a down server raises ServiceError)."""
    if settings.profile == "production":
        from lucasrag.index.chunk_store_pg import workspace_has_rows

        return workspace_has_rows(settings, workspace)
    return (settings.workspace_dir(workspace) / "chunks.sqlite").is_file()
