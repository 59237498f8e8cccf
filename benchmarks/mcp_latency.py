"""MCP round-trip latency: `search` over stdio and HTTP vs in-process query() (a benchmark, not a test).

    python benchmarks/mcp_latency.py                    # the sample vault, ingested into a temporary folder
    python benchmarks/mcp_latency.py --data DIR --vault V   # an already ingested data folder
    python benchmarks/mcp_latency.py --watch            # also: seconds from saving a note to finding it (--watch)

The same queries (benchmarks/_common.py), each warmed once, then timed for ``--rounds`` rounds:
  in-process  lucasrag_query.query() in this process
  stdio       the SDK client → `lucasrag mcp` (a subprocess) → query() → back, per call
  http        the same over streamable HTTP on 127.0.0.1 (bearer token)
The three paths run one after the other for each query. Two overheads: "vs in-process", the call
minus the in-process query() run just before it (it includes a second process competing for the
same cores), and "MCP overhead", the call minus the query time the server measured inside it — the
transport, JSON and rendering alone (target ≤ 15 ms p50).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
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
from _common import QUERIES, pct  # noqa: E402

CLI = ["-c", "from lucasrag_cli import app; app()", "mcp"]
TOKEN = "benchmark-token"


def _env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUCASRAG_")}
    env.update(
        PYTHONPATH=str(REPO),
        LUCASRAG_VAULT=str(settings.vault),
        LUCASRAG_DATA=str(settings.data),
        LUCASRAG_NOW=settings.now.isoformat(),
        LUCASRAG_MCP_TOKEN=TOKEN,
        DAGSTER_HOME=str(settings.data / "dagster"),
    )
    return env


@contextmanager
def _http_server(settings: Settings):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, *CLI, "--http", "--port", str(port)], env=_env(settings), cwd=str(REPO), stderr=sys.stderr
    )
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _call(client: Client, q: str) -> tuple[float, float]:
    """Round trip and, of it, the query itself as the server timed it (ms)."""
    t0 = time.perf_counter()
    result = await client.call_tool("search", {"query": q})
    elapsed = (time.perf_counter() - t0) * 1000
    assert not result.is_error, result.content[0].text
    return elapsed, result.structured_content["timings_ms"]["query"]


async def _in_process(settings: Settings, q: str) -> float:
    t0 = time.perf_counter()
    await anyio.to_thread.run_sync(lambda: query(q, settings=settings))
    return (time.perf_counter() - t0) * 1000


def time_all(settings: Settings, rounds: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per query, the three paths one after the other (in-process, stdio, http): the machine's
    load changes by the second, and pairing the calls keeps it out of the differences."""
    params = StdioServerParameters(command=sys.executable, args=CLI, env=_env(settings), cwd=str(REPO))
    times: dict[str, list[float]] = {"in-process": [], "stdio": [], "http": []}
    served: dict[str, list[float]] = {"stdio": [], "http": []}  # the server's own query time per call

    async def run(url: str):
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with (
            Client(params, read_timeout_seconds=120) as stdio,
            httpx2.AsyncClient(headers=headers, timeout=120) as http_client,
            Client(streamable_http_client(url, http_client=http_client), read_timeout_seconds=120) as http,
        ):
            for q in QUERIES:  # warm: indexes opened, embedder loaded, caches filled
                await _in_process(settings, q), await _call(stdio, q), await _call(http, q)
            for _ in range(rounds):
                for q in QUERIES:
                    times["in-process"].append(await _in_process(settings, q))
                    for name, client in (("stdio", stdio), ("http", http)):
                        elapsed, query_ms = await _call(client, q)
                        times[name].append(elapsed)
                        served[name].append(query_ms)

    with _http_server(settings) as url:
        anyio.run(run, url)
    return times, served


def time_watch(settings: Settings, debounce: float) -> tuple[float, float]:
    """Seconds from saving a new note to its first appearance in `search`, under `mcp --watch`,
    and the debounce in it; the data folder is copied so the measured vault is left as it was."""
    tmp = Path(tempfile.mkdtemp())
    vault = Path(shutil.copytree(settings.vault, tmp / "vault"))
    data = Path(shutil.copytree(settings.data, tmp / "data"))
    copy = Settings(vault=vault, data=data, now=settings.now)
    params = StdioServerParameters(
        command=sys.executable, args=[*CLI, "--watch", "--debounce", str(debounce)], env=_env(copy), cwd=str(REPO)
    )
    word = "zebrafinchlantern"

    async def run():
        async with Client(params, read_timeout_seconds=600) as client:
            while (await client.call_tool("status", {})).structured_content["watch"]["state"] != "watching":
                await anyio.sleep(0.5)
            (vault / "watch-probe.md").write_text(
                f"---\nworkspace: personal\n---\nToday I saw a {word} by the river.\n"
            )
            saved = time.perf_counter()
            while True:
                found = await client.call_tool("search", {"query": word, "top_k": 5})
                if any(word in r["text"] for r in found.structured_content["results"]):
                    return time.perf_counter() - saved
                await anyio.sleep(0.25)

    try:
        return anyio.run(run), debounce
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    import logging

    logging.getLogger("httpx2").setLevel(logging.WARNING)  # a log line per request would be timed too
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vault", type=Path, help="the vault of an already ingested --data folder")
    parser.add_argument("--data", type=Path, help="an already ingested data folder (default: ingest the sample vault)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--watch", action="store_true", help="also time save → searchable under --watch")
    parser.add_argument("--debounce", type=float, default=2.0)
    args = parser.parse_args()
    now = dt.date(2026, 6, 1)
    if args.data:
        settings = Settings(vault=(args.vault or REPO / "vault").resolve(), data=args.data.resolve(), now=now)
    else:
        from lucasrag_assets.ingest import run_ingest

        tmp = Path(tempfile.mkdtemp())
        vault = Path(shutil.copytree(REPO / "vault", tmp / "vault"))
        settings = Settings(vault=vault, data=tmp / "data", now=now)
        os.environ["DAGSTER_HOME"] = str(tmp / "dagster")
        run_ingest(settings)
    n = len(QUERIES) * args.rounds
    times, served = time_all(settings, args.rounds)
    base = times["in-process"]
    print(f"\nsearch latency, {n} calls per path ({len(QUERIES)} queries × {args.rounds} rounds, interleaved), ms:")
    print(f"{'':12} {'p50':>8} {'p95':>8} {'vs in-process p50':>18} {'MCP overhead p50':>17} {'p95':>8}")
    for name, values in times.items():
        paired = pct([v - b for v, b in zip(values, base)], 0.5)
        own = [v - s for v, s in zip(values, served.get(name, values))] if name in served else [0.0]
        print(
            f"{name:12} {pct(values, 0.5):8.1f} {pct(values, 0.95):8.1f} {paired:18.1f} "
            f"{pct(own, 0.5):17.1f} {pct(own, 0.95):8.1f}"
        )
    print("vs in-process: the call minus the in-process query() run just before it (same query);")
    print("MCP overhead: the call minus the server's own query time within it (transport, JSON, rendering).")
    if args.watch:
        seconds, debounce = time_watch(settings, args.debounce)
        print(f"\n--watch: saved → searchable in {seconds:.1f} s (debounce {debounce:g} s + re-ingest)")


if __name__ == "__main__":
    main()
