"""The production profile at scale: a scale build's vault indexed into PostgreSQL/pgvector and Neo4j, with
Dagster's multiprocess executor, then its queries beside the embedded build's (a benchmark, not a test).

    python benchmarks/production_scale.py --work /tmp/scale --notes 10000 --into /tmp/prod10k
    python benchmarks/production_scale.py --work /tmp/scale --notes 10000 --into /tmp/prod10k --in-process

Reads the build ``benchmarks/scale.py --work DIR`` left (``vault-n<N>-s7``, ``data-n<N>-s7``; the vault is
only read). Its data folder is copied to ``--into``/data once (the embedding cache and the per-note memos
come with it, so nothing is embedded and no note is routed or chunked again: what is measured is the
production storage). PostgreSQL and Neo4j are started under ``--into`` on free ports of 127.0.0.1 (password
auth, TCP: reached as a remote server would be) and stopped at the end.

1. **Ingest**: ``run_ingest`` on the production profile — with the multiprocess executor (every step a
   process of its own, as pods would run them) unless ``--in-process`` — into empty databases: every
   workspace's chunks, vectors and entity graph written. Printed: each step's seconds, the peak resident
   memory of the step processes, PostgreSQL's and Neo4j's (sampled every 0.5 s), and the storage sizes.
2. **Queries**: the vault's first ``--queries`` distinct generated questions, ``--rounds`` times, through
   ``query()`` in a fresh process per profile (an assistant's long-lived process): p50/p95 ms, hit@5 on the
   cases that expect a note (first round), the query process's peak RSS, and how far the two profiles'
   top 10 agree.
3. **Flat baseline** (unless ``--no-flat``): every chunk in one LightRAG workspace of a database of its own on the
   same servers, LightRAG's naive search of the same questions (top 30), ``--rounds`` times as the federated
   query's, set against the federated production ``query()``'s p50. With ``--queries-only`` the flat index an
   earlier run left is kept and brought up to date.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks._common import NOW, MemorySampler, add_scale_build_arguments, pct, process_tree, rss_mb  # noqa: E402


class PeakMemory(MemorySampler):
    """Peak memory (MB) every 0.5 s: each named service's process tree (proportional set sizes summed, see
    ``MemorySampler``), the RSS of this process and of the largest of its step processes at a time."""

    def __init__(self, services: dict[str, int]) -> None:
        super().__init__()
        self.trees.update(services)

    def sample(self) -> None:
        super().sample()
        me = os.getpid()
        steps = [p for p in process_tree(me) if p != me]
        largest = max((rss_mb(p) for p in steps), default=0.0)
        self.peak["step process (largest)"] = max(self.peak["step process (largest)"], largest)
        self.peak["ingest process"] = max(self.peak["ingest process"], rss_mb(me))

    def __enter__(self) -> PeakMemory:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.join()


def time_queries(n_queries: int, rounds: int) -> dict:
    """In THIS process (a child started by :func:`queries_in_fresh_process`): latency, hit@5, top 10."""
    from lucasrag.settings import Settings
    from lucasrag_harness.evaluation.vault_generator import GroundTruth, truth_path
    from lucasrag_query import query

    settings = Settings.from_env()
    cases = list({c.query: c for c in GroundTruth.load(truth_path(settings.vault)).cases}.values())[:n_queries]
    query("warm-up", settings=settings)
    times, top, hits = [], {}, []
    for r in range(rounds):
        for c in cases:
            t0 = time.perf_counter()
            result = query(c.query, workspaces=c.workspaces, bridge=c.bridge, settings=settings)
            times.append((time.perf_counter() - t0) * 1000)
            top[c.query] = [x.chunk_id for x in result.results[:10]]
            if r == 0 and c.expect_paths:
                hits.append(any(p in [x.path for x in result.results[:5]] for p in c.expect_paths))
    peak = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmHWM:"))
    return {"times": times, "top": top, "hit5": sum(hits), "cases": len(hits), "rss_mb": int(peak.split()[1]) / 1024}


def queries_in_fresh_process(settings, args) -> dict:
    from benchmarks._common import cli_env

    env = {**cli_env(settings), "LUCASRAG_GRAPH": "1" if settings.graph else "0"}
    cmd = [sys.executable, __file__, "--time-queries", str(args.queries), str(args.rounds)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def drop_database(pg, name: str) -> None:
    """Drop database ``name`` of the server ``pg`` if it exists (its sessions closed): a build starts empty."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(pg.dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def flat_on_production(
    production, pg, into: Path, queries: list[str], federated_ms: list[float], keep: bool = False, rounds: int = 1
) -> None:
    """The flat baseline on the same servers: every chunk in one LightRAG workspace of a database of its own (one
    HNSW index holding only those vectors), LightRAG's naive search of the same questions. ``keep``: the flat
    index an earlier run left is brought up to date (nothing to write when the chunks are the same: seconds
    instead of a build of minutes at 100,000 notes) instead of built afresh. ``rounds``: as many as the federated
    query's (each question asked that many times, every time counted)."""
    from benchmarks._common import flat_baseline

    kept = keep and (into / "flat").is_dir()
    if not kept:
        drop_database(pg, "lucasrag_flat")
        shutil.rmtree(into / "flat", ignore_errors=True)
    flat = replace(production, data=into / "flat", postgres_dsn=pg.ensure_database("lucasrag_flat"), graph=False)
    row = flat_baseline(production, flat, queries, rounds)
    ratio = pct(federated_ms, 0.5) / row["flat_p50_ms"]
    how = "kept, brought up to date" if kept else "built"
    print(
        f"flat LightRAG on PostgreSQL: {how} in {row['flat_build_s']:.0f} s; naive search p50 {row['flat_p50_ms']:.1f} ms"
        f"  p95 {row['flat_p95_ms']:.1f} ms; federated production p50 / flat p50 {ratio:.2f} (load {os.getloadavg()[0]:.1f})",
        flush=True,
    )


def build(args, production, pg, neo) -> None:
    """Every workspace's index into the empty databases, step by step, with the memory it took."""
    import neo4j
    import psycopg

    from lucasrag_assets.ingest import run_ingest

    with neo4j.GraphDatabase.driver(neo.uri, auth=(neo.user, neo.password)) as driver:
        driver.execute_query("MATCH (n) DETACH DELETE n", database_="neo4j")  # an empty graph: a full build
    services = {"postgres": pg.status().pid or 0, "neo4j": neo.pid() or 0}
    executor = "in process" if args.in_process else "multiprocess"
    print(f"{args.notes} notes, production profile, {executor}, load {os.getloadavg()[0]:.1f}", flush=True)
    with PeakMemory({k: v for k, v in services.items() if v}) as memory:
        t0 = time.perf_counter()
        summary = run_ingest(production, multiprocess=not args.in_process)
        wall = time.perf_counter() - t0
    print(f"ingest {wall:.0f} s (load {os.getloadavg()[0]:.1f}); steps, s:")
    for step, seconds in sorted(summary.step_seconds.items(), key=lambda kv: -kv[1]):
        print(f"  {step:32s} {seconds:8.1f}")
    print(
        "peak MB (services: PSS summed; processes: RSS): " + ", ".join(f"{k} {v:.0f}" for k, v in memory.peak.items())
    )
    with psycopg.connect(production.postgres_dsn) as conn:
        pg_mb = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0] / 1e6
    with neo4j.GraphDatabase.driver(neo.uri, auth=(neo.user, neo.password)) as driver:
        nodes = driver.execute_query("MATCH (n) RETURN count(n) AS n", database_="neo4j")[0][0]["n"]
        edges = driver.execute_query("MATCH ()-[r]->() RETURN count(r) AS n", database_="neo4j")[0][0]["n"]
    print(f"storage: PostgreSQL {pg_mb:.0f} MB, Neo4j {nodes} nodes / {edges} relationships", flush=True)


def main() -> None:
    if sys.argv[1:2] == ["--time-queries"]:
        print(json.dumps(time_queries(int(sys.argv[2]), int(sys.argv[3]))))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scale_build_arguments(ap)
    ap.add_argument("--into", type=Path, required=True, help="the copied data folder and the servers go here")
    ap.add_argument("--in-process", action="store_true", help="the in-process executor instead of multiprocess")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--database", default="lucasrag_scale", help="PostgreSQL database (emptied unless --queries-only)")
    ap.add_argument(
        "--queries-only", action="store_true", help="ask the questions of the index an earlier run left in --into"
    )
    ap.add_argument("--no-flat", action="store_true", help="skip the flat one-workspace baseline on the same servers")
    args = ap.parse_args()

    from lucasrag.settings import Settings
    from lucasrag_harness.local_servers import Neo4jServer, PostgresServer, free_port

    vault, source = args.work / f"vault-n{args.notes}-s7", args.work / f"data-n{args.notes}-s7"
    into = args.into.resolve()
    data = into / "data"
    if not data.exists():
        t0 = time.perf_counter()
        shutil.copytree(source, data, ignore=shutil.ignore_patterns("services"))
        print(f"copied {source} in {time.perf_counter() - t0:.0f} s", flush=True)
    shutil.rmtree(data / "dagster", ignore_errors=True)  # the embedded build's run history: not this run's
    now = dt.date.fromisoformat(NOW)
    embedded = Settings(vault=vault.resolve(), data=source.resolve(), now=now, graph=True)
    pg = PostgresServer(into / "services" / "postgres", free_port())
    neo = Neo4jServer(into / "services" / "neo4j", free_port())
    pg.start()
    neo.start()
    try:
        database = args.database
        if not args.queries_only:  # a full build into an empty database
            drop_database(pg, database)
        # a step process of the multiprocess executor reads its secrets from the environment, never from here
        os.environ.update(
            LUCASRAG_PROFILE="production",
            LUCASRAG_VAULT=str(vault.resolve()),
            LUCASRAG_DATA=str(data),
            LUCASRAG_NOW=NOW,
            LUCASRAG_GRAPH="1",
            LUCASRAG_POSTGRES_DSN=pg.ensure_database(database),
            LUCASRAG_NEO4J_URI=neo.uri,
            LUCASRAG_NEO4J_USER=neo.user,
            LUCASRAG_NEO4J_PASSWORD=neo.password,
        )
        production = Settings.from_env()
        os.environ["DAGSTER_HOME"] = str(data / "dagster")
        os.environ.pop("LUCASRAG_DAGSTER_PG_URL", None)  # derived from the DSN (lucasrag_assets.ingest)

        if not args.queries_only:
            build(args, production, pg, neo)

        rows = {}
        for label, settings in (("embedded", embedded), ("production", production)):
            rows[label] = queries_in_fresh_process(settings, args)
            r = rows[label]
            print(
                f"query {label:10s} p50 {pct(r['times'], 0.5):6.1f} ms  p95 {pct(r['times'], 0.95):6.1f} ms  "
                f"hit@5 {r['hit5']}/{r['cases']}  query process peak RSS {r['rss_mb']:.0f} MB",
                flush=True,
            )
        agree = [
            len(set(rows["production"]["top"][q]) & set(ids)) / max(1, len(ids))
            for q, ids in rows["embedded"]["top"].items()
        ]
        print(
            f"top-10 agreement: mean {sum(agree) / len(agree):.2f}, min {min(agree):.2f} (load {os.getloadavg()[0]:.1f})"
        )
        if not args.no_flat:
            flat_on_production(
                production,
                pg,
                into,
                list(rows["production"]["top"]),
                rows["production"]["times"],
                args.queries_only,
                args.rounds,
            )
    finally:
        from lucasrag_query import _loop
        from lucasrag_query._indexes import close_all

        _loop.run(close_all())
        neo.stop()
        pg.stop()


if __name__ == "__main__":
    main()
