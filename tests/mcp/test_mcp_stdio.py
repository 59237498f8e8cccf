"""`lucasrag mcp` over stdio, driven by the SDK's client: the tools, their schemas, the duties, the errors."""

from __future__ import annotations

import json

import anyio
import pytest

pytestmark = pytest.mark.slow

FUNERAL = "journal/2012-10-06 grandad's funeral.md"


def _dump(result) -> str:
    return json.dumps(result.structured_content) + "".join(c.text for c in result.content)


async def _tools_list(client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"search", "recent", "read_note", "status"}
    for tool in tools.values():
        assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
        assert tool.output_schema and tool.output_schema["type"] == "object"
        assert tool.description
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert set(search["properties"]) == {"query", "workspaces", "bridge", "top_k", "archive", "after", "before"} | {
        "folders",
        "tags",
        "chunks",
    }
    assert "technical" in json.dumps(search["properties"]["workspaces"])  # the four names are listed
    assert tools["read_note"].input_schema["required"] == ["path"]
    item = tools["search"].output_schema["properties"]["results"]["items"]
    fields = ["rank", "chunk_id", "workspace", "path", "band", "date", "score", "text", "why"]
    assert item["required"] == fields and all(f"{name} (" in item["description"] for name in fields)
    assert "bridge" in tools["search"].description.lower() and "archive" in tools["search"].description.lower()


async def _search_cases(client) -> None:
    # Temporal: a year opens the archive and the 2013 notes lead.
    r = await client.call_tool("search", {"query": "where did I live in 2013?", "top_k": 5})
    assert not r.is_error
    s = r.structured_content
    assert s["temporal"]["archival_open"] and "2013" in s["temporal"]["signals"]
    assert any("Hyde Park Road" in x["text"] for x in s["results"][:3])
    first = s["results"][0]
    assert set(first) >= {"rank", "chunk_id", "workspace", "path", "band", "date", "score", "text", "why"}
    assert "time_fit" in first["why"]["signals"] and first["why"]["summary"]
    assert "Hyde Park Road" in r.content[0].text  # the compact rendering carries the passages too

    # Present by default: no archival result, and the archive hint says how to reach them.
    r = await client.call_tool("search", {"query": "where did I live in Leeds?"})
    s = r.structured_content
    assert all(x["band"] == "present" for x in s["results"])
    archive = [h for h in s["hints"] if h["kind"] == "archive"]
    assert archive and archive[0]["subject"] is None and "back then" in archive[0]["reach"]["when"]
    assert archive[0]["reach"]["arguments"]["archive"] is True and "archive=True" in archive[0]["message"]

    # archive=True opens the archive without a period in the words; care still applies.
    r = await client.call_tool("search", {"query": "where did I live in Leeds?", "archive": True})
    s = r.structured_content
    assert s["temporal"]["archival_open"] and s["temporal"]["archive"] == "whole"
    assert "archive=True" in s["temporal"]["signals"]
    assert any(x["band"] == "archival" for x in s["results"])
    assert not [h for h in s["hints"] if h["kind"] == "archive"]

    # What's new: by the notes' own dates, newest first, paths for read_note.
    r = await client.call_tool("recent", {"days": 60})
    assert not r.is_error
    notes = r.structured_content["notes"]
    assert "journal/2026-04-18.md" in [n["path"] for n in notes]
    assert [n["changed"] for n in notes] == sorted((n["changed"] for n in notes), reverse=True)
    assert (await client.call_tool("recent", {"days": 0})).is_error

    # Withheld with a hint that says how to reach it (and when it may).
    r = await client.call_tool("search", {"query": "how is grandad?"})
    s = r.structured_content
    hint = next(h for h in s["hints"] if h["subject"] == "Grandad Tom")
    assert hint["withheld"] >= 1 and hint["reach"]["arguments"]["bridge"] == ["Grandad Tom"]
    assert "only if the person asks" in hint["reach"]["when"]
    assert not any(x["path"] in ("journal/2025-11-02.md", FUNERAL) for x in s["results"])
    assert "hint:" in r.content[0].text

    # Bridged: the charged present note comes back, and its subject's hint goes.
    r = await client.call_tool("search", {"query": "how have I been feeling about grandad?", "bridge": ["grandad"]})
    s = r.structured_content
    assert any(x["path"] == "journal/2025-11-02.md" for x in s["results"])
    assert not any(h["subject"] == "Grandad Tom" for h in s["hints"])

    # Workspace restriction.
    r = await client.call_tool(
        "search", {"query": "what is grandad's pocket watch insured for?", "workspaces": ["administrative"]}
    )
    s = r.structured_content
    assert s["results"] and {x["workspace"] for x in s["results"]} == {"administrative"}
    assert "€900" in " ".join(x["text"] for x in s["results"][:3])


async def _read_note_cases(client) -> None:
    # A charged note, unbridged: nothing of its text, a notice and a hint instead.
    r = await client.call_tool("read_note", {"path": FUNERAL})
    assert not r.is_error
    note = r.structured_content
    assert note["archival"] and note["band"] == "archival" and note["withheld"] >= 1
    assert all(p.get("withheld") for p in note["passages"])
    assert "withheld out of care" in note["text"]
    assert "eulogy" not in _dump(r) and "St Mary" not in _dump(r)
    assert note["hints"][0]["reach"] == {"tool": "read_note", "arguments": {"path": FUNERAL, "bridge": ["Grandad Tom"]}}
    assert "archival" in r.content[0].text
    # Bridged: the text is served.
    r = await client.call_tool("read_note", {"path": FUNERAL, "bridge": ["Grandad Tom"]})
    assert not r.is_error and r.structured_content["withheld"] == 0 and "eulogy" in _dump(r)

    # A plain note is served whole.
    r = await client.call_tool("read_note", {"path": "personal/facts.md"})
    assert not r.is_error and "Lisbon" in r.structured_content["text"]

    # Refused, each with its reason.
    refusals = {
        "inbox/ideas.md": "quarantined",
        "inbox/binary.md": "not a valid note",
        "../vault/personal/facts.md": "leaves the vault",
        "personal/../../etc/passwd.md": "leaves the vault",
        "/etc/passwd": "absolute",
        ".obsidian/workspace.md": "hidden",
        ".trash/old.md": "hidden",
        "attachments/photo.png": "not a note",
        "journal/no such day.md": "no note",
        "": "empty",
    }
    for path, reason in refusals.items():
        r = await client.call_tool("read_note", {"path": path})
        assert r.is_error, path
        assert reason in r.content[0].text, (path, r.content[0].text)


async def _errors_and_status(client) -> None:
    for args, reason in [
        ({"query": "   "}, "empty"),
        ({"query": "x", "workspaces": ["nope"]}, "unknown workspace"),
        ({"query": "x", "top_k": 0}, "top_k"),
    ]:
        r = await client.call_tool("search", args)
        assert r.is_error and reason in r.content[0].text, (args, r.content[0].text)
    r = await client.call_tool("status", {})
    assert not r.is_error
    s = r.structured_content
    assert s["ingested"] and s["profile"] == "embedded" and s["reranker"]["kind"] == "embedding-similarity"
    assert {w["workspace"] for w in s["workspaces"]} == {"technical", "creative", "personal", "administrative"}
    assert all(w["notes"] > 0 and w["chunks"] >= w["notes"] for w in s["workspaces"])
    assert s["pending_quarantine"]["count"] == 4
    assert "inbox/ideas.md" in {n["path"] for n in s["pending_quarantine"]["notes"]}
    assert s["deference_subjects"] == ["Grandad Tom", "Maya"]
    assert s["stale"]["count"] == 0 and s["last_ingest"]
    # The server is still up after every error above.
    assert not (await client.call_tool("search", {"query": "where do I work?"})).is_error


def test_stdio_tools_duties_and_errors(ingested, mcp):
    async def scenario():
        async with mcp.stdio(ingested) as client:
            instructions = client.instructions.lower()
            assert "bridge a" in instructions and "back then" in instructions and "read-only" in instructions
            await _tools_list(client)
            await _search_cases(client)
            await _read_note_cases(client)
            await _errors_and_status(client)

    anyio.run(scenario)


def test_no_index_yet_is_a_tool_error(fresh_vault, mcp):
    async def scenario():
        async with mcp.stdio(fresh_vault) as client:
            r = await client.call_tool("search", {"query": "where do I live?"})
            assert r.is_error and "lucasrag ingest" in r.content[0].text
            r = await client.call_tool("read_note", {"path": "personal/facts.md"})
            assert r.is_error and "lucasrag ingest" in r.content[0].text
            r = await client.call_tool("status", {})
            assert not r.is_error and not r.structured_content["ingested"]
            assert "lucasrag ingest" in r.structured_content["message"]

    anyio.run(scenario)
