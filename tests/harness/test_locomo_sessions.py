"""Session-level LoCoMo protocol: chunk → session mapping, metrics, halves (fast: no ingest)."""

from __future__ import annotations

import math

import pytest

from lucasrag_harness.evaluation.locomo import parse_conversation
from lucasrag_harness.evaluation.locomo_eval import HALVES, select_conversations, session_sum_ranking
from lucasrag_harness.evaluation.sessions import (
    SessionScores,
    chunk_sessions,
    evidence_sessions,
    ranked_sessions,
    session_metrics,
    session_of,
)

# Four ranked chunks; the third repeats session D3 and the fourth holds two sessions.
CHUNKS = ["[D3:1] Ann: a\n\n[D3:2] Bob: b", "[D2:4] Ann: c", "[D3:5] Bob: d", "[D7:1] Ann: e\n\n[D5:2] Bob: f"]


def test_session_of_and_evidence_sessions():
    assert session_of("D3:7") == "D3"
    assert session_of("D12:1") == "D12"
    with pytest.raises(ValueError, match="not a LoCoMo turn id"):
        session_of("D:3")
    assert evidence_sessions(["D2:1", "D5:3", "D2:7"]) == ("D2", "D5")
    assert evidence_sessions(["D2:1"], prefix="conv-26/") == ("conv-26/D2",)


def test_ranked_chunks_become_sessions_by_first_appearance():
    assert ranked_sessions(CHUNKS) == ["D3", "D2", "D7", "D5"]
    assert ranked_sessions([]) == []
    assert chunk_sessions("[D3:1] x [D3:2] y [D1:1] z", prefix="conv-30/") == ["conv-30/D3", "conv-30/D1"]


def test_metrics_on_a_hand_checked_example():
    # gold {D2, D5}; ranked sessions D3, D2, D7, D5
    # Hit@1: D3 is not gold → 0.  R@3 / R@5 / R@10: D2 (rank 2) is inside → 1 each.
    # MRR: first gold at rank 2 → 1/2.
    # NDCG@5: DCG = 1/log2(2+1) + 1/log2(4+1) = 0.630930 + 0.430677 = 1.061606;
    #         ideal (2 gold on top) = 1/log2(2) + 1/log2(3) = 1 + 0.630930 = 1.630930; 1.061606 / 1.630930 = 0.650920
    m = session_metrics({"D2", "D5"}, ranked_sessions(CHUNKS))
    assert m["Hit@1"] == 0.0
    assert (m["R@3"], m["R@5"], m["R@10"]) == (1.0, 1.0, 1.0)
    assert m["MRR"] == 0.5
    assert m["NDCG@5"] == pytest.approx(0.650920, abs=1e-6)


@pytest.mark.parametrize(
    ("gold", "ranked", "expected"),
    [
        # gold first: every metric 1
        ({"D4"}, ["D4", "D1"], {"Hit@1": 1, "R@3": 1, "R@5": 1, "R@10": 1, "MRR": 1, "NDCG@5": 1}),
        # nothing ranked: every metric 0
        ({"D1"}, [], {"Hit@1": 0, "R@3": 0, "R@5": 0, "R@10": 0, "MRR": 0, "NDCG@5": 0}),
        # gold at rank 4: outside R@3, inside R@5; MRR 1/4; NDCG@5 = (1/log2 5) / 1 = 0.430677
        (
            {"D9"},
            ["D1", "D2", "D3", "D9"],
            {"Hit@1": 0, "R@3": 0, "R@5": 1, "R@10": 1, "MRR": 0.25, "NDCG@5": 0.430677},
        ),
        # gold at rank 7: only R@10; MRR 1/7; NDCG@5 0
        (
            {"D7"},
            [f"D{i}" for i in range(1, 11)],
            {"Hit@1": 0, "R@3": 0, "R@5": 0, "R@10": 1, "MRR": 1 / 7, "NDCG@5": 0},
        ),
        # six gold sessions, all on top: the ideal list is capped at 5 → NDCG@5 1
        ({f"D{i}" for i in range(6)}, [f"D{i}" for i in range(6)], {"Hit@1": 1, "MRR": 1, "NDCG@5": 1}),
    ],
)
def test_metric_table(gold, ranked, expected):
    got = session_metrics(gold, ranked)
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-6), name


def test_a_question_without_gold_is_refused():
    with pytest.raises(ValueError, match="without gold sessions"):
        session_metrics(set(), ["D1"])


def test_means_with_and_without_adversarial():
    scores = SessionScores("x")
    scores.add("single-hop", {"D2", "D5"}, ranked_sessions(CHUNKS))  # Hit@1 0, MRR 0.5 (above)
    scores.add("adversarial", {"D1"}, ["D1"])  # Hit@1 1, MRR 1
    out = scores.to_dict("adversarial")
    # with: Hit@1 (0 + 1)/2 = 0.5, MRR (0.5 + 1)/2 = 0.75, sessions ranked (4 + 1)/2 = 2.5; without: the first only
    assert out["with_adversarial"]["n"] == 2
    assert out["with_adversarial"]["Hit@1"] == 0.5 and out["with_adversarial"]["MRR"] == 0.75
    assert out["with_adversarial"]["mean_sessions_ranked"] == 2.5
    assert out["without_adversarial"]["n"] == 1
    assert out["without_adversarial"]["Hit@1"] == 0.0 and out["without_adversarial"]["MRR"] == 0.5
    assert math.isnan(SessionScores("empty").table()["Hit@1"])


def test_session_sum_ranking_can_overturn_the_best_chunk():
    items = [("[D1:1] a", 0.9), ("[D2:1] b", 0.5), ("[D2:2] c", 0.5), ("[D3:1] d", 0.5)]
    # D1 0.9, D2 0.5 + 0.5 = 1.0, D3 0.5 → D2, D1, D3 (first appearance would say D1, D2, D3)
    assert session_sum_ranking(items, chunk_sessions) == ["D2", "D1", "D3"]
    # a tie keeps first appearance
    assert session_sum_ranking([("[D4:1] a", 0.5), ("[D3:1] b", 0.5)], chunk_sessions) == ["D4", "D3"]


def test_halves_are_fixed_and_disjoint():
    convs = list(range(10))
    assert HALVES == {"tune": (0, 5), "report": (5, 10)}
    assert select_conversations(convs, "all", 2) == [("tune", 0), ("tune", 1), ("report", 5), ("report", 6)]
    assert select_conversations(convs, "tune", None) == [("tune", i) for i in range(5)]
    assert select_conversations(convs, "report", 1) == [("report", 5)]
    with pytest.raises(ValueError, match="unknown half"):
        select_conversations(convs, "both", None)


def test_adversarial_questions_are_kept_for_the_session_protocol_only(locomo_sample):
    conv = parse_conversation(locomo_sample)
    assert [q.category for q in conv.questions] == [4, 1, 2]
    assert [(q.category, q.evidence) for q in conv.adversarial] == [(5, ("D1:1",))]


def test_pooled_session_keys_carry_the_conversation():
    from lucasrag_harness.evaluation.locomo_pooled import _conversation_of

    assert _conversation_of("conv-26/sessions/2023-05-08 session 1.md") == "conv-26"
    # the same session number in two conversations stays two sessions
    assert ranked_sessions(["[D1:1] a", "[D1:2] b"], lambda t: chunk_sessions(t, "conv-26/")) == ["conv-26/D1"]
    assert evidence_sessions(["D1:1"], "conv-30/") != evidence_sessions(["D1:1"], "conv-26/")


def test_a_sweep_sets_one_knob_for_a_block_and_restores_it():
    from lucasrag import lexical
    from lucasrag_harness.evaluation.locomo_sweep import knob
    from lucasrag_query import _ranking

    before = _ranking.KEYWORD_WEIGHT
    with knob("KEYWORD_WEIGHT", before + 0.5):
        assert before + 0.5 == _ranking.KEYWORD_WEIGHT
    assert before == _ranking.KEYWORD_WEIGHT
    with knob("FUSION_K", 10.0):  # an int knob stays an int
        assert _ranking.FUSION_K == 10 and isinstance(_ranking.FUSION_K, int)
    with knob("K1", 1.5):
        assert lexical.K1 == 1.5
    assert lexical.K1 == 1.2
    with pytest.raises(ValueError, match="unknown knob"):
        with knob("RRF_K", 1.0):
            pass


def test_a_sweep_grid_is_every_combination():
    from lucasrag_harness.evaluation.locomo_sweep import parse_grid

    assert parse_grid(["KEYWORD_WEIGHT=1,2", "FUSION_K=60"]) == [
        (("KEYWORD_WEIGHT", 1.0), ("FUSION_K", 60.0)),
        (("KEYWORD_WEIGHT", 2.0), ("FUSION_K", 60.0)),
    ]
    with pytest.raises(SystemExit, match="NAME=v1,v2"):
        parse_grid(["NOT_A_KNOB=1"])


def test_no_ablations_keeps_query_with_its_defaults_only(settings_for, tmp_path):
    from dataclasses import replace

    from lucasrag_harness.evaluation.locomo_eval import LUCASRAG, RERANK_OFF, _variants

    settings = settings_for(tmp_path, tmp_path)
    assert list(_variants(settings, ablations=False)) == [LUCASRAG]
    assert len(_variants(settings)) == 6 and RERANK_OFF not in _variants(settings)
    assert RERANK_OFF in _variants(replace(settings, reranker_url="http://127.0.0.1:1"))
    assert list(_variants(replace(settings, reranker_url="http://127.0.0.1:1"), ablations=False)) == [LUCASRAG]


def test_recorded_pools_re_rank_to_query_s_own_results_and_follow_the_knobs(ingested):
    """The sweep's premise: re-ranking a recorded pool under the defaults is ``query()`` itself,
    and a knob set afterwards reaches the re-ranking (not the recorded results)."""
    from lucasrag_harness.evaluation.locomo import Question
    from lucasrag_harness.evaluation.locomo_sweep import knob, record_questions, rerank

    questions = [
        Question(0, "what did I write about the garden?", 4, ("D1:1",)),
        Question(1, "where do I live now?", 4, ("D1:1",)),
        Question(2, "what happened in 2019?", 2, ("D1:1",)),
    ]
    recorded = record_questions(ingested, questions)
    assert len(recorded) == 3 and all(r.texts for r in recorded)
    assert [rerank(r) for r in recorded] == [list(r.texts) for r in recorded]
    with knob("KEYWORD_WEIGHT", 0.0), knob("RECENCY_WEIGHT", 0.0), knob("PERIOD_WEIGHT", 0.0):
        similarity_only = [rerank(r) for r in recorded]
    assert similarity_only != [list(r.texts) for r in recorded]
    assert [rerank(r) for r in recorded] == [list(r.texts) for r in recorded]  # the knobs were restored
