"""The ``ingest`` job can leave the process: Dagster's multiprocess executor, every step in a process of
its own, gives the production indexes the in-process run gives.

Each step process loads the code location afresh (``reconstructable``), rebuilds its settings from the
run config (secrets from its environment, as a Kubernetes pod would from a Secret) and reads its inputs
from the data folder; nothing passes between steps in memory, module globals or environment variables.
"""

from __future__ import annotations

import shutil
import uuid

import polars as pl
import pytest

from lucasrag.index.stores import open_chunk_store
from lucasrag.settings import ENV_VARS, SECRET_FIELDS, Settings
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.io_manager import asset_value_path
from lucasrag_harness.local_servers.postgres import ensure_database

pytestmark = [pytest.mark.slow, pytest.mark.production]


def graph_counts(neo4j_server) -> dict[str, tuple[int, int]]:
    """Per workspace label: (entity nodes, relations)."""
    import neo4j

    out = {}
    with neo4j.GraphDatabase.driver(neo4j_server.uri, auth=neo4j_server.auth) as driver:
        for ws in WORKSPACES:
            records, _, _ = driver.execute_query(
                f"MATCH (n:`{ws}`) OPTIONAL MATCH (n)-[r]-(:`{ws}`) RETURN count(DISTINCT n) AS n, count(DISTINCT r) AS r",
                database_="neo4j",
            )
            out[ws] = (records[0]["n"], records[0]["r"])
    return out


def indexes_of(settings: Settings, summary, neo4j_server) -> dict:
    """What must be equal: every chunk record (id, band, charged, date, text, hash), the catalog, the
    index assets' counts (timings left out) and the graph in Neo4j."""
    records = {}
    for ws in WORKSPACES:
        store = open_chunk_store(settings, ws)
        try:
            records[ws] = store.all_records()
        finally:
            store.close()
    counts = {
        ws: {k: v for k, v in meta.items() if not k.endswith("_seconds")} for ws, meta in summary.index_metadata.items()
    }
    catalog = pl.read_parquet(asset_value_path(settings.data, ["note_catalog"]))
    return {"records": records, "counts": counts, "catalog": catalog.to_dicts(), "graph": graph_counts(neo4j_server)}


def test_multiprocess_run_gives_the_in_process_indexes(
    ingested, tmp_path, monkeypatch, postgres_server, neo4j_server, clean_neo4j, capsys, copy_vault, settings_for
):
    vault = copy_vault(tmp_path / "vault")
    runs = {}
    for mode in ("in_process", "multiprocess"):
        data = tmp_path / mode
        data.mkdir()
        shutil.copy(ingested.data / "embeddings.sqlite", data / "embeddings.sqlite")  # no model time
        settings = settings_for(
            vault,
            data,
            profile="production",
            graph=True,
            postgres_dsn=ensure_database(postgres_server.admin_dsn, f"lucasrag_mp{uuid.uuid4().hex[:10]}"),
            neo4j_uri=neo4j_server.uri,
            neo4j_user=neo4j_server.user,
            neo4j_password=neo4j_server.password,
        )
        for name in SECRET_FIELDS:  # as a deployment gives secrets: in the environment of every process
            if getattr(settings, name):
                monkeypatch.setenv(ENV_VARS[name], getattr(settings, name))
        monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / f"dagster-{mode}"))
        clean_neo4j(neo4j_server)  # Community edition: one database, cleared between the two runs
        summary = run_ingest(settings, multiprocess=mode == "multiprocess")
        runs[mode] = (summary, indexes_of(settings, summary, neo4j_server))

    in_process, multiprocess = runs["in_process"][1], runs["multiprocess"][1]
    assert all(in_process["records"][ws] for ws in WORKSPACES)
    assert sum(n for n, _ in in_process["graph"].values()) > 0
    assert sum(1 for r in in_process["catalog"] if r["charged"]) > 0
    for part in ("records", "counts", "catalog", "graph"):
        assert multiprocess[part] == in_process[part], part

    in_steps, mp_steps = runs["in_process"][0].step_seconds, runs["multiprocess"][0].step_seconds
    assert set(mp_steps) == set(in_steps)
    with capsys.disabled():  # the figure docs/production.md quotes
        print(
            f"\ningest of the sample vault, production profile, warm embedding cache: in-process "
            f"{runs['in_process'][0].seconds:.1f}s, multiprocess {runs['multiprocess'][0].seconds:.1f}s "
            f"({len(mp_steps)} steps)"
        )
