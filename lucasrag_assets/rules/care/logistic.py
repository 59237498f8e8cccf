"""The care classifier's logistic regressions: class-balanced, L2, fitted with full-batch Adam in numpy
(lexical features with their rule-table cue kept non-negative, or dense embedding vectors)."""

from __future__ import annotations

import numpy as np

from lucasrag_assets.rules.care.features import HASH_DIM

L2 = 1e-2
L2_DENSE = 1e-4
STEPS = 400
VECTOR_L2 = 1e-3
VECTOR_STEPS = 600


def fit(x: np.ndarray, y: np.ndarray, *, dense: bool = False) -> tuple[np.ndarray, float]:
    """Class-balanced L2 logistic regression; ``dense`` for embedding vectors, else the lexical layout.

    Lexical: hash buckets no row uses get no gradient and stay 0, so they are left out of the products."""
    if not dense:
        used = np.union1d(np.flatnonzero(np.abs(x[:, :HASH_DIM]).sum(axis=0)), np.arange(HASH_DIM, x.shape[1]))
        w_used, b = _fit(x[:, used], y, dense=False, rule_cue=int(np.searchsorted(used, HASH_DIM)))
        w = np.zeros(x.shape[1], dtype=np.float64)
        w[used] = w_used
        return w, b
    return _fit(x, y, dense=True)


def _fit(x: np.ndarray, y: np.ndarray, *, dense: bool, rule_cue: int = 0) -> tuple[np.ndarray, float]:
    w, b = np.zeros(x.shape[1], dtype=np.float64), 0.0
    if dense:
        l2, steps = np.full(x.shape[1], VECTOR_L2), VECTOR_STEPS
    else:
        l2, steps = np.full(x.shape[1], L2), STEPS
        l2[rule_cue:] = L2_DENSE  # the few dense features (from the rule cue on) may take large weights
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
            w[rule_cue] = max(w[rule_cue], 0.0)  # the rule table's cue is evidence for, never against
        b -= lr * (m_b / (1 - b1**t)) / (np.sqrt(v_b / (1 - b2**t)) + 1e-8)
    return w, b
