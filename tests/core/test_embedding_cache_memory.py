"""A long-lived process keeps the vectors routing read (``EmbeddingCache.remembering``): the next run reads
only the texts it did not ask for last time, the memory holds only the last run's texts, and what
``retain`` forgets (a private note's vectors) leaves the memory too."""

from __future__ import annotations

import sqlite3

import numpy as np

from lucasrag.embedding_cache import EmbeddingCache


def test_the_next_run_reads_only_new_texts_and_the_memory_keeps_only_the_last_runs(tmp_path):
    path = tmp_path / "embeddings.sqlite"
    first = EmbeddingCache(path)
    with first.remembering("routing"):
        before = first.embed(["a note about pumps", "a note about gaskets"])
    first.close()
    with sqlite3.connect(path) as db:  # the file forgets them: only the memory can answer now
        db.execute("DELETE FROM model_vectors")

    second = EmbeddingCache(path)
    with second.remembering("routing"):
        again = second.embed(["a note about pumps", "a new note about valves"])
    assert second.misses == 1 and second.hits == 1  # the pump note came from the memory, unread and uncomputed
    np.testing.assert_array_equal(again[0], before[0])
    second.close()

    third = EmbeddingCache(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM model_vectors")
    with third.remembering("routing"):
        third.embed(["a note about gaskets"])  # not asked for by the last run: gone from the memory
    assert third.misses == 1
    outside = third.embed(["a note about gaskets"])  # outside remembering(): the file only
    assert third.misses == 1 and outside.shape == (1, 384)
    third.close()


def test_retain_forgets_a_private_notes_vector_in_the_memory_too(tmp_path):
    path = tmp_path / "embeddings.sqlite"
    cache = EmbeddingCache(path)
    with cache.remembering("routing"):
        cache.embed(["public text", "soon private text"])
    assert cache.retain(["public text"]) == 1
    with cache.remembering("routing"):
        cache.embed(["soon private text"])
    assert cache.misses == 2 + 1  # computed again: neither the file nor the memory kept it
    cache.close()


def test_the_memory_answers_what_the_file_answers_in_order_and_read_only(tmp_path):
    path = tmp_path / "embeddings.sqlite"
    texts = ["pumps", "gaskets", "pumps", "valves"]  # a repeated text is one vector, at both places
    plain = EmbeddingCache(path)
    from_file = plain.embed(texts)
    with plain.remembering("routing"):
        first = plain.embed(texts[:3])
        prototypes = plain.embed(["a prototype"])
    with plain.remembering("routing"):
        again = plain.embed([*reversed(texts), "a prototype"])  # new order, a text of another answer
    np.testing.assert_array_equal(again[:4], from_file[::-1])
    np.testing.assert_array_equal(again[4], prototypes[0])
    np.testing.assert_array_equal(first, from_file[:3])
    assert not again.flags.writeable  # the process keeps it for the next run: nobody may change it
    assert plain.embed(["pumps"]).flags.writeable  # outside remembering(): the caller's own array
    plain.close()
