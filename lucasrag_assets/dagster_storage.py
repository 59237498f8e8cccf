"""The embedded profile's Dagster storage for a run this process executes: Dagster's own SQLite storage — the same
files, schema and classes the UI and ``dagster`` commands open — whose event log keeps one SQLAlchemy engine per
shard it writes instead of making, connecting and disposing of one per statement.

Dagster's ``SqliteEventLogStorage._connect`` creates an engine for every event it stores and every read it makes
(195 in a no-change run at 1,000 notes: 101 events, some written to both the run's shard and the index shard,
and the reads the run makes). An engine per shard, kept with SQLAlchemy's connection pool, does the same statements in
the same transactions on the same files (``docs/benchmarks.md``, "One-note change"). Its connections commit
without waiting for the disk (SQLite's ``synchronous = NORMAL`` on Dagster's write-ahead log): a run stores about a
hundred events, each a commit, and at ``FULL`` each commit was an fsync (≈ 2 ms; 0.42 s of a one-note run). A
power cut can lose the last events of the run history, never the file's consistency; the vault's indexes and the
run's asset values are not in it.

It leans on one private method of the pinned Dagster (``_connect``, with ``_db_lock``, ``_initdb`` and
``_initialized_dbs``): ``lucasrag_assets.ingest.open_instance`` falls back to Dagster's own storage when this
module's Dagster imports fail, and ``tests/assets/test_ingest_instance.py`` fails when the method's neighbours moved.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from dagster._core.storage.event_log.sqlite.sqlite_event_log import INDEX_SHARD_NAME, SqliteEventLogStorage
from dagster._core.storage.sql import create_engine
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage, _event_logs_directory
from sqlalchemy import event

#: Run shards whose engine is kept besides the index shard's: a long-lived process (``lucasrag watch``) makes a
#: shard per run; older runs' engines are disposed of (their connections closed) as newer ones come.
KEPT_RUN_SHARDS = 2


def _commit_without_fsync(dbapi_connection, _record) -> None:
    """A commit reaches the write-ahead log, not the disk (see the module's doc)."""
    dbapi_connection.execute("PRAGMA synchronous = NORMAL")


class KeptEnginesEventLogStorage(SqliteEventLogStorage):
    """Dagster's SQLite event log with an engine (and its pooled connection) kept per shard."""

    def __init__(self, base_dir: str, inst_data=None) -> None:
        self._engines: OrderedDict[str, object] = OrderedDict()  # before Dagster's __init__: it may write already
        super().__init__(base_dir, inst_data)

    def _engine(self, shard: str):
        engine = self._engines.get(shard)
        if engine is None:
            engine = create_engine(
                self.conn_string_for_shard(shard), connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS}
            )
            event.listen(engine, "connect", _commit_without_fsync)
            self._engines[shard] = engine
            runs = [s for s in self._engines if s != INDEX_SHARD_NAME]
            for old in runs[:-KEPT_RUN_SHARDS]:
                self._engines.pop(old).dispose()
        return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator:
        # Dagster's own _connect, with the engine kept: same lock, same first-use initialisation, one
        # transaction per use, committed on the way out.
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def dispose(self) -> None:
        super().dispose()
        with self._db_lock:
            while self._engines:
                self._engines.popitem()[1].dispose()


class KeptEnginesSqliteStorage(DagsterSqliteStorage):
    """``DagsterSqliteStorage`` (runs, event log, schedules under one folder) with :class:`KeptEnginesEventLogStorage`."""

    def __init__(self, base_dir: str, inst_data=None) -> None:
        super().__init__(base_dir, inst_data=inst_data)
        self._event_log_storage = KeptEnginesEventLogStorage(_event_logs_directory(base_dir))

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> KeptEnginesSqliteStorage:
        return cls.from_local(inst_data=inst_data, **config_value)


def storage_override(home: str) -> dict:
    """The instance override (``InstanceRef.from_dir(..., overrides=...)``) that puts this storage over ``home``."""
    return {
        "storage": {
            "custom": {"module": __name__, "class": KeptEnginesSqliteStorage.__name__, "config": {"base_dir": home}}
        }
    }
