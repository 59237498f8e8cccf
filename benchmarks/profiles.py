"""Embedded vs production profile, side by side (a benchmark, not a test).

    python benchmarks/profiles.py --notes 1000                 # entity graph on (LUCASRAG_GRAPH=1)
    python benchmarks/profiles.py --notes 1000 --no-graph      # chunks only (the pipeline's default)
    python benchmarks/profiles.py --notes 10000 --keep /tmp/p10k

Measures, on a generated vault (``lucasrag_harness.evaluation.vault_generator``):

* service start: PostgreSQL (initdb included) and Neo4j, cold (fresh data
  dir) and warm (stopped, started again on the same data dir);
* ingest: a cold ingest on the embedded profile (fills the embedding cache:
  mostly model time), then a full ingest on each profile from the warm cache
  (the storage cost: what differs between the profiles), then a re-ingest with
  nothing changed;
* query latency p50/p95 over the same queries on both profiles, each in a fresh
  process that keeps its opened indexes (as a long-lived assistant process
  would), after one warm-up query; and how far the two profiles' top 10 agree.

The services are started under the run's folder on free ports and stopped at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import os
import shutil
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lucasrag.index import open_chunk_store  # noqa: E402
from lucasrag.settings import Settings  # noqa: E402
from lucasrag.vocabulary import WORKSPACES  # noqa: E402
from lucasrag_assets.ingest import run_ingest  # noqa: E402
from lucasrag_harness.local_servers import free_port, start_services, stop_services  # noqa: E402
from lucasrag_query import query  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import QUERIES, pct  # noqa: E402


def timed_ingest(settings: Settings, label: str) -> dict:
    summary = run_ingest(settings)
    index_steps = {k: v for k, v in summary.step_seconds.items() if k.endswith("_index")}
    meta = summary.index_metadata
    row = {
        "label": label,
        "seconds": summary.seconds,
        "index_seconds": sum(index_steps.values()),
        "embedded": sum(m.get("texts_embedded", 0) + m.get("graph_texts_embedded", 0) for m in meta.values()),
        "chunks": sum(m.get("chunks", 0) for m in meta.values()),
        "entities": sum(m.get("graph_entities", 0) for m in meta.values()),
    }
    print(
        f"  {label}: {row['seconds']:.1f}s (index steps {row['index_seconds']:.1f}s, {row['embedded']} texts embedded)",
        flush=True,
    )
    return row


def time_queries(settings: Settings, rounds: int) -> dict:
    """Latency of each query (ms) and its top-10 chunk ids, in THIS process."""
    query("warm-up", settings=settings)  # open the four indexes, load the model
    times, top = [], {}
    for _ in range(rounds):
        for q in QUERIES:
            t0 = time.perf_counter()
            result = query(q, settings=settings)
            times.append((time.perf_counter() - t0) * 1000)
            top[q] = [r.chunk_id for r in result.results[:10]]
    return {"times": times, "top": top}


def time_queries_in_fresh_process(settings: Settings, rounds: int) -> dict:
    """As an assistant's process would see it: a process that has not just run five ingests
    (Dagster leaves threads and pools behind that slowed queries measured in-process ~10×)."""
    import json
    import subprocess

    env = {
        **os.environ,
        "LUCASRAG_VAULT": str(settings.vault),
        "LUCASRAG_DATA": str(settings.data),
        "LUCASRAG_NOW": settings.now.isoformat(),
        "LUCASRAG_PROFILE": settings.profile,
        "LUCASRAG_GRAPH": "1" if settings.graph else "0",
    }
    if settings.profile == "production":
        env.update(LUCASRAG_POSTGRES_DSN=settings.postgres_dsn, LUCASRAG_NEO4J_URI=settings.neo4j_uri)
    out = subprocess.run(
        [sys.executable, __file__, "--time-queries", "--rounds", str(rounds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def service_starts(root: Path) -> tuple[dict, dict, object]:
    """Start twice (the second time on the data dirs the first left); a fresh database and an empty
    Neo4j for this run, so a kept folder never measures a no-op."""
    import neo4j

    os.environ["LUCASRAG_PG_PORT"] = str(free_port())
    os.environ["LUCASRAG_NEO4J_PORT"] = str(free_port())
    fresh = not (root / "services").exists()
    cold = start_services(root, database="lucasrag_bench")
    print(f"  first start{'' if fresh else ' (data dirs existed)'}: {cold.timings}", flush=True)
    stop_services(root)
    warm = start_services(root, database=f"lucasrag_bench_{uuid.uuid4().hex[:8]}")
    print(f"  warm start: {warm.timings}", flush=True)
    with neo4j.GraphDatabase.driver(warm.neo4j_uri, auth=warm.neo4j.auth) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n", database_="neo4j")
    return cold.timings, warm.timings, warm


def close_query_indexes() -> None:
    """Close what query() keeps open (before the servers go away)."""
    from lucasrag_query import _indexes, _loop

    _loop.run(_indexes.close_all())


def storage_sizes(embedded: Settings, production: Settings) -> tuple[float, float, int]:
    import neo4j
    import psycopg

    index_mb = sum(p.stat().st_size for p in embedded.index_dir.rglob("*") if p.is_file()) / 1e6
    with psycopg.connect(production.postgres_dsn) as conn:
        pg_mb = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0] / 1e6
    with neo4j.GraphDatabase.driver(
        production.neo4j_uri, auth=(production.neo4j_user, production.neo4j_password)
    ) as driver:
        records, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS n", database_="neo4j")
    return index_mb, pg_mb, records[0]["n"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-graph", action="store_true", help="LUCASRAG_GRAPH=0: chunks only")
    parser.add_argument("--keep", type=Path, help="work here (kept; a generated vault there is reused)")
    parser.add_argument("--time-queries", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.time_queries:
        import json

        print(json.dumps(time_queries(Settings.from_env(), args.rounds)))
        return
    logging.getLogger("alembic").setLevel(logging.WARNING)

    root = (args.keep or Path(tempfile.mkdtemp(prefix="lucasrag-profiles-"))).resolve()
    root.mkdir(parents=True, exist_ok=True)
    vault = root / "vault"
    if not vault.exists():
        from lucasrag_harness.evaluation.vault_generator import generate_vault

        generate_vault(vault, args.notes, seed=7)
    os.environ["DAGSTER_HOME"] = str(root / "dagster")  # one instance, rewritten per profile by run_ingest
    embedded = Settings(vault=vault, data=root / "data", now=dt.date(2026, 6, 1), graph=not args.no_graph)

    print(f"services under {root / 'services'}:", flush=True)
    cold, warm, running = service_starts(root)
    production = replace(
        embedded,
        profile="production",
        postgres_dsn=running.postgres_dsn,
        neo4j_uri=running.neo4j_uri,
        neo4j_password=running.neo4j.password,
    )
    try:
        print("ingest:", flush=True)
        for path in (embedded.index_dir, embedded.data / "graph"):
            shutil.rmtree(path, ignore_errors=True)
        rows = [timed_ingest(embedded, "embedded, first ingest (cache as found)")]
        for path in (embedded.index_dir, embedded.data / "graph"):
            shutil.rmtree(path, ignore_errors=True)
        rows.append(timed_ingest(embedded, "embedded, warm cache"))
        rows.append(timed_ingest(production, "production, warm cache"))
        rows.append(timed_ingest(embedded, "embedded, nothing changed"))
        rows.append(timed_ingest(production, "production, nothing changed"))

        print("queries:", flush=True)
        measured = {
            name: time_queries_in_fresh_process(s, args.rounds)
            for name, s in (("embedded", embedded), ("production", production))
        }
        latency = {name: m["times"] for name, m in measured.items()}
        # Same vectors, same ranking: results differ only where pgvector's HNSW scan is approximate.
        agreement = []
        for q in QUERIES:
            a, b = measured["embedded"]["top"][q], measured["production"]["top"][q]
            agreement.append(len(set(a) & set(b)) / max(1, len(a)))
        index_mb, pg_mb, nodes = storage_sizes(embedded, production)
        chunks = sum(open_chunk_store(embedded, ws).counts()[1] for ws in WORKSPACES)
    finally:
        close_query_indexes()
        stop_services(root)

    graph = "graph off" if args.no_graph else "graph on"
    print(
        f"\n### {args.notes} generated notes, {chunks} chunks, {graph} "
        f"({os.cpu_count()} CPUs; {len(QUERIES)} queries × {args.rounds} rounds)\n"
    )
    print("| ingest | seconds | index steps s | texts embedded | chunks | entities |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['label']} | {r['seconds']:.1f} | {r['index_seconds']:.1f} | {r['embedded']} | {r['chunks']} "
            f"| {r['entities']} |"
        )
    print("\n| query | p50 ms | p95 ms |")
    print("|---|---|---|")
    for name, times in latency.items():
        print(f"| {name} | {pct(times, 0.5):.0f} | {pct(times, 0.95):.0f} |")
    print(
        f"\ntop-10 agreement between the profiles: mean {sum(agreement) / len(agreement):.2f}, "
        f"min {min(agreement):.2f} over {len(agreement)} queries"
    )
    print("\n| service start | PostgreSQL s | Neo4j s |")
    print("|---|---|---|")
    print(
        f"| first (initdb / new store unless kept) | {cold.get('postgres_s', 0):.1f} | {cold.get('neo4j_s', 0):.1f} |"
    )
    print(f"| warm (same data dir) | {warm.get('postgres_s', 0):.1f} | {warm.get('neo4j_s', 0):.1f} |")
    print(f"\nstorage: embedded index files {index_mb:.0f} MB; PostgreSQL database {pg_mb:.0f} MB; Neo4j {nodes} nodes")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
