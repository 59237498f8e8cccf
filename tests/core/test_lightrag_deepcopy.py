"""LightRAG deep-copies its config on every query: our tokenizer and vector cache must be shared, not copied."""

from __future__ import annotations

import asyncio
import copy

import numpy as np

from lucasrag.embedding import get_embedder
from lucasrag.index._lightrag._setup import _VectorCache


def test_tokenizer_adapter_is_shared_by_deepcopy():
    tokenizer = get_embedder().tokenizer
    assert copy.deepcopy(tokenizer) is tokenizer
    assert copy.deepcopy({"tokenizer": tokenizer})["tokenizer"] is tokenizer


def test_vector_cache_is_shared_and_keeps_no_query_vectors():
    cache = _VectorCache("minilm")
    cache.add(["passage"], np.ones((1, 384), np.float32))
    assert copy.deepcopy(cache.embed).__self__ is cache
    vector = asyncio.run(cache.embed_query("where do I live?"))
    assert vector.shape == (384,) and set(cache._by_text) == {"passage"}
