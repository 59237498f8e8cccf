"""The MCP transports alone, without LucasRAG: the SDK's stdio and streamable HTTP (a benchmark, not a test).

    python benchmarks/mcp_transport.py                # 200 calls per transport, interleaved
    python benchmarks/mcp_transport.py --contend      # the same on one core, beside a busy loop
    python benchmarks/mcp_transport.py --calls 500

The server is the SDK's ``MCPServer`` with one tool that returns a fixed result of a 25-result
search's size (47.8 KB: structured content and a text), served as `lucasrag mcp` serves it — over
HTTP with the bearer token, the Host/Origin checks and JSON responses (``lucasrag_query.mcp.auth``)
— and called with the SDK's ``Client`` as ``mcp_latency.py`` calls it. No query, no rendering, no
output schema: what is left is the transport. Per transport: wall-clock p50/p95/min; the CPU time
of the client (this thread) and of the server process per call; and wall minus both (time spent
neither running the client nor the server: waiting for a core, or for a wake-up).

``--contend`` pins this process, the servers and a busy loop to one core (the last), so every
hand-off between client and server waits for a core held by someone else: what a loaded machine
does, made repeatable. It occupies one core for the run's length (about a minute).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio  # noqa: E402
import httpx2  # noqa: E402
from _common import cpu_ms, pct  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.types import CallToolResult, TextContent  # noqa: E402

from lucasrag_query.mcp import auth  # noqa: E402

TOKEN = "benchmark-token"
RESULT = {"results": [{"rank": i, "text": "x" * 1800} for i in range(25)]}
TEXT = "y" * 2000


def serve(transport: str, port: int) -> None:
    """The server side (``--serve stdio|http PORT``)."""

    async def search(query: str) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=TEXT)], structured_content=RESULT)

    secured = {}
    if transport == "http":
        secured = {"token_verifier": auth.StaticTokenVerifier(TOKEN), "auth": auth.auth_settings(port)}
    server = MCPServer("transport-benchmark", log_level="WARNING", **secured)
    server.add_tool(search)
    if transport == "stdio":
        server.run("stdio")
        return
    auth.serve_http(server, port)


def switches(pid: int) -> tuple[int, int]:
    """How often the threads of ``pid`` slept (and had to be woken) and were preempted, so far (Linux)."""
    slept = preempted = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            status = (task / "status").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        preempted += int(status.split("nonvoluntary_ctxt_switches:")[1].split()[0])
        slept += int(status.split("\nvoluntary_ctxt_switches:")[1].split()[0])
    return slept, preempted


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children() -> set[int]:
    return {int(p) for t in Path(f"/proc/{os.getpid()}/task").iterdir() for p in (t / "children").read_text().split()}


async def measure(calls: int, procs: list[subprocess.Popen]) -> dict[str, tuple[list, list, list]]:
    me = [sys.executable, str(Path(__file__).resolve()), "--serve"]
    figures: dict[str, tuple[list, ...]] = {}
    async with AsyncExitStack() as stack:
        before = _children()
        stdio = await stack.enter_async_context(
            Client(StdioServerParameters(command=sys.executable, args=me[1:] + ["stdio", "0"]), read_timeout_seconds=60)
        )
        (stdio_pid,) = _children() - before
        port = _free_port()
        procs.append(subprocess.Popen([*me, "http", str(port)]))
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                await anyio.sleep(0.1)
        http_client = await stack.enter_async_context(
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
        )
        http = await stack.enter_async_context(
            Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http_client))
        )
        routes = [("stdio", stdio, stdio_pid), ("http", http, procs[-1].pid)]
        for _ in range(10):  # warm
            for _, client, _ in routes:
                await client.call_tool("search", {"query": "q"})
        for name, *_ in routes:
            figures[name] = ([], [], [], [], [], [], [])
        for i in range(calls):
            for name, client, pid in routes[i % 2 :] + routes[: i % 2]:
                mine0, theirs0 = switches(os.getpid()), switches(pid)  # read outside the timed span
                c0, s0, t0 = time.thread_time(), cpu_ms(pid), time.perf_counter()
                await client.call_tool("search", {"query": "q"})
                wall, mine = (time.perf_counter() - t0) * 1000, (time.thread_time() - c0) * 1000
                theirs = cpu_ms(pid) - s0
                (a, b), (c, d) = switches(os.getpid()), switches(pid)
                counts = (a - mine0[0], c - theirs0[0], b - mine0[1], d - theirs0[1])
                for series, value in zip(figures[name], (wall, mine, theirs, *counts), strict=True):
                    series.append(value)
    return figures


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]))
        return
    import logging

    logging.getLogger("httpx2").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200, help="calls per transport (default 200)")
    parser.add_argument("--contend", action="store_true", help="one core, shared with a busy loop")
    args = parser.parse_args()
    procs: list[subprocess.Popen] = []
    if args.contend:
        core = max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})  # the servers and the busy loop inherit it
        procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
    load0 = os.getloadavg()
    try:
        figures = anyio.run(measure, args.calls, procs)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    load1 = os.getloadavg()
    where = f"one core ({max(os.sched_getaffinity(0))}) shared with a busy loop" if args.contend else "all cores"
    print(f"\nthe SDK's transports alone, {args.calls} calls each (interleaved), {where}; ms")
    print(f"load average at start {load0[0]:.2f} {load0[1]:.2f}, at end {load1[0]:.2f} {load1[1]:.2f}")
    print(
        f"{'':6} {'p50':>7} {'p95':>7} {'min':>7} {'client CPU':>11} {'server CPU':>11} {'wall-CPU':>9}"
        f" {'slept: client':>14} {'server':>7} {'preempted: client':>18} {'server':>7}"
    )
    for name, (wall, mine, theirs, *counts) in figures.items():
        waits = [w - a - b for w, a, b in zip(wall, mine, theirs, strict=True)]
        print(
            f"{name:6} {pct(wall, 0.5):7.1f} {pct(wall, 0.95):7.1f} {min(wall):7.1f} {statistics.median(mine):11.2f} "
            f"{statistics.median(theirs):11.2f} {statistics.median(waits):9.1f}"
            f" {statistics.mean(counts[0]):14.2f} {statistics.mean(counts[1]):7.2f}"
            f" {statistics.mean(counts[2]):18.2f} {statistics.mean(counts[3]):7.2f}"
        )
    print("CPU columns: p50 per call; wall-CPU: p50 of wall minus client and server CPU, per call;")
    print("slept / preempted: mean per call over all threads, times a thread went to sleep (to be woken when its")
    print("input came) / was switched out while it could still run")


if __name__ == "__main__":
    main()
