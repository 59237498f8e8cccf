"""Which care evidence helps, out of fold on the tuning data (never the held-out batch).

    python benchmarks/care_ablation.py [--cache /tmp/care-emb.sqlite]

The folds and cuts of training (``care.out_of_fold``, ``care.combined_score``):
folds grouped by template family, ``REPEATS`` fold assignments pooled, the uncertain cut at
``UNCERTAIN_FP`` out-of-fold neutral false positives. For each set of evidence
the combination weights are picked the way training picks them (highest pooled
recall at the uncertain cut over the same grid), so every row is scored alike.
Prints recall, false positives and uncertain share per row, and the spread of
recall over the fold assignments.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from lucasrag.embedding import get_embedder
from lucasrag.embedding_cache import EmbeddingCache
from lucasrag_assets.rules.care.features import DENSE, FLAT_WORDS, HASH_DIM
from lucasrag_assets.rules.care.prototypes import CHARGED_PROTOTYPES, MARGIN, NEUTRAL_PROTOTYPES, prototype_features
from lucasrag_harness.care_training import combined_score as S
from lucasrag_harness.care_training import out_of_fold as F
from lucasrag_harness.care_training import training as T
from lucasrag_harness.evaluation.care_corpus import TUNING_BATCHES, generate_corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=None, help="An embedding cache (SQLite) to reuse; default: none.")
    args = ap.parse_args()
    embedder = get_embedder()
    embed = EmbeddingCache(args.cache).embed_spans if args.cache else embedder.embed_spans
    rows = [(p, v) for p in generate_corpus(11) if p.half == "tune" and (v := T.passage_vector(p)) is not None]
    x = np.stack([v for _, v in rows]).astype(np.float64)
    y = np.array([1.0 if p.label == "charged" else 0.0 for p, _ in rows])
    fifth = np.array([p.family in {f.name for c, n in TUNING_BATCHES for f in c + n} for p, _ in rows])
    families = [p.family for p, _ in rows]
    fold_sets = []
    for repeat in range(F.REPEATS):
        fold_of = F.family_folds(families, repeat)
        fold_sets.append(np.array([fold_of[f] for f in families]))
    views = [T.passage_span_vector(p, embed) for p, _ in rows]
    span = np.stack([s for s, _ in views]).astype(np.float64)
    chunk = np.stack([c for _, c in views]).astype(np.float64)
    charged = embedder.embed(list(CHARGED_PROTOTYPES)).astype(np.float64)
    neutral = embedder.embed(list(NEUTRAL_PROTOTYPES)).astype(np.float64)
    m_span = np.array([prototype_features(v, charged, neutral) @ MARGIN for v in span])
    m_chunk = np.array([prototype_features(v, charged, neutral) @ MARGIN for v in chunk])
    mean, std = m_span.mean(), m_span.std()

    x_old = x.copy()  # care-lr-3's lexical features: the flat-writing columns zeroed
    x_old[:, [HASH_DIM + DENSE.index(f"flat_{c}") for c in FLAT_WORDS]] = 0.0
    y_all = np.tile(y, F.REPEATS)
    lexical = {name: S.logit(F.oof_repeats(m, y, fold_sets)) for name, m in (("old", x_old), ("flat", x))}
    vector = S.logit(F.oof_repeats(span, y, fold_sets, dense=True))
    zero = np.zeros_like(y_all)
    protos = {
        "proto_span": np.tile((m_span - mean) / std, F.REPEATS),
        "proto_chunk": np.tile((m_chunk - mean) / std, F.REPEATS),
    }
    cases = {
        "lexical (care-lr-3 features) alone": ({"lexical": lexical["old"]}, None),
        "lexical with flat-writing features alone": ({"lexical": lexical["flat"]}, None),
        "care-lr-3 features + span vector": ({"lexical": lexical["old"], "span": vector}, None),
        "flat features + span vector": ({"lexical": lexical["flat"], "span": vector}, None),
        "care-lr-3 features + span vector + prototypes": ({"lexical": lexical["old"], "span": vector, **protos}, None),
        "flat features + span vector + prototypes (shipped)": (
            {"lexical": lexical["flat"], "span": vector, **protos},
            None,
        ),
        "shipped, a rule-table cue lifting to uncertain (care-lr-3's lift)": (
            {"lexical": lexical["flat"], "span": vector, **protos},
            np.tile(x[:, HASH_DIM] > 0, F.REPEATS),
        ),
    }
    print(f"{len(rows)} tune pairs ({int(y.sum())} charged), {len(set(families))} families, {F.REPEATS} assignments")
    for name, (given, lift) in cases.items():
        parts = {"lexical": zero, "span": zero, "proto_span": zero, "proto_chunk": zero, **given}
        weights, cuts = S.pick(parts, y_all)
        scores = S.combined(parts, weights)
        if lift is not None:  # a lifted pair is withheld whatever its score: the cut must leave room for it
            neg = y_all == 0
            allowed = int(np.floor(S.UNCERTAIN_FP * neg.sum())) - int((neg & lift).sum())
            rest = np.sort(scores[neg & ~lift])
            cut = rest[len(rest) - allowed] + 1e-6 if allowed > 0 else rest[-1] + 1e-6
            scores = np.where(lift, np.maximum(scores, cut), scores)
            cuts = (float(cut), max(cuts[1], float(cut)))
        fig = S.oof_figures(scores, y_all, cuts)
        per = [S.oof_figures(s, y, cuts)["recall"] for s in np.split(scores, F.REPEATS)]
        on_1_4 = float((scores[np.tile(~fifth, F.REPEATS) & (y_all == 1)] >= cuts[0]).mean())
        print(
            f"{name:<68} recall {fig['recall']:.3f} (assignments {min(per):.3f}-{max(per):.3f}; batches 1-4 "
            f"{on_1_4:.3f})  fp {fig['false_positive_rate']:.3f}  uncertain {fig['uncertain_share']:.3f}  "
            f"weights {weights}"
        )


if __name__ == "__main__":
    main()
