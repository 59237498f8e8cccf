"""The federated query against a real llama.cpp reranker, and its fallbacks.

The test model's rank head is random: these tests check the protocol and that
results are ordered by the server's scores, never relevance."""

from __future__ import annotations

import math
import socket
from dataclasses import replace

import pytest

from lucasrag_query import QueryOptions, query
from lucasrag_query.rerank import LlamaCppReranker

pytestmark = pytest.mark.slow
NO_TIME_PREFERENCE = QueryOptions(temporal_preference=False)


def test_results_are_ordered_by_the_servers_scores(ingested, reranker_url):
    settings = replace(ingested, reranker_url=reranker_url, reranker_timeout_s=300)
    result = query("what is my cat called?", settings=settings, top_k=8, options=NO_TIME_PREFERENCE)
    assert result.reranker == "llama.cpp" and result.reranker_note is None
    direct = LlamaCppReranker(reranker_url, timeout_s=300, max_chars=settings.rerank_max_chars)
    raw = direct.rerank("what is my cat called?", [r.text for r in result.results])
    expected = [round(1 / (1 + math.exp(-s)), 4) for s in raw]
    assert [r.score for r in result.results] == pytest.approx(expected, abs=2e-3)
    assert [r.score for r in result.results] == sorted((r.score for r in result.results), reverse=True)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("kind", ["refused", "timeout"])
def test_reranker_failure_falls_back_and_says_why(ingested, reranker_url, kind):
    url = f"http://127.0.0.1:{_closed_port()}" if kind == "refused" else reranker_url
    timeout = 10 if kind == "refused" else 0.001
    broken = replace(ingested, reranker_url=url, reranker_timeout_s=timeout)
    fallback = query("where do I live?", settings=broken)
    plain = query("where do I live?", settings=ingested)
    assert fallback.reranker == "embedding-similarity"
    assert "unavailable" in fallback.reranker_note and fallback.to_dict()["reranker_note"]
    assert [r.chunk_id for r in fallback.results] == [r.chunk_id for r in plain.results]
    assert "no reranker configured" in plain.reranker_note
