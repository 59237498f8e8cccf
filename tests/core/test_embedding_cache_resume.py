"""A long embedding stored as it goes (``EmbeddingCache.embed``, ``STORE_EVERY`` texts at a time): a run stopped
part-way (a cold ingest's 100,000 routing texts take an hour) keeps what it computed, and the next run embeds
only the rest."""

from __future__ import annotations

import numpy as np
import pytest

import lucasrag.embedding_cache as embedding_cache
from lucasrag.embedding import get_embedder
from lucasrag.embedding_cache import EmbeddingCache


def test_a_stopped_embedding_keeps_the_slices_it_finished(tmp_path, monkeypatch):
    texts = [f"note {i}: the pump's gasket was replaced" for i in range(5)]
    path = tmp_path / "embeddings.sqlite"
    monkeypatch.setattr(embedding_cache, "STORE_EVERY", 2)
    cache = EmbeddingCache(path)
    embedder = get_embedder(cache.model)
    model_embed, calls = embedder.embed, []

    def stopped_at_the_second_slice(batch):  # the real model, until the run is stopped
        calls.append(len(batch))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return model_embed(batch)

    monkeypatch.setattr(embedder, "embed", stopped_at_the_second_slice)
    with pytest.raises(KeyboardInterrupt):
        cache.embed(texts)
    cache.close()
    monkeypatch.setattr(embedder, "embed", model_embed)

    again = EmbeddingCache(path)
    vectors = again.embed(texts)
    assert calls == [2, 2] and (again.hits, again.misses) == (2, 3)  # the first slice came from the file
    np.testing.assert_allclose(vectors, model_embed(texts), atol=1e-5)
    again.close()
