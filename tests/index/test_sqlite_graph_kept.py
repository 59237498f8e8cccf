"""A long-lived process keeps the entity graph a closed workspace index held (``_sqlite_graph._KEPT``): the
next index of the same file takes it and follows the flushes since instead of reading every row; a graph with
changes never flushed is not kept, and a rebuilt file (another generation) is read afresh."""

from __future__ import annotations

import asyncio
import datetime as dt
import shutil

import pytest

from lucasrag.index import open_workspace_index
from lucasrag.index._lightrag import _sqlite_graph
from lucasrag.settings import Settings


@pytest.fixture
def loads(monkeypatch):
    """How many times a storage read its whole graph from the file."""
    count = {"n": 0}
    real = _sqlite_graph.SqliteGraphStorage._load

    def counting(self):
        count["n"] += 1
        return real(self)

    monkeypatch.setattr(_sqlite_graph.SqliteGraphStorage, "_load", counting)
    monkeypatch.setattr(_sqlite_graph, "_KEPT", {})
    return count


def _settings(tmp_path) -> Settings:
    return Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=dt.date(2026, 6, 1))


async def _nodes(settings) -> set[str]:
    index = await open_workspace_index(settings, "personal")
    try:
        graph = await index._rag.chunk_entity_relation_graph._get_graph()
        return set(graph.nodes)
    finally:
        await index.close()


async def _add(settings, *names: str, flush: bool = True) -> None:
    index = await open_workspace_index(settings, "personal")
    try:
        for name in names:
            await index._rag.chunk_entity_relation_graph.upsert_node(name, {"entity_id": name, "source_id": "c1"})
        if flush:
            await index.flush()
    finally:
        await index.close()


def test_the_next_index_takes_the_graph_and_follows_what_was_flushed_since(tmp_path, loads):
    settings = _settings(tmp_path)

    async def run() -> None:
        await _add(settings, "Rory", "Allotment")  # a fresh file: read once (empty), kept at close
        assert loads["n"] == 1
        assert await _nodes(settings) == {"Rory", "Allotment"}
        assert loads["n"] == 1  # taken from the process, not read again

        mine = _sqlite_graph._KEPT.pop(next(iter(_sqlite_graph._KEPT)))  # as if another process wrote next
        await _add(settings, "Harbour")
        _sqlite_graph._KEPT[next(iter(_sqlite_graph._KEPT))] = mine  # the older graph is what this one kept
        assert await _nodes(settings) == {"Rory", "Allotment", "Harbour"}  # it followed the other's flush

        await _add(settings, "Never flushed", flush=False)  # changes never written: the graph is not kept
        before = loads["n"]
        assert await _nodes(settings) == {"Rory", "Allotment", "Harbour"}
        assert loads["n"] == before + 1

    asyncio.run(run())


def test_a_rebuilt_file_is_read_afresh(tmp_path, loads):
    settings = _settings(tmp_path)

    async def run() -> None:
        await _add(settings, "Rory")  # flush 1 of the first file
        old = _sqlite_graph._KEPT.pop(next(iter(_sqlite_graph._KEPT)))
        shutil.rmtree(settings.workspace_dir("personal"))  # lucasrag ingest --rebuild personal
        await _add(settings, "Maya")  # flush 1 of the rebuilt file: the same flush number
        _sqlite_graph._KEPT[next(iter(_sqlite_graph._KEPT))] = old  # the first file's graph, still kept
        assert await _nodes(settings) == {"Maya"}  # another generation: read afresh

    asyncio.run(run())
