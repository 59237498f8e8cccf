"""MCP round-trip latency: `search` over stdio and HTTP vs in-process query() (a benchmark, not a test).

    python benchmarks/mcp_latency.py                        # the sample vault, ingested into a temporary folder
    python benchmarks/mcp_latency.py --data DIR --vault V   # an already ingested data folder
    python benchmarks/mcp_latency.py --rounds 15            # 15 × 20 queries = 300 calls per path (default)

Five paths, interleaved call by call (the order rotates every round, so none is always first
after a pause), the same query on each before the next query:
  in-process    lucasrag_query.query() in this process (on a worker thread, as an async host would call it)
  stdio, http   the SDK client → `lucasrag mcp` (a subprocess; HTTP on 127.0.0.1 with a bearer token)
  stdio-cached, http-cached
                the same servers with each query's result kept after its first call: the query costs
                nothing, so the round trip is MCP alone (transport, JSON both ways, the SDK's checks,
                our rendering), measured the same way
For each path: wall-clock p50/p95/min, its p50 minus the in-process p50 (the target: ≤ 15 ms), and
the CPU time per call of this process (the client) plus the server process (from
/proc/PID/task/*/schedstat), minus the in-process query's CPU time. On a machine shared with other
work the wall-clock figures swing with the load average (printed); CPU time barely does, and on an
idle machine the wall-clock overhead tends to it (client and server work one after the other).
Finally the SDK client's own check of a result against the output schema, timed alone.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import anyio  # noqa: E402
import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from lucasrag.settings import Settings  # noqa: E402
from lucasrag_query import query  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import QUERIES, cli_env, cpu_ms, pct  # noqa: E402

CLI = ["-c", "from lucasrag_cli import app; app()", "mcp"]
CACHED = [str(Path(__file__).resolve()), "--serve-cached"]
TOKEN = "benchmark-token"
PATHS = ("in-process", "stdio", "http", "stdio-cached", "http-cached")


def serve_cached(http: bool, port: int) -> None:
    """The real server, with each query's result kept after its first call (``--serve-cached``)."""
    import lucasrag_query
    from lucasrag_query.mcp import serve

    real, kept = lucasrag_query.aquery, {}

    async def cached(text, **kwargs):
        if text not in kept:
            kept[text] = await real(text, **kwargs)
        return kept[text]

    lucasrag_query.aquery = cached  # the tool imports it at call time
    serve(Settings.from_env(), http=http, port=port)


def _env(settings: Settings) -> dict[str, str]:
    return {**cli_env(settings), "LUCASRAG_MCP_TOKEN": TOKEN}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def _http_server(settings: Settings, args: list[str]):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, *args, "--http", "--port", str(port)], env=_env(settings), cwd=str(REPO), stderr=sys.stderr
    )
    try:
        while proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp", proc.pid
    finally:
        proc.terminate()
        proc.wait(10)


def _children() -> set[int]:
    pids = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        pids.update(int(p) for p in (task / "children").read_text().split())
    return pids


class Route:
    """One way of asking a query, with what it cost per call."""

    def __init__(self, name: str, client: Client | None, pid: int | None) -> None:
        self.name, self.client, self.pid = name, client, pid
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.last = None
        self.schema: dict | None = None

    async def call(self, settings: Settings, q: str, record: bool = True) -> None:
        c0, s0 = time.process_time(), cpu_ms(self.pid) if self.pid else 0.0
        t0 = time.perf_counter()
        if self.client is None:
            await anyio.to_thread.run_sync(lambda: query(q, settings=settings))
        else:
            result = await self.client.call_tool("search", {"query": q})
            assert not result.is_error, result.content[0].text
            self.last = result
        wall = (time.perf_counter() - t0) * 1000
        cpu = (time.process_time() - c0) * 1000 + ((cpu_ms(self.pid) - s0) if self.pid else 0.0)
        if record:
            self.wall.append(wall)
            self.cpu.append(cpu)


def time_all(settings: Settings, rounds: int) -> dict[str, Route]:
    env = _env(settings)
    paths: dict[str, Route] = {}

    async def run(urls: dict[str, tuple[str, int]]) -> None:
        async with AsyncExitStack() as stack:
            paths["in-process"] = Route("in-process", None, None)
            for name, args in (("stdio", CLI), ("stdio-cached", CACHED)):
                before = _children()
                params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(REPO))
                client = await stack.enter_async_context(Client(params, read_timeout_seconds=600))
                (pid,) = _children() - before
                paths[name] = Route(name, client, pid)
            for name, (url, pid) in urls.items():
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=600)
                )
                client = await stack.enter_async_context(
                    Client(streamable_http_client(url, http_client=http), read_timeout_seconds=600)
                )
                paths[name] = Route(name, client, pid)
            order = [paths[name] for name in PATHS]
            tools = (await paths["stdio"].client.list_tools()).tools
            paths["stdio"].schema = next(t.output_schema for t in tools if t.name == "search")
            for q in QUERIES:  # warm: indexes opened, embedder loaded, caches filled
                for path in order:
                    await path.call(settings, q, record=False)
            for i in range(rounds):
                turn = order[i % len(order) :] + order[: i % len(order)]
                for q in QUERIES:
                    for path in turn:
                        await path.call(settings, q)

    with _http_server(settings, CLI) as http, _http_server(settings, CACHED) as http_cached:
        anyio.run(run, {"http": http, "http-cached": http_cached})
    return paths


def client_check_ms(paths: dict[str, Route]) -> tuple[float, float]:
    """The SDK client's check of one search result against the advertised output schema (min, p50 ms)."""
    from jsonschema import exceptions
    from jsonschema.validators import validator_for
    from referencing import Registry

    schema = paths["stdio"].schema
    validator = validator_for(schema)(schema, registry=Registry())
    content = paths["stdio"].last.structured_content
    times = []
    for _ in range(100):
        t0 = time.perf_counter()
        exceptions.best_match(validator.iter_errors(content))
        times.append((time.perf_counter() - t0) * 1000)
    return min(times), statistics.median(times)


def report(paths: dict[str, Route], rounds: int, load0: tuple, check: tuple[float, float]) -> None:
    n = len(QUERIES) * rounds
    base = paths["in-process"]
    base_p50, base_cpu = pct(base.wall, 0.5), statistics.mean(base.cpu)
    load1 = os.getloadavg()
    print(f"\nsearch, {n} calls per path ({len(QUERIES)} queries × {rounds} rounds, interleaved), ms")
    print(
        f"load average at start {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, at end {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}"
    )
    print(f"{'':13} {'p50':>7} {'p95':>7} {'min':>7} {'overhead p50':>13} {'CPU/call':>9} {'CPU overhead':>13}")
    for name in PATHS:
        path = paths[name]
        cpu = statistics.mean(path.cpu)
        cached = name.endswith("-cached")
        over = "" if path is base else f"{pct(path.wall, 0.5) - (0 if cached else base_p50):13.1f}"
        extra = "" if path is base else f"{cpu - (0 if cached else base_cpu):13.1f}"
        print(
            f"{name:13} {pct(path.wall, 0.5):7.1f} {pct(path.wall, 0.95):7.1f} {min(path.wall):7.1f} "
            f"{over:>13} {cpu:9.1f} {extra:>13}"
        )
    print("overhead p50: the path's p50 minus the in-process p50 (target ≤ 15 ms); for -cached paths (each")
    print("query's result kept in the server: MCP alone) the p50 itself. CPU/call: this process plus the")
    print("server process, mean; CPU overhead: minus the in-process query's CPU (-cached: all of it).")
    print(f"of it, the SDK client's output-schema check of one result: min {check[0]:.2f} ms, p50 {check[1]:.2f} ms")


def main() -> None:
    import logging

    if len(sys.argv) > 1 and sys.argv[1] == "--serve-cached":
        http = "--http" in sys.argv
        serve_cached(http, int(sys.argv[sys.argv.index("--port") + 1]) if http else 0)
        return
    logging.getLogger("httpx2").setLevel(logging.WARNING)  # a log line per request would be timed too
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vault", type=Path, help="the vault of an already ingested --data folder")
    parser.add_argument("--data", type=Path, help="an already ingested data folder (default: ingest the sample vault)")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    now = dt.date(2026, 6, 1)
    tmp = None
    if args.data:
        settings = Settings(vault=(args.vault or REPO / "vault").resolve(), data=args.data.resolve(), now=now)
    else:
        from lucasrag_assets.ingest import run_ingest

        tmp = Path(tempfile.mkdtemp())
        vault = Path(shutil.copytree(REPO / "vault", tmp / "vault"))
        settings = Settings(vault=vault, data=tmp / "data", now=now)
        os.environ["DAGSTER_HOME"] = str(tmp / "dagster")
        run_ingest(settings)
    load0 = os.getloadavg()
    print(f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, vault {settings.vault}")
    try:
        paths = time_all(settings, args.rounds)
        report(paths, args.rounds, load0, client_check_ms(paths))
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
