"""The production profile (PostgreSQL + pgvector, Neo4j, Dagster on PostgreSQL): what only it has —
the migration from the embedded profile, the rows it writes, workspace isolation in both servers,
down servers named with their setting, masked secrets, the services command.

The behavioural checks the two profiles share are written once, in the embedded suite's own files
(tests/query/test_query.py, tests/assets/test_incremental.py, tests/query/test_graph.py), and run on both through the
profile-parametrised fixtures of tests/profile_fixtures.py (``profile_ingested``, ...). Neo4j has a
single database (Community edition): the tests that write graphs clear it first and run after the
read-only ones (pytest keeps file order for function-scoped fixtures).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import numpy as np
import pytest

from lucasrag.index import index_exists, open_chunk_store, open_workspace_index
from lucasrag.settings import Settings
from lucasrag.vocabulary import WORKSPACES, ChunkRecord
from lucasrag_harness.local_servers import ServiceError, free_port

pytestmark = pytest.mark.slow
production = pytest.mark.production

# --------------------------------------------------------------------------- helpers


def records_of(settings: Settings, workspace: str) -> list[ChunkRecord]:
    store = open_chunk_store(settings, workspace)
    try:
        return store.all_records()
    finally:
        store.close()


def pg_rows(dsn: str, sql: str, params=()) -> list[tuple]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        return conn.execute(sql, params).fetchall()


def neo4j_nodes(neo4j_server, label: str | None = None) -> set[tuple]:
    """(labels, entity_id, description) of every node (of ``label``)."""
    import neo4j

    match = f"MATCH (n:`{label}`)" if label else "MATCH (n)"
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth) as driver:
        records, _, _ = driver.execute_query(
            f"{match} RETURN labels(n) AS labels, n.entity_id AS id, n.description AS d", database_="neo4j"
        )
    return {(tuple(sorted(r["labels"])), r["id"], r["d"]) for r in records}


def workspace_rows(dsn: str, workspace: str) -> dict[str, list]:
    """Every row of ``workspace`` in every LightRAG / LucasRAG table (sorted, comparable)."""
    tables = [
        t
        for (t,) in pg_rows(
            dsn,
            "SELECT table_name FROM information_schema.columns "
            "WHERE column_name = 'workspace' AND table_schema = 'public'",
        )
    ]
    out = {}
    for table in sorted(tables):
        cols = [
            c
            for (c,) in pg_rows(
                dsn,
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
                "AND data_type NOT LIKE 'timestamp%%' ORDER BY ordinal_position",
                (table,),
            )
            if c not in ("update_time", "create_time", "updated_at", "created_at")
        ]
        select = ", ".join(f'"{c}"::text' for c in cols)
        out[table] = sorted(pg_rows(dsn, f'SELECT {select} FROM "{table}" WHERE workspace = %s', (workspace,)))
    return out


# --------------------------------------------------------------------------- read-only: the ingested sample vault


@production
def test_both_profiles_index_the_same_chunks(ingested, production_ingested, neo4j_server):
    production_settings_, _ = production_ingested
    for ws in WORKSPACES:
        embedded, prod = records_of(ingested, ws), records_of(production_settings_, ws)
        assert embedded, ws
        assert [r.chunk_id for r in prod] == [r.chunk_id for r in embedded], ws
        assert prod == embedded, ws  # band, date, charged, path, text, hash too
        ids = [r.chunk_id for r in embedded]
        for settings in (ingested, production_settings_):
            store = open_chunk_store(settings, ws)
            try:
                vectors = store.vectors(ids)
                fingerprints = store.doc_fingerprints()
            finally:
                store.close()
            if settings is ingested:
                want_vectors, want_fingerprints = vectors, fingerprints
        np.testing.assert_allclose(vectors, want_vectors, atol=1e-6)
        assert fingerprints == want_fingerprints

        async def lightrag_holds(ids=ids, ws=ws):
            index = await open_workspace_index(production_settings_, ws)
            try:
                return await index.stored_chunks(ids), await index.stored_vectors(ids)
            finally:
                await index.close()

        texts, vector_ids = asyncio.run(lightrag_holds())
        assert set(texts) == set(ids) and vector_ids == set(ids), ws

    # Where the rows went: one vector table suffixed by model and dimension, a workspace column everywhere.
    dsn = production_settings_.postgres_dsn
    counts = dict(pg_rows(dsn, "SELECT workspace, count(*) FROM lightrag_vdb_chunks_all_minilm_l6_v2_384d GROUP BY 1"))
    assert counts == {ws: len(records_of(ingested, ws)) for ws in WORKSPACES}
    assert {ws for (ws,) in pg_rows(dsn, "SELECT DISTINCT workspace FROM lucasrag_chunks")} == set(WORKSPACES)
    if production_settings_.graph:  # the entity graph (LUCASRAG_GRAPH) is in Neo4j, one label per workspace
        labels = {label for labels, _, _ in neo4j_nodes(neo4j_server) for label in labels}
        assert set(WORKSPACES) <= labels


@production
def test_migration_to_production_embedded_nothing(production_ingested):
    """``lucasrag migrate --to production`` (the fixture) ran the model on no text at all."""
    _, summary = production_ingested
    assert (summary.source_profile, summary.target_profile) == ("embedded", "production")
    assert set(summary.ingest.index_metadata) == set(WORKSPACES)
    for ws, meta in summary.ingest.index_metadata.items():
        assert meta["documents_added"] == meta["documents"] > 0, ws
        assert meta["texts_embedded"] == 0 and meta.get("graph_texts_embedded", 0) == 0, ws


@production
def test_dagster_runs_are_recorded_in_postgres(production_ingested):
    settings, summary = production_ingested
    home = Path(settings.data).parent / "dagster"
    assert "postgres_url" in (home / "dagster.yaml").read_text()
    assert not list(home.rglob("*.db")), "the production instance must not fall back to SQLite"
    runs = pg_rows(settings.postgres_dsn, "SELECT status FROM runs")
    assert runs and all(status == "SUCCESS" for (status,) in runs)
    assert pg_rows(settings.postgres_dsn, "SELECT count(*) FROM event_logs")[0][0] > 0


# --------------------------------------------------------------------------- tests that write (Neo4j cleared first)


def _note(workspace: str, doc: str, text: str) -> ChunkRecord:
    return ChunkRecord(
        chunk_id=f"{doc}-chunk-000",
        doc_id=doc,
        workspace=workspace,
        path=f"{workspace}/{doc}.md",
        chunk_index=0,
        text=text,
        band="present",
        band_rule="undated",
        date=None,
        charged=(),
        content_hash=doc,
    )


@production
def test_workspaces_are_isolated_in_postgres_and_neo4j(
    ingested, tmp_path, neo4j_server, production_settings, clean_neo4j
):
    """The same entity in two workspaces is two Neo4j nodes (one label each); emptying and rebuilding
    one workspace leaves every PostgreSQL row and Neo4j node of the other as it was."""
    from lucasrag.embedding_cache import EmbeddingCache
    from lucasrag.index import sync_workspace

    clean_neo4j(neo4j_server)
    shutil.copy(ingested.data / "embeddings.sqlite", tmp_path / "embeddings.sqlite")
    settings = production_settings(tmp_path / "vault", tmp_path, graph=True)
    text = "Moved to [[Lisbon]] with Ana. Lisbon has good light in winter."
    notes = {"technical": [_note("technical", "t1", text)], "personal": [_note("personal", "p1", text + " I miss it.")]}

    def sync(ws, records):
        cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
        try:
            return asyncio.run(sync_workspace(settings, ws, records, {r.doc_id: r.text for r in records}, cache))
        finally:
            cache.close()

    for ws, records in notes.items():
        sync(ws, records)
    lisbon = sorted((labels, d) for labels, name, d in neo4j_nodes(neo4j_server) if name == "Lisbon")
    assert len(lisbon) == 2, lisbon
    assert [("personal" in labels, "technical" in labels) for labels, _ in lisbon].count((True, False)) == 1
    assert [("personal" in labels, "technical" in labels) for labels, _ in lisbon].count((False, True)) == 1

    dsn = settings.postgres_dsn
    before_rows, before_nodes = workspace_rows(dsn, "personal"), neo4j_nodes(neo4j_server, "personal")
    assert before_rows["lucasrag_chunks"] and before_nodes

    sync("technical", [])  # the workspace emptied (every document gone) ...
    assert not neo4j_nodes(neo4j_server, "technical")
    assert not any(workspace_rows(dsn, "technical").get(t) for t in ("lucasrag_chunks", "lucasrag_docs"))
    assert not index_exists(settings, "technical")
    assert workspace_rows(dsn, "personal") == before_rows and neo4j_nodes(neo4j_server, "personal") == before_nodes

    sync("technical", notes["technical"])  # ... and rebuilt
    assert index_exists(settings, "technical") and neo4j_nodes(neo4j_server, "technical")
    assert workspace_rows(dsn, "personal") == before_rows and neo4j_nodes(neo4j_server, "personal") == before_nodes


# --------------------------------------------------------------------------- servers down, secrets, commands


@production
def test_a_down_server_is_named_with_its_setting(tmp_path, postgres_server, neo4j_server, settings_for, copy_vault):
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_query import query

    dead = f"postgresql://postgres:hunter2@127.0.0.1:{free_port()}/lucasrag"
    no_pg = settings_for(
        copy_vault(tmp_path / "vault"),
        tmp_path / "data",
        profile="production",
        postgres_dsn=dead,
        neo4j_uri=neo4j_server.uri,
    )
    for attempt in (
        lambda: asyncio.run(open_workspace_index(no_pg, "technical")),
        lambda: query("where do I live?", settings=no_pg),
        lambda: run_ingest(no_pg),
    ):
        with pytest.raises(ServiceError, match=r"PostgreSQL.*LUCASRAG_POSTGRES_DSN") as info:
            attempt()
        assert "hunter2" not in str(info.value)

    no_neo4j = settings_for(
        tmp_path / "vault",
        tmp_path / "data",
        profile="production",
        postgres_dsn=postgres_server.dsn,
        neo4j_uri=f"bolt://127.0.0.1:{free_port()}",
    )
    for attempt in (lambda: asyncio.run(open_workspace_index(no_neo4j, "technical")), lambda: run_ingest(no_neo4j)):
        with pytest.raises(ServiceError, match=r"Neo4j.*LUCASRAG_NEO4J_URI"):
            attempt()

    unset = settings_for(tmp_path / "vault", tmp_path / "data", profile="production")
    with pytest.raises(ServiceError, match="LUCASRAG_POSTGRES_DSN"):
        asyncio.run(open_workspace_index(unset, "technical"))


def test_embedding_cache_is_seeded_from_a_chunk_store(ingested, tmp_path):
    """``migrate``'s first step: every chunk vector of the source index lands in the cache (no model)."""
    from lucasrag.embedding_cache import EmbeddingCache
    from lucasrag_assets.migrate import seed_embedding_cache

    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    try:
        seeded = seed_embedding_cache(ingested, cache)
        records = [r for ws in WORKSPACES for r in records_of(ingested, ws)]
        assert sum(seeded.values()) == len({r.text for r in records})
        vectors = cache.embed([r.text for r in records])
        assert cache.misses == 0
        store = open_chunk_store(ingested, "personal")
        try:
            personal = [r for r in records if r.workspace == "personal"]
            want = store.vectors([r.chunk_id for r in personal])
        finally:
            store.close()
        np.testing.assert_allclose(vectors[[r.workspace == "personal" for r in records]], want)
        assert seed_embedding_cache(ingested, cache) == {ws: 0 for ws in WORKSPACES}
    finally:
        cache.close()


def test_secrets_are_masked(tmp_path, monkeypatch, settings_for):
    import json

    from typer.testing import CliRunner

    from lucasrag.settings import mask_secrets
    from lucasrag_cli import app

    settings = settings_for(
        tmp_path,
        tmp_path,
        profile="production",
        neo4j_password="s3cret",
        postgres_dsn="postgresql://app:s3cret@127.0.0.1:1/db",
        neo4j_uri="bolt://u:s3cret@h:1",
    )
    assert "s3cret" not in repr(settings) and "app:***@" in repr(settings)
    assert mask_secrets("host=h password=s3cret dbname=d") == "host=h password=*** dbname=d"
    monkeypatch.setenv("LUCASRAG_DATA", str(tmp_path))
    monkeypatch.setenv("LUCASRAG_POSTGRES_DSN", settings.postgres_dsn)
    monkeypatch.setenv("LUCASRAG_NEO4J_PASSWORD", "s3cret")
    result = CliRunner().invoke(app, ["services", "status", "--json"])
    assert result.exit_code == 0, result.output
    assert "s3cret" not in result.output
    configured = json.loads(result.output)["configured"]
    assert configured["postgres_dsn"] == "postgresql://app:***@127.0.0.1:1/db"
    assert configured["postgres_reachable"].startswith("no: PostgreSQL is not reachable")


def test_dagster_home_follows_the_profile(tmp_path, monkeypatch, settings_for, repo):
    import yaml
    from dagster import DagsterInstance

    from lucasrag_assets.ingest import dagster_home, dagster_postgres_url

    monkeypatch.delenv("DAGSTER_HOME")
    embedded = settings_for(tmp_path, tmp_path / "data")
    production_ = settings_for(tmp_path, tmp_path / "data", profile="production", postgres_dsn="postgresql://p@h:5/d")
    config = dagster_home(embedded) / "dagster.yaml"
    assert "storage" not in yaml.safe_load(config.read_text())
    no_compute_logs = {"module": "dagster._core.storage.noop_compute_log_manager", "class": "NoOpComputeLogManager"}
    assert yaml.safe_load(config.read_text())["compute_logs"] == no_compute_logs
    dagster_home(production_)
    assert yaml.safe_load(config.read_text()) == yaml.safe_load((repo / "dagster.production.yaml").read_text())
    assert yaml.safe_load(config.read_text())["compute_logs"] == no_compute_logs  # no `tail` per step
    dagster_home(embedded)  # back: ours to rewrite
    assert "storage" not in yaml.safe_load(config.read_text())
    earlier = (
        "storage:\n  postgres:\n    postgres_url:\n      env: LUCASRAG_DAGSTER_PG_URL\ntelemetry:\n  enabled: false\n"
    )
    config.write_text(earlier)  # what an earlier version wrote: still ours
    dagster_home(production_)
    assert yaml.safe_load(config.read_text())["compute_logs"] == no_compute_logs
    earlier_embedded = (
        "telemetry:\n  enabled: false\ncompute_logs:\n  module: dagster._core.storage.noop_compute_log_manager\n"
        "  class: NoOpComputeLogManager\n"
    )
    config.write_text(earlier_embedded)  # before the queue's interval: still ours
    dagster_home(embedded)
    assert yaml.safe_load(config.read_text())["run_coordinator"]["config"] == {"dequeue_interval_seconds": 1}
    with DagsterInstance.from_config(str(config.parent)) as instance:  # Dagster reads it as meant
        assert instance.run_coordinator.dequeue_interval_seconds == 1
    config.write_text("telemetry:\n  enabled: true\n")  # someone's own: left alone
    dagster_home(production_)
    assert config.read_text() == "telemetry:\n  enabled: true\n"
    assert dagster_postgres_url("postgresql://p:x@h:5/d") == "postgresql+psycopg2://p:x@h:5/d"
    assert dagster_postgres_url("host=h port=5 user=p dbname=d") == "postgresql+psycopg2://p@h:5/d"


@production
def test_services_cli_start_status_stop(server_tmp, monkeypatch):
    """`lucasrag services start` prints the settings to export; status and stop find the server."""
    from typer.testing import CliRunner

    from lucasrag_cli import app

    monkeypatch.setenv("LUCASRAG_DATA", str(server_tmp / "data"))
    monkeypatch.setenv("LUCASRAG_PG_PORT", str(free_port()))
    runner = CliRunner()
    try:
        started = runner.invoke(app, ["services", "start", "--no-neo4j"])
        assert started.exit_code == 0, started.output
        exports = dict(
            line.removeprefix("export ").split("=", 1)
            for line in started.stdout.splitlines()
            if line.startswith("export ")
        )
        assert exports["LUCASRAG_PROFILE"] == "production"
        # the password stays in its 0600 file: the line names the file, eval reads it
        assert exports["LUCASRAG_POSTGRES_DSN"].startswith('"postgresql://postgres:$(cat ')
        assert exports["LUCASRAG_DAGSTER_PG_URL"].startswith('"postgresql+psycopg2://postgres:$(cat ')
        status = runner.invoke(app, ["services", "status", "--json"])
        assert '"running": true' in status.stdout
    finally:
        stopped = runner.invoke(app, ["services", "stop", "--no-neo4j"])
    assert stopped.exit_code == 0, stopped.output
