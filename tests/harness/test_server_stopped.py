"""PostgreSQL or Neo4j stopped under a running system (production profile): a query in a process that had its
indexes open (PostgreSQL), and an ingest stopped in the middle of its index steps (each server).

The query fails with the service and the setting named (``LUCASRAG_POSTGRES_DSN``), within a bound, never
a hang; the ingest's index step fails the same way; after the restart the next ingest heals (its chunk
rows equal those of a clean build). The PostgreSQL test runs a PostgreSQL of its own (the session's one serves the
Dagster instance here, so the run's own records survive the outage) and the session's Neo4j; the Neo4j test a
Neo4j of its own and the session's PostgreSQL. Every index step uses both servers, so the blast radius of an
outage is every index step that runs after it: each of those fails naming the server, the ones that finished
before it keep their update (``IngestFailed.updated``), and nothing outside the index steps is touched.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from lucasrag.services import ServiceError
from lucasrag_harness.local_servers import Neo4jServer, PostgresServer, free_port

pytestmark = [pytest.mark.slow, pytest.mark.production]

NOTES = {
    "tech/vacuum.md": "---\nworkspace: technical\n---\nPostgres vacuum tuning on the zebra cluster.\n",
    "journal/2026-05-01.md": "---\nworkspace: personal\n---\nTram 28 to Graça with Ellie; zebra crossing.\n",
    "admin/lease.md": "---\nworkspace: administrative\n---\nLisbon lease on zebra street; rent due on the first.\n",
}
QUERY_BOUND_S = 30  # a dead server must be reported well within this (the connect timeout is 5 s)


def test_postgres_stopped_under_a_query_and_an_ingest(
    tmp_path,
    server_tmp,
    postgres_server,
    neo4j_server,
    clean_neo4j,
    settings_for,
    monkeypatch,
    index_records,
    notes_vault,
    production_settings,
):
    from lucasrag_assets.ingest import dagster_postgres_url, run_ingest
    from lucasrag_harness.local_servers.postgres import ensure_database
    from lucasrag_query import query

    vault = notes_vault(tmp_path / "vault", NOTES)
    server = PostgresServer(server_tmp / "pg", free_port())
    server.start()
    try:
        _own_dagster_instance(tmp_path, postgres_server, monkeypatch, dagster_postgres_url, ensure_database)
        settings = settings_for(
            vault,
            tmp_path / "data",
            profile="production",
            postgres_dsn=server.ensure_database("lucasrag_stop"),
            neo4j_uri=neo4j_server.uri,
            neo4j_user=neo4j_server.user,
            neo4j_password=neo4j_server.password,
        )
        clean_neo4j(neo4j_server)
        run_ingest(settings)
        assert query("zebra", settings=settings).results  # the indexes are open in this process now

        server.stop()
        started = time.monotonic()
        with pytest.raises(ServiceError, match=r"PostgreSQL.*LUCASRAG_POSTGRES_DSN") as info:
            query("zebra", settings=settings)
        seconds = time.monotonic() - started
        assert seconds < QUERY_BOUND_S, f"the query took {seconds:.1f}s to report the dead server"
        assert server.password not in str(info.value)

        # Stopped in the middle of an ingest: the server goes away once the first index step runs.
        server.start()
        (vault / "tech/vacuum.md").write_text(NOTES["tech/vacuum.md"] + "\nautovacuum_naptime is 15s now.\n")
        (vault / "tech/new.md").write_text("---\nworkspace: technical\n---\nA new zebra-striped rack.\n")
        errors = _ingest_stopping_server_once_indexing(settings, server)
        assert errors and "PostgreSQL" in str(errors[0]) and "LUCASRAG_POSTGRES_DSN" in str(errors[0]), errors
        print(f"\nquery with PostgreSQL stopped: ServiceError after {seconds:.2f}s; ingest stopped: {errors[0]}")

        server.start()
        run_ingest(settings)  # heals
        healed = index_records(settings)
    finally:
        server.stop()

    clean = _clean_build(vault, tmp_path / "clean", production_settings, neo4j_server, clean_neo4j)
    assert healed == index_records(clean)


def test_neo4j_stopped_in_the_middle_of_an_ingest(
    tmp_path,
    server_tmp,
    postgres_server,
    neo4j_server,
    clean_neo4j,
    settings_for,
    monkeypatch,
    index_records,
    notes_vault,
    production_settings,
):
    from lucasrag.vocabulary import WORKSPACES
    from lucasrag_assets.ingest import IngestFailed, dagster_postgres_url, run_ingest
    from lucasrag_harness.local_servers.postgres import ensure_database

    vault = notes_vault(tmp_path / "vault", NOTES)
    _own_dagster_instance(tmp_path, postgres_server, monkeypatch, dagster_postgres_url, ensure_database)
    server = Neo4jServer(server_tmp / "neo4j", free_port())
    server.start()
    try:
        settings = settings_for(
            vault,
            tmp_path / "data",
            profile="production",
            postgres_dsn=ensure_database(postgres_server.admin_dsn, f"lucasrag_n4{uuid.uuid4().hex[:10]}"),
            neo4j_uri=server.uri,
            neo4j_user=server.user,
            neo4j_password=server.password,
        )
        run_ingest(settings)
        for rel, text in NOTES.items():  # a change in every workspace: each index step has work to do
            (vault / rel).write_text(text + "\nA new line about the okapi.\n")
        (vault / "writing").mkdir()
        (vault / "writing/ode.md").write_text("---\nworkspace: creative\n---\nAn ode to the zebra okapi.\n")
        errors = _ingest_stopping_server_once_indexing(settings, server)
        assert errors and isinstance(errors[0], IngestFailed), errors
        failed = errors[0]
        print(f"\nNeo4j stopped mid-ingest: {failed}")
        assert failed.failed and all(f.step.endswith("_index") for f in failed.failed), failed.failed
        for f in failed.failed:
            assert "Neo4j" in f.message and "LUCASRAG_NEO4J_URI" in f.message, f
            assert server.password not in f.message
        assert set(failed.workspaces) | set(failed.updated) == set(WORKSPACES)  # each index step ran or failed

        server.start()
        run_ingest(settings)  # heals
        healed = index_records(settings)
    finally:
        server.stop()

    clean = _clean_build(vault, tmp_path / "clean", production_settings, neo4j_server, clean_neo4j)
    assert healed == index_records(clean)


def _own_dagster_instance(tmp_path, postgres_server, monkeypatch, dagster_postgres_url, ensure_database) -> None:
    """The Dagster instance on the session's PostgreSQL (a server the test does not stop), without per-step
    log capture (its `tail` processes time out on a loaded machine and would fail the run for a reason that is
    not the one under test)."""
    dagster_db = ensure_database(postgres_server.admin_dsn, f"lucasrag_dg{uuid.uuid4().hex[:10]}")
    monkeypatch.setenv("LUCASRAG_DAGSTER_PG_URL", dagster_postgres_url(dagster_db))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    (tmp_path / "dagster").mkdir()
    (tmp_path / "dagster" / "dagster.yaml").write_text(
        "storage:\n  postgres:\n    postgres_url:\n      env: LUCASRAG_DAGSTER_PG_URL\n"
        "compute_logs:\n  module: dagster._core.storage.noop_compute_log_manager\n"
        "  class: NoOpComputeLogManager\ntelemetry:\n  enabled: false\n"
    )


def _index_step_started(instance, runs_before) -> bool:
    runs = [r for r in instance.get_runs(limit=3) if r.run_id not in runs_before]
    return bool(runs) and any(s.step_key.endswith("_index") for s in instance.get_run_step_stats(runs[0].run_id))


def _run(fn, settings, errors):
    try:
        fn(settings)
    except BaseException as exc:  # noqa: BLE001 — the test reads it
        errors.append(exc)


def _ingest_stopping_server_once_indexing(settings, server) -> list[BaseException]:
    """An ingest in a thread; ``server`` is stopped once its first index step has started. The run's errors."""
    from lucasrag_assets.ingest import open_instance, run_ingest

    errors: list[BaseException] = []
    with open_instance(settings) as instance:
        runs_before = {r.run_id for r in instance.get_runs()}
    worker = threading.Thread(target=lambda: _run(run_ingest, settings, errors))
    worker.start()
    with open_instance(settings) as instance:  # the run's records live on the session's PostgreSQL
        while worker.is_alive() and not _index_step_started(instance, runs_before):
            time.sleep(0.05)
    server.stop()
    worker.join(600)
    return errors


def _clean_build(vault, data, production_settings, neo4j_server, clean_neo4j):
    """The settings of a clean production build of ``vault`` on the session's servers."""
    from lucasrag_assets.ingest import run_ingest

    clean = production_settings(vault, data)
    clean_neo4j(neo4j_server)
    run_ingest(clean)
    return clean
