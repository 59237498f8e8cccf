"""A learned second stage: the fused top k rescored by a linear model over the signals the
ranking already has (no new model, no new index read).

Each candidate of the top k is described by generic features of the query path — its
fused score and rank, its similarity and keyword scores and ranks, how much of the
query's rare vocabulary it holds, whether it repeats two query terms side by side, its
time fit, graph reach and how many chunks of its own note are also in the pool. A linear
model (``rescore_model.json``, fitted by pairwise logistic regression on the LoCoMo
tuning half: ``python -m lucasrag_harness.evaluation.rescore_fit``) scores them, and the
top k is re-ordered by that score. The k candidates keep the fused scores of the places
they take, so the scores of the list still fall from first to last. A model may also keep
the fused top N as a set (``keep_top``; the shipped model has none): it re-orders them among
themselves and the rest of its top k among themselves, so a candidate from below never
pushes one of them down.

On by default; ``LUCASRAG_RESCORE=0`` (``Settings.rescore``) turns it off. See docs/locomo.md,
"The learned second stage", for what it measured.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from lucasrag import lexical

MODEL_PATH = Path(__file__).with_name("rescore_model.json")

#: Every feature the extraction knows, in column order. A model names the subset it uses.
FEATURES: tuple[str, ...] = (
    "fused",  # the fused score, in [0, 1]
    "fused_gap",  # the best fused score of the pool minus this one
    "fused_rank",  # log of the place in the fused order (0 = first)
    "similarity",  # the embedding similarity, (cos + 1) / 2
    "similarity_gap",  # the pool's best similarity minus this one
    "similarity_rank",  # log of the place in the similarity order
    "keyword",  # BM25 over the pool's best BM25 (0: no query term)
    "keyword_rank",  # log of the place in the keyword order (log(n + 1): no query term)
    "idf_cover",  # the idf of the query terms it holds over the idf of all of them
    "term_cover",  # the share of the query terms it holds
    "bigram",  # the share of the query's adjacent term pairs it holds side by side
    "time_fit",  # the time fit (recency or named period), 0 when the preference is off
    "time_gap",  # the pool's best time fit minus this one
    "graph",  # 1 when reached through an entity the query named
    "note_support",  # log(1 + other chunks of its note in the pool)
    "length",  # log of its number of terms
    "best_rank",  # log of its best place in the similarity or keyword order
)


@dataclass(frozen=True)
class RescoreModel:
    """A linear scorer over standardised features: score = Σ w · (x − mean) / scale."""

    version: int
    top_k: int
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    #: the fused top ``keep_top`` stay the top ``keep_top`` (re-ordered among themselves); 0: the whole top k moves
    keep_top: int = 0

    @classmethod
    def from_dict(cls, raw: Mapping) -> RescoreModel:
        unknown = [f for f in raw["features"] if f not in FEATURES]
        if unknown:
            raise ValueError(f"rescore model names unknown features {unknown} (known: {', '.join(FEATURES)})")
        arrays = [np.asarray(raw[k], dtype=np.float64) for k in ("mean", "scale", "weights")]
        if any(a.shape != (len(raw["features"]),) for a in arrays):
            raise ValueError("rescore model: mean, scale and weights need one value per feature")
        keep_top = int(raw.get("keep_top", 0))
        if not 0 <= keep_top <= int(raw["top_k"]):
            raise ValueError(f"rescore model: keep_top {keep_top} must lie between 0 and top_k {raw['top_k']}")
        return cls(int(raw["version"]), int(raw["top_k"]), tuple(raw["features"]), *arrays, keep_top=keep_top)

    def to_dict(self) -> dict:
        return {
            "version": self.version,
            "top_k": self.top_k,
            "features": list(self.features),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "weights": self.weights.tolist(),
            "keep_top": self.keep_top,
        }

    def scores(self, matrix: np.ndarray) -> np.ndarray:
        """Scores of the rows of a full feature matrix (columns in :data:`FEATURES` order)."""
        columns = [FEATURES.index(f) for f in self.features]
        return ((matrix[:, columns] - self.mean) / self.scale) @ self.weights


class RescoreUnavailable(RuntimeError):
    """The model file is missing or unreadable: the query keeps the fused order and says why."""


@lru_cache(maxsize=4)
def _load(path: Path) -> RescoreModel:
    try:
        return RescoreModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RescoreUnavailable(
            f"{path} does not load ({exc}); reinstall LucasRAG, or set LUCASRAG_RESCORE=0"
        ) from None


def load_model() -> RescoreModel:
    """The shipped model (:data:`MODEL_PATH`), read once."""
    return _load(MODEL_PATH)


def _bigrams(sequence: Sequence[str]) -> set[tuple[str, str]]:
    return set(zip(sequence, sequence[1:]))


def features(
    items: Sequence[tuple],
    signals: Mapping[str, Mapping[str, tuple[float, int | None]]],
    keywords: Sequence[str],
    idf: Mapping[str, float],
    reached: frozenset[str] | set[str],
    k: int,
) -> np.ndarray:
    """The feature matrix (rows: the first ``k`` of ``items``, the fused order as (candidate,
    score) pairs; columns: :data:`FEATURES`). ``signals`` is :attr:`Ranked.signals` (chunk id →
    signal → (score, rank)); ``idf`` the idf of each query term over the collection."""
    n = len(items)
    head = items[:k]
    best_fused = items[0][1] if items else 0.0
    sims = [signals[c.chunk_id].get("similarity", (0.0, None))[0] for c, _ in items]
    fits = [signals[c.chunk_id].get("time_fit", (0.0, None))[0] for c, _ in items]
    best_sim, best_fit = max(sims, default=0.0), max(fits, default=0.0)
    best_bm25 = max((signals[c.chunk_id].get("keywords", (0.0, None))[0] for c, _ in items), default=0.0)
    per_note: dict[str, int] = {}
    for c, _ in items:
        per_note[c.path] = per_note.get(c.path, 0) + 1
    total_idf = sum(idf.get(t, 0.0) for t in keywords) or 1.0
    pairs = _bigrams(list(keywords))
    rows = []
    for place, (c, fused) in enumerate(head):
        sig = signals[c.chunk_id]
        sim, sim_rank = sig.get("similarity", (0.0, None))
        bm25, kw_rank = sig.get("keywords", (0.0, None))
        words = lexical.chunk_terms(c.text, c.date)
        present = set(words) & set(keywords)
        rows.append(
            [
                fused,
                best_fused - fused,
                math.log(place + 1),
                sim,
                best_sim - sim,
                math.log(sim_rank or n + 1),
                bm25 / best_bm25 if best_bm25 > 0 else 0.0,
                math.log(kw_rank or n + 1),
                sum(idf.get(t, 0.0) for t in present) / total_idf,
                len(present) / len(keywords) if keywords else 0.0,
                len(pairs & _bigrams(words)) / len(pairs) if pairs else 0.0,
                fits[place],
                best_fit - fits[place],
                1.0 if c.chunk_id in reached else 0.0,
                math.log(per_note[c.path]),
                math.log(1 + len(words)),
                math.log(min(sim_rank or n + 1, kw_rank or n + 1)),
            ]
        )
    return np.asarray(rows, dtype=np.float64).reshape(len(head), len(FEATURES))


def reorder(items: Sequence[tuple], scores: np.ndarray, keep_top: int = 0) -> list[tuple]:
    """``items`` with its first ``len(scores)`` re-ordered by ``scores`` (best first; ties keep
    the fused order). Each of them takes the fused score of the place it lands on. With
    ``keep_top``, the first ``keep_top`` are re-ordered among themselves and the others of the
    head among themselves: the first ``keep_top`` places keep their set."""
    k = len(scores)
    cut = min(keep_top, k)
    order = [i for part in (range(cut), range(cut, k)) for i in sorted(part, key=lambda i: (-scores[i], i))]
    return [(items[i][0], items[place][1]) for place, i in enumerate(order)] + list(items[k:])


def rescore(
    items: Sequence[tuple],
    signals: Mapping,
    keywords: Sequence[str],
    idf: Mapping[str, float],
    reached,
    model: RescoreModel | None = None,
) -> list[tuple]:
    """The fused ranking ``items`` with its top ``model.top_k`` re-ordered by the model."""
    model = model or load_model()
    if len(items) < 2:
        return list(items)
    matrix = features(items, signals, keywords, idf, frozenset(reached), model.top_k)
    return reorder(items, model.scores(matrix), model.keep_top)
