"""The llama.cpp rerank path: client parsing and error mapping (mocked), then a real server.

The real server runs a protocol-test GGUF (MiniLM-L6 encoder + random rank
head, see lucasrag_harness.model_servers.reranker_model): its scores mean nothing, so these tests
check the protocol, ordering by the server's own scores, truncation, timeouts
and failure mapping — never relevance.
"""

from __future__ import annotations

import json
import math
import socket
import time

import httpx
import numpy as np
import pytest

from lucasrag_query.rerank import LlamaCppReranker, RerankUnavailable, similarity_scores, truncate_passage

URL = "http://reranker.test:8181"
# One llama.cpp thread: on shared CI cores its latency is steadier than two.
THREADS = 1


def _mock(handler) -> LlamaCppReranker:
    return LlamaCppReranker(URL, transport=httpx.MockTransport(handler), max_chars=40)


def _ok(scores_by_index: dict[int, float]):
    """A llama.cpp-shaped answer: results sorted by score, highest first."""
    results = [{"index": i, "relevance_score": s} for i, s in sorted(scores_by_index.items(), key=lambda kv: -kv[1])]
    return httpx.Response(200, json={"model": "m", "object": "list", "usage": {}, "results": results})


# --------------------------------------------------------------------------- unit: parsing


def test_scores_come_back_in_input_order_and_request_is_well_formed():
    seen = {}

    def handler(request: httpx.Request):
        seen["url"] = str(request.url)
        seen["body"] = json.loads(request.content)
        return _ok({0: -1.5, 1: 2.25, 2: 0.5})

    scores = _mock(handler).rerank("where did I live?", ["a flat in Leeds", "the house on Elm St", "a boat"])
    assert scores == [-1.5, 2.25, 0.5]
    assert seen["url"] == f"{URL}/v1/rerank"
    assert seen["body"] == {
        "query": "where did I live?",
        "documents": ["a flat in Leeds", "the house on Elm St", "a boat"],
        "top_n": 3,
    }


def test_base_url_may_end_in_slash_or_v1():
    for url in (URL + "/", URL + "/v1", URL + "/v1/"):
        assert LlamaCppReranker(url).endpoint == f"{URL}/v1/rerank"


def test_no_passages_makes_no_request():
    def handler(request):  # pragma: no cover - must not be called
        raise AssertionError("no request expected")

    assert _mock(handler).rerank("q", []) == []


def test_passages_are_truncated_before_sending():
    sent = {}

    def handler(request):
        sent["docs"] = json.loads(request.content)["documents"]
        return _ok({0: 1.0, 1: 0.0})

    long = "word " * 200
    _mock(handler).rerank("q", [long, "short"])
    assert len(sent["docs"][0]) <= 40 and sent["docs"][0].endswith("word")
    assert sent["docs"][1] == "short"


def test_truncate_passage_cuts_on_a_word_boundary():
    assert truncate_passage("hello world foo", 8) == "hello"
    assert truncate_passage("hello world foo", 11) == "hello world"
    assert truncate_passage("hello world foo", 100) == "hello world foo"
    assert truncate_passage("x" * 30, 10) == "x" * 10  # no boundary: hard cut, never empty
    text = " ".join(f"w{i}" for i in range(5000))
    cut = truncate_passage(text, 1200)
    assert len(cut) <= 1200 and text.startswith(cut) and text[len(cut)] == " "


# --------------------------------------------------------------------------- unit: error mapping


def _raises(handler, passages=("a", "b", "c")) -> str:
    with pytest.raises(RerankUnavailable) as info:
        _mock(handler).rerank("q", list(passages))
    assert info.value.reason == str(info.value)
    return info.value.reason


def test_connection_refused_is_unavailable():
    def handler(request):
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    assert "cannot connect" in _raises(handler)


def test_real_refused_port_is_unavailable():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RerankUnavailable, match="cannot connect"):
        LlamaCppReranker(f"http://127.0.0.1:{port}").rerank("q", ["a"])


def test_timeout_is_unavailable():
    def handler(request):
        raise httpx.ReadTimeout("timed out", request=request)

    assert "timed out after 10 s" in _raises(handler)


def test_http_500_is_unavailable_with_the_server_message():
    def handler(request):
        return httpx.Response(
            500, json={"error": {"code": 500, "message": "input (700 tokens) is too large", "type": "server_error"}}
        )

    reason = _raises(handler)
    assert "HTTP 500" in reason and "too large" in reason


def test_malformed_json_is_unavailable():
    assert "malformed JSON" in _raises(lambda r: httpx.Response(200, content=b"<html>oops"))


@pytest.mark.parametrize(
    "body, expected",
    [
        ({"results": [{"index": 0, "relevance_score": 1.0}]}, "1 scores for 3 passages"),
        ({"data": []}, "no 'results' list"),
        ([1, 2, 3], "no 'results' list"),
        ({"results": [{"index": i, "relevance_score": 0.1} for i in (0, 1, 1)]}, "twice"),
        ({"results": [{"index": i, "relevance_score": 0.1} for i in (0, 1, 7)]}, "invalid index"),
        (
            {"results": [{"index": 0, "relevance_score": 0.1}, {"index": 1}, {"index": 2, "relevance_score": 0}]},
            "without index",
        ),
        ({"results": [{"index": i, "relevance_score": None} for i in range(3)]}, "non-numeric score"),
    ],
)
def test_wrong_shape_is_unavailable(body, expected):
    assert expected in _raises(lambda r: httpx.Response(200, json=body))


def test_similarity_scores_are_dot_products():
    q = np.array([1.0, 0.0, 0.0])
    m = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.6, 0.8, 0.0]])
    assert similarity_scores(q, m) == pytest.approx([1.0, 0.0, -1.0, 0.6])
    assert similarity_scores(q, [m[3]]) == pytest.approx([0.6])
    assert similarity_scores(q, np.zeros((0, 3))) == []
    with pytest.raises(ValueError):
        similarity_scores(q, np.zeros((2, 4)))


# --------------------------------------------------------------------------- the real server

PASSAGES = [
    "In 2013 I rented a small flat above the bakery on Kirkgate in Leeds.",
    "Grandad's watch was valued at four hundred pounds for the insurance.",
    "Recipe: two eggs, flour, milk, a pinch of salt; rest the batter for an hour.",
    "We moved to Bristol in the spring of 2016, into the house on Elm Street.",
    "Notes from the quarterly planning meeting: hiring, budget, the office move.",
]


def _raw(url, query, documents, timeout=60.0) -> httpx.Response:
    return httpx.post(
        f"{url}/v1/rerank", json={"query": query, "documents": documents, "top_n": len(documents)}, timeout=timeout
    )


def test_test_model_is_a_bert_reranker(rank_model):
    from lucasrag_harness.model_servers.reranker_model import read_gguf_header

    kv, tensors = read_gguf_header(rank_model)
    assert kv["general.architecture"] == "bert" and kv["bert.attention.causal"] is False
    assert kv["bert.pooling_type"] == 4  # LLAMA_POOLING_TYPE_RANK
    assert kv["tokenizer.ggml.model"] == "bert" and len(kv["tokenizer.ggml.tokens"]) == 30522
    assert kv["tokenizer.ggml.token_type"].count(3) == 5  # [PAD] [UNK] [CLS] [SEP] [MASK] are CONTROL
    assert (kv["tokenizer.ggml.bos_token_id"], kv["tokenizer.ggml.seperator_token_id"]) == (101, 102)
    assert tensors["cls.weight"][0] == (384, 384) and tensors["cls.output.weight"][0] == (384, 1)
    assert len([t for t in tensors if t.startswith("blk.")]) == 6 * 16


def test_server_health_and_raw_rerank(reranker_url):
    assert httpx.get(f"{reranker_url}/health").json() == {"status": "ok"}
    r = _raw(reranker_url, "where did I live in 2013?", PASSAGES)
    assert r.status_code == 200
    results = r.json()["results"]
    assert sorted(x["index"] for x in results) == list(range(len(PASSAGES)))
    assert all(math.isfinite(x["relevance_score"]) for x in results)


def test_client_scores_match_the_server_and_order_by_them(reranker_url):
    query = "where did I live in 2013?"
    scores = LlamaCppReranker(reranker_url).rerank(query, PASSAGES)
    assert len(scores) == len(PASSAGES)
    raw = _raw(reranker_url, query, PASSAGES).json()["results"]
    by_index = {x["index"]: x["relevance_score"] for x in raw}
    assert scores == pytest.approx([by_index[i] for i in range(len(PASSAGES))], abs=1e-5)
    client_order = sorted(range(len(PASSAGES)), key=lambda i: -scores[i])
    assert client_order == [x["index"] for x in raw]  # llama.cpp sorts results by score
    assert len(set(round(s, 6) for s in scores)) > 1  # the head really scores, not a constant


def test_long_passage_is_truncated_accepted_and_fast(reranker_url):
    huge = " ".join(["the quick brown fox jumps over the lazy dog"] * 230)  # ~10k chars, ~2.3k tokens
    assert len(huge) > 10_000
    # Unclipped, llama.cpp refuses it (a 512-token window), which fails the whole request ...
    too_long = LlamaCppReranker(reranker_url, max_chars=len(huge))
    with pytest.raises(RerankUnavailable, match="HTTP"):
        too_long.rerank("fox", [huge, "short"])
    # ... clipped to max_chars it is scored quickly.
    start = time.perf_counter()
    scores = LlamaCppReranker(reranker_url, max_chars=1200).rerank("fox", [huge, "short"])
    assert len(scores) == 2 and time.perf_counter() - start < 5.0


def test_tiny_timeout_is_unavailable(reranker_url):
    with pytest.raises(RerankUnavailable, match="timed out"):
        LlamaCppReranker(reranker_url, timeout_s=0.001).rerank("q", PASSAGES * 2)
    # the server survives an abandoned request
    assert len(LlamaCppReranker(reranker_url).rerank("q", PASSAGES[:2])) == 2


@pytest.mark.parametrize("isolated", [False, True], ids=["in-process", "subprocess"])
def test_stopped_server_is_refused(rank_model, isolated):
    from lucasrag_harness.model_servers.llama_server import serve_reranker

    with serve_reranker(rank_model, isolated=isolated, threads=THREADS) as url:
        assert len(LlamaCppReranker(url).rerank("q", PASSAGES[:3])) == 3
    with pytest.raises(RerankUnavailable, match="cannot connect"):
        LlamaCppReranker(url, timeout_s=2).rerank("q", PASSAGES[:3])


def test_server_start_errors_are_clear(rank_model, tmp_path):
    from lucasrag_harness.model_servers.llama_server import RerankerServerError, serve_reranker

    with pytest.raises(RerankerServerError, match="not found"):
        with serve_reranker(tmp_path / "missing.gguf"):
            pass
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(RerankerServerError, match="could not serve"):
            with serve_reranker(rank_model, port=busy.getsockname()[1], threads=THREADS):
                pass
