"""The learned second stage (lucasrag_query._rescore): its features on a hand-checked pool, the
re-ordering, the shipped model, and the setting that switches it off."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from lucasrag_query import _rescore
from lucasrag_query._rescore import FEATURES, RescoreModel, features, reorder, rescore
from lucasrag_query.policy import Candidate


def _candidate(chunk_id: str, path: str, text: str) -> Candidate:
    return Candidate(chunk_id, "personal", path, "present", None, (), text)


# The fused order: c1 first. c1 and c3 are chunks of the same note (a.md).
C1 = _candidate("c1", "a.md", "The black cat sat.")  # terms: black cat sat
C2 = _candidate("c2", "b.md", "A cat, then a black dog.")  # terms: cat black dog
C3 = _candidate("c3", "a.md", "Nothing here.")  # terms: noth
ITEMS = [(C1, 1.0), (C2, 0.6), (C3, 0.2)]
SIGNALS = {
    "c1": {"similarity": (0.8, 2), "keywords": (3.0, 1), "time_fit": (1.0, 1)},
    "c2": {"similarity": (0.9, 1), "keywords": (1.5, 2), "time_fit": (0.5, 2)},
    "c3": {"similarity": (0.4, 3), "keywords": (0.0, None), "time_fit": (0.25, 3)},
}
KEYWORDS = ["black", "cat"]
IDF = {"black": 1.0, "cat": 3.0}
REACHED = frozenset({"c2"})

# (row, feature, value), worked out by hand from the pool above
FEATURE_CASES = [
    (0, "fused", 1.0),
    (2, "fused_gap", 0.8),
    (1, "fused_rank", math.log(2)),
    (0, "similarity_gap", 0.1),  # c2's 0.9 is the pool's best
    (1, "similarity_rank", 0.0),
    (1, "keyword", 0.5),  # 1.5 of the best 3.0
    (2, "keyword", 0.0),
    (2, "keyword_rank", math.log(4)),  # no query term: one past the pool
    (0, "idf_cover", 1.0),
    (2, "idf_cover", 0.0),
    (1, "term_cover", 1.0),
    (0, "bigram", 1.0),  # "black cat", side by side as the query has them
    (1, "bigram", 0.0),  # "cat … black": both words, not the pair
    (1, "time_fit", 0.5),
    (2, "time_gap", 0.75),
    (1, "graph", 1.0),
    (0, "graph", 0.0),
    (0, "note_support", math.log(2)),  # c3 is of the same note
    (1, "note_support", 0.0),
    (0, "length", math.log(4)),
    (2, "length", math.log(2)),
    (0, "best_rank", 0.0),  # first by keywords
    (2, "best_rank", math.log(3)),
]


@pytest.mark.parametrize(("row", "feature", "expected"), FEATURE_CASES)
def test_features_of_a_hand_checked_pool(row, feature, expected):
    matrix = features(ITEMS, SIGNALS, KEYWORDS, IDF, REACHED, k=3)
    assert matrix.shape == (3, len(FEATURES))
    assert matrix[row, FEATURES.index(feature)] == pytest.approx(expected)


def test_features_cover_the_first_k_only_and_pool_wide_bests():
    head = features(ITEMS, SIGNALS, KEYWORDS, IDF, REACHED, k=2)
    assert head.shape == (2, len(FEATURES))
    # the gaps are to the whole pool's best, whatever k is
    assert np.array_equal(head, features(ITEMS, SIGNALS, KEYWORDS, IDF, REACHED, k=3)[:2])


def test_features_without_query_terms_are_zero_not_errors():
    matrix = features(ITEMS, SIGNALS, [], {}, frozenset(), k=3)
    for name in ("idf_cover", "term_cover", "bigram"):
        assert not matrix[:, FEATURES.index(name)].any()


A, B, C, D = (_candidate(x, f"{x}.md", x) for x in "abcd")
REORDER_CASES = [
    # (scores of the head, expected order of the whole list)
    ([0.0, 2.0, 1.0], [B, C, A, D]),
    ([1.0, 1.0], [A, B, C, D]),  # ties keep the fused order
    ([3.0, 2.0, 1.0, 0.0], [A, B, C, D]),
    ([0.0, 1.0, 2.0, 3.0], [D, C, B, A]),
]


@pytest.mark.parametrize(("scores", "expected"), REORDER_CASES)
def test_reorder_moves_the_head_and_keeps_the_places_scores(scores, expected):
    items = [(A, 0.9), (B, 0.5), (C, 0.3), (D, 0.1)]
    out = reorder(items, np.array(scores))
    assert [c for c, _ in out] == expected
    assert [s for _, s in out] == [0.9, 0.5, 0.3, 0.1]  # the list's scores still fall


KEEP_TOP_CASES = [
    # (scores of the head, keep_top, expected order of the whole list)
    ([0.0, 1.0, 2.0, 3.0], 0, [D, C, B, A]),  # 0: the whole head moves, as without the field
    ([0.0, 1.0, 2.0, 3.0], 2, [B, A, D, C]),  # A, B keep the first two places; C, D re-ordered below them
    ([0.0, 1.0, 9.0], 1, [A, C, B, D]),  # C's high score cannot lift it over the kept first
    ([3.0, 2.0, 1.0, 0.0], 2, [A, B, C, D]),
    ([0.0, 1.0], 4, [B, A, C, D]),  # keep_top past the head: the head re-ordered freely
]


@pytest.mark.parametrize(("scores", "keep_top", "expected"), KEEP_TOP_CASES)
def test_reorder_with_keep_top_never_moves_a_kept_place_out(scores, keep_top, expected):
    items = [(A, 0.9), (B, 0.5), (C, 0.3), (D, 0.1)]
    out = reorder(items, np.array(scores), keep_top)
    assert [c for c, _ in out] == expected
    assert [s for _, s in out] == [0.9, 0.5, 0.3, 0.1]


def _model(weights: dict[str, float], top_k: int) -> RescoreModel:
    n = len(weights)
    return RescoreModel(1, top_k, tuple(weights), np.zeros(n), np.ones(n), np.array(list(weights.values())))


RESCORE_CASES = [
    ({"bigram": 1.0}, 3, ["c1", "c2", "c3"]),  # c1 alone holds the pair: stays first
    ({"bigram": -1.0}, 3, ["c2", "c3", "c1"]),
    ({"similarity": 1.0}, 3, ["c2", "c1", "c3"]),
    ({"similarity": 1.0}, 2, ["c2", "c1", "c3"]),
    ({"fused_rank": 1.0}, 2, ["c2", "c1", "c3"]),  # the head reversed, c3 untouched
    ({"fused_rank": 1.0}, 3, ["c3", "c2", "c1"]),
    ({"graph": 0.0, "keyword": 0.0}, 3, ["c1", "c2", "c3"]),  # a zero model is the fused order
]


@pytest.mark.parametrize(("weights", "top_k", "expected"), RESCORE_CASES)
def test_rescore_orders_the_head_by_the_model(weights, top_k, expected):
    out = rescore(ITEMS, SIGNALS, KEYWORDS, IDF, REACHED, _model(weights, top_k))
    assert [c.chunk_id for c, _ in out] == expected
    assert [s for _, s in out] == [1.0, 0.6, 0.2]


def test_a_model_standardises_before_weighing():
    model = RescoreModel(1, 3, ("similarity",), np.array([0.5]), np.array([0.25]), np.array([2.0]))
    matrix = features(ITEMS, SIGNALS, KEYWORDS, IDF, REACHED, k=3)
    assert model.scores(matrix) == pytest.approx([2.4, 3.2, -0.8])  # 2 × (sim − 0.5) / 0.25


@pytest.mark.parametrize(
    ("change", "message"),
    [({"features": ["no_such_signal"]}, "unknown features"), ({"weights": [1.0, 2.0]}, "one value per feature")],
)
def test_a_bad_model_file_is_refused_with_its_reason(change, message):
    raw = {**_model({"bigram": 1.0}, 3).to_dict(), **change}
    with pytest.raises(ValueError, match=message):
        RescoreModel.from_dict(raw)


def test_keep_top_reaches_the_model_file_and_defaults_to_none():
    model = replace(_model({"fused_rank": 1.0}, 3), keep_top=2)
    assert RescoreModel.from_dict(model.to_dict()).keep_top == 2
    old = {k: v for k, v in model.to_dict().items() if k != "keep_top"}  # a file written before the field
    assert RescoreModel.from_dict(old).keep_top == 0
    with pytest.raises(ValueError, match="keep_top 4 must lie between 0 and top_k 3"):
        RescoreModel.from_dict({**model.to_dict(), "keep_top": 4})
    # the fused order reversed over the top 3, but c1 kept first: c1, then c3 over c2
    out = rescore(ITEMS, SIGNALS, KEYWORDS, IDF, REACHED, model)
    assert [c.chunk_id for c, _ in out] == ["c2", "c1", "c3"]
    out = rescore(ITEMS, SIGNALS, KEYWORDS, IDF, REACHED, replace(model, keep_top=1))
    assert [c.chunk_id for c, _ in out] == ["c1", "c3", "c2"]


def test_the_shipped_model_loads_and_says_how_it_was_fitted():
    import json

    model = _rescore.load_model()
    assert set(model.features) <= set(FEATURES) and 2 <= model.top_k <= 20
    assert np.all(model.scale > 0) and np.any(model.weights != 0)
    raw = json.loads(_rescore.MODEL_PATH.read_text())
    assert raw["fitted_by"].startswith("python -m lucasrag_harness.evaluation.rescore_fit")
    assert RescoreModel.from_dict(raw).to_dict() == model.to_dict()


QUESTIONS = [
    "what did I write about the garden?",
    "where do I live now?",
    "what happened in 2019?",
    "which book did I lend to my sister?",
]


def test_the_setting_off_is_the_fused_order_and_on_applies_the_model(ingested, monkeypatch):
    """``rescore`` off never reaches the second stage (today's order exactly); on, the model's
    order is what ``rank_pool`` returns."""
    from lucasrag_harness.evaluation.locomo import Question
    from lucasrag_harness.evaluation.locomo_sweep import record_questions
    from lucasrag_query import _ranking

    off = replace(ingested, rescore=False)
    recorded = record_questions(off, [Question(i, q, 4, ("D1:1",)) for i, q in enumerate(QUESTIONS)])

    def rank(r, settings):
        args = list(r.args)
        args[4] = settings
        return [(c.chunk_id, s) for c, s in _ranking.rank_pool(*args, **r.kwargs).items]

    fused = [rank(r, off) for r in recorded]
    assert [[s for _, s in f] for f in fused] == [sorted((s for _, s in f), reverse=True) for f in fused]

    def refuse(*args, **kwargs):
        raise AssertionError("the second stage ran with the setting off")

    monkeypatch.setattr(_ranking, "rescore", refuse)
    assert [rank(r, off) for r in recorded] == fused
    with pytest.raises(AssertionError, match="setting off"):
        rank(recorded[0], replace(ingested, rescore=True))
    monkeypatch.undo()

    reverse = _model({"fused_rank": 1.0}, 3)  # the head reversed: visible in every list of 3 or more
    monkeypatch.setattr(_rescore, "load_model", lambda: reverse)
    on = [rank(r, replace(ingested, rescore=True)) for r in recorded]
    for before, after in zip(fused, on):
        assert len(before) >= 3
        assert [c for c, _ in after] == [c for c, _ in before[:3]][::-1] + [c for c, _ in before[3:]]
        assert [s for _, s in after] == [s for _, s in before]


def test_a_missing_model_file_keeps_the_fused_order_and_says_why(ingested, monkeypatch, tmp_path):
    from lucasrag_query import query

    fused = query("where do I live now?", settings=replace(ingested, rescore=False))
    monkeypatch.setattr(_rescore, "MODEL_PATH", tmp_path / "missing.json")
    with pytest.raises(_rescore.RescoreUnavailable, match="LUCASRAG_RESCORE=0"):
        _rescore.load_model()
    skipped = query("where do I live now?", settings=replace(ingested, rescore=True))
    assert [r.chunk_id for r in skipped.results] == [r.chunk_id for r in fused.results]
    assert "second stage was skipped" in skipped.reranker_note and "missing.json" in skipped.reranker_note
