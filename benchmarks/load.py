"""Load: concurrent query clients, idle and during an ingest (a benchmark, not a test).

    python benchmarks/load.py --work /tmp/load                         # embedded profile, 1,000 notes
    python benchmarks/load.py --work /tmp/load --profile production    # PostgreSQL + Neo4j (the harness starts them)
    python benchmarks/load.py --work /tmp/load --profile both --seconds 60 --clients 8 --changed 200

The generated vault (``lucasrag_harness.evaluation.vault_generator``, seed 7, ``--notes``) is built
and ingested once under ``--work`` (a subprocess; later runs reuse it). Then two phases of
``--seconds`` each, ``--clients`` threads calling the in-process ``query()`` (the product's API)
back to back with the vault's generated query cases (workspaces and bridges as the case says):

  idle    nothing else runs
  ingest  ``--changed`` notes get a new line each, and ``lucasrag ingest`` runs in a subprocess from
          the phase's first second (the clients keep querying the last complete state meanwhile)

Per phase: calls, throughput, latency p50/p95/p99, errors (any exception, grouped by message:
target 0) and peak memory — the query process's high-water mark (``VmHWM``: query() runs in this
process) and, sampled every 0.5 s, the ingest process and the service processes (each tree's proportional set
sizes summed: the memory its processes share, PostgreSQL's buffer cache, counted once). After the ingest
phase one query checks that a changed note's new line is searchable. On the production profile
PostgreSQL and Neo4j are started by ``lucasrag_harness.local_servers`` (127.0.0.1, free ports, password
auth) in ``--work`` and stopped at the end; the data folder keeps the embedding cache of the
embedded build (copied), so the first production ingest does not embed every note again.

    python benchmarks/production_scale.py --work /tmp/standin --notes 100000 --into /tmp/prod100k
    python benchmarks/load.py --work /tmp/standin --notes 100000 --profile production \
        --production-build /tmp/prod100k --stand-in-vectors

``--production-build`` asks the index ``production_scale.py --into DIR`` built (its data folder, servers and
database: nothing is ingested before the phases), and ``--stand-in-vectors`` embeds the questions and the
changed notes as a build made with ``change_kinds.py --stand-in-vectors`` was (``_common.install_stand_in_vectors``:
its figures measure the load, not what is found).
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import NOW, MemorySampler, build_generated, ensure_ingested, ingest, pct, rss_mb  # noqa: E402

MARK = "loadbenchmarkline"


def clients(settings, cases, n_clients: int, seconds: float) -> dict:
    """``n_clients`` threads calling query() back to back for ``seconds``."""
    from lucasrag_query import query

    latencies: list[float] = []
    errors: collections.Counter = collections.Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(k: int) -> None:
        i = k * 7  # each client starts at another case
        while time.monotonic() < deadline:
            case = cases[i % len(cases)]
            i += 1
            t0 = time.perf_counter()
            try:
                query(case.query, workspaces=case.workspaces, bridge=case.bridge, settings=settings)
            except Exception as exc:  # counted and reported, the client goes on
                with lock:
                    errors[f"{type(exc).__name__}: {str(exc)[:200]}"] += 1
                continue
            with lock:
                latencies.append((time.perf_counter() - t0) * 1000)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(n_clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"latencies": latencies, "errors": errors, "wall_s": wall}


def change_notes(vault: Path, truth, n: int, round_: str) -> list[str]:
    """Append one line to ``n`` indexed notes (the same notes every run; a new line each run)."""
    indexed = sorted(p for p, t in truth.notes.items() if t.status == "indexed")
    paths = indexed[:: max(1, len(indexed) // n)][:n]
    for rel in paths:
        with (vault / rel).open("a", encoding="utf-8") as fh:
            fh.write(f"\n\nAdded during the load benchmark ({MARK}{round_}).\n")
    return paths


def run_profile(settings, truth, args, services: dict[str, int]) -> list[dict]:
    from lucasrag_query import query

    log = args.work / f"ingest-{settings.profile}.log"
    built = ensure_ingested(settings, log)
    if built:
        print(f"[{settings.profile}] first ingest of {truth.n_notes} notes: {built:.0f} s", flush=True)
    cases = [c for c in truth.cases if c.query.strip()]
    query(cases[0].query, settings=settings)  # opens the indexes: not part of a phase
    rows = []
    for phase in ("idle", "ingest"):
        sampler = MemorySampler()
        sampler.trees.update(services)
        sampler.start()
        proc = None
        ingest_s = None
        if phase == "ingest":
            stamp = dt.datetime.now().strftime("%H%M%S")
            changed = change_notes(settings.vault, truth, args.changed, stamp)
            started = time.perf_counter()
            proc = ingest(settings, log, stand_in_vectors=args.stand_in_vectors)
            sampler.trees["ingest"] = proc.pid
        load0 = os.getloadavg()
        out = clients(settings, cases, args.clients, args.seconds)
        inside = None
        if proc is not None:
            inside = proc.poll() is not None
            try:
                rc = proc.wait(args.ingest_wait)
            except subprocess.TimeoutExpired:  # reported as such; the next ingest heals (docs/reliability.md)
                proc.terminate()
                proc.wait()
                rc = None
            ingest_s = time.perf_counter() - started
            if rc:
                out["errors"][f"the ingest exited {rc} (see {log})"] += 1
            found = None
            if rc == 0:
                probe = query(f"{MARK}{stamp}", settings=settings, top_k=5)
                found = any(f"{MARK}{stamp}" in r.text for r in probe.results)
        sampler.done.set()
        sampler.join()
        lat = out["latencies"]
        row = {
            "profile": settings.profile,
            "phase": phase,
            "calls": len(lat),
            "qps": len(lat) / out["wall_s"],
            "p50": pct(lat, 0.5) if lat else float("nan"),
            "p95": pct(lat, 0.95) if lat else float("nan"),
            "p99": pct(lat, 0.99) if lat else float("nan"),
            "errors": sum(out["errors"].values()),
            "error_kinds": dict(out["errors"]),
            "query_rss_mb": rss_mb(os.getpid(), "VmHWM"),
            "peaks": dict(sampler.peak),
            "load": (load0, os.getloadavg()),
        }
        if proc is not None:
            row.update(ingest_s=ingest_s, ingest_inside=inside, changed=len(changed), change_found=found)
        rows.append(row)
        print(_line(row), flush=True)
    return rows


def _line(r: dict) -> str:
    peaks = ", ".join(f"{k} {v:.0f}" for k, v in r["peaks"].items())
    text = (
        f"[{r['profile']}/{r['phase']}] {r['calls']} calls, {r['qps']:.2f}/s, p50 {r['p50']:.0f} p95 {r['p95']:.0f} "
        f"p99 {r['p99']:.0f} ms, errors {r['errors']}, query process peak RSS {r['query_rss_mb']:.0f} MB"
        + (f", peak memory (MB, PSS): {peaks}" if peaks else "")
        + f"; load {r['load'][0][0]:.1f} → {r['load'][1][0]:.1f}"
    )
    if "ingest_s" in r:
        text += (
            f"; ingest of {r['changed']} changed notes {r['ingest_s']:.0f} s "
            f"({'ended inside' if r['ingest_inside'] else 'outlasted'} the window"
            f"{'' if r['change_found'] is not None else '; stopped unfinished after --ingest-wait'}), "
            f"a changed line searchable after it: {r['change_found']}"
        )
    for kind, count in r["error_kinds"].items():
        text += f"\n    {count} × {kind}"
    return text


def start_services(root: Path):
    """PostgreSQL and Neo4j with their data under ``root`` (started again where an earlier run left them)."""
    from lucasrag_harness.local_servers import Neo4jServer, PostgresServer, free_port

    pg = PostgresServer(root / "postgres", free_port())
    pg.start()
    neo = Neo4jServer(root / "neo4j", free_port())
    neo.start()
    return pg, neo


def table(rows: list[dict], args) -> str:
    head = (
        f"\n{args.clients} clients × {args.seconds:g} s, {args.notes} notes; ingest phase: {args.changed} changed notes\n"
        "| profile | phase | calls | queries/s | p50 ms | p95 ms | p99 ms | errors | peak MB (query process RSS; "
        "ingest, services PSS) | ingest s | load avg |\n|---|---|---|---|---|---|---|---|---|---|---|"
    )
    out = [head]
    for r in rows:
        peaks = r["peaks"]
        services = sum(v for k, v in peaks.items() if k != "ingest")
        mem = f"{r['query_rss_mb']:.0f}; {peaks.get('ingest', 0):.0f}; {services:.0f}"
        ingest_s = f"{r['ingest_s']:.0f}" if "ingest_s" in r else "–"
        out.append(
            f"| {r['profile']} | {r['phase']} | {r['calls']} | {r['qps']:.2f} | {r['p50']:.0f} | {r['p95']:.0f} | "
            f"{r['p99']:.0f} | {r['errors']} | {mem} | {ingest_s} | {r['load'][0][0]:.1f}–{r['load'][1][0]:.1f} |"
        )
    return "\n".join(out)


def main() -> None:
    import logging

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True, help="vault, data folders, services and logs go here")
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--changed", type=int, default=200)
    parser.add_argument("--profile", choices=("embedded", "production", "both"), default="embedded")
    parser.add_argument(
        "--ingest-wait", type=float, default=None, help="seconds to wait for the ingest after the window (default: all)"
    )
    parser.add_argument(
        "--production-build",
        type=Path,
        help="the --into folder of production_scale.py: its data folder, servers and database, nothing ingested first",
    )
    parser.add_argument(
        "--stand-in-vectors", action="store_true", help="the build was made with change_kinds.py --stand-in-vectors"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.stand_in_vectors:
        from _common import install_stand_in_vectors

        install_stand_in_vectors()
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)

    from lucasrag.settings import Settings

    vault, truth = build_generated(args.work, args.notes)
    now = dt.date.fromisoformat(NOW)
    print(f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, {args.notes} notes", flush=True)
    rows = []
    embedded = Settings(vault=vault, data=args.work / f"data-embedded-n{args.notes}", now=now)
    if args.profile in ("embedded", "both"):
        rows += run_profile(embedded, truth, args, {})
    if args.profile in ("production", "both"):
        built = args.production_build.resolve() if args.production_build else None
        pg, neo = start_services(built / "services" if built else args.work / "services")
        try:
            data = built / "data" if built else args.work / f"data-production-n{args.notes}"
            cache = embedded.data / "embeddings.sqlite"
            if cache.is_file() and not data.exists():
                data.mkdir(parents=True)
                shutil.copy2(cache, data / "embeddings.sqlite")
            production = Settings(
                vault=vault,
                data=data,
                now=now,
                profile="production",
                postgres_dsn=pg.ensure_database("lucasrag_scale" if built else "lucasrag_load"),
                neo4j_uri=neo.uri,
                neo4j_user=neo.user,
                neo4j_password=neo.password,
            )
            services = {"postgres": pg.status().pid or 0, "neo4j": neo.pid() or 0}
            rows += run_profile(production, truth, args, {k: v for k, v in services.items() if v})
        finally:
            from lucasrag_query import _loop
            from lucasrag_query._indexes import close_all

            _loop.run(close_all())
            neo.stop()
            pg.stop()
    print(table(rows, args))


if __name__ == "__main__":
    main()
