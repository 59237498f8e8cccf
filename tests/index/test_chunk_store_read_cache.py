"""The SQLite chunk store's read caches (dated vectors, band totals) follow its own writes
and answer exactly what a table scan answers."""

from __future__ import annotations

import numpy as np
import pytest

from lucasrag.embedding import DIM
from lucasrag.index.chunk_store import SqliteChunkStore
from lucasrag.vocabulary import ChunkRecord


def _record(i: int, date: str | None, band: str = "present", charged: tuple[str, ...] = ()) -> ChunkRecord:
    return ChunkRecord(f"c{i}", f"d{i}", "personal", f"n{i}.md", 0, f"text {i}", band, "date", date, charged)


def _vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _scan(store: SqliteChunkStore, vector: np.ndarray, periods, k: int) -> list[str]:
    """The table scan the cache replaced: every chunk dated inside a period, nearest first."""
    between = " OR ".join(["date BETWEEN ? AND ?"] * len(periods))
    rows = store._db.execute(
        f"SELECT chunk_id, vector FROM chunks WHERE {between}", [b for p in periods for b in p]
    ).fetchall()
    scores = np.stack([np.frombuffer(b, dtype=np.float32) for _, b in rows]) @ vector
    return [rows[i][0] for i in np.argsort(-scores)[:k]]


@pytest.fixture
def store(tmp_path):
    s = SqliteChunkStore(tmp_path / "chunks.sqlite")
    yield s
    s.close()


DATES = [
    "2013-01-05",
    "2013-06-30",
    "2013-12-31",
    "2014-01-01",
    "2012-12-31",
    None,
    "2013-03",
    "2019-07-01",
    "2013-12-31T09:00",  # after "2013-12-31" as text: outside a period ending that day, as in SQL
    "2013-06-30",
]


@pytest.mark.parametrize(
    "periods",
    [
        [("2013-01-01", "2013-12-31")],
        [("2013-01-01", "2013-12-31"), ("2019-01-01", "2019-12-31")],
        [("2012-12-31", "2012-12-31")],
        [("1990-01-01", "1990-12-31")],
        [("2013-06-01", "2014-06-30"), ("2013-01-01", "2013-12-31")],  # overlapping, out of order
        [("2013-01-01", "2013-12-31T23:59")],
    ],
)
def test_nearest_dated_matches_the_table_scan(store, periods):
    records = [_record(i, d) for i, d in enumerate(DATES)]
    store.add_chunks(records, _vectors(len(records), 1))
    query = _vectors(1, 2)[0]
    expected = (
        _scan(store, query, periods, 3) if any(lo <= (d or "") <= hi for d in DATES for lo, hi in periods) else []
    )
    assert store.nearest_dated(query, periods, 3) == expected


def test_nearest_dated_breaks_ties_in_table_order_and_keeps_to_folders(store):
    same = _vectors(1, 6)[0]
    records = [
        ChunkRecord(f"c{i}", f"d{i}", "personal", path, 0, "text", "present", "date", date, ())
        for i, (path, date) in enumerate(
            [("b/x.md", "2013-05-01"), ("a/y.md", "2013-02-01"), ("b/z.md", "2013-09-01"), ("b/w.md", "2012-01-01")]
        )
    ]
    store.add_chunks(records, np.stack([same] * len(records)))
    year = [("2013-01-01", "2013-12-31")]
    assert store.nearest_dated(same, year, 2) == ["c0", "c1"]  # equal scores: the order the rows were written
    assert store.nearest_dated(same, year, 5, folders=["b"]) == ["c0", "c2"]
    assert store.nearest_dated(same, year, 5, folders=["c"]) == []


def test_the_caches_follow_the_stores_own_writes(store):
    query = _vectors(1, 3)[0]
    year = [("2013-01-01", "2013-12-31")]
    store.add_chunks([_record(0, "2013-02-01"), _record(1, "2010-01-01", "archival")], _vectors(2, 4))
    assert store.nearest_dated(query, year, 5) == ["c0"]
    assert store.band_counts() == {"present": 1, "archival": 1}

    store.add_chunks([_record(2, "2013-05-01", "archival")], _vectors(1, 5))
    assert sorted(store.nearest_dated(query, year, 5)) == ["c0", "c2"]
    assert store.band_counts() == {"present": 1, "archival": 2}

    store.remove_docs(["d0"])
    assert store.nearest_dated(query, year, 5) == ["c2"]
    assert store.band_counts() == {"archival": 2}
    assert store.band_counts([("2013-01-01", "2013-12-31")]) == {"archival": 1}


def test_a_charged_chunk_round_trips_and_an_uncharged_one_reads_as_empty(store):
    store.add_chunks([_record(0, None, charged=("Dad",)), _record(1, None)], _vectors(2, 6))
    got = store.get(["c0", "c1"])
    assert got["c0"].charged == ("Dad",) and got["c1"].charged == ()


def test_the_row_cache_follows_the_stores_own_writes_and_a_rolled_back_transaction(store):
    store.add_chunks([_record(0, None), _record(1, None)], _vectors(2, 7))
    assert store.get(["c0", "c1", "nope"]).keys() == {"c0", "c1"}  # read, so now cached

    store.add_chunks([_record(0, "2020-01-01", charged=("Dad",))], _vectors(1, 8))  # replaced
    assert store.get(["c0"])["c0"].charged == ("Dad",) and store.get(["c0"])["c0"].date == "2020-01-01"

    store.remove_docs(["d1"])
    assert store.get(["c0", "c1"]).keys() == {"c0"}

    with pytest.raises(RuntimeError), store.transaction():
        store.add_chunks([_record(2, None)], _vectors(1, 9))
        assert store.get(["c2"]).keys() == {"c2"}  # read inside the transaction, then rolled back
        raise RuntimeError("stop")
    assert store.get(["c2"]) == {}


def test_the_vector_cache_follows_the_stores_own_writes(store):
    first, second = _vectors(1, 10), _vectors(1, 11)
    store.add_chunks([_record(0, None)], first)
    assert np.array_equal(store.vectors(["c0", "nope"]), np.stack([first[0], np.zeros(DIM, np.float32)]))
    store.add_chunks([_record(0, None)], second)  # the same chunk, a new vector
    assert np.array_equal(store.vectors(["c0"]), second)
    store.remove_docs(["d0"])
    assert not store.vectors(["c0"]).any()


def test_the_caches_follow_another_connections_commits(tmp_path):
    reader, writer = SqliteChunkStore(tmp_path / "c.sqlite"), SqliteChunkStore(tmp_path / "c.sqlite")
    try:
        writer.add_chunks([_record(0, "2013-02-01")], _vectors(1, 12))
        query, year = _vectors(1, 13)[0], [("2013-01-01", "2013-12-31")]
        for _ in range(2):  # filled, then answered from the caches
            assert reader.get(["c0"])["c0"].text == "text 0" and reader.band_counts() == {"present": 1}
            assert reader.nearest_dated(query, year, 5) == ["c0"] and reader.keyword_search(["text"], 5) == ["c0"]
        replaced = ChunkRecord("c0", "d0", "personal", "n0.md", 0, "otter", "archival", "date", "2013-03-01")
        writer.add_chunks([replaced, _record(1, "2013-04-01")], _vectors(2, 14))
        assert reader.get(["c0"])["c0"].text == "otter" and reader.band_counts() == {"archival": 1, "present": 1}
        assert np.array_equal(reader.vectors(["c0"]), writer.vectors(["c0"]))
        assert sorted(reader.nearest_dated(query, year, 5)) == ["c0", "c1"]
        assert reader.keyword_search(["otter"], 5) == ["c0"] and reader.keyword_search(["text"], 5) == ["c1"]
    finally:
        reader.close(), writer.close()


FOLDERS = [  # (folders, ids expected among the 2013 chunks): a folder is a path prefix that ends at a slash
    pytest.param(("journal",), {"c0", "c1"}, id="one-folder-and-its-subfolders"),
    pytest.param(("journal/2013",), {"c1"}, id="a-subfolder"),
    pytest.param(("jour",), set(), id="not-a-word-prefix"),
    pytest.param(("journal", "work"), {"c0", "c1", "c2"}, id="alternatives"),
    pytest.param(("work/notes.md",), {"c2"}, id="a-note-path-itself"),
]


@pytest.mark.parametrize("folders, expected", FOLDERS)
def test_nearest_dated_and_band_counts_within_folders(store, folders, expected):
    paths = ["journal/a.md", "journal/2013/b.md", "work/notes.md", "journalling/c.md", "journal/d.md"]
    dates = ["2013-01-05", "2013-06-30", "2013-08-01", "2013-09-09", "2019-01-01"]
    records = [
        ChunkRecord(f"c{i}", f"d{i}", "personal", p, 0, "t", "archival", "date", d, ())
        for i, (p, d) in enumerate(zip(paths, dates, strict=True))
    ]
    store.add_chunks(records, _vectors(len(records), 7))
    year = [("2013-01-01", "2013-12-31")]
    assert set(store.nearest_dated(_vectors(1, 8)[0], year, 10, folders)) == expected
    assert store.band_counts(year, folders) == ({"archival": len(expected)} if expected else {})
    assert store.band_counts(year) == {"archival": 4}  # the cache keeps each question apart
