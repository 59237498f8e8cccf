"""Switches for evaluations (ablations). Assistants never need these: the defaults
are the product's behaviour, and turning care off is for measuring its cost only."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QueryOptions:
    banding: bool = True  # False: the archive is always open (no band filter, no archive hint)
    deference: bool = True  # False: nothing is withheld for care (measures the recall cost of care)
    rerank: bool = True  # False: ignore a configured reranker, rank by embedding similarity
    temporal_preference: bool = True  # False: no recency / period weighting of scores
    graph: bool = True  # False: vector search only, even where a workspace has an entity graph
    keywords: bool = True  # False: no keyword (BM25) candidates and no keyword share in the fallback ranking


DEFAULT_OPTIONS = QueryOptions()
