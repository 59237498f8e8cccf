"""MCP round-trip latency: `search` over stdio and HTTP vs in-process query() (a benchmark, not a test).

    python benchmarks/mcp_latency.py                    # the sample vault, ingested into a temporary folder
    python benchmarks/mcp_latency.py --data DIR --vault V   # an already ingested data folder
    python benchmarks/mcp_latency.py --watch            # also: seconds from saving a note to finding it (--watch)

The same queries (benchmarks/_common.py), each warmed once, then timed for ``--rounds`` rounds:
  in-process  lucasrag_query.query() in this process
  stdio       the SDK client → `lucasrag mcp` (a subprocess) → query() → back, per call
  http        the same over streamable HTTP on 127.0.0.1 (bearer token)
The overhead is each transport's p50 minus the in-process p50 (target ≤ 15 ms).
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

CLI = ["-c", "from lucasrag.cli import app; app()", "mcp"]
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


async def _time_client(client: Client, rounds: int) -> list[float]:
    for q in QUERIES:  # warm: indexes opened, embedder loaded, caches filled
        await client.call_tool("search", {"query": q})
    times = []
    for _ in range(rounds):
        for q in QUERIES:
            t0 = time.perf_counter()
            result = await client.call_tool("search", {"query": q})
            times.append((time.perf_counter() - t0) * 1000)
            assert not result.is_error, result.content[0].text
    return times


def time_stdio(settings: Settings, rounds: int) -> list[float]:
    params = StdioServerParameters(command=sys.executable, args=CLI, env=_env(settings), cwd=str(REPO))

    async def run():
        async with Client(params, read_timeout_seconds=120) as client:
            return await _time_client(client, rounds)

    return anyio.run(run)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def time_http(settings: Settings, rounds: int) -> list[float]:
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

        async def run():
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
                url = f"http://127.0.0.1:{port}/mcp"
                async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120) as client:
                    return await _time_client(client, rounds)

        return anyio.run(run)
    finally:
        proc.terminate()
        proc.wait(10)


def time_in_process(settings: Settings, rounds: int) -> list[float]:
    for q in QUERIES:
        query(q, settings=settings)
    times = []
    for _ in range(rounds):
        for q in QUERIES:
            t0 = time.perf_counter()
            query(q, settings=settings)
            times.append((time.perf_counter() - t0) * 1000)
    return times


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
    rows = [("in-process", time_in_process(settings, args.rounds))]
    rows.append(("stdio", time_stdio(settings, args.rounds)))
    rows.append(("http", time_http(settings, args.rounds)))
    base = pct(rows[0][1], 0.5)
    print(f"\nsearch latency, {n} calls each ({len(QUERIES)} queries × {args.rounds} rounds), ms:")
    print(f"{'':12} {'p50':>8} {'p95':>8} {'overhead p50':>14}")
    for name, times in rows:
        p50 = pct(times, 0.5)
        print(f"{name:12} {p50:8.1f} {pct(times, 0.95):8.1f} {p50 - base:14.1f}")
    if args.watch:
        seconds, debounce = time_watch(settings, args.debounce)
        print(f"\n--watch: saved → searchable in {seconds:.1f} s (debounce {debounce:g} s + re-ingest)")


if __name__ == "__main__":
    main()
