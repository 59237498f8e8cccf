"""The embedded profile's document-status store (``_sqlite_doc_status``): rows in ``lightrag.sqlite``, written by
row at the flush, read into LightRAG's dict only when one of LightRAG's readers runs, every LightRAG writer
persisted, and an earlier version's JSON file copied in once."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sqlite3

import numpy as np
import pytest

from lucasrag.embedding import DIM
from lucasrag.index import open_workspace_index
from lucasrag.index._lightrag._sqlite_doc_status import SqliteDocStatusStorage, _Rows
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord


def _settings(tmp_path) -> Settings:
    return Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=dt.date(2026, 6, 1))


def _stored(settings: Settings) -> dict[str, dict]:
    """The rows in the file, as another process would read them."""
    path = settings.index_dir / "personal" / "lightrag.sqlite"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT id, value FROM kv WHERE namespace = 'doc_status'")
        return {k: json.loads(v) for k, v in rows}


async def _write(index, ids) -> None:
    records = [
        ChunkRecord(f"c{i}", f"d{i}", "personal", f"n{i}.md", 0, f"text {i}", "present", "date", None) for i in ids
    ]
    vectors = np.eye(len(records), DIM, dtype=np.float32)
    await index.write(records, vectors, {r.doc_id: r.text for r in records})


def _in_a_fresh_process(settings: Settings, reader):
    """``reader(doc_status)`` on a newly opened index (its rows read from the file, not this process's dict)."""

    async def run():
        index = await open_workspace_index(settings, "personal")
        try:
            return await reader(index._rag.doc_status)
        finally:
            await index.close()

    return asyncio.run(run())


def test_rows_are_written_by_the_flush_and_read_by_lightrags_readers_only_when_asked(tmp_path):
    settings = _settings(tmp_path)

    async def run() -> None:
        index = await open_workspace_index(settings, "personal")
        try:
            status = index._rag.doc_status
            assert isinstance(status, SqliteDocStatusStorage)
            await _write(index, range(3))
            assert _stored(settings) == {}  # waits for the index's flush, as every store's writes
            await index.flush()
            assert set(_stored(settings)) == {"d0", "d1", "d2"} and not status._loaded
            assert _stored(settings)["d1"]["chunks_list"] == ["c1"]
        finally:
            await index.close()

    asyncio.run(run())

    async def read(status):
        assert not status._loaded and dict(status._data) == {}  # opening read no row
        counts = await status.get_status_counts()
        return (
            counts,
            (await status.get_by_id("d2"))["file_path"],
            await status.filter_keys({"d0", "d9"}),
            status._loaded,
        )

    counts, path, missing, loaded = _in_a_fresh_process(settings, read)
    assert counts["processed"] == 3 and path == "n2.md" and missing == {"d9"} and loaded


def test_an_upsert_and_a_delete_before_the_first_read_win_over_the_stored_rows(tmp_path):
    settings = _settings(tmp_path)

    async def first():
        index = await open_workspace_index(settings, "personal")
        try:
            await _write(index, range(4))
            await index.flush()
        finally:
            await index.close()

    asyncio.run(first())

    async def change_then_read(status):
        await status.upsert({"d1": {"status": "failed", "file_path": "moved.md"}})
        await status.delete(["d2"])
        rows = {d: await status.get_by_id(d) for d in ("d0", "d1", "d2", "d3")}  # the first read loads the rest
        await status.index_done_callback()
        return rows

    rows = _in_a_fresh_process(settings, change_then_read)
    assert rows["d1"]["status"] == "failed" and rows["d1"]["chunks_list"] == [] and rows["d2"] is None
    assert rows["d0"]["file_path"] == "n0.md" and rows["d3"]["file_path"] == "n3.md"
    stored = _stored(settings)
    assert set(stored) == {"d0", "d1", "d3"} and stored["d1"]["file_path"] == "moved.md"


def test_every_lightrag_writer_is_persisted(tmp_path):
    """LightRAG's own writers change the dict in their own ways (a field update assigns a row, ``drop`` clears):
    each reaches the file without being rewritten here."""
    settings = _settings(tmp_path)

    async def run() -> list[dict]:
        index = await open_workspace_index(settings, "personal")
        seen = []
        try:
            status = index._rag.doc_status
            await _write(index, range(3))
            await index.flush()
            await status.update_doc_status_fields("d0", {"status": "failed", "error_msg": "boom"})  # flushes itself
            seen.append(_stored(settings))
            await status.delete(["d1"])
            await status.index_done_callback()
            seen.append(_stored(settings))
            await status.drop()
            seen.append(_stored(settings))
            await _write(index, [7])
            await index.flush()
            seen.append(_stored(settings))
        finally:
            await index.close()
        return seen

    updated, deleted, dropped, after = asyncio.run(run())
    assert (
        updated["d0"]["status"] == "failed"
        and updated["d0"]["error_msg"] == "boom"
        and updated["d2"]["status"] == "processed"
    )
    assert set(deleted) == {"d0", "d2"}
    assert dropped == {}
    assert set(after) == {"d7"}


def test_a_string_utf8_cannot_hold_is_kept_as_it_was(tmp_path):
    settings = _settings(tmp_path)
    odd = "caf\udce9"

    async def write(status):
        await status.upsert({"doc-odd": {"status": "processed", "content_summary": odd, "file_path": "x.md"}})
        await status.index_done_callback()

    async def read(status):
        return (await status.get_by_id("doc-odd"))["content_summary"]

    _in_a_fresh_process(settings, write)
    assert _in_a_fresh_process(settings, read) == odd


def test_an_earlier_versions_json_file_is_copied_in_once_and_removed(tmp_path):
    settings = _settings(tmp_path)
    folder = settings.index_dir / "personal"
    folder.mkdir(parents=True)
    legacy = {f"d{i}": {"status": "processed", "file_path": f"n{i}.md", "chunks_list": [f"c{i}"]} for i in range(3)}
    (folder / "kv_store_doc_status.json").write_text(json.dumps(legacy, indent=2), encoding="utf-8")

    async def read(status):
        return {d: await status.get_by_id(d) for d in legacy}

    assert _in_a_fresh_process(settings, read) == legacy
    assert not (folder / "kv_store_doc_status.json").exists()
    assert _stored(settings) == legacy
    with sqlite3.connect(folder / "lightrag.sqlite") as db:
        assert dict(db.execute("SELECT namespace, source FROM imported"))["kv:doc_status"] == "kv_store_doc_status.json"


@pytest.mark.parametrize(
    ("change", "changed", "cleared", "left"),
    [
        (lambda r: r.__setitem__("b", 2), {"b"}, False, {"a": 1, "b": 2}),
        (lambda r: r.update({"a": 5, "c": 3}), {"a", "c"}, False, {"a": 5, "c": 3}),
        (lambda r: r.update(c=3), {"c"}, False, {"a": 1, "c": 3}),
        (lambda r: r.pop("a"), {"a"}, False, {}),
        (lambda r: r.pop("zz", None), {"zz"}, False, {"a": 1}),
        (lambda r: r.__delitem__("a"), {"a"}, False, {}),
        (lambda r: r.setdefault("a", 9), set(), False, {"a": 1}),
        (lambda r: r.setdefault("b", 9), {"b"}, False, {"a": 1, "b": 9}),
        (lambda r: r.__ior__({"d": 4}), {"d"}, False, {"a": 1, "d": 4}),
        (lambda r: r.popitem(), {"a"}, False, {}),
        (lambda r: r.clear(), set(), True, {}),
    ],
)
def test_the_rows_note_every_change(change, changed, cleared, left):
    rows = _Rows()
    rows.load({"a": 1})
    assert rows.changed == set() and dict(rows) == {"a": 1}
    change(rows)
    assert (rows.changed, rows.cleared, dict(rows)) == (changed, cleared, left)


def test_loading_keeps_what_changed_in_memory():
    rows = _Rows()
    rows["a"] = "mine"
    rows.pop("b", None)
    rows.load({"a": "stored", "b": "stored", "c": "stored"})
    assert dict(rows) == {"a": "mine", "c": "stored"}
    rows.clear()
    rows.load({"c": "stored"})  # all removed: the stored rows are gone
    assert dict(rows) == {}
