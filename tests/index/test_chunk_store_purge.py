"""A removed document leaves no byte in the SQLite chunk store after the purge, and the purge rewrites the whole
file only once for a store that may hold free pages from before ``secure_delete`` (a new store never)."""

from __future__ import annotations

import sqlite3

import numpy as np

from lucasrag.embedding import DIM
from lucasrag.index.chunk_store import SqliteChunkStore
from lucasrag.vocabulary import ChunkRecord


def _records(doc: str, words: str, n: int) -> list[ChunkRecord]:
    return [
        ChunkRecord(
            f"{doc}-{i}", doc, "personal", f"{doc}.md", i, f"{words} paragraph {i} " * 40, "present", "date", None
        )
        for i in range(n)
    ]


def _vectors(n: int) -> np.ndarray:
    return np.ones((n, DIM), dtype=np.float32) / np.sqrt(DIM)


def _fill(store: SqliteChunkStore) -> None:
    with store.transaction():
        for doc, words in (("kept", "lighthouse keeper"), ("gone", "zorvaltrinkesh glimbarothque")):
            store.add_chunks(_records(doc, words, 60), _vectors(60))


def _remove_and_purge(store: SqliteChunkStore) -> None:
    with store.transaction():
        store.remove_docs(["gone"])
        store.mark_purge_pending()
    store.purge_removed()


def _free_pages(path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("PRAGMA freelist_count").fetchone()[0]


def test_a_new_store_purges_without_rewriting_the_file_and_keeps_no_byte_of_the_removed(tmp_path):
    path = tmp_path / "chunks.sqlite"
    store = SqliteChunkStore(path)
    try:
        _fill(store)
        _remove_and_purge(store)
        assert not store.purge_pending()
    finally:
        store.close()
    data = path.read_bytes()
    assert b"lighthouse" in data  # the search sees stored text
    assert b"zorvaltrinkesh" not in data and b"glimbarothque" not in data
    assert _free_pages(path) > 0  # not vacuumed: the freed pages were overwritten instead


def test_a_store_from_before_the_mark_is_rewritten_once(tmp_path):
    path = tmp_path / "chunks.sqlite"
    store = SqliteChunkStore(path)
    store._db.execute("DELETE FROM meta WHERE key = 'free_pages_clean'")  # as an earlier version left it
    store._db.commit()
    try:
        _fill(store)
        _remove_and_purge(store)
        assert _free_pages(path) == 0  # VACUUM
        _fill(store)
        _remove_and_purge(store)
        assert _free_pages(path) > 0  # once only
    finally:
        store.close()
    assert b"zorvaltrinkesh" not in path.read_bytes()
