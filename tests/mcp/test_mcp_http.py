"""`lucasrag mcp --http`: the bearer token, DNS-rebinding protection, the same tools, and load."""

from __future__ import annotations

import stat

import anyio
import httpx2
import pytest

pytestmark = pytest.mark.slow

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _post(url: str, headers: dict) -> httpx2.Response:
    return httpx2.post(url, json=INIT, headers={**ACCEPT, **headers}, timeout=30)


def test_http_token_origin_and_tools(ingested, mcp):
    with mcp.http_server(ingested, LUCASRAG_MCP_TOKEN=mcp.token) as url:
        good = {"Authorization": f"Bearer {mcp.token}"}
        # No token, a wrong token: 401 with the bearer challenge.
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": mcp.token}):
            r = _post(url, headers)
            assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer"), headers
        # A foreign Origin (a web page's script) or Host (DNS rebinding): refused even with the token.
        assert _post(url, {**good, "Origin": "http://evil.example"}).status_code == 403
        assert _post(url, {**good, "Origin": "http://127.0.0.1.evil.example:80"}).status_code == 403
        assert _post(url, {**good, "Host": "evil.example"}).status_code == 421
        # Local origin with the token: accepted.
        port = url.split(":")[2].split("/")[0]
        assert _post(url, {**good, "Origin": f"http://localhost:{port}"}).status_code == 200

        async def scenario():
            async with mcp.http_client(url) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                assert names == {"search", "recent", "read_note", "status"}
                r = await client.call_tool("search", {"query": "how is grandad?"})
                assert not r.is_error and any(h["subject"] == "Grandad Tom" for h in r.structured_content["hints"])
                r = await client.call_tool("read_note", {"path": "../../etc/passwd.md"})
                assert r.is_error and "leaves the vault" in r.content[0].text
                r = await client.call_tool("status", {})
                assert not r.is_error and r.structured_content["ingested"]

        anyio.run(scenario)


def test_http_token_file_is_created_private(ingested_copy, mcp):
    """Without LUCASRAG_MCP_TOKEN the server makes a token file under LUCASRAG_DATA, mode 0600."""
    with mcp.http_server(ingested_copy) as url:
        path = ingested_copy.data / "mcp" / "token"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        token = path.read_text().strip()
        assert len(token) >= 32
        assert _post(url, {}).status_code == 401
        assert _post(url, {"Authorization": f"Bearer {token}"}).status_code == 200


CLIENTS, SEARCHES = 8, 50
QUERIES = ["where do I live?", "where did I live in 2013?", "how is grandad?", "what is my cat called?", "kubernetes"]


def test_http_concurrent_clients(ingested, mcp):
    """8 clients × 50 searches at once: every call answers, none is an error."""
    errors: list[str] = []
    done = [0]

    async def one_client(n: int, url: str) -> None:
        async with mcp.http_client(url) as client:
            for i in range(SEARCHES):
                r = await client.call_tool("search", {"query": QUERIES[(n + i) % len(QUERIES)], "top_k": 5})
                if r.is_error or not r.structured_content["results"]:
                    errors.append(r.content[0].text if r.content else "empty")
                done[0] += 1

    with mcp.http_server(ingested, LUCASRAG_MCP_TOKEN=mcp.token) as url:

        async def scenario():
            async with anyio.create_task_group() as tg:
                for n in range(CLIENTS):
                    tg.start_soon(one_client, n, url)

        anyio.run(scenario)
    assert done[0] == CLIENTS * SEARCHES and not errors, errors[:3]
