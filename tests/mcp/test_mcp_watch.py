"""`lucasrag mcp --watch`: a note saved while the server runs is searchable after the debounce and a re-ingest."""

from __future__ import annotations

import time

import anyio
import pytest

pytestmark = pytest.mark.slow

WORD = "quokkaflamingo"


async def _wait_for(client, done, timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        watch = (await client.call_tool("status", {})).structured_content["watch"]
        if done(watch):
            return watch
        assert time.monotonic() < deadline, f"watcher did not get there: {watch}"
        await anyio.sleep(0.5)


def test_watch_reingests_an_edited_note(ingested_copy, mcp):
    note = ingested_copy.vault / "personal" / "right now.md"

    async def scenario():
        async with mcp.stdio(ingested_copy, "--watch", "--debounce", "0.5") as client:
            await _wait_for(client, lambda w: w["ingests"] >= 1 and w["state"] == "watching")  # the catch-up run
            before = await client.call_tool("search", {"query": WORD})
            assert not any(WORD in r["text"] for r in before.structured_content["results"])

            note.write_text(note.read_text() + f"\n\nThis week I adopted a {WORD} called Pip.\n")
            # Searches while the re-ingest runs answer (from the last complete state) and never hang:
            # an in-process ingest met the query loop's LightRAG locks from another event loop.
            searched = 0
            deadline = time.monotonic() + 300
            while (watch := (await client.call_tool("status", {})).structured_content["watch"])["ingests"] < 2:
                assert time.monotonic() < deadline, f"watcher did not re-ingest: {watch}"
                with anyio.fail_after(60):
                    during = await client.call_tool("search", {"query": "Pip adopted this week"})
                assert not during.is_error, during.content[0].text
                searched += 1
            watch = await _wait_for(client, lambda w: w["state"] == "watching")
            assert watch["last_error"] is None and searched >= 1

            after = await client.call_tool("search", {"query": f"{WORD} Pip"})
            hit = next(r for r in after.structured_content["results"] if WORD in r["text"])
            assert hit["path"] == "personal/right now.md"
            status = (await client.call_tool("status", {})).structured_content
            assert status["stale"]["count"] == 0

    anyio.run(scenario)
