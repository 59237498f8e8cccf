"""The care classifier's training pieces: the sparse lexical fit, the batches a passage is left out with,
and the prototype margin (tables; no corpus embedding)."""

from __future__ import annotations

import numpy as np
import pytest

from lucasrag_assets.rules.care.features import HASH_DIM
from lucasrag_assets.rules.care.prototypes import MARGIN, prototype_features
from lucasrag_harness.care_training import logistic
from lucasrag_harness.care_training.pairs import FIRST_AUTHOR, WRITER_BATCHES, author_of
from lucasrag_harness.evaluation.care_corpus import (
    BATCHES,
    HELDOUT,
    HELDOUT2,
    TUNING_BATCHES,
    WRITERS_BATCHES,
    generate_corpus,
)


def _lexical_rows(rng: np.random.Generator, n: int, per_row: int, dense: int) -> np.ndarray:
    x = np.zeros((n, HASH_DIM + dense))
    for i in range(n):
        x[i, rng.choice(HASH_DIM, per_row, replace=False)] = rng.random(per_row)
    x[:, HASH_DIM:] = rng.random((n, dense))
    return x


@pytest.mark.parametrize(("n", "per_row", "dense", "seed"), [(40, 5, 3, 0), (120, 30, 12, 1), (300, 60, 40, 2)])
def test_the_sparse_lexical_fit_is_the_dense_fit(n, per_row, dense, seed):
    rng = np.random.default_rng(seed)
    x = _lexical_rows(rng, n, per_row, dense)
    y = (rng.random(n) < 0.4).astype(float)
    y[:2] = (0.0, 1.0)
    l2 = np.full(x.shape[1], logistic.L2)
    l2[HASH_DIM:] = logistic.L2_DENSE
    w_dense, b_dense = logistic._fit(logistic._DenseRows(x), y, l2=l2, steps=logistic.STEPS, non_negative=HASH_DIM)
    w, b = logistic.fit(x, y)
    assert np.allclose(w, w_dense, atol=1e-9) and abs(b - b_dense) < 1e-9
    unused = np.flatnonzero(~x[:, :HASH_DIM].any(axis=0))
    assert not w[unused].any()  # a bucket no row uses stays 0
    assert w[HASH_DIM] >= 0.0  # the rule table's cue is evidence for, never against


PASSAGES = generate_corpus(11)


@pytest.mark.parametrize(
    ("batches", "author"),
    [
        (BATCHES + TUNING_BATCHES, FIRST_AUTHOR),
        ((HELDOUT,), "held-out batch 1"),
        ((HELDOUT2,), "held-out batch 2"),
        (WRITERS_BATCHES, "writers batches"),
    ],
    ids=["batches-1-5", "heldout-1", "heldout-2", "writers"],
)
def test_each_passage_is_left_out_with_its_batch_of_writers(batches, author):
    names = {f.name for charged, neutral in batches for f in charged + neutral}
    got = {author_of(p) for p in PASSAGES if p.family in names}
    assert got == {author}
    assert author == FIRST_AUTHOR or author in WRITER_BATCHES


def test_every_tuning_passage_has_one_batch_and_every_writer_batch_has_passages():
    tune = [p for p in PASSAGES if p.half == "tune"]
    assert {author_of(p) for p in tune} == {FIRST_AUTHOR, *WRITER_BATCHES}


@pytest.mark.parametrize(
    ("charged_sims", "neutral_sims", "margin"),
    [((0.9, 0.6, 0.3, 0.0), (0.5, 0.2), (0.9 + 0.6 + 0.3) / 3 - 0.5), ((0.1, 0.1, 0.1), (0.8,), 0.1 - 0.8)],
    ids=["charged-nearer", "a-neutral-situation-nearer"],
)
def test_the_margin_is_the_mean_of_three_charged_less_the_nearest_neutral(charged_sims, neutral_sims, margin):
    v = np.array([1.0, 0.0])
    as_rows = lambda sims: np.array([[s, np.sqrt(1 - s * s)] for s in sims])  # noqa: E731
    assert prototype_features(v, as_rows(charged_sims), as_rows(neutral_sims)) @ MARGIN == pytest.approx(margin)
