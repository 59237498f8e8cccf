"""The production profile's LucasRAG tables on PostgreSQL: their schema, made once per server and process, and
connections to them (psycopg 3, pgvector registered). ``chunk_store_pg`` reads and writes the rows."""

from __future__ import annotations

import threading

from lucasrag.embedding import DIM
from lucasrag.settings import Settings
from lucasrag.vocabulary import WORKSPACES, chunk_sql_columns

CHUNKS_TABLE = "lucasrag_chunks"
DOCS_TABLE = "lucasrag_docs"
META_TABLE = "lucasrag_meta"


def _keyword_indexes() -> str:
    """A GIN index of each workspace's keywords (partial indexes), and none over every workspace's rows.

    Why: every keyword search and term count names one workspace. With one index over all of them, PostgreSQL
    found the matching rows of every workspace, then intersected them with a bitmap of the workspace's rows
    (≈ 8 ms warm, 16 ms cold a search at 100,000 notes, before a row was ranked); a workspace's own index
    finds only its rows (≈ 0.3 ms). The workspaces are the product's four, so the indexes are part of the
    schema; the planner uses one when the statement is planned with its workspace (``connect``)."""
    made = "\n".join(
        f"CREATE INDEX IF NOT EXISTS {CHUNKS_TABLE}_terms_{ws} ON {CHUNKS_TABLE} USING gin (terms)"
        f" WHERE workspace = '{ws}';"
        for ws in WORKSPACES
    )
    return f"{made}\nDROP INDEX IF EXISTS {CHUNKS_TABLE}_terms;"


_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {CHUNKS_TABLE} (
    {chunk_sql_columns()},
    vector vector({DIM}) NOT NULL,
    PRIMARY KEY (workspace, chunk_id)
);
CREATE INDEX IF NOT EXISTS {CHUNKS_TABLE}_doc ON {CHUNKS_TABLE} (workspace, doc_id);
-- A named period's chunks (nearest_dated, band_counts within periods) without scanning the workspace's rows:
-- the expression PostgresChunkStore._within filters on, so the planner matches it.
CREATE INDEX IF NOT EXISTS {CHUNKS_TABLE}_dated ON {CHUNKS_TABLE} (workspace, left(date, 10));
-- Keyword index over lexical.chunk_terms() of each chunk ('simple': the terms are already analysed).
ALTER TABLE {CHUNKS_TABLE} ADD COLUMN IF NOT EXISTS terms tsvector;
-- The rows written before it (PostgresChunkStore._backfill_terms, at every opening of a store): empty once filled,
-- where finding none scanned the workspace's rows (≈ 110 ms a workspace at 100,000 notes, 0.4 s a process start).
CREATE INDEX IF NOT EXISTS {CHUNKS_TABLE}_terms_missing ON {CHUNKS_TABLE} (workspace) WHERE terms IS NULL;
{_keyword_indexes()}
CREATE TABLE IF NOT EXISTS {DOCS_TABLE} (
    workspace TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    path TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (workspace, doc_id)
);
CREATE TABLE IF NOT EXISTS {META_TABLE} (
    workspace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (workspace, key)
);
"""

_SCHEMA_LOCK = 0x6C75636173  # pg_advisory_xact_lock key: concurrent CREATE TABLE IF NOT EXISTS can collide
_ready: set[str] = set()  # DSNs whose schema this process has created (or seen)
_ready_lock = threading.Lock()


def connect(settings: Settings):
    """A psycopg connection to ``settings.postgres_dsn`` with pgvector registered.

    Raises :class:`lucasrag.services.ServiceError` naming PostgreSQL and
    ``LUCASRAG_POSTGRES_DSN`` when the server cannot be reached."""
    import psycopg
    from pgvector.psycopg import register_vector

    from lucasrag.services import ServiceError, require_postgres

    if not settings.postgres_dsn:
        require_postgres(None)  # raises: not configured
    try:
        conn = psycopg.connect(settings.postgres_dsn, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError:
        require_postgres(settings.postgres_dsn)  # raises the clear error (service, address, setting)
        raise
    try:
        _ensure_schema(conn, settings.postgres_dsn)
        register_vector(conn)
        # psycopg prepares a statement run often; a generic plan of `workspace = $1` could not use a workspace's
        # own index (a partial index): plan every run with its values, as LightRAG's pooled connections do
        conn.execute("SET plan_cache_mode = force_custom_plan")
    except psycopg.Error as exc:
        conn.close()
        raise ServiceError(f"PostgreSQL (LUCASRAG_POSTGRES_DSN): cannot prepare the LucasRAG tables: {exc}") from exc
    return conn


def _ensure_schema(conn, dsn: str) -> None:
    import psycopg

    with _ready_lock:
        if dsn in _ready:
            return
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.errors.InsufficientPrivilege:
        pass  # an external server where an administrator created it (checked by the DDL below)
    except psycopg.errors.UniqueViolation:
        pass  # created concurrently
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        conn.execute(_SCHEMA)
    with _ready_lock:
        _ready.add(dsn)


_probe_conns: dict[str, object] = {}  # DSN → a connection kept for index_exists (asked on every query)


def workspace_has_rows(settings: Settings, workspace: str) -> bool:
    """Whether an ingest has written anything for ``workspace`` (production ``index_exists``)."""
    import psycopg

    # The first row in key order, not EXISTS: the planner answers EXISTS with a sequential scan that stops at the
    # first match, which for the workspace written last reads most of the table (3-10 ms at 100,000 notes,
    # on every question); the primary key's first entry is a few pages (0.05 ms).
    sql = (
        f"SELECT (SELECT 1 FROM {DOCS_TABLE} WHERE workspace = %s ORDER BY doc_id LIMIT 1) IS NOT NULL"
        f" OR (SELECT 1 FROM {CHUNKS_TABLE} WHERE workspace = %s ORDER BY chunk_id LIMIT 1) IS NOT NULL"
    )
    for attempt in (0, 1):
        with _ready_lock:
            conn = _probe_conns.get(settings.postgres_dsn)
        if conn is None or conn.closed:
            conn = connect(settings)
            with _ready_lock:
                _probe_conns[settings.postgres_dsn] = conn
        try:
            return bool(conn.execute(sql, (workspace, workspace)).fetchone()[0])
        except psycopg.OperationalError:  # server restarted since: reconnect once
            conn.close()
            if attempt:
                raise
    return False
