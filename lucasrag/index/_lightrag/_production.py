"""The production profile's LightRAG storages: PostgreSQL client pools per (loop, server,
database), batched Neo4j deletes, and the settings LightRAG reads from the environment."""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import os

from lucasrag.settings import Settings

# Settings every pooled PostgreSQL connection starts with. All workspaces share one vector table; each
# workspace's chunk vectors have an HNSW index of their own (``_install_workspace_vector_indexes``), which
# the planner can pick only when it plans a statement with the workspace's name in hand: asyncpg prepares
# every statement, and a generic plan cannot prove a partial index's predicate (force_custom_plan: ≈ 0.1 ms
# of planning a search). pgvector >= 0.8 keeps scanning past ef_search candidates until LIMIT rows are found.
PG_SERVER_SETTINGS = "hnsw.iterative_scan=relaxed_order&hnsw.ef_search=100&plan_cache_mode=force_custom_plan"

# ---------------------------------------------------------------------------
# Production profile: PostgreSQL client pools per (event loop, server, database).
#
# LightRAG 1.5.7 keeps ONE process-wide asyncpg pool (``ClientManager``), bound
# to the event loop and the ``POSTGRES_*`` environment of whoever opened it
# first. LucasRAG opens indexes from several loops in one process (the query
# side's background loop, ``asyncio.run`` in each Dagster index step) and, in
# tests, against several databases: one shared pool would be used from a loop it
# does not belong to, or silently point at the wrong database. The two
# ClientManager methods below replace it with a pool per (loop, host, port,
# user, database), reference-counted exactly as LightRAG's own. The target comes
# from the opening task's context (``_pg_target``), not the environment, and the
# ``workspace`` override (``POSTGRES_WORKSPACE`` / ./config.ini) is always cleared.
# ---------------------------------------------------------------------------

_pg_target: contextvars.ContextVar[dict | None] = contextvars.ContextVar("lucasrag_pg_target", default=None)
_pg_clients: dict[tuple, list] = {}  # key → [loop, PostgreSQLDB, references]
_loop_locks: dict[tuple[str, int], tuple[asyncio.AbstractEventLoop, asyncio.Lock]] = {}


def _loop_lock(name: str) -> asyncio.Lock:
    """An asyncio lock of the running loop (created on first use; the loop is kept so its id is never reused)."""
    loop = asyncio.get_running_loop()
    entry = _loop_locks.get((name, id(loop)))
    if entry is None or entry[0] is not loop:
        entry = _loop_locks[(name, id(loop))] = (loop, asyncio.Lock())
    return entry[1]


def _pg_config(dsn: str) -> dict:
    """LightRAG PostgreSQLDB config keys from a DSN (URL or ``key=value`` conninfo)."""
    from lucasrag import dsn as pg_dsn

    # vector_index_type None: LightRAG makes no HNSW index over every workspace's rows (see
    # _install_workspace_vector_indexes for the one each workspace's chunk vectors get instead)
    config = {
        **pg_dsn.lightrag_settings(dsn),
        "workspace": None,
        "server_settings": PG_SERVER_SETTINGS,
        "vector_index_type": None,
    }
    sslmode = pg_dsn.parse(dsn).sslmode
    if sslmode:
        config["ssl_mode"] = sslmode
    return config


def _install_pg_client_pools() -> None:
    from lightrag.kg import postgres_impl as pg

    manager = pg.ClientManager
    if getattr(manager, "_lucasrag_pools", False):
        return

    async def get_client(cls, vector_storage: str | None = None):
        config = cls.get_config(vector_storage=vector_storage)
        config.update(_pg_target.get() or {})
        config["workspace"] = None  # the storage's own workspace always wins
        signature = cls._build_vector_signature(config, vector_storage)
        loop = asyncio.get_running_loop()
        key = (
            id(loop),
            str(config["host"]),
            str(config["port"]),
            str(config["user"]),
            str(config["database"]),
            repr(sorted(signature.items())),
        )
        async with _loop_lock("pg-client"):
            entry = _pg_clients.get(key)
            if entry is None or entry[0] is not loop:
                db = pg.PostgreSQLDB(config)
                await db.initdb()
                await db.check_tables()
                entry = _pg_clients[key] = [loop, db, 0]
            entry[2] += 1
            return entry[1]

    async def release_client(cls, db) -> None:
        if db is None:
            return
        for key, entry in list(_pg_clients.items()):
            if entry[1] is db:
                entry[2] -= 1
                if entry[2] <= 0:
                    del _pg_clients[key]
                    if db.pool is not None:
                        await db.pool.close()
                return
        if db.pool is not None:
            await db.pool.close()

    # the originals stay reachable: tests/index/test_lightrag_contract.py checks their signatures
    manager._lucasrag_original_get_client = manager.get_client
    manager._lucasrag_original_release_client = manager.release_client
    manager.get_client = classmethod(get_client)
    manager.release_client = classmethod(release_client)
    manager._lucasrag_pools = True


_NEO4J_BATCH = 1000


def _install_neo4j_batch_deletes() -> None:
    """LightRAG 1.5.7's Neo4JStorage.remove_nodes / remove_edges run one transaction per node
    or edge (≈50 ms each here: removing one note's graph cost seconds). Same Cypher, one
    UNWIND per thousand ids; the driver's managed transactions retry transient errors."""
    from lightrag.kg import neo4j_impl as nj

    storage = nj.Neo4JStorage
    if getattr(storage, "_lucasrag_batch_deletes", False):
        return

    async def _write_batches(self, query: str, rows: list) -> None:
        async def run(tx, batch):
            result = await tx.run(query, rows=batch)
            await result.consume()

        async with self._driver.session(database=self._DATABASE) as session:
            for start in range(0, len(rows), _NEO4J_BATCH):
                await session.execute_write(run, rows[start : start + _NEO4J_BATCH])

    async def remove_nodes(self, nodes: list[str]) -> None:
        ids = list(dict.fromkeys(nodes))
        if ids:
            label = self._get_workspace_label()
            await _write_batches(self, f"UNWIND $rows AS id MATCH (n:`{label}` {{entity_id: id}}) DETACH DELETE n", ids)

    async def remove_edges(self, edges: list[tuple[str, str]]) -> None:
        pairs = [list(p) for p in dict.fromkeys(tuple(sorted((s, t))) for s, t in edges)]
        if pairs:
            label = self._get_workspace_label()
            await _write_batches(
                self,
                f"UNWIND $rows AS p MATCH (a:`{label}` {{entity_id: p[0]}})-[r]-(b:`{label}` {{entity_id: p[1]}}) "
                "DELETE r",
                pairs,
            )

    storage._lucasrag_original_remove_nodes = storage.remove_nodes
    storage._lucasrag_original_remove_edges = storage.remove_edges
    storage.remove_nodes = remove_nodes
    storage.remove_edges = remove_edges
    storage._lucasrag_batch_deletes = True


#: pgvector's HNSW build parameters of a workspace's index (LightRAG's defaults for the index it would make).
_HNSW_BUILD = "m = 16, ef_construction = 64"


def workspace_index_name(table: str, workspace: str) -> str:
    """The name of the HNSW index of ``workspace``'s rows of ``table`` (under PostgreSQL's 63 bytes whatever the
    names' lengths: the table and the workspace as a digest; the index's predicate names the workspace)."""
    digest = hashlib.blake2b(f"{table.lower()}\0{workspace}".encode(), digest_size=6).hexdigest()
    return f"lucasrag_hnsw_{digest}"


async def ensure_workspace_vector_index(db, table: str, workspace: str, searched: bool = True) -> None:
    """An HNSW index of ``workspace``'s rows of the vector table ``table`` (a partial index), made once when the
    table is ``searched``; and no index over every workspace's rows, which an earlier version let LightRAG make.

    Why: with one index over all workspaces, a workspace's search filters that index's candidates by workspace
    (a quarter of them or fewer), and past a few dozen rows PostgreSQL's planner gave the index up for an exact
    scan of the workspace's rows: both cost more as the vault grows (≈ 15–20 ms a search at 10,000 notes). A
    workspace's own index answers a search as a one-workspace table's would (≈ 1 ms at 10,000 notes). Made on a
    filled table (an earlier version's database) it is built at the first open (≈ 1 s per 5,000 chunks here).
    A table never searched keeps no vector index: each one cost every write its upkeep."""
    name = workspace_index_name(table, workspace)
    found = (
        await db.query(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1", [table.lower()], multirows=True
        )
        or []
    )
    if searched and not any(row["indexname"] == name for row in found):
        literal = "'" + workspace.replace("'", "''") + "'"
        await db.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING hnsw (content_vector vector_cosine_ops)"
            f" WITH ({_HNSW_BUILD}) WHERE workspace = {literal}",
            ignore_if_exists=True,  # another process made it meanwhile
        )
    for row in found:
        definition = row["indexdef"].lower()
        if "using hnsw" in definition and " where " not in definition:  # LightRAG's, over every workspace
            await db.execute(f'DROP INDEX IF EXISTS "{row["indexname"]}"')


def _install_workspace_vector_indexes() -> None:
    """Each workspace's chunk vectors get their own HNSW index as LightRAG's vector storage opens them
    (:func:`ensure_workspace_vector_index`). Only the chunk vectors are searched (a query reaches entities by
    name, never by vector): the entity and relation vector tables keep no vector index."""
    from lightrag.kg import postgres_impl as pg
    from lightrag.namespace import NameSpace, is_namespace

    storage = pg.PGVectorStorage
    if getattr(storage, "_lucasrag_workspace_indexes", False):
        return
    original = storage.initialize

    async def initialize(self) -> None:
        await original(self)
        searched = is_namespace(self.namespace, NameSpace.VECTOR_STORE_CHUNKS)
        await ensure_workspace_vector_index(self.db, self.table_name, self.workspace, searched)

    storage._lucasrag_original_initialize = original
    storage.initialize = initialize
    storage._lucasrag_workspace_indexes = True


def _require_services(settings: Settings) -> None:
    """A clear :class:`~lucasrag.services.ServiceError` (service + setting) when a server is down."""
    from lucasrag.services import require_neo4j, require_postgres

    require_postgres(settings.postgres_dsn)
    require_neo4j(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password))


def _configure_production(settings: Settings) -> None:
    """Point LightRAG's PG*/Neo4J storages at the settings' servers (call right before construction)."""
    from lucasrag.services import lightrag_env

    _install_pg_client_pools()
    _install_neo4j_batch_deletes()
    _install_workspace_vector_indexes()
    os.environ.update(
        lightrag_env(
            settings.postgres_dsn,
            settings.neo4j_uri,
            neo4j_user=settings.neo4j_user,
            neo4j_password=settings.neo4j_password,
        )
    )
    for var in ("WORKSPACE", "NEO4J_WORKSPACE", "POSTGRES_WORKSPACE"):
        os.environ.pop(var, None)
    _pg_target.set(_pg_config(settings.postgres_dsn))
