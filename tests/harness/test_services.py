"""The production services: PostgreSQL + pgvector and Neo4j, managed by lucasrag_harness.local_servers.

Uses the session fixtures ``postgres_server`` / ``neo4j_server`` (tests/services_fixtures.py,
imported by tests/conftest.py). The "down server" tests need no service and are not marked.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time

import pytest

from lucasrag_harness.local_servers import (
    Neo4jServer,
    PostgresServer,
    ServiceError,
    free_port,
    lightrag_env,
    require_neo4j,
    require_postgres,
    services_status,
    start_services,
    stop_services,
)

production = pytest.mark.production


# --------------------------------------------------------------------------- PostgreSQL


@production
def test_postgres_select_one(postgres_server):
    import psycopg

    with psycopg.connect(postgres_server.dsn) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    require_postgres(postgres_server.dsn)  # no error


@production
def test_pgvector_nearest_neighbour(postgres_server):
    import psycopg

    with psycopg.connect(postgres_server.dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS services_vec")
        conn.execute("CREATE TABLE services_vec (id int PRIMARY KEY, v vector(3))")
        conn.execute("INSERT INTO services_vec VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0,0,1]')")
        rows = conn.execute("SELECT id FROM services_vec ORDER BY v <-> '[0.1,0.9,0]' LIMIT 2").fetchall()
        assert [r[0] for r in rows] == [2, 1]
        version = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        assert version is not None
        conn.execute("DROP TABLE services_vec")


@production
def test_postgres_stop_and_restart_reuse_data_dir(server_tmp):
    import psycopg

    server = PostgresServer(server_tmp / "pg", free_port())
    try:
        server.start()
        assert server.status().running
        dsn = server.ensure_database("restart_check")
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE kept (v vector(2))")
            conn.execute("INSERT INTO kept VALUES ('[1,2]')")
        server.stop()
        assert not server.status().running
        with pytest.raises(ServiceError, match="PostgreSQL.*LUCASRAG_POSTGRES_DSN"):
            require_postgres(dsn, timeout=2)

        server.start()  # no initdb this time: the cluster is reused
        assert "initdb_s" in server.timings  # recorded by the first start only
        with psycopg.connect(dsn) as conn:
            assert conn.execute("SELECT v::text FROM kept").fetchone() == ("[1,2]",)
        server.start()  # idempotent while running
    finally:
        server.stop()
    assert not server.status().running


@production
def test_postgres_runs_with_the_buffer_cache_it_was_given(postgres_server):
    import psycopg

    if not postgres_server.managed:
        pytest.skip("external PostgreSQL")
    with psycopg.connect(postgres_server.dsn) as conn:
        assert conn.execute("SHOW shared_buffers").fetchone()[0] == postgres_server.server.shared_buffers == "1GB"


@pytest.mark.parametrize(
    ("given", "env", "expected"),
    [
        (None, None, "1GB"),  # the default
        (None, "256MB", "256MB"),  # LUCASRAG_PG_SHARED_BUFFERS
        ("2GB", "256MB", "2GB"),  # the argument wins
        (None, " 512MB ", "512MB"),
        ("1 GB", None, None),  # PostgreSQL's units take no space
        ("lots", None, None),
        (None, "0MB", None),
        (None, "1gb", None),  # PostgreSQL's units are case-sensitive
    ],
)
def test_postgres_buffer_cache_setting(monkeypatch, given, env, expected):
    from lucasrag_harness.local_servers.postgres import shared_buffers_setting

    if env is None:
        monkeypatch.delenv("LUCASRAG_PG_SHARED_BUFFERS", raising=False)
    else:
        monkeypatch.setenv("LUCASRAG_PG_SHARED_BUFFERS", env)
    if expected is None:
        with pytest.raises(ServiceError, match=r"LUCASRAG_PG_SHARED_BUFFERS=.* is not a PostgreSQL memory size"):
            shared_buffers_setting(given)
    else:
        assert shared_buffers_setting(given) == expected


@production
def test_postgres_port_taken_names_the_setting(postgres_server, tmp_path):
    if not postgres_server.managed:
        pytest.skip("external PostgreSQL")
    clash = PostgresServer(tmp_path / "clash", postgres_server.server.port)
    with pytest.raises(ServiceError, match=r"port \d+ .*already in use.*LUCASRAG_PG_PORT"):
        clash.start()


# --------------------------------------------------------------------------- Neo4j


@production
def test_neo4j_cypher_round_trip(neo4j_server):
    import neo4j

    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth) as driver:
        records, _, _ = driver.execute_query("CREATE (n:ServicesTest {x: 1}) RETURN n.x AS x", database_="neo4j")
        assert [r["x"] for r in records] == [1]
        driver.execute_query("MATCH (n:ServicesTest) DETACH DELETE n", database_="neo4j")
    require_neo4j(neo4j_server.uri, auth=neo4j_server.auth)


@production
def test_neo4j_port_taken_names_the_setting(neo4j_server, tmp_path):
    if not neo4j_server.managed:
        pytest.skip("external Neo4j")
    clash = Neo4jServer(tmp_path / "clash", neo4j_server.server.bolt_port)
    with pytest.raises(ServiceError, match=r"Neo4j.*port \d+.*already in use.*LUCASRAG_NEO4J_PORT"):
        clash.start()


# --------------------------------------------------------------------------- down servers (no service needed)


def test_down_postgres_error_names_service_and_setting():
    dsn = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    with pytest.raises(ServiceError) as err:
        require_postgres(dsn, timeout=2)
    message = str(err.value)
    assert "PostgreSQL" in message and "LUCASRAG_POSTGRES_DSN" in message and "LUCASRAG_PG_PORT" in message
    with pytest.raises(ServiceError, match="PostgreSQL is not configured: set LUCASRAG_POSTGRES_DSN"):
        require_postgres(None)


def test_down_neo4j_error_names_service_and_setting():
    uri = f"bolt://127.0.0.1:{free_port()}"
    with pytest.raises(ServiceError) as err:
        require_neo4j(uri, timeout=2)
    message = str(err.value)
    assert "Neo4j" in message and "LUCASRAG_NEO4J_URI" in message and "LUCASRAG_NEO4J_PORT" in message
    with pytest.raises(ServiceError, match="Neo4j is not configured: set LUCASRAG_NEO4J_URI"):
        require_neo4j("")


def test_bad_port_setting_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("LUCASRAG_PG_PORT", "fifty")
    with pytest.raises(ServiceError, match="LUCASRAG_PG_PORT='fifty'"):
        services_status(tmp_path)


def test_lightrag_env_from_dsn_and_uri():
    env = lightrag_env("postgresql://postgres@127.0.0.1:5555/lucasrag", "bolt://127.0.0.1:7697")
    assert env == {
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_PORT": "5555",
        "POSTGRES_USER": "postgres",
        "POSTGRES_PASSWORD": "unused",
        "POSTGRES_DATABASE": "lucasrag",
        "NEO4J_URI": "bolt://127.0.0.1:7697",
        "NEO4J_USERNAME": "neo4j",
        "NEO4J_PASSWORD": "unused",
        "NEO4J_DATABASE": "neo4j",
    }


# --------------------------------------------------------------------------- start_services / state file


@production
def test_start_services_postgres_only_writes_state(monkeypatch, server_tmp):
    monkeypatch.setenv("LUCASRAG_PG_PORT", str(free_port()))
    try:
        running = start_services(server_tmp, neo4j=False)
        assert running.postgres_dsn.endswith("/lucasrag")
        require_postgres(running.env()["LUCASRAG_POSTGRES_DSN"])
        state = json.loads((server_tmp / "services" / "state.json").read_text())
        assert state["postgres"]["port"] == running.postgres.port and state["postgres"]["pid"]
        assert services_status(server_tmp)["postgres"].running
    finally:
        stop_services(server_tmp, neo4j=False)
    assert not services_status(server_tmp)["postgres"].running


# --------------------------------------------------------------------------- LightRAG on the services


@production
def test_lightrag_storages_initialise_on_services(postgres_server, neo4j_server, monkeypatch, tmp_path):
    """PGKVStorage / PGVectorStorage / PGDocStatusStorage + Neo4JStorage initialise and finalise."""
    import numpy as np

    for key, value in {**postgres_server.lightrag_env(), **neo4j_server.lightrag_env()}.items():
        monkeypatch.setenv(key, value)
    for key in ("WORKSPACE", "POSTGRES_WORKSPACE", "NEO4J_WORKSPACE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)  # LightRAG reads ./config.ini and ./.env

    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc, Tokenizer

    class CharTokenizer:
        def encode(self, text: str) -> list[int]:
            return [ord(c) for c in text]

        def decode(self, ids: list[int]) -> str:
            return "".join(chr(i) for i in ids)

    async def embed(texts, **_):
        return np.ones((len(texts), 384), dtype=np.float32)

    async def no_llm(*_args, **_kwargs):
        raise RuntimeError("no LLM in this test")

    async def scenario():
        rag = LightRAG(
            working_dir=str(tmp_path / "rag"),
            workspace="technical",
            kv_storage="PGKVStorage",
            vector_storage="PGVectorStorage",
            graph_storage="Neo4JStorage",
            doc_status_storage="PGDocStatusStorage",
            embedding_func=EmbeddingFunc(embedding_dim=384, max_token_size=256, func=embed),
            tokenizer=Tokenizer("chars", CharTokenizer()),
            llm_model_func=no_llm,
        )
        await rag.initialize_storages()
        try:
            await rag.ainsert_custom_kg(
                {
                    "chunks": [{"content": "alpha beta", "source_id": "c1", "file_path": "a.md"}],
                    "entities": [
                        {"entity_name": "Alpha", "entity_type": "concept", "description": "first", "source_id": "c1"}
                    ],
                    "relationships": [],
                }
            )
            assert await rag.chunk_entity_relation_graph.has_node("Alpha")
        finally:
            await rag.finalize_storages()

    t0 = time.perf_counter()
    asyncio.run(scenario())
    assert time.perf_counter() - t0 < 120

    import psycopg

    with psycopg.connect(postgres_server.dsn) as conn:
        rows = conn.execute("SELECT workspace, count(*) FROM lightrag_vdb_chunks GROUP BY 1").fetchall()
    assert ("technical", 1) in rows


# --------------------------------------------------------------------------- Neo4j stop/restart (last: restarts the session server)


@production
def test_neo4j_stop_is_clean_and_restart_keeps_data(neo4j_server, tmp_path):
    """On a server of its own: the lifecycle is under test, not the session's shared server."""
    from lucasrag_harness.local_servers import free_port
    from lucasrag_harness.local_servers.neo4j import Neo4jServer

    if not neo4j_server.managed:
        pytest.skip("external Neo4j")
    server = Neo4jServer(tmp_path / "neo4j", free_port())
    server.start()
    try:
        _stop_and_restart(server, server.auth)  # its own password, not the session server's
    finally:
        server.stop()


def _stop_and_restart(server, auth) -> None:
    import neo4j

    with neo4j.GraphDatabase.driver(server.uri, auth=auth) as driver:
        driver.execute_query("MERGE (n:Persisted {x: 42})", database_="neo4j")
    pid = server.pid()
    assert pid is not None and server.status().running

    server.stop()
    assert server.pid() is None and not server.status().running
    log = server.logfile.read_text()
    assert log.rstrip().endswith("LUCASRAG_NEO4J_STOPPED"), log[-2000:]  # the shutdown hook completed
    with pytest.raises(ServiceError, match="Neo4j.*LUCASRAG_NEO4J_URI"):
        require_neo4j(server.uri, timeout=2)

    server.start()  # same data dir
    with neo4j.GraphDatabase.driver(server.uri, auth=auth) as driver:
        records, _, _ = driver.execute_query("MATCH (n:Persisted) RETURN n.x AS x", database_="neo4j")
        assert [r["x"] for r in records] == [42]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: PostgreSQL's system user and chown")
@pytest.mark.parametrize("in_group", [True, False])
def test_make_traversable_sets_the_bit_that_applies(tmp_path, in_group):
    """A folder whose group is the PostgreSQL user's is judged by its group bits: o+x alone would not let it in;
    a folder whose group has no rights becomes 0710 with the user's group, never o+x."""
    from lucasrag_harness.local_servers._process import _can_traverse, ensure_system_user, make_traversable
    from lucasrag_harness.local_servers.postgres import PG_USER

    user = ensure_system_user(PG_USER)
    folder = tmp_path / "private"
    (folder / "inner").mkdir(parents=True)
    os.chown(folder, 0, user.pw_gid if in_group else 0)
    folder.chmod(0o700)
    make_traversable(folder / "inner", user)
    assert _can_traverse(folder, user)
    st = folder.stat()
    # a member is let in by g+x; a rightless group is handed to the user's group (0710): others gain nothing
    assert st.st_mode & stat.S_IXGRP and st.st_gid == user.pw_gid and not st.st_mode & stat.S_IRWXO
