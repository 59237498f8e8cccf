"""Out-of-fold scoring of the care classifier: folds grouped by template family, ``REPEATS`` fold
assignments pooled, and the weights and cuts chosen on those scores."""

from __future__ import annotations

import numpy as np

from lucasrag_harness.care_training.combined_score import (
    combined,
    lexical_combined,
    oof_figures,
    pick,
    pick_lexical,
    thresholds,
)
from lucasrag_harness.care_training.logistic import fit
from lucasrag_harness.care_training.pairs import Pairs

FOLDS = 4
#: Fold assignments of the families (the first: alternating in name order; the others: seeded shuffles).
#: One assignment's out-of-fold recall moved by up to 0.07 with the families it grouped; the weights and
#: cuts are chosen on the scores of all assignments together.
REPEATS = 4


def family_folds(families: list[str], repeat: int) -> dict[str, int]:
    """Family → fold for one repeat: alternating in name order (repeat 0), or a seeded shuffle of it."""
    names = sorted(set(families))
    order = np.arange(len(names)) if repeat == 0 else np.random.default_rng(repeat).permutation(len(names))
    return {names[j]: i % FOLDS for i, j in enumerate(order)}


def oof_repeats(x: np.ndarray, y: np.ndarray, fold_sets: list[np.ndarray], *, dense: bool = False) -> np.ndarray:
    """Out-of-fold probabilities of every repeat, concatenated (``REPEATS * len(y)``)."""
    return np.concatenate([_oof(x, y, folds, dense=dense) for folds in fold_sets])


def _oof(x: np.ndarray, y: np.ndarray, folds: np.ndarray, *, dense: bool = False) -> np.ndarray:
    """Out-of-fold probabilities: each fold scored by a model fitted on the other folds' families."""
    out = np.zeros(len(y))
    for k in range(FOLDS):
        w, b = fit(x[folds != k], y[folds != k], dense=dense)
        out[folds == k] = 1 / (1 + np.exp(-(x[folds == k] @ w + b)))
    return out


def fit_and_score(pairs: Pairs, train: np.ndarray, score: np.ndarray, vectors: bool) -> dict[str, np.ndarray]:
    """Logits of each view for the ``score`` rows, by models fitted on the ``train`` rows."""
    w, b = fit(pairs.x[train], pairs.y[train])
    clip = 13.8155  # the detector's logit(p) clips p to [1e-6, 1 - 1e-6]
    out = {
        "lexical": np.clip(pairs.x[score] @ w + b, -clip, clip),
        "lexical_focus": np.clip(pairs.x_focus[score] @ w + b, -clip, clip),
    }
    if vectors:
        wv, bv = fit(pairs.span[train], pairs.y[train], dense=True)
        out["span"] = pairs.span[score] @ wv + bv
        out["span_focus"] = pairs.span_focus[score] @ wv + bv
    return out


def oof_parts(pairs: Pairs, population: np.ndarray, vectors: bool) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Out-of-fold logits of the population's real rows, ``REPEATS`` fold assignments concatenated; a
    rewrite is in its passage's family's fold (fitted on with it, never scored)."""
    scored = np.flatnonzero(population & pairs.real)
    families = sorted(set(pairs.families[scored]))
    repeats = []
    for repeat in range(REPEATS):
        fold_of = family_folds(families, repeat)
        folds = np.array([fold_of.get(f, -1) for f in pairs.families])
        got: dict[str, np.ndarray] = {}
        for k in range(FOLDS):
            score = population & pairs.real & (folds == k)
            part = fit_and_score(pairs, population & (folds != k), score, vectors)
            where = np.isin(scored, np.flatnonzero(score))
            for name, v in part.items():
                got.setdefault(name, np.zeros(len(scored)))[where] = v
        repeats.append(got)
    return {name: np.concatenate([r[name] for r in repeats]) for name in repeats[0]}, scored


def add_margins(parts: dict, rows: np.ndarray, margins: dict[str, np.ndarray], mean: float, std: float, n: int):
    for view in ("span", "focus", "chunk"):
        parts[f"proto_{view}"] = np.tile((margins[view][rows] - mean) / std, n)
    return parts


def choose(pairs: Pairs, population: np.ndarray, vectors: bool, margins, focus_weights) -> dict:
    """Weights and cuts chosen on the population's out-of-fold scores, and those scores' figures."""
    parts, scored = oof_parts(pairs, population, vectors)
    y = np.tile(pairs.y[scored], REPEATS)
    registers = np.tile(np.array([pairs.passages[i].register for i in scored]), REPEATS)
    lexical_fw, lexical_cuts = pick_lexical(parts, y, focus_weights)
    out = {
        "lexical_focus_weight": lexical_fw,
        "lexical_cuts": lexical_cuts,
        "lexical_oof": oof_figures(lexical_combined(parts, lexical_fw), y, lexical_cuts),
    }
    if vectors:
        mean, std = float(margins["span"][scored].mean()), float(margins["span"][scored].std())
        add_margins(parts, scored, margins, mean, std, REPEATS)
        weights, cuts = pick(parts, y, focus_weights)
        stacked = combined(parts, weights)
        per_repeat = [oof_figures(part, y[: len(scored)], cuts) for part in np.split(stacked, REPEATS)]
        out |= {
            "weights": weights,
            "cuts": cuts,
            "margin": (mean, std),
            "oof": oof_figures(stacked, y, cuts, registers),
            "oof_per_repeat": {
                k: [r[k] for r in per_repeat] for k in ("recall", "false_positive_rate", "uncertain_share")
            },
            "oof_span_vector_alone": oof_figures(
                1 / (1 + np.exp(-parts["span"])), y, thresholds(1 / (1 + np.exp(-parts["span"])), y)
            ),
        }
    return out
