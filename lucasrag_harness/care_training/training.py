"""Fit the care classifier on the tuning data of the generated corpus and write its weights.

    python -m lucasrag_harness.care_training.training [--cache /tmp/care-emb.sqlite] [--out weights.json]
        [--no-rewrites] [--no-focus]

Only the ``tune`` half is read (batches 1-5, held-out batch 1 from ``care-lr-5``,
held-out batch 2 and the writers batches from ``care-lr-6``, held-out batch 3 from
``care-lr-7``; a test half is never read here). Each pair is fitted on with two
register rewrites of its passage (``augment``; ``pairs``), and scored over its
context and its focus lines. Two logistic regressions (L2,
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
false positives at ``UNCERTAIN_FP`` (0.05), ``charged`` the lowest
that keeps them at ``CHARGED_FP`` — or lower, until at most ``UNCERTAIN_BUDGET``
of all out-of-fold pairs fall between the two (0.15). The report
(also in ``weights.json``) gives the pooled out-of-fold figures at those cuts
and each assignment's own, and the **leave-one-batch-out** check: for each batch
of writers apart from batches 1-5 (``pairs.WRITER_BATCHES``), the same choice made
without it, scored on it (writing by people the model was not fitted on).

The pieces live beside this entry point: ``logistic`` (the regressions),
``combined_score`` (the combined score, its cuts and figures), ``out_of_fold``
(fold assignment, out-of-fold scoring, the choice of weights and cuts) and
``author_holdout`` (the leave-one-batch-out report).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from lucasrag.embedding_cache import EmbeddingCache
from lucasrag_assets.rules.care.detector import vectorise
from lucasrag_assets.rules.care.features import N_FEATURES
from lucasrag_assets.rules.care.mentions import resolve
from lucasrag_assets.rules.care.model import CareModel, Exemplar
from lucasrag_assets.rules.care.prototypes import CHARGED_PROTOTYPES, MARGIN, NEUTRAL_PROTOTYPES, prototype_features
from lucasrag_assets.rules.care.vectors import Centroid, Prototypes, SpanEmbed, VectorModel, embedding_model_id
from lucasrag_harness.care_training.author_holdout import leave_one_batch_out
from lucasrag_harness.care_training.combined_score import FOCUS_WEIGHTS, weights_report
from lucasrag_harness.care_training.logistic import fit
from lucasrag_harness.care_training.out_of_fold import FOLDS, REPEATS, choose
from lucasrag_harness.care_training.pairs import build_pairs
from lucasrag_harness.evaluation.care_corpus import PERSONAS, Passage, generate_corpus

VERSION = "care-lr-7"
EXEMPLAR_BUCKETS = 48
DEFAULT_OUT = (
    Path(__file__).resolve().parents[2] / "lucasrag_assets" / "rules" / "care" / "weights.json"
)  # shipped with the product


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


def train(
    passages: list[Passage],
    embed: SpanEmbed | None = None,
    embedding_model: str | None = None,
    embed_texts: Callable[[list[str]], np.ndarray] | None = None,
    *,
    rewrites: bool = True,
    focus: bool = True,
    seed: int = 11,
) -> tuple[CareModel, dict]:
    """Fit on the tune half (and, with ``rewrites``, its register rewrites). ``embed`` (a
    ``vectors.SpanEmbed``) and ``embed_texts`` (passage vectors of texts: the prototypes) add the vector
    model; ``focus`` lets the focus lines raise a pair's score (else the context alone)."""
    tune = [p for p in passages if p.half == "tune"]
    vectors = embed is not None and embed_texts is not None
    pairs = build_pairs(tune, embed if vectors else None, rewrites=rewrites, seed=seed)
    focus_weights = FOCUS_WEIGHTS if focus else (0.0,)
    margins = prototypes = None
    if vectors:
        charged = np.asarray(embed_texts(list(CHARGED_PROTOTYPES)), dtype=np.float64)
        neutral = np.asarray(embed_texts(list(NEUTRAL_PROTOTYPES)), dtype=np.float64)
        prototypes = (CHARGED_PROTOTYPES, charged, neutral)
        margins = {
            view: np.array([prototype_features(v, charged, neutral) @ MARGIN for v in vs])
            for view, vs in (("span", pairs.span), ("focus", pairs.span_focus), ("chunk", pairs.chunk))
        }
    everything = np.ones(len(pairs.y), dtype=bool)
    chosen = choose(pairs, everything, vectors, margins, focus_weights)
    real = np.flatnonzero(pairs.real)
    families = sorted(set(pairs.families[real]))
    w, b = fit(pairs.x, pairs.y)
    exemplars = []
    for f in families:
        idx = [i for i in real if pairs.families[i] == f]
        centroid = pairs.x[idx].mean(axis=0)
        keep = np.argsort(-np.abs(centroid[:N_FEATURES]))[:EXEMPLAR_BUCKETS]
        vec = np.zeros(N_FEATURES, dtype=np.float32)
        vec[keep] = centroid[keep]
        first = pairs.passages[idx[0]]
        exemplars.append(Exemplar(first.label, f"{f} ({first.register})", vec))
    uncertain_at, charged_at = chosen["lexical_cuts"]
    report = {
        "tune_passages": len(real),
        "tune_families": len(families),
        "tune_passages_without_a_resolved_mention": len(tune) - len(real),
        "rewrites_fitted_on": int((~pairs.real).sum()),
        "folds": f"{FOLDS}, grouped by template family; {REPEATS} fold assignments, scores pooled",
        "lexical": {
            "focus_weight": chosen["lexical_focus_weight"],
            "thresholds": {"uncertain": uncertain_at, "charged": charged_at},
            "oof": chosen["lexical_oof"],
        },
    }
    vector = None
    if vectors:
        weights, cuts = chosen["weights"], chosen["cuts"]
        wv, bv = fit(pairs.span, pairs.y, dense=True)
        centroids = []
        for f in families:
            idx = [i for i in real if pairs.families[i] == f]
            c = pairs.span[idx].mean(axis=0)
            first = pairs.passages[idx[0]]
            centroids.append(
                Centroid(first.label, f"{f} ({first.register})", (c / np.linalg.norm(c)).astype(np.float32))
            )
        lw, sw, pw_span, pw_chunk, fw = weights
        names, charged, neutral = prototypes
        mean, std = chosen["margin"]
        vector = VectorModel(
            embedding_model or "unknown",
            pairs.span.shape[1],
            wv.astype(np.float32),
            float(bv),
            lw,
            cuts[1],
            cuts[0],
            tuple(centroids),
            sw,
            Prototypes(names, charged.astype(np.float32), neutral.astype(np.float32), (pw_span, pw_chunk), mean, std),
            fw,
        )
        report["vector"] = {
            "embedding_model": embedding_model or "unknown",
            "weights": weights_report(weights),
            "thresholds": {"uncertain": cuts[0], "charged": cuts[1]},
            **{k: chosen[k] for k in ("oof", "oof_per_repeat", "oof_span_vector_alone")},
        }
    report["leave_one_batch_out"] = leave_one_batch_out(pairs, vectors, margins, focus_weights)
    model = CareModel(
        VERSION,
        w.astype(np.float32),
        float(b),
        charged_at,
        uncertain_at,
        tuple(exemplars),
        vector,
        chosen["lexical_focus_weight"],
    )
    return model, report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument(
        "--cache", type=Path, default=None, help="An embedding cache (SQLite) to reuse across runs; default: none."
    )
    ap.add_argument("--no-rewrites", action="store_true", help="Ablation: fit without the register rewrites.")
    ap.add_argument("--no-focus", action="store_true", help="Ablation: score the context alone.")
    args = ap.parse_args()
    from lucasrag.embedding import get_embedder

    embedder = get_embedder()
    cache = EmbeddingCache(args.cache) if args.cache else None
    model, report = train(
        generate_corpus(args.seed),
        cache.embed_spans if cache else embedder.embed_spans,
        embedding_model_id(embedder),
        embedder.embed,
        rewrites=not args.no_rewrites,
        focus=not args.no_focus,
        seed=args.seed,
    )
    flags = "".join(f" --{f}" for f in ("no-rewrites", "no-focus") if getattr(args, f.replace("-", "_")))
    model.save(
        args.out,
        trained_with=f"python -m lucasrag_harness.care_training.training --seed {args.seed}{flags}",
        corpus_half="tune",
        report=report,
    )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
