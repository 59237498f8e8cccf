"""The PostgreSQL chunk store keeps its band counts under the rows digest of the last complete sync: a
question asks one or two, each a scan of the workspace's rows (60-75 ms at 100,000 notes). Any write
clears the digest, so counts are never served across a change; a recorded digest brings the new ones."""

from __future__ import annotations

import pytest

from lucasrag.index.chunk_store_pg import CHUNKS_TABLE, PostgresChunkStore
from lucasrag.vocabulary import ChunkRecord

pytestmark = pytest.mark.production


def _records(ids, band: str, date: str) -> list[ChunkRecord]:
    return [ChunkRecord(f"c{i}", f"d{i}", "personal", f"n{i}.md", 0, f"text {i}", band, "date", date) for i in ids]


@pytest.fixture
def store(fresh_pg_settings):
    s = PostgresChunkStore(fresh_pg_settings, "personal")
    yield s
    s.close()


def test_counts_are_kept_under_the_digest_and_follow_every_write(store, unit_vectors):
    year = [("2013-01-01", "2013-12-31")]
    store.add_chunks(
        _records(range(3), "present", "2025-01-01") + _records(range(3, 5), "archival", "2013-05-01"), unit_vectors(5)
    )
    assert store.band_counts() == {"present": 3, "archival": 2}  # no digest yet: counted, not kept
    store.record_rows_digest("first")
    assert store.band_counts() == {"present": 3, "archival": 2}
    assert store.band_counts(year) == {"archival": 2}

    # a row changed behind the store's back, the digest left as it was: the kept counts answer (they are used)
    store._db.execute(f"UPDATE {CHUNKS_TABLE} SET band = 'present' WHERE workspace = 'personal' AND chunk_id = 'c3'")
    assert store.band_counts() == {"present": 3, "archival": 2}

    store.add_chunks(_records(range(5, 7), "archival", "2013-08-01"), unit_vectors(2))  # a sync's write clears it
    assert store.band_counts() == {"present": 4, "archival": 3}
    store.record_rows_digest("second")
    assert store.band_counts(year) == {"present": 1, "archival": 3}
    store.remove_docs(["d5"])
    assert store.band_counts(year) == {"present": 1, "archival": 2}


def test_term_counts_are_kept_under_the_digest_and_follow_every_write(store, unit_vectors):
    store.add_chunks(_records(range(3), "present", "2025-01-01"), unit_vectors(3))
    assert store.term_stats(["text", "1", "absent"]) == (3, {"text": 3, "1": 1})  # no digest yet: read, not kept
    store.record_rows_digest("first")
    assert store.term_stats(["text", "1"]) == (3, {"text": 3, "1": 1})

    # a row changed behind the store's back, the digest left as it was: the kept counts answer (they are used)
    store._db.execute(f"UPDATE {CHUNKS_TABLE} SET terms = to_tsvector('simple', 'other') WHERE chunk_id = 'c1'")
    assert store.term_stats(["text", "1"]) == (3, {"text": 3, "1": 1})
    assert store.term_stats(["other"]) == (3, {"other": 1})  # a term not kept yet is read

    store.add_chunks(_records(range(3, 5), "present", "2025-02-01"), unit_vectors(2))  # a sync's write clears it
    assert store.term_stats(["text", "1"]) == (5, {"text": 4})
    store.record_rows_digest("second")
    store.remove_docs(["d3"])
    assert store.term_stats(["text", "other"]) == (4, {"text": 3, "other": 1})
