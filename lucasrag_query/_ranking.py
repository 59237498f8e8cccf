"""Rank the merged pool.

With a llama.cpp cross-encoder: its scores, times a gentle temporal preference
(newer, or inside the asked-for period). Without one (the fallback): a weighted
reciprocal-rank fusion of embedding similarity, keyword match (BM25), entity-graph
reach and time fit, whose head a learned linear model then re-orders (``_rescore``;
``LUCASRAG_RESCORE=0`` leaves the fused order as it is)."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from lucasrag import lexical
from lucasrag.settings import Settings
from lucasrag_query._rescore import RescoreUnavailable, rescore
from lucasrag_query.options import DEFAULT_OPTIONS, QueryOptions
from lucasrag_query.policy import Candidate, about_periods, period_strength, temporal_weight
from lucasrag_query.rerank import LlamaCppReranker, RerankUnavailable, similarity_scores
from lucasrag_query.temporal import TemporalSignals, mentions_decade

#: How much the temporal weight can move a cross-encoder score: final = relevance × (1 − W + W × weight).
TEMPORAL_SHARE = 0.25

#: Weights of the keyword and graph-reach rankings against embedding similarity (1.0) in the fallback fusion.
#: Keywords weigh twice as much as similarity: the exact words a question repeats (names, objects,
#: places) decide the first rank better than MiniLM's cosine (LoCoMo tuning half: session Hit@1
#: 0.629 → 0.742 with FUSION_K below; docs/locomo.md,
#: "The ranking weights, and where each was chosen").
KEYWORD_WEIGHT = 2.0
GRAPH_WEIGHT = 1.0
#: Weights of the time-fit ranking: a named year is close to a constraint, so it weighs as
#: much as similarity and keywords together (1 + KEYWORD_WEIGHT); recency is a gentle preference.
#: A named period scales PERIOD_WEIGHT by its precision (policy.PRECISION_STRENGTH: a day 2×,
#: a decade ½×). Both chosen on the policy evaluation (generated vaults of 300 and 1,000 notes:
#: the only setting of the sweep that lost no case on either) with the LoCoMo tuning half as a
#: check; see docs/evaluation.md, "Tuning against the policy evaluation".
PERIOD_WEIGHT = 3.0
RECENCY_WEIGHT = 0.5
#: Reciprocal-rank-fusion constant of the final ranking. Small, so that the head of each ranking
#: counts: at the literature's 60 (kept for the candidate lists, lexical.RRF_K) the first of a
#: ranking gets only 15 % more than its tenth (1/61 against 1/70), at 2 four times as much (1/3
#: against 1/12). Chosen on the LoCoMo tuning half (60, 30, 10, 5, 2, 1 tried).
FUSION_K = 2


@dataclass
class Ranked:
    items: list[tuple[Candidate, float]]
    reranker: str
    note: str | None = None
    #: chunk id → signal name → (score, rank in the pool; 1 = best, None = no share): why each item surfaced
    signals: dict[str, dict[str, tuple[float, int | None]]] = field(default_factory=dict)


def _signals(pool: Sequence[Candidate], components: Mapping[str, Sequence[float]]) -> dict:
    """Each candidate's score and rank under every ranking that was fused."""
    out: dict[str, dict] = {c.chunk_id: {} for c in pool}
    for name, scores in components.items():
        order = sorted(range(len(pool)), key=lambda i: -scores[i])
        for rank, i in enumerate(order, start=1):
            out[pool[i].chunk_id][name] = (float(scores[i]), rank if scores[i] > 0 else None)
    return out


def _collection_stats(keywords: Sequence[str], pool: Sequence[Candidate], stores: Mapping) -> tuple[int, dict]:
    """(chunks, chunks holding each query term), summed over the workspaces in the pool:
    one scale for the whole pool, which per-workspace index scores would not give."""
    n_docs, df = 0, {}
    for ws in dict.fromkeys(c.workspace for c in pool):
        n, counts = stores[ws].term_stats(keywords)
        n_docs += n
        for term, count in counts.items():
            df[term] = df.get(term, 0) + count
    return n_docs, df


def _keyword_scores(keywords: Sequence[str], pool: Sequence[Candidate], stats: tuple[int, dict]) -> list[float]:
    """BM25 of each candidate against the query's terms, over the collection ``stats``."""
    n_docs, df = stats
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
    time_fit: Sequence[float] | None = None,
    time_weight: float = RECENCY_WEIGHT,
    stats: tuple[int, dict] = (0, {}),
):
    """Scores in [0, 1] for each candidate, the name of the ranker that made them, a note,
    whether ``time_fit`` (the temporal preference) is already in the scores, and the
    rankings that made them (signal name → per-candidate scores)."""
    note = None
    if settings.reranker_url and use_reranker:
        reranker = LlamaCppReranker(
            settings.reranker_url, timeout_s=settings.reranker_timeout_s, max_chars=settings.rerank_max_chars
        )
        try:
            raw = reranker.rerank(text, [c.text for c in pool])
            scores = [1 / (1 + math.exp(-s)) for s in raw]
            return scores, "llama.cpp", None, False, {"cross_encoder": scores}
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
    components = {"similarity": similarity}
    # Reciprocal-rank fusion: names and objects the question repeats word for word
    # are where dense similarity alone ranks worst; a chunk reached through an
    # entity the query named may share no word with it at all.
    if keywords:
        components["keywords"] = _keyword_scores(keywords, pool, stats)
        lists.append(components["keywords"])
        weights.append(KEYWORD_WEIGHT)
        names.append("keyword match (BM25)")
    if any(c.chunk_id in reached for c in pool):
        lists.append([similarity[i] if c.chunk_id in reached else 0.0 for i, c in enumerate(pool)])
        components["entity_graph"] = lists[-1]
        weights.append(GRAPH_WEIGHT)
        names.append("entity-graph reach")
    if not names and time_fit is None:
        return similarity, "embedding-similarity", note, False, components
    if time_fit is not None:
        # Time fit is one more ranking here (ties broken by similarity), not a multiplier:
        # fused scores spread far wider than cosines, and a multiplier would barely move them.
        lists.append([t + 1e-3 * sim for t, sim in zip(time_fit, similarity)])
        weights.append(time_weight)
        names.append("time fit")
    fused = lexical.fused_scores(lists, weights, k=FUSION_K)
    return fused, "embedding-similarity", f"{note}, fused with {', '.join(names)}", True, components


def _temporal(c: Candidate, settings: Settings, temporal: TemporalSignals) -> float:
    # A note the person declared present (a canonical facts page) is current
    # whatever its creation date, unless the query asks for a period.
    if c.band_rule == "frontmatter" and c.band == "present" and not temporal.periods:
        return 1.0
    weight = temporal_weight(c.date, now=settings.now, temporal=temporal)
    if weight < 1.0 and temporal.periods and mentions_decade(c.text, temporal.periods, settings.now):
        return 1.0  # about the decade asked for, whatever its own date
    if weight < 1.0 and about_periods(c, temporal.periods):
        return 1.0  # an undated childhood memory, for a decade of the writer's childhood
    return weight


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
    time_fit = [_temporal(c, settings, temporal) for c in pool] if options.temporal_preference else None
    strength = period_strength(temporal.periods)
    stats = _collection_stats(keywords, pool, stores) if keywords else (0, {})
    relevance, name, note, timed, components = _relevance(
        text,
        vector,
        pool,
        stores,
        settings,
        options.rerank,
        keywords,
        reached,
        time_fit,
        PERIOD_WEIGHT * strength if temporal.periods else RECENCY_WEIGHT,
        stats,
    )
    if time_fit is not None and (not timed or temporal.periods):
        # A named period also scales the scores by its time fit, as strongly as it is precise:
        # a rank fusion alone cannot lift the one chunk dated on the asked-for day above
        # the undated chunks that tie just behind it.
        share = TEMPORAL_SHARE * (strength or 1.0)
        relevance = [r * (1 - share + share * t) for r, t in zip(relevance, time_fit)]
    scored = list(zip(pool, relevance))
    scored.sort(key=lambda cs: (-cs[1], cs[0].chunk_id))
    if time_fit is not None:
        components = {**components, "time_fit": time_fit}
    signals = _signals(pool, components)
    if settings.rescore and name == "embedding-similarity":
        n_docs, df = stats
        try:
            scored = rescore(scored, signals, keywords, lexical.idf_weights(keywords, df, n_docs), reached)
            note = f"{note}; its head rescored by the learned second stage (LUCASRAG_RESCORE)"
        except RescoreUnavailable as exc:  # like a reranker's failure, never the query's
            note = f"{note}; the learned second stage was skipped: {exc}"
    return Ranked(scored, name, note, signals)
