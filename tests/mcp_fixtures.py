"""Fixtures for tests/mcp: a real `lucasrag mcp` subprocess (this worktree's code) and the SDK's own client."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from lucasrag.settings import Settings

REPO = Path(__file__).resolve().parents[1]
#: `python -c` so the worktree's code runs, whatever the `lucasrag` console script points at.
CLI = ["-c", "from lucasrag_cli import app; app()"]
TOKEN = "test-token-0123456789abcdef"


def server_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUCASRAG_")}
    env.update(
        PYTHONPATH=str(REPO),
        LUCASRAG_VAULT=str(settings.vault),
        LUCASRAG_DATA=str(settings.data),
        LUCASRAG_NOW=settings.now.isoformat(),
        DAGSTER_HOME=str(settings.data / "dagster"),
    )
    env.update(extra)
    return env


def stdio_client(settings: Settings, *args: str, **env: str) -> Client:
    params = StdioServerParameters(
        command=sys.executable, args=[*CLI, "mcp", *args], env=server_env(settings, **env), cwd=str(REPO)
    )
    return Client(params, read_timeout_seconds=120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def http_server(settings: Settings, *args: str, **env: str):
    """``lucasrag mcp --http`` on a free port; yields its /mcp URL once it accepts connections.
    The server's stderr goes to ``mcp-http-PORT.log`` next to the data folder."""
    port = free_port()
    log = open(settings.data.parent / f"mcp-http-{port}.log", "w+")  # closed below
    proc = subprocess.Popen(
        [sys.executable, *CLI, "mcp", "--http", "--port", str(port), *args],
        env=server_env(settings, **env),
        cwd=str(REPO),
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"lucasrag mcp --http exited: {log.read()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError("lucasrag mcp --http did not start in 120 s") from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@asynccontextmanager
async def http_client(url: str, token: str | None = TOKEN, headers: dict | None = None):
    """The SDK client over streamable HTTP, with the bearer token (and any extra headers)."""
    sent = {**({"Authorization": f"Bearer {token}"} if token else {}), **(headers or {})}
    async with httpx2.AsyncClient(headers=sent, timeout=httpx2.Timeout(120)) as http:
        async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120) as client:
            yield client


class Mcp:
    """What the MCP tests need: the server started three ways and the SDK client."""

    token = TOKEN
    stdio = staticmethod(stdio_client)
    http_server = staticmethod(http_server)
    http_client = staticmethod(http_client)


@pytest.fixture
def mcp() -> type[Mcp]:
    return Mcp


@pytest.fixture
def ingested_copy(ingested, tmp_path) -> Settings:
    """A private copy of the ingested sample vault and its data (for tests that edit notes)."""
    from dataclasses import replace

    vault = shutil.copytree(ingested.vault, tmp_path / "vault", symlinks=True)
    data = shutil.copytree(ingested.data, tmp_path / "data", symlinks=True)
    # Copies get new mtimes: keep the catalogue newer than every note, as after a real ingest.
    os.utime(data / "catalog" / "notes.parquet")
    return replace(ingested, vault=Path(vault), data=Path(data))
