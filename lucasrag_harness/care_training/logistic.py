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

    Lexical: the hash buckets are sparse (a passage uses a few dozen of 8,192), so their products run
    over the nonzero entries only (``_SparseRows``); a bucket no row uses gets no gradient and stays 0."""
    if dense:
        return _fit(_DenseRows(x), y, l2=np.full(x.shape[1], VECTOR_L2), steps=VECTOR_STEPS)
    l2 = np.full(x.shape[1], L2)
    l2[HASH_DIM:] = L2_DENSE  # the few dense features (from the rule cue on) may take large weights
    return _fit(_SparseRows(x), y, l2=l2, steps=STEPS, non_negative=HASH_DIM)


class _DenseRows:
    def __init__(self, x: np.ndarray):
        self.x, self.shape = x, x.shape

    def dot(self, w: np.ndarray) -> np.ndarray:
        return self.x @ w

    def tdot(self, g: np.ndarray) -> np.ndarray:
        return self.x.T @ g


class _SparseRows:
    """The lexical rows as the hash buckets' nonzero entries (rows, columns, values) and the dense rest."""

    def __init__(self, x: np.ndarray):
        self.shape = x.shape
        self.rows, self.cols = np.nonzero(x[:, :HASH_DIM])
        self.vals = x[self.rows, self.cols]
        self.rest = np.ascontiguousarray(x[:, HASH_DIM:])

    def dot(self, w: np.ndarray) -> np.ndarray:
        hashed = np.bincount(self.rows, weights=self.vals * w[self.cols], minlength=self.shape[0])
        return hashed + self.rest @ w[HASH_DIM:]

    def tdot(self, g: np.ndarray) -> np.ndarray:
        hashed = np.bincount(self.cols, weights=self.vals * g[self.rows], minlength=HASH_DIM)
        return np.concatenate([hashed, self.rest.T @ g])


def _fit(x, y: np.ndarray, *, l2: np.ndarray, steps: int, non_negative: int | None = None) -> tuple[np.ndarray, float]:
    """Full-batch Adam; ``non_negative``: the column kept >= 0 (the rule table's cue is evidence for, never
    against)."""
    w, b = np.zeros(x.shape[1], dtype=np.float64), 0.0
    pos = y.mean()
    sw = np.where(y == 1, 0.5 / pos, 0.5 / (1 - pos))  # class-balanced
    m_w, v_w, m_b, v_b = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    lr, b1, b2 = 0.05, 0.9, 0.999
    for t in range(1, steps + 1):
        p = 1 / (1 + np.exp(-(x.dot(w) + b)))
        g = sw * (p - y) / len(y)
        gw, gb = x.tdot(g) + l2 * w, float(g.sum())
        m_w, v_w = b1 * m_w + (1 - b1) * gw, b2 * v_w + (1 - b2) * gw**2
        m_b, v_b = b1 * m_b + (1 - b1) * gb, b2 * v_b + (1 - b2) * gb**2
        w -= lr * (m_w / (1 - b1**t)) / (np.sqrt(v_w / (1 - b2**t)) + 1e-8)
        if non_negative is not None:
            w[non_negative] = max(w[non_negative], 0.0)
        b -= lr * (m_b / (1 - b1**t)) / (np.sqrt(v_b / (1 - b2**t)) + 1e-8)
    return w, b
