"""The embedded profile's LightRAG rows in one SQLite file per workspace, updated row by row.

LightRAG's own embedded storages (JSON key-value files, nano-vectordb, networkx's GraphML) keep a store
in memory and rewrite its whole file on every flush, and read it whole on every open: a one-note change at
20,000 notes rewrote ≈ 200 MB and reread as much (docs/scale.md). Here the key-value stores
(``_sqlite_kv.SqliteKVStorage``), the vector stores (``_sqlite_vectors.SqliteVectorStorage``) and the
entity graph (``_sqlite_graph.SqliteGraphStorage``) keep their rows in ``lightrag.sqlite`` beside the
chunk store: a flush writes the changed rows in one transaction; a key-value or vector row is read when
asked for, and a reader follows another process's flush by the rows it wrote.

A folder written by an earlier version holds the JSON files instead; the first open of a store copies
its file's rows in (one transaction, marked in ``imported``) and removes the file.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from lucasrag.sqlite_rowid import compact, rebuild_as_rowid

log = logging.getLogger(__name__)

#: The file, in the workspace's folder of the index directory.
LIGHTRAG_SQLITE = "lightrag.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (
    namespace TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, id)
);
CREATE TABLE IF NOT EXISTS vectors (
    namespace TEXT NOT NULL, id TEXT NOT NULL, vector BLOB NOT NULL, record TEXT NOT NULL,
    seq INTEGER NOT NULL, PRIMARY KEY (namespace, id)
);
CREATE INDEX IF NOT EXISTS vectors_by_seq ON vectors (namespace, seq);
CREATE TABLE IF NOT EXISTS vector_deletes (
    namespace TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (namespace, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS graph_nodes (
    rid INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, id TEXT NOT NULL, attrs TEXT NOT NULL,
    seq INTEGER NOT NULL, UNIQUE (namespace, id)
);
CREATE INDEX IF NOT EXISTS graph_nodes_by_seq ON graph_nodes (namespace, seq);
CREATE TABLE IF NOT EXISTS graph_edges (
    rid INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,
    attrs TEXT NOT NULL, seq INTEGER NOT NULL, UNIQUE (namespace, a, b)
);
CREATE INDEX IF NOT EXISTS graph_edges_by_seq ON graph_edges (namespace, seq);
-- a removed node or edge by its row number: never its name (a note turned private leaves no trace)
CREATE TABLE IF NOT EXISTS graph_deletes (
    namespace TEXT NOT NULL, kind TEXT NOT NULL, rid INTEGER NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (namespace, kind, rid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS imported (namespace TEXT PRIMARY KEY, source TEXT NOT NULL);
"""

#: ``PRAGMA user_version`` of a file this code wrote; a file of another version is reported, never guessed at,
#: except layout 1, which is upgraded in place (:func:`_upgrade_from_1`).
SCHEMA_VERSION = 2

#: SQLite binds at most this many parameters per statement in older builds: ids are read in slices.
_SLICE = 500


def store_folder(global_config: dict, workspace: str) -> Path:
    """The workspace's folder of LightRAG's working directory (where its JSON files were)."""
    folder = Path(global_config["working_dir"]) / workspace if workspace else Path(global_config["working_dir"])
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def connect(folder: Path) -> sqlite3.Connection:
    """A connection to the folder's ``lightrag.sqlite``, its tables made.

    The rollback journal, as the chunk store's: the file's modification time changes only when a
    transaction commits, which is what tells a query process to reopen (``stores.index_stamp``).
    ``secure_delete``: a deleted row's text is overwritten, so a note that turned private leaves none."""
    db = sqlite3.connect(folder / LIGHTRAG_SQLITE, check_same_thread=False, timeout=60, isolation_level=None)
    try:
        db.execute("PRAGMA secure_delete = ON")
        if _layout(db) != SCHEMA_VERSION:
            with Transaction(db):  # a new file: made once, whoever opens it first
                if _layout(db) == 0 and db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    # this file's identity: a folder rebuilt from nothing gets another (see file_token)
                    db.execute("INSERT INTO counters VALUES ('created', ?)", (secrets.randbits(62),))
            if _layout(db) == 1:
                _upgrade_from_1(db, folder / LIGHTRAG_SQLITE)
            if (found := _layout(db)) != SCHEMA_VERSION:
                raise sqlite3.DatabaseError(
                    f"{folder / LIGHTRAG_SQLITE} has layout {found}, this LucasRAG reads layout {SCHEMA_VERSION}"
                )
    except BaseException:
        db.close()
        raise
    return db


def _upgrade_from_1(db: sqlite3.Connection, path: Path) -> None:
    """Layout 1 kept ``kv`` and ``vectors`` WITHOUT ROWID: a row of a chunk's text, or of a vector and its
    record (1–3 KB), is too big for such a B-tree (about one row a page; the personal workspace's file at
    10,000 notes was 82 MB for 20 MB of rows). Layout 2 keeps them in rowid tables: the same rows, copied once
    in one transaction (a kill rolls it back), then the file compacted (57 MB)."""
    with Transaction(db):
        if _layout(db) != 1:  # another process upgraded it meanwhile
            return
        log.info("%s: upgrading to layout 2 (rowid tables; once)", path)
        for table, columns in (("kv", "namespace, id, value"), ("vectors", "namespace, id, vector, record, seq")):
            statement = next(s for s in _SCHEMA.split(";") if f"CREATE TABLE IF NOT EXISTS {table} (" in s)
            rebuild_as_rowid(db, table, statement, columns)
        db.execute("CREATE INDEX IF NOT EXISTS vectors_by_seq ON vectors (namespace, seq)")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    compact(db, path, log)


def file_token(folder: Path) -> int | None:
    """The random number the folder's ``lightrag.sqlite`` was created with (None: no such file yet). It
    changes only when the file is made anew (``lucasrag ingest --rebuild``), never with a write."""
    path = folder / LIGHTRAG_SQLITE
    if not path.is_file():
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            got = db.execute("SELECT value FROM counters WHERE name = 'created'").fetchone()
    except sqlite3.Error:  # being created by another process right now, or damaged (opening it says so)
        return None
    return got[0] if got else None


def _layout(db: sqlite3.Connection) -> int:
    return db.execute("PRAGMA user_version").fetchone()[0]


class Transaction:
    """``with Transaction(db):`` — one IMMEDIATE transaction, committed on success, rolled back on error."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> sqlite3.Connection:
        self._db.execute("BEGIN IMMEDIATE")
        return self._db

    def __exit__(self, kind, *_exc) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")


def slices(ids: Iterable[str]) -> Iterator[list[str]]:
    """``ids`` in lists of at most ``_SLICE`` (one ``IN (...)`` statement each)."""
    ids = list(ids)
    for start in range(0, len(ids), _SLICE):
        yield ids[start : start + _SLICE]


def marks(n: int) -> str:
    return ",".join("?" * n)


def import_once(db: sqlite3.Connection, namespace: str, legacy: Path, copy) -> None:
    """Copy the rows of an earlier version's file ``legacy`` in with ``copy(db, legacy)``, once per
    namespace, in one transaction; then remove the file (a kill before the removal leaves a file the
    next open removes: the marker says its rows are in)."""
    if db.execute("SELECT 1 FROM imported WHERE namespace = ?", (namespace,)).fetchone() is None:
        with Transaction(db):
            if db.execute("SELECT 1 FROM imported WHERE namespace = ?", (namespace,)).fetchone() is None:
                if legacy.is_file():
                    copy(db, legacy)
                db.execute("INSERT INTO imported VALUES (?, ?)", (namespace, legacy.name if legacy.is_file() else ""))
    if legacy.is_file():
        os.unlink(legacy)


def import_kv_json(db: sqlite3.Connection, namespace: str, legacy: Path) -> None:
    """An earlier version's JSON key-value file (an object of rows) into ``kv`` (for :func:`import_once`)."""
    data = read_json(legacy)
    db.executemany(
        "INSERT OR REPLACE INTO kv VALUES (?, ?, ?)",
        ((namespace, k, json.dumps(v)) for k, v in data.items() if isinstance(v, dict)),
    )


def write_kv(db: sqlite3.Connection, namespace: str, rows: Iterable[tuple[str, str]], gone: Iterable[str]) -> None:
    """Inside the caller's transaction: the ``kv`` rows ``(id, JSON text)`` written, the ids ``gone`` removed."""
    for part in slices(gone):
        db.execute(f"DELETE FROM kv WHERE namespace = ? AND id IN ({marks(len(part))})", (namespace, *part))
    db.executemany("INSERT OR REPLACE INTO kv VALUES (?, ?, ?)", ((namespace, i, v) for i, v in rows))


def with_pending(pending: dict[str, Any], ids, stored) -> dict[str, Any]:
    """The current row of each of ``ids`` that has one: a write waiting for the flush (None: a delete) over
    ``stored(ids)``, the flushed rows of the others (rows not copied)."""
    wanted = dict.fromkeys(ids)
    rows = stored([i for i in wanted if i not in pending])
    rows.update((i, pending[i]) for i in wanted if pending.get(i) is not None)
    return rows


def read_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def counter(db: sqlite3.Connection, name: str, value: int | None = None) -> int:
    """A named counter of the file (a store's last flush, its pruned log): set with ``value``, else read."""
    if value is not None:
        db.execute("INSERT OR REPLACE INTO counters VALUES (?, ?)", (name, value))
        return value
    got = db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
    return got[0] if got else 0


def stored_keys(folder: Path) -> dict[str, list]:
    """Every key of every store in the folder's ``lightrag.sqlite``, sorted: ``{"kv:text_chunks": [...],
    "vectors:chunks": [...], "graph_nodes:chunk_entity_relation": [...], "graph_edges:...": [(a, b), ...]}``
    (for checks that compare two indexes; empty without the file)."""
    path = folder / LIGHTRAG_SQLITE
    if not path.is_file():
        return {}
    out: dict[str, list] = {}
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        for table, key in (("kv", "id"), ("vectors", "id"), ("graph_nodes", "id"), ("graph_edges", "a, b")):
            for namespace, *k in db.execute(f"SELECT namespace, {key} FROM {table} ORDER BY namespace, {key}"):
                out.setdefault(f"{table}:{namespace}", []).append(k[0] if len(k) == 1 else tuple(k))
    return out
