"""On PostgreSQL each workspace's chunk vectors have an HNSW index of their own (a partial index), and a search
of one workspace is planned on it: with one index over every workspace's rows, a search filtered that index's
candidates by workspace or, past a few dozen rows, scanned all of the workspace's rows (both grew with the
vault). A database of an earlier version loses the index over every workspace at its first open."""

from __future__ import annotations

import asyncio

import numpy as np
import psycopg
import pytest

from lucasrag.embedding import DIM
from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.index import open_workspace_index, sync_workspace
from lucasrag.index._lightrag._production import workspace_index_name

pytestmark = pytest.mark.production

#: LightRAG's chunk vector table for the default model, and its search (``SQL_TEMPLATES["chunks"]``).
TABLE = "lightrag_vdb_chunks_all_minilm_l6_v2_384d"
ENTITIES = "lightrag_vdb_entity_all_minilm_l6_v2_384d"
SEARCH = (
    f"SELECT id FROM {TABLE} WHERE workspace = $1 AND content_vector <=> $4::vector < $2"
    " ORDER BY content_vector <=> $4::vector LIMIT $3"
)


def _indexes(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE indexdef ILIKE %s", ("%using hnsw%",)
        ).fetchall()
    return {name: f"{table}: {definition}" for table, name, definition in rows}


@pytest.fixture
def settings(production_settings, tmp_path):
    return production_settings(tmp_path / "vault", tmp_path / "data", graph=False)


async def _fill(settings, present_chunks, workspaces: dict[str, int]) -> None:
    cache = EmbeddingCache(settings.data / "embeddings.sqlite")
    rng = np.random.default_rng(7)
    for workspace, n in workspaces.items():
        records = present_chunks(workspace, [f"{workspace} note {i}" for i in range(n)])
        vectors = rng.normal(size=(n, DIM)).astype(np.float32)
        cache.put([r.text for r in records], vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
        await sync_workspace(settings, workspace, records, {r.doc_id: r.text for r in records}, cache)
    cache.close()


async def _plan(settings, workspace: str) -> str:
    """The plan of a one-workspace search as LightRAG's pooled connections make it (a prepared statement, the
    pool's session settings), exact scans switched off so that only an index can answer."""
    index = await open_workspace_index(settings, workspace)
    try:
        async with index._rag.chunks_vdb.db.pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL enable_seqscan = off")
            await conn.execute("SET LOCAL enable_bitmapscan = off")
            vector = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM)
            rows = await conn.fetch("EXPLAIN " + SEARCH, workspace, 2.0, 5, vector)
        return "\n".join(r[0] for r in rows)
    finally:
        await index.close()


async def _search(settings, workspace: str, k: int) -> list[str]:
    index = await open_workspace_index(settings, workspace)
    try:
        hits = await index.search("personal note", k, query_vector=np.ones(DIM, dtype=np.float32) / np.sqrt(DIM))
        return [h.chunk_id for h in hits]
    finally:
        await index.close()


def test_each_workspace_has_its_own_index_and_a_search_uses_it(settings, present_chunks):
    asyncio.run(_fill(settings, present_chunks, {"personal": 40, "creative": 30}))
    indexes = _indexes(settings.postgres_dsn)
    for workspace in ("personal", "creative"):
        definition = indexes.get(workspace_index_name(TABLE, workspace), f"none among {indexes}")
        assert definition.startswith(f"{TABLE}:") and f"WHERE ((workspace)::text = '{workspace}'::text)" in definition
    # no index over every workspace's rows, and none on the entity and relation vectors (never searched)
    assert len(indexes) == 2, indexes
    plan = asyncio.run(_plan(settings, "personal"))
    assert f"Index Scan using {workspace_index_name(TABLE, 'personal')}" in plan, plan
    found = asyncio.run(_search(settings, "personal", 5))
    assert len(found) == 5 and all(i.startswith("personal-") for i in found)


def test_an_earlier_databases_index_over_every_workspace_goes_at_the_first_open(settings, present_chunks):
    asyncio.run(_fill(settings, present_chunks, {"personal": 10}))
    with psycopg.connect(settings.postgres_dsn, autocommit=True) as conn:
        conn.execute(f"DROP INDEX {workspace_index_name(TABLE, 'personal')}")
        conn.execute(f"CREATE INDEX earlier_hnsw_cosine ON {TABLE} USING hnsw (content_vector vector_cosine_ops)")
        entities = ENTITIES  # never searched by vector: its index only slowed every write
        conn.execute(f"CREATE INDEX earlier_entities_hnsw ON {entities} USING hnsw (content_vector vector_cosine_ops)")
    assert set(_indexes(settings.postgres_dsn)) == {"earlier_hnsw_cosine", "earlier_entities_hnsw"}

    asyncio.run(_search(settings, "personal", 3))  # any open of the workspace, a query's included
    assert set(_indexes(settings.postgres_dsn)) == {workspace_index_name(TABLE, "personal")}
