"""The chunk stores' keyword index (SQLite FTS5 embedded, PostgreSQL tsvector in production):
kept in step with writes, replacements and deletes, and backfilled for stores written before it."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import date

import numpy as np
import pytest

from lucasrag import lexical
from lucasrag.embedding import DIM
from lucasrag.index.chunk_store import SqliteChunkStore
from lucasrag.vocabulary import ChunkRecord

TEXTS = {
    "a": "Fed the otters at the river sanctuary with Priya.",
    "b": "Priya's tax return is due; the accountant wants receipts.",
    "c": "Rain all day. Read a novel about lighthouses.",
}


def _record(chunk_id: str, text: str, doc: str | None = None) -> ChunkRecord:
    doc = doc or f"doc-{chunk_id}"
    return ChunkRecord(chunk_id, doc, "personal", f"{doc}.md", 0, text, "present", "date", "2026-01-01", (), "h")


def _vectors(n: int) -> np.ndarray:
    v = np.random.default_rng(0).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _open_sqlite(tmp_path, _request):
    return lambda: SqliteChunkStore(tmp_path / "chunks.sqlite")


def _open_postgres(_tmp_path, request):
    from lucasrag.index.chunk_store_pg import PostgresChunkStore
    from lucasrag_harness.local_servers.postgres import ensure_database

    server = request.getfixturevalue("postgres_server")
    dsn = ensure_database(server.admin_dsn, f"lucasrag_k{uuid.uuid4().hex[:12]}")
    settings = request.getfixturevalue("settings_for")(
        _tmp_path / "vault", _tmp_path / "data", profile="production", postgres_dsn=dsn
    )
    return lambda: PostgresChunkStore(settings, "personal")


@pytest.fixture(params=["embedded", pytest.param("production", marks=[pytest.mark.production, pytest.mark.slow])])
def opener(request, tmp_path):
    """A function that opens the same store again (to test what survives a reopen)."""
    return {"embedded": _open_sqlite, "production": _open_postgres}[request.param](tmp_path, request)


@pytest.fixture
def store(opener):
    s = opener()
    s.add_chunks([_record(k, v) for k, v in TEXTS.items()], _vectors(len(TEXTS)))
    yield s
    s.close()


def test_finds_chunks_by_their_words_best_first(store):
    assert store.keyword_search(lexical.query_terms("otters"), 5) == ["a"]
    found = store.keyword_search(lexical.query_terms("Priya sanctuary"), 5)
    assert found[0] == "a" and set(found) == {"a", "b"}
    assert store.keyword_search(lexical.query_terms("lighthouse"), 5) == ["c"]  # stemmed on both sides
    assert store.keyword_search(lexical.query_terms("zebra"), 5) == []
    assert store.keyword_search([], 5) == []


def test_a_chunk_matches_its_date(store):
    store.add_chunks([replace(_record("d", "Deployed the new pipeline."), date="2016-05-11")], _vectors(1))
    assert store.keyword_search(lexical.query_terms("2016"), 5) == ["d"]
    assert store.keyword_search(lexical.period_terms([(date(2010, 1, 1), date(2019, 12, 31))]), 5) == ["d"]


def test_term_stats_count_chunks_per_term(store):
    n, df = store.term_stats(lexical.query_terms("Priya otters zebra"))
    assert n == 3
    assert df == {"priya": 2, "otter": 1}


def test_replaced_and_removed_chunks_leave_the_keyword_index(store):
    store.add_chunks([_record("a", "Walked to the bakery.")], _vectors(1))
    assert store.keyword_search(["otter"], 5) == []
    assert store.keyword_search(["bakeri"], 5) == ["a"]
    store.remove_docs(["doc-b"])
    assert store.keyword_search(["priya"], 5) == []
    assert store.term_stats(["priya", "bakeri"]) == (2, {"bakeri": 1})


def test_a_store_written_before_the_keyword_index_is_backfilled(store, opener):
    if isinstance(store, SqliteChunkStore):
        with store._db:  # as a store from before the keyword index (or an older analyser) looks
            store._db.execute("DELETE FROM chunk_terms")
            store._db.execute("PRAGMA user_version = 0")
    else:
        store._db.execute("UPDATE lucasrag_chunks SET terms = NULL")
    assert store.keyword_search(["otter"], 5) == []
    reopened = opener()
    try:
        assert reopened.keyword_search(["otter"], 5) == ["a"]
        assert reopened.term_stats(["priya"]) == (3, {"priya": 2})
    finally:
        reopened.close()


def test_a_shorter_ranking_is_the_start_of_a_longer_one(opener):
    """The federated query reads a workspace's keyword ranking once for its last over-fetch round and gives each
    round the first ``k``: every store's first ``k`` must be the first ``k`` of its longer list, ties included."""
    store = opener()
    try:
        words = ["otter", "river", "ledger", "lantern", "harbour"]
        texts = {
            f"k{i:02}": " ".join(words[j % len(words)] for j in range(i % 4, i % 4 + 1 + i % 3)) for i in range(40)
        }
        store.add_chunks([_record(k, v) for k, v in texts.items()], _vectors(len(texts)))
        for query in (["otter"], ["otter", "ledger"], lexical.query_terms("river lantern harbour")):
            for _ in range(3):  # SQLite: FTS5 first, then its ranking from memory
                longest = store.keyword_search(query, 40)
                assert len(longest) > 8
                for k in (1, 3, 8, 20):
                    assert store.keyword_search(query, k) == longest[:k], (query, k)
    finally:
        store.close()
