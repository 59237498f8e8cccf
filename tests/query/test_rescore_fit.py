"""The second stage's fitter (lucasrag_harness.evaluation.rescore_fit): the listwise loss on
hand-checked examples, the padded lists it learns from, and both losses on one table."""

from __future__ import annotations

import numpy as np
import pytest

from lucasrag_harness.evaluation import rescore_fit
from lucasrag_harness.evaluation.rescore_fit import Question, fit, fit_listwise, lists
from lucasrag_query._rescore import FEATURES


def _question(conversation: str, keyword: list[float], relevant: list[bool]) -> Question:
    """A question whose candidates differ in one feature (``keyword``), the others all zero."""
    matrix = np.zeros((len(keyword), len(FEATURES)))
    matrix[:, FEATURES.index("keyword")] = keyword
    sessions = [["D1"] if r else ["D2"] for r in relevant]
    return Question(conversation, "single-hop", frozenset({"D1"}), sessions, matrix, np.array(relevant), 0.0, 0.0)


def test_the_first_listwise_step_follows_the_hand_worked_gradient():
    # One question, three candidates, the first relevant: at β = 0 the softmax is 1/3 each, so the
    # gradient is (1/3 − 1)·1 + (1/3)·0 + (1/3)·0 = −2/3, and Adam's first step is +rate along it.
    x = np.array([[[1.0], [0.0], [0.0]]])
    real, relevant = np.ones((1, 3), bool), np.array([[True, False, False]])
    assert fit_listwise(x, real, relevant, l2=0.0, steps=1, rate=0.03) == pytest.approx([0.03])
    # A padded row (not real) takes no share of the softmax, whatever its values.
    padded = np.array([[[1.0], [0.0], [9.0]]])
    assert fit_listwise(padded, np.array([[True, True, False]]), relevant, l2=0.0, steps=1) == pytest.approx([0.03])


def test_lists_pad_short_questions_and_drop_those_with_nothing_to_order():
    mean, scale = np.zeros(1), np.full(1, 2.0)
    column = [FEATURES.index("keyword")]
    questions = [
        _question("a", [4.0, 2.0], [True, False]),  # two candidates: padded to k = 3
        _question("a", [1.0, 1.0, 1.0], [False, False, False]),  # no relevant candidate: dropped
        _question("b", [1.0, 3.0, 5.0, 7.0], [False, True, True, False]),  # cut to its top 3
    ]
    x, real, relevant = lists(questions, column, 3, mean, scale)
    assert x[:, :, 0].tolist() == [[2.0, 1.0, 0.0], [0.5, 1.5, 2.5]]
    assert real.tolist() == [[True, True, False], [True, True, True]]
    assert relevant.tolist() == [[True, False, False], [False, True, True]]


#: (keyword values of each question's candidates, which are relevant): the relevant one always has the
#: highest keyword score but is not always first, so a fitted model must learn a positive weight
TABLE = [
    ([0.2, 0.9, 0.1], [False, True, False]),
    ([0.5, 0.3, 0.8, 0.1], [False, False, True, False]),
    ([0.7, 0.6], [True, False]),
    ([0.1, 0.2, 0.3], [False, False, True]),
]


@pytest.mark.parametrize("loss", rescore_fit.LOSSES)
def test_both_losses_learn_the_separating_feature_and_put_the_relevant_first(loss):
    questions = [_question(f"c{i}", kw, rel) for i, (kw, rel) in enumerate(TABLE)]
    model = fit(questions, ["keyword", "fused"], k=4, l2=0.001, loss=loss)
    assert model.top_k == 4 and model.weights[0] > 0
    assert model.weights[1] == 0.0  # a feature constant at zero gets no weight (its scale is set to 1)
    for q in questions:
        assert q.relevant[int(np.argmax(model.scores(q.matrix[:4])))]


def test_an_unknown_loss_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="pairwise, listwise"):
        fit([_question("a", [1.0, 0.0], [True, False])], ["keyword"], k=2, l2=0.0, loss="hinge")


def test_the_fitters_metrics_follow_keep_top():
    # keyword ranks the relevant third candidate first; with keep_top 2 it cannot rise above place 3
    q = _question("a", [0.1, 0.2, 0.9], [False, False, True])
    model = fit([q], ["keyword"], k=3, l2=0.001, loss="listwise")
    assert rescore_fit.metrics(q, model)["Hit@1"] == 1.0
    kept = fit([q], ["keyword"], k=3, l2=0.001, loss="listwise", keep_top=2)
    assert kept.keep_top == 2 and kept.weights.tolist() == model.weights.tolist()
    assert rescore_fit.metrics(q, kept)["Hit@1"] == 0.0 and rescore_fit.metrics(q, kept)["R@3"] == 1.0


def test_a_cache_pickled_under_main_loads_and_extra_feature_columns_are_dropped(tmp_path, monkeypatch):
    # `python -m …rescore_fit --cache` pickles its questions as __main__.Question; older recordings held a
    # bare __main__.Q whose matrix had experimental feature columns after the shipped ones.
    import pickle
    import sys

    class Q:
        pass

    Q.__module__, Q.__qualname__ = "__main__", "Q"
    old = Q()
    old.__dict__.update(vars(_question("a", [0.5, 0.1], [True, False])))
    old.matrix = np.hstack([old.matrix, np.full((2, 3), 7.0)])  # three extra columns
    del old.ranking_ms, old.rescored_ms  # not recorded then
    monkeypatch.setattr(sys.modules["__main__"], "Q", Q, raising=False)
    path = tmp_path / "old.pkl"
    path.write_bytes(pickle.dumps([old]))
    monkeypatch.delattr(sys.modules["__main__"], "Q")

    (loaded,) = rescore_fit.load_questions(path)
    assert isinstance(loaded, Question) and loaded.conversation == "a" and loaded.gold == frozenset({"D1"})
    assert loaded.matrix.shape == (2, len(FEATURES)) and loaded.matrix[0, FEATURES.index("keyword")] == 0.5
    assert np.isnan(loaded.ranking_ms)
    assert rescore_fit.metrics(loaded, None)["Hit@1"] == 1.0


@pytest.mark.parametrize(
    ("delta", "hit_at_1"),
    [(0.0, 1.0), (float("inf"), 0.0), (1e9, 0.0)],  # δ huge acts as δ = ∞: the fused top 2 keep their places' set
)
def test_the_protected_stage_lets_the_relevant_fourth_rise_only_as_far_as_its_head_start_allows(delta, hit_at_1):
    from lucasrag_harness.evaluation.rescore_protect import protected_metrics

    q = _question("a", [0.1, 0.2, 0.3, 0.9], [False, False, False, True])
    model = fit([q], ["keyword"], k=4, l2=0.001, loss="listwise")
    got = protected_metrics(q, model, window=4, delta=delta, protect=2)
    assert got["Hit@1"] == hit_at_1 and got["R@3"] == 1.0  # at worst third: first after the protected two
