"""Rank the merged pool: llama.cpp cross-encoder, else embedding similarity
fused with keyword (BM25) match; then a gentle temporal preference (newer, or
inside the asked-for period)."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lucasrag import lexical
from lucasrag.settings import Settings
from lucasrag_query.options import DEFAULT_OPTIONS, QueryOptions
from lucasrag_query.policy import Candidate, temporal_weight
from lucasrag_query.rerank import LlamaCppReranker, RerankUnavailable, similarity_scores
from lucasrag_query.temporal import TemporalSignals

#: How much the temporal weight can move a score: final = relevance × (1 − W + W × weight).
TEMPORAL_SHARE = 0.25

#: Weights of the keyword and graph-reach rankings against embedding similarity (1.0) in the fallback fusion.
KEYWORD_WEIGHT = 1.0
GRAPH_WEIGHT = 1.0


@dataclass
class Ranked:
    items: list[tuple[Candidate, float]]
    reranker: str
    note: str | None = None


def _keyword_scores(keywords: Sequence[str], pool: Sequence[Candidate], stores: Mapping) -> list[float]:
    """BM25 of each candidate against the query's terms, with document frequencies
    summed over the workspaces in the pool: one scale for the whole pool, which
    per-workspace index scores would not give."""
    n_docs, df = 0, {}
    for ws in dict.fromkeys(c.workspace for c in pool):
        n, counts = stores[ws].term_stats(keywords)
        n_docs += n
        for term, count in counts.items():
            df[term] = df.get(term, 0) + count
    return lexical.bm25(keywords, [lexical.chunk_terms(c.text, c.date) for c in pool], df, n_docs)


def _relevance(
    text: str,
    vector: np.ndarray,
    pool: Sequence[Candidate],
    stores: Mapping,
    settings: Settings,
    use_reranker: bool,
    keywords: Sequence[str] = (),
    reached: Collection[str] = frozenset(),
):
    """Scores in [0, 1] for each candidate and the name of the ranker that made them."""
    note = None
    if settings.reranker_url and use_reranker:
        reranker = LlamaCppReranker(settings.reranker_url, timeout_s=settings.reranker_timeout_s, max_chars=settings.rerank_max_chars)
        try:
            raw = reranker.rerank(text, [c.text for c in pool])
            return [1 / (1 + math.exp(-s)) for s in raw], "llama.cpp", None
        except RerankUnavailable as exc:
            note = f"llama.cpp reranker unavailable ({exc}); ranked by embedding similarity"
    elif settings.reranker_url:
        note = "reranker switched off for this query; ranked by embedding similarity"
    else:
        note = "no reranker configured (LUCASRAG_RERANKER_URL); ranked by embedding similarity"
    vectors = np.zeros((len(pool), vector.shape[0]), dtype=np.float32)
    by_ws: dict[str, list[int]] = {}
    for i, c in enumerate(pool):
        by_ws.setdefault(c.workspace, []).append(i)
    for ws, idx in by_ws.items():
        vectors[idx] = stores[ws].vectors([pool[i].chunk_id for i in idx])
    similarity = [(s + 1) / 2 for s in similarity_scores(vector, vectors)]
    lists, weights, names = [similarity], [1.0], []
    # Reciprocal-rank fusion: names and objects the question repeats word for word
    # are where dense similarity alone ranks worst; a chunk reached through an
    # entity the query named may share no word with it at all.
    if keywords:
        lists.append(_keyword_scores(keywords, pool, stores))
        weights.append(KEYWORD_WEIGHT)
        names.append("keyword match (BM25)")
    if any(c.chunk_id in reached for c in pool):
        lists.append([similarity[i] if c.chunk_id in reached else 0.0 for i, c in enumerate(pool)])
        weights.append(GRAPH_WEIGHT)
        names.append("entity-graph reach")
    if not names:
        return similarity, "embedding-similarity", note
    return lexical.fused_scores(lists, weights), "embedding-similarity", f"{note}, fused with {' and '.join(names)}"


def _temporal(c: Candidate, settings: Settings, temporal: TemporalSignals) -> float:
    # A note the person declared present (a canonical facts page) is current
    # whatever its creation date, unless the query asks for a period.
    if c.band_rule == "frontmatter" and c.band == "present" and not temporal.periods:
        return 1.0
    return temporal_weight(c.date, now=settings.now, temporal=temporal)


def rank_pool(
    text: str,
    vector: np.ndarray,
    pool: Sequence[Candidate],
    stores: Mapping,
    settings: Settings,
    temporal: TemporalSignals,
    options: QueryOptions = DEFAULT_OPTIONS,
    keywords: Sequence[str] = (),
    reached: Collection[str] = frozenset(),
) -> Ranked:
    if not pool:
        return Ranked([], "llama.cpp" if settings.reranker_url and options.rerank else "embedding-similarity")
    relevance, name, note = _relevance(text, vector, pool, stores, settings, options.rerank, keywords, reached)
    share = TEMPORAL_SHARE if options.temporal_preference else 0.0
    scored = [(c, r * (1 - share + share * _temporal(c, settings, temporal))) for c, r in zip(pool, relevance)]
    scored.sort(key=lambda cs: (-cs[1], cs[0].chunk_id))
    return Ranked(scored, name, note)
