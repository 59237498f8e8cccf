"""Fit the care classifier on the tuning data of the generated corpus and write its weights.

    python -m lucasrag_assets.rules.care.training [--cache /tmp/care-emb.sqlite] [--out weights.json]

Only the ``tune`` half is read (every family of corpus batches 1-4; the held-out
batch is the test half and is never read here). Two logistic regressions (L2,
class-balanced) fitted with full-batch Adam in numpy: the lexical model over
``features``, and the vector model over the contextual span vector of the
sentences about the subject (one forward pass of the configured embedding model
over the passage, recorded in the weights as ``vector.embedding_model``; see
``vectors``). The combined score adds their logits and the standardised
prototype margins of the span vector and of the chunk's passage vector
(``prototypes``: situation descriptions embedded here, shipped as vectors), with
the weights that maximise out-of-fold recall at the uncertain cut.

Everything is chosen on out-of-fold scores, folds grouped by template family
(so on ways of writing the fold's model never saw), over ``REPEATS`` fold
assignments whose scores are pooled (one assignment alone moved the recall by up
to 0.07): ``uncertain`` is the lowest threshold that keeps out-of-fold neutral
false positives at ``UNCERTAIN_FP`` (the issue's 0.05), ``charged`` the lowest
that keeps them at ``CHARGED_FP`` — or lower, until at most ``UNCERTAIN_BUDGET``
of all out-of-fold pairs fall between the two (the issue's 0.15). The report
(also in ``weights.json``) gives the pooled out-of-fold figures at those cuts
and each assignment's own.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from itertools import product
from pathlib import Path

import numpy as np

from lucasrag.embedding_cache import EmbeddingCache
from lucasrag_assets.rules.care.detector import vectorise
from lucasrag_assets.rules.care.features import HASH_DIM, N_FEATURES
from lucasrag_assets.rules.care.mentions import resolve
from lucasrag_assets.rules.care.model import CareModel, Exemplar
from lucasrag_assets.rules.care.prototypes import CHARGED_PROTOTYPES, MARGIN, NEUTRAL_PROTOTYPES, prototype_features
from lucasrag_assets.rules.care.vectors import Centroid, Prototypes, SpanEmbed, VectorModel, embedding_model_id
from lucasrag_harness.evaluation.care_corpus import PERSONAS, Passage, generate_corpus

VERSION = "care-lr-4"
L2 = 1e-2
L2_DENSE = 1e-4
STEPS = 400
UNCERTAIN_FP = 0.05
CHARGED_FP = 0.02
UNCERTAIN_BUDGET = 0.15
FOLDS = 4
#: Fold assignments of the families (the first: alternating in name order; the others: seeded shuffles).
#: One assignment's out-of-fold recall moved by up to 0.07 with the families it grouped; the weights and
#: cuts are chosen on the scores of all assignments together.
REPEATS = 4
EXEMPLAR_BUCKETS = 48
DEFAULT_OUT = Path(__file__).resolve().parent / "weights.json"
VECTOR_L2 = 1e-3
VECTOR_STEPS = 600
#: Candidate weights of the combined score (lexical logit, span logit, prototype margin of the span vector,
#: of the chunk vector); out-of-fold recall at the uncertain cut picks one.
LEXICAL_WEIGHTS = (0.5, 1.0)
SPAN_WEIGHTS = (0.5, 1.0)
PROTOTYPE_WEIGHTS = (0.0, 0.5, 1.0)


def passage_vector(p: Passage) -> np.ndarray | None:
    subject = next(x.subject for x in PERSONAS if x.subject.name == p.subject)
    context = resolve(p.text, subject)
    if context is None or not context.mentions:
        return None
    return vectorise(p.text, subject, context)[0]


def passage_span_vector(p: Passage, embed: SpanEmbed) -> tuple[np.ndarray, np.ndarray]:
    """What the detector sees: the span vector (the passage vector when the span lies past the window)
    and the passage vector."""
    subject = next(x.subject for x in PERSONAS if x.subject.name == p.subject)
    pooled, (span,) = embed(p.text, [resolve(p.text, subject).spans])
    return (pooled if span is None else span), pooled


def fit(x: np.ndarray, y: np.ndarray, *, dense: bool = False) -> tuple[np.ndarray, float]:
    """Class-balanced L2 logistic regression; ``dense`` for embedding vectors, else the lexical layout."""
    w, b = np.zeros(x.shape[1], dtype=np.float64), 0.0
    if dense:
        l2, steps = np.full(x.shape[1], VECTOR_L2), VECTOR_STEPS
    else:
        l2, steps = np.full(x.shape[1], L2), STEPS
        l2[HASH_DIM:] = L2_DENSE  # the few dense features may take large weights
    pos = y.mean()
    sw = np.where(y == 1, 0.5 / pos, 0.5 / (1 - pos))  # class-balanced
    m_w, v_w, m_b, v_b = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    lr, b1, b2 = 0.05, 0.9, 0.999
    for t in range(1, steps + 1):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = sw * (p - y) / len(y)
        gw, gb = x.T @ g + l2 * w, float(g.sum())
        m_w, v_w = b1 * m_w + (1 - b1) * gw, b2 * v_w + (1 - b2) * gw**2
        m_b, v_b = b1 * m_b + (1 - b1) * gb, b2 * v_b + (1 - b2) * gb**2
        w -= lr * (m_w / (1 - b1**t)) / (np.sqrt(v_w / (1 - b2**t)) + 1e-8)
        if not dense:
            w[HASH_DIM] = max(w[HASH_DIM], 0.0)  # the rule table's cue is evidence for, never against
        b -= lr * (m_b / (1 - b1**t)) / (np.sqrt(v_b / (1 - b2**t)) + 1e-8)
    return w, b


def thresholds(scores: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    neg = np.sort(scores[y == 0])

    def at_fp(rate: float) -> float:
        return float(neg[min(len(neg) - 1, int(np.ceil((1 - rate) * len(neg))))]) + 1e-4

    uncertain, charged = at_fp(UNCERTAIN_FP), at_fp(CHARGED_FP)
    above = np.sort(scores[scores >= uncertain])
    budget = int(np.floor(UNCERTAIN_BUDGET * len(scores)))
    if len(above) > budget:  # the lowest cut that leaves at most ``budget`` pairs uncertain
        charged = min(charged, float(above[budget]) + 1e-6)
    return round(uncertain, 4), round(max(charged, uncertain), 4)


def family_folds(families: list[str], repeat: int) -> dict[str, int]:
    """Family → fold for one repeat: alternating in name order (repeat 0), or a seeded shuffle of it."""
    names = sorted(set(families))
    order = np.arange(len(names)) if repeat == 0 else np.random.default_rng(repeat).permutation(len(names))
    return {names[j]: i % FOLDS for i, j in enumerate(order)}


def _oof_repeats(x: np.ndarray, y: np.ndarray, fold_sets: list[np.ndarray], *, dense: bool = False) -> np.ndarray:
    """Out-of-fold probabilities of every repeat, concatenated (``REPEATS * len(y)``)."""
    return np.concatenate([_oof(x, y, folds, dense=dense) for folds in fold_sets])


def _oof(x: np.ndarray, y: np.ndarray, folds: np.ndarray, *, dense: bool = False) -> np.ndarray:
    """Out-of-fold probabilities: each fold scored by a model fitted on the other folds' families."""
    out = np.zeros(len(y))
    for k in range(FOLDS):
        w, b = fit(x[folds != k], y[folds != k], dense=dense)
        out[folds == k] = 1 / (1 + np.exp(-(x[folds == k] @ w + b)))
    return out


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def outcomes_at(scores: np.ndarray, cuts: tuple[float, float]) -> np.ndarray:
    """0 neutral, 1 uncertain, 2 charged, at ``cuts`` = (uncertain, charged)."""
    return (scores >= cuts[0]).astype(int) + (scores >= cuts[1]).astype(int)


def oof_figures(scores: np.ndarray, y: np.ndarray, cuts: tuple[float, float], registers=None) -> dict:
    """Recall (charged or uncertain), neutral false positives and the uncertain share at ``cuts``."""
    out = outcomes_at(scores, cuts)
    figures = {
        "recall": round(float((out[y == 1] > 0).mean()), 4),
        "charged_share": round(float((out[y == 1] == 2).mean()), 4),
        "false_positive_rate": round(float((out[y == 0] > 0).mean()), 4),
        "uncertain_share": round(float((out == 1).mean()), 4),
    }
    if registers is not None:
        figures["recall_by_register"] = {
            r: round(float((out[(y == 1) & (registers == r)] > 0).mean()), 4) for r in sorted(set(registers[y == 1]))
        }
    return figures


def _combined(parts: dict[str, np.ndarray], weights: tuple[float, float, float, float]) -> np.ndarray:
    lw, sw, pw_span, pw_chunk = weights
    z = lw * parts["lexical"] + sw * parts["span"] + pw_span * parts["proto_span"] + pw_chunk * parts["proto_chunk"]
    return 1 / (1 + np.exp(-z))


def _pick(parts: dict[str, np.ndarray], y: np.ndarray):
    """The combination weights (and their cuts) with the highest recall at the uncertain cut."""
    best = None
    for weights in product(LEXICAL_WEIGHTS, SPAN_WEIGHTS, PROTOTYPE_WEIGHTS, PROTOTYPE_WEIGHTS):
        scores = _combined(parts, weights)
        cuts = thresholds(scores, y)
        recall = float((scores[y == 1] >= cuts[0]).mean())
        if best is None or recall > best[0] + 1e-9:
            best = (recall, weights, cuts)
    return best[1], best[2]


def _vector_model(rows, y, fold_sets, oof_lexical, vectors, chunk_vectors, embedding_model, prototypes):
    """The combined vector model, its thresholds and the out-of-fold report.

    ``prototypes`` = (charged texts, charged vectors, neutral vectors); ``oof_lexical`` the lexical model's
    out-of-fold probabilities of every repeat. The combination weights are those with the highest
    out-of-fold recall at the uncertain cut over all repeats' scores together; ``per_repeat`` says how
    far one fold assignment's figures at those cuts move."""
    names, charged, neutral = prototypes
    oof_vector = _oof_repeats(vectors, y, fold_sets, dense=True)
    margins = {
        view: np.array([prototype_features(v, charged, neutral) @ MARGIN for v in vs])
        for view, vs in (("span", vectors), ("chunk", chunk_vectors))
    }
    mean, std = float(margins["span"].mean()), float(margins["span"].std())
    repeats = len(fold_sets)
    parts = {
        "lexical": _logit(oof_lexical),
        "span": _logit(oof_vector),
        "proto_span": np.tile((margins["span"] - mean) / std, repeats),
        "proto_chunk": np.tile((margins["chunk"] - mean) / std, repeats),
    }
    y_all = np.tile(y, repeats)
    registers = np.tile(np.array([p.register for p, _ in rows]), repeats)
    weights, cuts = _pick(parts, y_all)
    stacked = _combined(parts, weights)
    per_repeat = [oof_figures(part, y, cuts) for part in np.split(stacked, repeats)]
    w, b = fit(vectors, y, dense=True)
    centroids = []
    for f in sorted({p.family for p, _ in rows}):
        idx = [i for i, (p, _) in enumerate(rows) if p.family == f]
        c = vectors[idx].mean(axis=0)
        first = rows[idx[0]][0]
        centroids.append(Centroid(first.label, f"{f} ({first.register})", (c / np.linalg.norm(c)).astype(np.float32)))
    lw, sw, pw_span, pw_chunk = weights
    model = VectorModel(
        embedding_model,
        vectors.shape[1],
        w.astype(np.float32),
        float(b),
        lw,
        cuts[1],
        cuts[0],
        tuple(centroids),
        sw,
        Prototypes(names, charged.astype(np.float32), neutral.astype(np.float32), (pw_span, pw_chunk), mean, std),
    )
    no_proto_weights, no_proto_cuts = _pick({**parts, "proto_span": 0 * y_all, "proto_chunk": 0 * y_all}, y_all)
    no_proto = _combined(parts, (*no_proto_weights[:2], 0.0, 0.0))
    report = {
        "embedding_model": embedding_model,
        "weights": {"lexical": lw, "span": sw, "prototype_span": pw_span, "prototype_chunk": pw_chunk},
        "thresholds": {"uncertain": cuts[0], "charged": cuts[1]},
        "oof": oof_figures(stacked, y_all, cuts, registers),
        "oof_per_repeat": {k: [r[k] for r in per_repeat] for k in ("recall", "false_positive_rate", "uncertain_share")},
        "oof_without_prototypes": {
            "weights": {"lexical": no_proto_weights[0], "span": no_proto_weights[1]},
            **oof_figures(no_proto, y_all, no_proto_cuts),
        },
        "oof_span_vector_alone": oof_figures(oof_vector, y_all, thresholds(oof_vector, y_all)),
    }
    return model, report


def train(
    passages: list[Passage],
    embed: SpanEmbed | None = None,
    embedding_model: str | None = None,
    embed_texts: Callable[[list[str]], np.ndarray] | None = None,
) -> tuple[CareModel, dict]:
    """Fit on the tune half. ``embed`` (a ``vectors.SpanEmbed``) and ``embed_texts`` (passage vectors of
    texts: the prototypes) add the vector model."""
    tune = [p for p in passages if p.half == "tune"]
    rows = [(p, v) for p in tune if (v := passage_vector(p)) is not None]
    x = np.stack([v for _, v in rows]).astype(np.float64)
    y = np.array([1.0 if p.label == "charged" else 0.0 for p, _ in rows])
    families = sorted({p.family for p, _ in rows})
    fold_sets = []
    for repeat in range(REPEATS):
        fold_of = family_folds(families, repeat)
        fold_sets.append(np.array([fold_of[p.family] for p, _ in rows]))
    oof = _oof_repeats(x, y, fold_sets)
    uncertain_at, charged_at = thresholds(oof, np.tile(y, REPEATS))
    w, b = fit(x, y)
    exemplars = []
    for f in families:
        idx = [i for i, (p, _) in enumerate(rows) if p.family == f]
        centroid = x[idx].mean(axis=0)
        keep = np.argsort(-np.abs(centroid[:N_FEATURES]))[:EXEMPLAR_BUCKETS]
        vec = np.zeros(N_FEATURES, dtype=np.float32)
        vec[keep] = centroid[keep]
        exemplars.append(Exemplar(rows[idx[0]][0].label, f"{f} ({rows[idx[0]][0].register})", vec))
    report = {
        "tune_passages": len(rows),
        "tune_families": len(families),
        "tune_passages_without_a_resolved_mention": len(tune) - len(rows),
        "folds": f"{FOLDS}, grouped by template family; {REPEATS} fold assignments, scores pooled",
        "lexical": {
            "thresholds": {"uncertain": uncertain_at, "charged": charged_at},
            "oof": oof_figures(oof, np.tile(y, REPEATS), (uncertain_at, charged_at)),
        },
    }
    vector = None
    if embed is not None and embed_texts is not None:
        views = [passage_span_vector(p, embed) for p, _ in rows]
        vectors = np.stack([s for s, _ in views]).astype(np.float64)
        chunk_vectors = np.stack([c for _, c in views]).astype(np.float64)
        prototypes = (
            CHARGED_PROTOTYPES,
            np.asarray(embed_texts(list(CHARGED_PROTOTYPES)), dtype=np.float64),
            np.asarray(embed_texts(list(NEUTRAL_PROTOTYPES)), dtype=np.float64),
        )
        vector, report["vector"] = _vector_model(
            rows, y, fold_sets, oof, vectors, chunk_vectors, embedding_model or "unknown", prototypes
        )
    model = CareModel(VERSION, w.astype(np.float32), float(b), charged_at, uncertain_at, tuple(exemplars), vector)
    return model, report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument(
        "--cache", type=Path, default=None, help="An embedding cache (SQLite) to reuse across runs; default: none."
    )
    args = ap.parse_args()
    from lucasrag.embedding import get_embedder

    embedder = get_embedder()
    cache = EmbeddingCache(args.cache) if args.cache else None
    model, report = train(
        generate_corpus(args.seed),
        cache.embed_spans if cache else embedder.embed_spans,
        embedding_model_id(embedder),
        embedder.embed,
    )
    model.save(
        args.out,
        trained_with=f"python -m lucasrag_assets.rules.care.training --seed {args.seed}",
        corpus_half="tune",
        report=report,
    )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
