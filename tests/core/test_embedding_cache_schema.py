"""The embedding cache keeps its vectors in a rowid table (a 1.5 KB vector is too big a row for a WITHOUT ROWID
B-tree), and converts a cache file written the old way in place, once, keeping every vector."""

from __future__ import annotations

import sqlite3

import numpy as np

from lucasrag.embedding_cache import EmbeddingCache, text_hash

_OLD_SCHEMA = """
CREATE TABLE model_vectors (
    model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash)
) WITHOUT ROWID;
"""


def _table_sql(path) -> str:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT sql FROM sqlite_master WHERE name = 'model_vectors'").fetchone()[0]


def test_a_new_cache_is_a_rowid_table(tmp_path):
    EmbeddingCache(tmp_path / "embeddings.sqlite").close()
    assert "WITHOUT ROWID" not in _table_sql(tmp_path / "embeddings.sqlite").upper()


def test_an_old_cache_is_converted_with_every_vector(tmp_path):
    path = tmp_path / "embeddings.sqlite"
    texts = [f"note {i} about pumps" for i in range(50)]
    vectors = np.random.default_rng(7).random((50, 384), dtype=np.float32)
    with sqlite3.connect(path) as db:
        db.executescript(_OLD_SCHEMA)
        db.executemany(
            "INSERT INTO model_vectors VALUES (?, ?, ?)",
            [("minilm", text_hash(t), v.tobytes()) for t, v in zip(texts, vectors)],
        )
    cache = EmbeddingCache(path)
    got = cache.embed(texts)  # every text a hit: nothing is computed
    assert cache.misses == 0 and cache.hits == 50
    np.testing.assert_array_equal(got, vectors)
    cache.close()
    assert "WITHOUT ROWID" not in _table_sql(path).upper()
    again = EmbeddingCache(path)  # the second open finds nothing to convert
    assert again.embed(texts[:1]).shape == (1, 384) and again.misses == 0
    again.close()
