"""Cross-encoder rerank over llama.cpp's ``/v1/rerank``, and the embedding fallback.

Import-light on purpose (httpx only; numpy is imported inside
:func:`similarity_scores`): the query path must not pay for more.

The llama.cpp API (``llama-server --reranking`` or ``lucasrag reranker serve``)::

    POST {url}/v1/rerank  {"query": "...", "documents": ["...", ...], "top_n": N}
    200 {"results": [{"index": 2, "relevance_score": 3.1}, ...], ...}

``results`` come sorted by score; :meth:`LlamaCppReranker.rerank` puts them
back in input order. Every way the call can fail becomes
:class:`RerankUnavailable` with a specific reason, so the caller can fall
back to embedding similarity and say why; a reranker never fails a query.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import httpx

__all__ = ["RerankUnavailable", "LlamaCppReranker", "truncate_passage", "similarity_scores"]


class RerankUnavailable(Exception):
    """The reranker could not score this request; ``reason`` says why (for the result note)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def truncate_passage(text: str, max_chars: int) -> str:
    """``text`` cut to at most ``max_chars`` characters, on a word boundary when there is one.

    A passage with no whitespace in the second half of the window is cut hard,
    so one very long "word" cannot empty it.
    """
    if max_chars <= 0:
        raise ValueError("max_chars must be positive")
    if len(text) <= max_chars:
        return text
    cut = max_chars  # text[:cut] ends on a word boundary when text[cut] is whitespace
    while cut > max_chars // 2 and not (text[cut].isspace() or text[cut - 1].isspace()):
        cut -= 1
    if cut <= max_chars // 2:
        cut = max_chars  # no boundary in the second half of the window: cut hard
    return text[:cut].rstrip()


def _base_url(url: str) -> str:
    """Accept ``http://h:p``, ``http://h:p/`` or ``http://h:p/v1`` (OpenAI-style base URLs)."""
    url = url.strip().rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


class LlamaCppReranker:
    """Client for a llama.cpp reranker server.

    ``timeout_s`` bounds connecting and each read/write of the request (httpx
    semantics); llama.cpp answers a rerank in one piece, so in practice it
    bounds the whole call. Passages are truncated to ``max_chars`` before
    sending: a BERT-sized cross-encoder has a 512-token window, llama.cpp
    rejects a (query, passage) pair longer than that, and cost grows with
    length (≈12 s for 120 passages of ~100 words on 2 cores via xllamacpp).
    ``transport`` lets tests inject ``httpx.MockTransport``.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 10.0,
        max_chars: int = 1200,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if max_chars <= 0:
            raise ValueError("max_chars must be positive")
        self.url = _base_url(url)
        self.endpoint = f"{self.url}/v1/rerank"
        self.timeout_s = timeout_s
        self.max_chars = max_chars
        self._transport = transport

    def __repr__(self) -> str:
        return f"LlamaCppReranker({self.url!r}, timeout_s={self.timeout_s}, max_chars={self.max_chars})"

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        """One raw relevance score (a logit; higher is more relevant) per passage, in input order.

        Raises :class:`RerankUnavailable` on connection refusal, timeout, an
        HTTP error status, a body that is not the expected JSON, or a result
        set that does not cover every passage exactly once.
        """
        if not passages:
            return []
        documents = [truncate_passage(p, self.max_chars) for p in passages]
        payload = {"query": query, "documents": documents, "top_n": len(documents)}
        try:
            with httpx.Client(timeout=self.timeout_s, transport=self._transport) as client:
                response = client.post(self.endpoint, json=payload)
        except httpx.ConnectError as exc:
            raise RerankUnavailable(
                f"cannot connect to reranker at {self.url} ({_short(exc) or 'connection refused'})"
            ) from exc
        except httpx.TimeoutException as exc:
            raise RerankUnavailable(
                f"reranker at {self.url} timed out after {self.timeout_s:g} s ({type(exc).__name__}, {len(documents)} passages)"
            ) from exc
        except httpx.HTTPError as exc:  # other transport/protocol errors
            raise RerankUnavailable(
                f"reranker request to {self.url} failed: {type(exc).__name__}: {_short(exc)}"
            ) from exc

        if response.status_code >= 400:
            raise RerankUnavailable(
                f"reranker at {self.url} answered HTTP {response.status_code}: {_error_text(response)}"
            )
        return _parse_scores(response, len(documents))


def _short(exc: BaseException, limit: int = 200) -> str:
    text = str(exc).strip()
    return text if len(text) <= limit else text[:limit] + "…"


def _error_text(response: httpx.Response, limit: int = 300) -> str:
    """llama.cpp's ``{"error": {"message": ...}}`` when present, else the start of the body."""
    try:
        body = response.json()
        message = body["error"]["message"] if isinstance(body.get("error"), dict) else body.get("error")
        if message:
            text = str(message)
            return text if len(text) <= limit else text[:limit] + "…"
    except (ValueError, AttributeError, KeyError, TypeError):
        pass
    text = response.text.strip().replace("\n", " ")
    return (text[:limit] + "…") if len(text) > limit else (text or "(empty body)")


def _parse_scores(response: httpx.Response, n: int) -> list[float]:
    try:
        body = response.json()
    except (ValueError, json.JSONDecodeError) as exc:
        raise RerankUnavailable(f"reranker returned malformed JSON ({_short(exc, 80)})") from exc
    results = body.get("results") if isinstance(body, dict) else None
    if not isinstance(results, list):
        raise RerankUnavailable("reranker response has no 'results' list")
    if len(results) != n:
        raise RerankUnavailable(f"reranker returned {len(results)} scores for {n} passages")
    scores: list[float | None] = [None] * n
    for item in results:
        try:
            index = item["index"]
            score = item["relevance_score"]
        except (TypeError, KeyError) as exc:
            raise RerankUnavailable(f"reranker result without index/relevance_score: {str(item)[:80]}") from exc
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
            raise RerankUnavailable(f"reranker returned an invalid index {index!r} for {n} passages")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise RerankUnavailable(f"reranker returned a non-numeric score {score!r} for passage {index}")
        if scores[index] is not None:
            raise RerankUnavailable(f"reranker returned passage {index} twice")
        scores[index] = float(score)
    return scores  # type: ignore[return-value]  # all n filled: n items, no duplicates, all in range


def similarity_scores(query_vec, passage_vecs) -> list[float]:
    """Dot products of a unit-normalised query vector with unit-normalised passage vectors.

    The embedding fallback: with normalised vectors this is cosine similarity
    in [-1, 1]. ``passage_vecs`` is a 2-D array (one row per passage) or a
    sequence of 1-D vectors; an empty one gives ``[]``.
    """
    import numpy as np

    q = np.asarray(query_vec, dtype=np.float32).reshape(-1)
    if len(passage_vecs) == 0:
        return []
    m = np.asarray(passage_vecs, dtype=np.float32)
    if m.ndim != 2 or m.shape[1] != q.shape[0]:
        raise ValueError(f"passage vectors of shape {m.shape} do not match a query vector of dimension {q.shape[0]}")
    return [float(x) for x in m @ q]
