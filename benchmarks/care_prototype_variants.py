"""Variants of the care classifier's prototype sets and lexical-weight grid, each judged leave one batch of
writers out, the way ``care-lr-6`` was chosen (docs/care.md, "Tried and not kept").

Each variant names its charged and neutral prototype groups and the lexical weights the combined score may
pick from; everything else is the product's training (``lucasrag_assets.rules.care``): the prototype margins
of ``training.train``, ``author_holdout.leave_one_batch_out`` for the left-out batches (weights and cuts
chosen on the rest's out-of-fold scores; the figures of every left-out batch together: recall, neutral false
positives, uncertain share, leaks over the query cases) and ``out_of_fold.choose`` on everything for the
out-of-fold column. The out-of-fold logits do not depend on the prototypes, so they are computed once per
population and reused by every variant (and kept in ``--parts-cache`` when given: delete that file whenever
the care code or the pairs change).

Prototype groups: care-lr-5's are the first 26 charged and 15 neutral of ``prototypes.py``; ``care-lr-6``
added the practical traces of a loss (charged, the rest of ``CHARGED_PROTOTYPES``) and a living person
present in the writer's life (neutral, the rest of ``NEUTRAL_PROTOTYPES``). ``NEUTRAL_PRACTICAL`` below was
tried and not kept. The centroid-margin row of that table (a new score term, picked weight 0 in every fold)
is not reproduced here.

    nice -n 15 python benchmarks/care_prototype_variants.py --cache /tmp/care5/emb.sqlite \\
        --pairs /tmp/care5/pairs2.pkl --parts-cache /tmp/repro-scratch/care-parts.pkl

``--pairs``: the tuning pairs (``pairs.build_pairs`` of the corpus's tune half with rewrites, a pickle),
built through the embedding cache ``--cache`` and written there when missing (tens of minutes on two cores
without a warm cache).

A quality figure, kept beside ``care_ablation.py`` because it drives the write side's training code
(``lucasrag_harness`` may not import ``lucasrag_assets``). Cited by docs/care.md, "Tried and not kept".
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import pickle
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from lucasrag_assets.rules.care.prototypes import CHARGED_PROTOTYPES, MARGIN, NEUTRAL_PROTOTYPES, prototype_features  # noqa: E402
from lucasrag_harness.care_training import author_holdout, combined_score, out_of_fold  # noqa: E402
from lucasrag_harness.care_training.combined_score import FOCUS_WEIGHTS  # noqa: E402
from lucasrag_harness.care_training.pairs import build_pairs  # noqa: E402

#: care-lr-5's prototypes: the first groups of prototypes.py (care-lr-6's groups follow them)
CARE_LR_5_CHARGED, CARE_LR_5_NEUTRAL = 26, 15

#: tried with care-lr-6, not kept: everyday practical entries (written from scratch, generic)
NEUTRAL_PRACTICAL = (
    "Paying the council tax, the electricity bill and setting up a direct debit.",
    "Booking the car's service and paying for parking.",
    "School term dates, a parents' evening and the packed lunches for the week.",
    "A weekly budget for groceries, rent and petrol.",
    "A receipt for groceries and household things.",
    "Taking a healthy pet to the vet for its yearly check-up and jabs.",
    "A packing list for a holiday: chargers, sun cream, passports.",
    "A list of household chores: laundry, bins, the hoovering.",
    "A habit tracker for water, steps and sleep.",
    "Renewing a passport, a driving licence or the house insurance.",
    "A furniture delivery and flat-pack assembly for the new place.",
    "Swapping the weekend pick-up times with a co-parent; all friendly and simple.",
)

GROUPS = {
    "care-lr-5 charged": CHARGED_PROTOTYPES[:CARE_LR_5_CHARGED],
    "practical traces": CHARGED_PROTOTYPES[CARE_LR_5_CHARGED:],
    "care-lr-5 neutral": NEUTRAL_PROTOTYPES[:CARE_LR_5_NEUTRAL],
    "living person": NEUTRAL_PROTOTYPES[CARE_LR_5_NEUTRAL:],
    "neutral practical": NEUTRAL_PRACTICAL,
}


@dataclass(frozen=True)
class Variant:
    name: str
    charged: tuple[str, ...]  # GROUPS keys
    neutral: tuple[str, ...]
    lexical_weights: tuple[float, ...]


_BASE_C, _BASE_N, _LIVING = ("care-lr-5 charged",), ("care-lr-5 neutral",), ("care-lr-5 neutral", "living person")
_ALL_C = ("care-lr-5 charged", "practical traces")
VARIANTS = (
    Variant("care-lr-5's method", _BASE_C, _BASE_N, (0.5, 1.0)),
    Variant("+ living-person prototypes", _BASE_C, _LIVING, (0.5, 1.0)),
    Variant("+ lexical weight 0.25 (its prototypes)", _BASE_C, _BASE_N, (0.25, 0.5, 1.0)),
    Variant("living-person prototypes + lexical 0.25", _BASE_C, _LIVING, (0.25, 0.5, 1.0)),
    Variant("+ practical-trace prototypes (care-lr-6)", _ALL_C, _LIVING, (0.25, 0.5, 1.0)),
    Variant("+ 12 neutral practical prototypes", _ALL_C, (*_LIVING, "neutral practical"), (0.25, 0.5, 1.0)),
    Variant("lexical weight 0 allowed too", _BASE_C, _LIVING, (0.0, 0.25, 0.5, 1.0)),
)


def _key(*masks: np.ndarray) -> str:
    return hashlib.sha1(b"".join(np.asarray(m, dtype=bool).tobytes() for m in masks)).hexdigest()


@contextmanager
def memoised_parts(store: dict, save=None):
    """The out-of-fold and held-out logits, computed once per population (they do not depend on the
    prototypes); callers mutate what they get (``add_margins``), so each call gets a copy."""
    oof_parts, fit_and_score = out_of_fold.oof_parts, author_holdout.fit_and_score

    def cached(key, compute):
        if key not in store:
            started = time.time()
            store[key] = compute()
            print(f"  [{key[0]} computed in {time.time() - started:.0f} s]", flush=True)
            if save:
                save(store)
        return copy.deepcopy(store[key])

    def memo_oof(pairs, population, vectors):
        return cached(("oof", _key(population), vectors), lambda: oof_parts(pairs, population, vectors))

    def memo_fit(pairs, train, score, vectors):
        return cached(("held", _key(train, score), vectors), lambda: fit_and_score(pairs, train, score, vectors))

    out_of_fold.oof_parts, author_holdout.fit_and_score = memo_oof, memo_fit
    try:
        yield
    finally:
        out_of_fold.oof_parts, author_holdout.fit_and_score = oof_parts, fit_and_score


@contextmanager
def lexical_weights(weights: tuple[float, ...]):
    before = combined_score.LEXICAL_WEIGHTS
    combined_score.LEXICAL_WEIGHTS = weights
    try:
        yield
    finally:
        combined_score.LEXICAL_WEIGHTS = before


def margins_of(pairs, charged: np.ndarray, neutral: np.ndarray) -> dict[str, np.ndarray]:
    """The prototype margin of every pair's span, focus and chunk vector (as ``training.train`` computes it)."""
    views = (("span", pairs.span), ("focus", pairs.span_focus), ("chunk", pairs.chunk))
    return {view: np.array([prototype_features(v, charged, neutral) @ MARGIN for v in vs]) for view, vs in views}


def judge(pairs, variant: Variant, vectors_of) -> str:
    charged = np.vstack([vectors_of(g) for g in variant.charged])
    neutral = np.vstack([vectors_of(g) for g in variant.neutral])
    margins = margins_of(pairs, charged, neutral)
    with lexical_weights(variant.lexical_weights):
        report = author_holdout.leave_one_batch_out(pairs, True, margins, FOCUS_WEIGHTS)
        everything = out_of_fold.choose(pairs, np.ones(len(pairs.y), bool), True, margins, FOCUS_WEIGHTS)
    pooled = report.pop("every_left_out_batch")
    cells = [
        f"{pooled['recall']:.3f}",
        f"{pooled['false_positive_rate']:.3f}",
        f"{pooled['uncertain_share']:.3f}",
        f"{pooled['leaks']} / {pooled['query_cases']:,}",
        *(f"{r['recall']:.3f} / {r['false_positive_rate']:.3f}" for r in report.values()),
        f"{everything['oof']['recall']:.3f} / {everything['oof']['false_positive_rate']:.3f}",
    ]
    return f"| {variant.name} | " + " | ".join(cells) + " |"


def load_or_build_pairs(path: Path, cache: Path, seed: int):
    if path.exists():
        return pickle.loads(path.read_bytes())
    from lucasrag.embedding_cache import EmbeddingCache
    from lucasrag_harness.evaluation.care_corpus import generate_corpus

    embeddings = EmbeddingCache(cache)
    tune = [p for p in generate_corpus(seed) if p.half == "tune"]
    pairs = build_pairs(tune, embeddings.embed_spans, rewrites=True, seed=seed)
    path.write_bytes(pickle.dumps(pairs))
    return pairs


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=Path, default=Path("/tmp/care5/pairs.pkl"), help="the tuning pairs (a pickle)")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/care5/emb.sqlite"), help="the embedding cache")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--parts-cache", type=Path, default=None, help="keep the out-of-fold logits here (a pickle)")
    ap.add_argument("--variants", default="", help="comma-separated numbers of VARIANTS (1-based; default all)")
    args = ap.parse_args(argv)
    from lucasrag.embedding import get_embedder

    pairs = load_or_build_pairs(args.pairs, args.cache, args.seed)
    embedder = get_embedder()
    vectors = {g: np.asarray(embedder.embed(list(texts)), dtype=np.float64) for g, texts in GROUPS.items()}
    chosen = [VARIANTS[int(i) - 1] for i in args.variants.split(",")] if args.variants else list(VARIANTS)
    store = pickle.loads(args.parts_cache.read_bytes()) if args.parts_cache and args.parts_cache.exists() else {}
    save = (lambda s: args.parts_cache.write_bytes(pickle.dumps(s))) if args.parts_cache else None
    batches = sorted(set(pairs.authors[pairs.real]) - {author_holdout.FIRST_AUTHOR})
    print(
        "| variant | pooled recall | FP | uncertain | leaks / cases | "
        + " | ".join(batches)
        + " | out of fold, everything |\n|---|"
        + "---:|" * 4
        + "---|" * (len(batches) + 1)
    )
    with memoised_parts(store, save):
        for variant in chosen:
            print(judge(pairs, variant, vectors.__getitem__), flush=True)


if __name__ == "__main__":
    main()
