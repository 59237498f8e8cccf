"""The one profile factory: which stores a ``Settings`` opens for a workspace.

Each profile is a row of ``_BACKENDS`` (how to open its chunk store, how to tell
that an ingest materialised a workspace, and what changes when an ingest rewrites
it); nothing else in LucasRAG branches on the profile's name for its stores. The
LightRAG storages of each profile are the adapter's own table
(``lucasrag/index/_lightrag/_setup.py``, ``_BACKENDS``).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lucasrag.file_memo import read_when_changed
from lucasrag.index._lightrag import LIGHTRAG_SQLITE, WorkspaceIndex, file_token
from lucasrag.index.chunk_store import SqliteChunkStore
from lucasrag.index.protocol import ChunkStore
from lucasrag.settings import PROFILES, Settings, SettingsError

#: The embedded profile's chunk store, next to the workspace's LightRAG files.
SQLITE_FILE = "chunks.sqlite"


@dataclass(frozen=True)
class _ChunkBackend:
    open: Callable[[Settings, str], ChunkStore]
    exists: Callable[[Settings, str], bool]
    #: changes whenever the query side must reopen the workspace's stores (they follow an ingest's writes)
    stamp: Callable[[Settings, str], tuple]


def _open_sqlite(settings: Settings, workspace: str) -> ChunkStore:
    return SqliteChunkStore(settings.workspace_dir(workspace) / SQLITE_FILE)


def _sqlite_exists(settings: Settings, workspace: str) -> bool:
    return (settings.workspace_dir(workspace) / SQLITE_FILE).is_file()


def _file_stamp(settings: Settings, workspace: str) -> tuple:
    """What makes an open workspace stale: its files made anew (a rebuild) or its vectors computed by another
    model. Not an ingest's writes: an open chunk store follows them (its read caches watch ``PRAGMA
    data_version``), and so do LightRAG's rows in ``lightrag.sqlite`` (``_sqlite_file``). So: the chunk
    store's inode and embedding model, and the LightRAG file's creation token — each read again only when
    its file changed (a query asks for every workspace's stamp)."""
    folder = settings.workspace_dir(workspace)
    chunks = read_when_changed(("chunk store identity", folder), [folder / SQLITE_FILE], lambda: _identity(folder))
    if chunks is None:
        return ()
    lightrag = folder / LIGHTRAG_SQLITE
    return (*chunks, read_when_changed(("lightrag token", folder), [lightrag], lambda: file_token(folder)))


def _identity(folder: Path) -> tuple | None:
    """(device, inode, embedding model) of the folder's chunk store; None when it is missing or unreadable."""
    path = folder / SQLITE_FILE
    try:
        st = path.stat()
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            model = db.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
    except (FileNotFoundError, sqlite3.Error):
        return None
    return st.st_dev, st.st_ino, model


def _open_postgres(settings: Settings, workspace: str) -> ChunkStore:
    from lucasrag.index.chunk_store_pg import PostgresChunkStore

    return PostgresChunkStore(settings, workspace)


def _postgres_exists(settings: Settings, workspace: str) -> bool:
    from lucasrag.index.pg_tables import workspace_has_rows

    return workspace_has_rows(settings, workspace)


def _live(_settings: Settings, _workspace: str) -> tuple:
    return ()  # the servers answer every read with what an ingest wrote: nothing to reopen


_BACKENDS: dict[str, _ChunkBackend] = {
    "embedded": _ChunkBackend(_open_sqlite, _sqlite_exists, _file_stamp),
    "production": _ChunkBackend(_open_postgres, _postgres_exists, _live),
}
assert set(_BACKENDS) == set(PROFILES), "every profile of lucasrag.settings needs its stores here"


def _backend(settings: Settings) -> _ChunkBackend:
    try:
        return _BACKENDS[settings.profile]
    except KeyError:
        raise SettingsError(f"LUCASRAG_PROFILE={settings.profile!r} is not one of {', '.join(PROFILES)}") from None


def open_chunk_store(settings: Settings, workspace: str) -> ChunkStore:
    """The chunk-metadata store of ``workspace`` (SQLite embedded, PostgreSQL in production)."""
    return _backend(settings).open(settings, workspace)


def index_exists(settings: Settings, workspace: str) -> bool:
    """Whether an ingest has materialised this workspace (embedded: its files exist;
    production: the workspace has rows in PostgreSQL — a down server raises ServiceError)."""
    return _backend(settings).exists(settings, workspace)


def index_stamp(settings: Settings, workspace: str) -> tuple:
    """A value that changes whenever an open workspace must be opened again (embedded: its files were
    made anew, a rebuild; an ingest's writes are followed by the open stores. Production: always ``()``,
    the servers are read live)."""
    return _backend(settings).stamp(settings, workspace)


async def open_workspace_index(settings: Settings, workspace: str) -> WorkspaceIndex:
    """The LightRAG index of ``workspace`` (close it with ``await index.close()``)."""
    return await WorkspaceIndex.open(settings, workspace)


@dataclass
class WorkspaceStores:
    """Both stores of one workspace: the LightRAG index and the chunk store."""

    workspace: str
    index: WorkspaceIndex
    chunks: ChunkStore

    async def close(self) -> None:
        try:
            await self.index.close()
        finally:
            self.chunks.close()


class IndexDamaged(RuntimeError):
    """A workspace's files cannot be read (truncated, overwritten): the message names the workspace, the
    file and the fix. Only that workspace is affected; the others open as usual."""

    def __init__(self, workspace: str, detail: str) -> None:
        self.workspace = workspace
        super().__init__(
            f"the {workspace} index is damaged ({detail}): rebuild it with `lucasrag ingest --rebuild {workspace}`"
            " (the vault is the record: nothing is lost)"
        )


class IndexBusy(IndexDamaged):
    """Another program holds the write lock of a workspace's chunk store past the wait (a database browser with
    an open transaction, a backup tool): nothing is damaged, the ingest of that workspace can be run again. An
    ``IndexDamaged`` so that every place that leaves an unusable workspace out (queries, MCP, the CLI) leaves
    this one out too, with this message instead of the rebuild advice."""

    def __init__(self, workspace: str, path: Path) -> None:
        self.workspace = workspace
        RuntimeError.__init__(
            self,
            f"the {workspace} index is locked by another program ({path}: database is locked): close the program"
            " that has it open, then run `lucasrag ingest` again (nothing is damaged)",
        )


def _damaged_file(folder: Path) -> str:
    """Which file of an embedded workspace folder does not read, and why (asked only after an open failed)."""
    for path in sorted(folder.glob("*.json")):
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, OSError) as exc:
            return f"{path}: {exc}"
    for sqlite in sorted(folder.glob("*.sqlite")):  # the chunk store and LightRAG's rows (lightrag.sqlite)
        try:
            with sqlite3.connect(f"file:{sqlite}?mode=ro", uri=True) as db:
                result = db.execute("PRAGMA quick_check").fetchone()[0]
            if result != "ok":
                return f"{sqlite}: {result}"
        except sqlite3.DatabaseError as exc:
            return f"{sqlite}: {exc}"
    return ""


#: What a damaged file raises while LightRAG or SQLite reads it (a server's errors are ServiceError).
_READ_ERRORS = (sqlite3.DatabaseError, ValueError, UnicodeDecodeError, KeyError, TypeError)


@contextlib.contextmanager
def damage_reported(settings: Settings, workspace: str) -> Iterator[None]:
    """Inside, a workspace file that does not read raises :class:`IndexDamaged` naming it, a chunk store another
    program keeps locked :class:`IndexBusy` (embedded profile; on production a server that is down raises
    ``ServiceError`` and everything else passes)."""
    try:
        yield
    except _READ_ERRORS as exc:
        if settings.profile != "embedded":
            raise
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):  # busy, not damaged
            raise IndexBusy(workspace, settings.workspace_dir(workspace) / SQLITE_FILE) from exc
        detail = _damaged_file(settings.workspace_dir(workspace))
        if not detail and not isinstance(exc, sqlite3.DatabaseError):
            raise  # no file of the workspace is unreadable: not damage, a bug to see as it is
        raise IndexDamaged(workspace, detail or f"{type(exc).__name__}: {exc}") from exc


async def open_workspace(settings: Settings, workspace: str) -> WorkspaceStores:
    """Open both stores of ``workspace`` for the settings' profile (see :func:`damage_reported`)."""
    with damage_reported(settings, workspace):
        index = await open_workspace_index(settings, workspace)
        try:
            return WorkspaceStores(workspace, index, open_chunk_store(settings, workspace))
        except BaseException:
            await index.close()
            raise


async def drop_workspace(settings: Settings, workspace: str) -> None:
    """Forget everything stored for ``workspace`` (its LightRAG stores, chunk rows, graph counts), so
    that the next ingest builds it again from the vault. Touches no other workspace."""
    from lucasrag.index.graph_counts import forget_graph_counts

    if settings.profile == "embedded":
        shutil.rmtree(settings.workspace_dir(workspace), ignore_errors=True)
    else:
        index = await open_workspace_index(settings, workspace)
        try:
            await index.drop()
        finally:
            await index.close()
        store = open_chunk_store(settings, workspace)
        try:
            store.remove_docs(store.doc_fingerprints())
        finally:
            store.close()
    forget_graph_counts(settings, workspace)
