"""The in-memory keyword ranking (``keyword_index``) answers what FTS5 answers — order and ties
included — and the chunk store's copy follows the store's own writes."""

from __future__ import annotations

import numpy as np
import pytest

from lucasrag import lexical
from lucasrag.embedding import DIM
from lucasrag.index.chunk_store import SqliteChunkStore
from lucasrag.index.keyword_index import varints
from lucasrag.vocabulary import ChunkRecord

WORDS = "otter river harbour lantern ledger payroll rosa keeper storm island tide rope".split()


def _texts(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    texts = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 25)))) for _ in range(n)]
    return texts + texts[:10]  # exact copies: equal scores, FTS5's tie order decides


def _store(path, texts: list[str]) -> SqliteChunkStore:
    store = SqliteChunkStore(path)
    records = [
        ChunkRecord(
            f"c{i:03}", f"d{i}", "personal", f"n{i}.md", 0, t, "present", "date", "2016-05-01" if i % 7 else None
        )
        for i, t in enumerate(texts)
    ]
    store.add_chunks(records, np.zeros((len(records), DIM), np.float32))
    return store


def _fts(store: SqliteChunkStore, query, k: int) -> list[str]:
    store._keyword_searches = -(10**9)  # never warm: FTS5 answers
    try:
        return store.keyword_search(query, k)
    finally:
        store._keyword_searches = 0


def _warm(store: SqliteChunkStore) -> None:
    store.keyword_search(["x"], 1), store.keyword_search(["x"], 1)
    assert store._keywords is not None


QUERIES = [["otter"], ["otter", "river"], ["rope", "zebra"], ["zebra"], ["2016", "ledger", "rosa", "tide"], WORDS]


@pytest.mark.parametrize("query", QUERIES)
def test_memory_ranking_is_fts5s_ranking(tmp_path, query):
    store = _store(tmp_path / "chunks.sqlite", _texts(120, 1))
    query = lexical.query_terms(" ".join(query))
    try:
        for k in (1, 3, 10, 40, 1000):
            expected = _fts(store, query, k)
            _warm(store)
            assert store.keyword_search(query, k) == expected
            assert store.term_stats(query) == (
                130,
                dict(
                    store._db.execute(
                        f"SELECT term, doc FROM chunk_vocab WHERE term IN ({','.join('?' * len(query))})", query
                    )
                ),
            )
    finally:
        store.close()


def test_an_fts_row_without_its_chunk_row_takes_its_place_then_drops_out(tmp_path):
    store = _store(tmp_path / "chunks.sqlite", _texts(30, 2))
    try:
        store._db.execute("DELETE FROM chunks WHERE chunk_id IN ('c000', 'c003')")  # orphan their FTS rows
        for k in (2, 5, 50):
            expected = _fts(store, ["otter", "rope"], k)
            _warm(store)
            assert store.keyword_search(["otter", "rope"], k) == expected
    finally:
        store.close()


def test_the_memory_ranking_follows_the_stores_own_writes(tmp_path):
    store = _store(tmp_path / "chunks.sqlite", _texts(40, 3))
    try:
        _warm(store)
        new = ChunkRecord("c999", "d999", "personal", "new.md", 0, "otter otter otter", "present", "date", None)
        store.add_chunks([new], np.zeros((1, DIM), np.float32))
        assert store._keywords is None  # forgotten with the write
        expected = _fts(store, ["otter"], 3)
        assert expected[0] == "c999"
        _warm(store)
        assert store.keyword_search(["otter"], 3) == expected
        store.remove_docs(["d999"])
        expected = _fts(store, ["otter"], 100)
        assert "c999" not in expected
        _warm(store)
        assert store.keyword_search(["otter"], 100) == expected
    finally:
        store.close()


def test_a_row_another_process_commits_while_a_question_is_answered_is_left_out_then_found(tmp_path):
    """The index's rows are read first and a term's posting when a question first asks for it: an ingest may
    commit in between (found by a query polling while a 100,000-note change was written: an IndexError).
    That answer leaves the new row out; the next search reads the index afresh and finds it."""
    path = tmp_path / "chunks.sqlite"
    reader, writer = _store(path, _texts(40, 6)), SqliteChunkStore(path)
    try:
        _warm(reader)
        index = reader._keywords
        for i, text in enumerate(["zebra otter", "zebra zebra lantern"]):
            new = ChunkRecord(f"c9{i}", f"d9{i}", "personal", f"new{i}.md", 0, text, "present", "date", None)
            writer.add_chunks([new], np.zeros((1, DIM), np.float32))  # committed by another connection
        # the question already inside its search (past the store's freshness check) reads the new postings
        assert index.search(["zebra"], 5) == []
        assert "c90" not in index.search(["otter", "lantern"], 100)
        assert reader.keyword_search(["zebra"], 5) == ["c91", "c90"] == _fts(reader, ["zebra"], 5)
    finally:
        reader.close(), writer.close()


@pytest.mark.parametrize("emptied", [False, True])
def test_an_empty_store_answers_nothing_from_memory(tmp_path, emptied):
    store = _store(tmp_path / "chunks.sqlite", _texts(5, 4)) if emptied else SqliteChunkStore(tmp_path / "c.sqlite")
    try:
        if emptied:
            store.remove_docs([f"d{i}" for i in range(15)])
        _warm(store)
        assert store.keyword_search(["otter"], 5) == [] == _fts(store, ["otter"], 5)
        assert store.term_stats(["otter"]) == (0, {})
    finally:
        store.close()


def test_a_term_fts5_may_split_goes_to_fts5(tmp_path):
    store = _store(tmp_path / "chunks.sqlite", ["café au lait", "ça va"])
    try:
        _warm(store)
        assert not store._keywords.answers(["caf\u00e9"]) and store._keywords.answers(["cafe", "2016"])
        assert store.keyword_search(lexical.query_terms("café"), 5) == _fts(store, lexical.query_terms("café"), 5)
    finally:
        store.close()


@pytest.mark.parametrize(
    ("blob", "values"),
    [(b"\x00", [0]), (b"\x7f", [127]), (b"\x81\x00", [128]), (bytes.fromhex("A66B93D612"), [4971, 322322])],
)
def test_varints(blob, values):
    assert varints(blob) == values
