"""The combined score of the care classifier's views, its cuts and their figures: the candidate weights,
the uncertain/charged thresholds at the target false-positive rates and uncertain budget, and the pick
of the weights with the highest recall at the uncertain cut."""

from __future__ import annotations

from itertools import product

import numpy as np

UNCERTAIN_FP = 0.05
CHARGED_FP = 0.02
UNCERTAIN_BUDGET = 0.15
#: Candidate weights of the combined score (lexical logit, span logit, prototype margin of the span vector,
#: of the chunk vector); out-of-fold recall at the uncertain cut picks one.
LEXICAL_WEIGHTS = (0.25, 0.5, 1.0)  # 0.25 from care-lr-6: leaving a batch of writers out, it was picked for one
SPAN_WEIGHTS = (0.5, 1.0)
PROTOTYPE_WEIGHTS = (0.0, 0.5, 1.0)
#: Candidate weights of the focus lines' raise (``vectors.raise_by_focus``: 0 the context alone, 1 the higher).
FOCUS_WEIGHTS = (0.0, 0.5, 1.0)


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


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def outcomes_at(scores: np.ndarray, cuts: tuple[float, float]) -> np.ndarray:
    """0 neutral, 1 uncertain, 2 charged, at ``cuts`` = (uncertain, charged)."""
    return (scores >= cuts[0]).astype(int) + (scores >= cuts[1]).astype(int)


def oof_figures(scores: np.ndarray, y: np.ndarray, cuts: tuple[float, float], registers=None) -> dict:
    """Recall (charged or uncertain), neutral false positives and the uncertain share at ``cuts``."""
    return outcome_figures(outcomes_at(scores, cuts), y, registers)


def outcome_figures(out: np.ndarray, y: np.ndarray, registers=None) -> dict:
    """:func:`oof_figures` of outcomes already cut (0 neutral, 1 uncertain, 2 charged)."""
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


def combined(parts: dict[str, np.ndarray], weights: tuple[float, ...]) -> np.ndarray:
    """The combined score of every pair: each view's logit (lexical, span, prototype margins of the span and
    of the chunk vector), the context's raised by ``weights[4]`` times how far its focus lines' is higher
    (``vectors.raise_by_focus``; four weights: the context alone)."""
    lw, sw, pw_span, pw_chunk, fw = (*weights, 0.0)[:5]
    z = lw * parts["lexical"] + sw * parts["span"] + pw_span * parts["proto_span"] + pw_chunk * parts["proto_chunk"]
    if fw:
        zf = lw * parts["lexical_focus"] + sw * parts["span_focus"] + pw_span * parts["proto_focus"]
        z = z + fw * np.maximum(0.0, zf + pw_chunk * parts["proto_chunk"] - z)
    return 1 / (1 + np.exp(-z))


def lexical_combined(parts: dict[str, np.ndarray], fw: float) -> np.ndarray:
    z = parts["lexical"]
    return 1 / (1 + np.exp(-(z + fw * np.maximum(0.0, parts["lexical_focus"] - z))))


def _best_recall(candidates, scores_of, y: np.ndarray):
    """The first candidate with the highest recall at its uncertain cut, and its cuts."""
    best = None
    for candidate in candidates:
        scores = scores_of(candidate)
        cuts = thresholds(scores, y)
        recall = float((scores[y == 1] >= cuts[0]).mean())
        if best is None or recall > best[0] + 1e-9:
            best = (recall, candidate, cuts)
    return best[1], best[2]


def pick(parts: dict[str, np.ndarray], y: np.ndarray, focus_weights: tuple[float, ...] = (0.0,)):
    """The combination weights (and their cuts) with the highest recall at the uncertain cut."""
    candidates = product(LEXICAL_WEIGHTS, SPAN_WEIGHTS, PROTOTYPE_WEIGHTS, PROTOTYPE_WEIGHTS, focus_weights)
    return _best_recall(candidates, lambda weights: combined(parts, weights), y)


def pick_lexical(parts: dict[str, np.ndarray], y: np.ndarray, focus_weights: tuple[float, ...]):
    """The focus weight (and its cuts) of the lexical-only score with the highest recall at the uncertain cut."""
    return _best_recall(focus_weights, lambda fw: lexical_combined(parts, fw), y)


def weights_report(weights: tuple[float, ...]) -> dict:
    return dict(zip(("lexical", "span", "prototype_span", "prototype_chunk", "focus"), weights))
