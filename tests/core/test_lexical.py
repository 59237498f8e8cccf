"""Keyword rules: the analyser, BM25 and rank fusion (lucasrag.lexical)."""

from __future__ import annotations

import datetime as dt
import math

import pytest

from lucasrag import lexical


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Walking the dogs", ["walk", "dog"]),  # stems, stop word dropped
        ("Café in Zürich", ["cafe", "zurich"]),  # accents folded
        ("snake_case and CamelCase", ["snake", "case", "camelcas"]),  # underscore splits (as FTS5's unicode61 does)
        ("I can't remember", ["rememb"]),  # contraction pieces are stop words
        ("[D3:7] Melanie: 2013 was", ["d3", "7", "melani", "2013"]),
        ("", []),
        ("the of and", []),
    ],
)
def test_terms(text, expected):
    assert lexical.terms(text) == expected


def test_query_terms_are_distinct_and_ordered():
    assert lexical.query_terms("dogs, a dog and more dogs; cats") == ["dog", "cat"]


def test_bm25_hand_example():
    # N = 4 chunks in the collection; "otter" in 1, "river" in 2. Two documents scored.
    docs = [["otter", "river", "river"], ["river", "bank", "walk", "walk"]]
    scores = lexical.bm25(["otter", "river"], docs, {"otter": 1, "river": 2}, 4)
    idf_otter = math.log(1 + (4 - 1 + 0.5) / 1.5)
    idf_river = math.log(1 + (4 - 2 + 0.5) / 2.5)
    avg = 3.5
    norm0 = 1.2 * (1 - 0.75 + 0.75 * 3 / avg)
    norm1 = 1.2 * (1 - 0.75 + 0.75 * 4 / avg)
    assert scores[0] == pytest.approx(idf_otter * 2.2 / (1 + norm0) + idf_river * 2 * 2.2 / (2 + norm0))
    assert scores[1] == pytest.approx(idf_river * 2.2 / (1 + norm1))
    assert scores[0] > scores[1]


def test_bm25_unknown_terms_and_empty_input():
    assert lexical.bm25(["zebra"], [["otter"]], {}, 10) == [0.0]
    assert lexical.bm25(["zebra"], [], {}, 10) == []


def test_rare_term_outweighs_common_term():
    docs = [["rare"], ["common"]]
    first, second = lexical.bm25(["rare", "common"], docs, {"rare": 1, "common": 900}, 1000)
    assert first > second


@pytest.mark.parametrize(
    ("query", "expected"),
    [(["dog", "cat"], '"dog" OR "cat"'), (['a"b'], '"a""b"'), ([], None), ([""], None)],
)
def test_fts_match(query, expected):
    assert lexical.fts_match(query) == expected


def test_fuse_rankings_prefers_items_high_in_both():
    fused = lexical.fuse_rankings([["a", "b", "c"], ["d", "b", "c"]])
    # 2nd in both, then 3rd in both, beat 1st in only one; ties keep first-seen order.
    assert fused == ["b", "c", "a", "d"]
    assert lexical.fuse_rankings([["x", "y"], []]) == ["x", "y"]


def test_fused_scores():
    # item 0: first by similarity, no keyword; item 1: second by similarity, first by keywords.
    scores = lexical.fused_scores([[0.9, 0.8, 0.1], [0.0, 3.0, 1.0]])
    assert scores[1] > scores[0] > 0
    assert all(0 <= s <= 1 for s in scores)
    assert lexical.fused_scores([[0.5], [2.0]]) == [pytest.approx(1.0)]
    assert lexical.fused_scores([]) == []


@pytest.mark.parametrize(
    ("date", "expected"),
    [("2016-05-11", ["2016", "2010s"]), ("1996", ["1996", "1990s"]), (None, []), ("", []), ("undated", [])],
)
def test_date_terms(date, expected):
    assert lexical.date_terms(date) == expected


@pytest.mark.parametrize(
    ("periods", "expected"),
    [
        ([(dt.date(2013, 1, 1), dt.date(2013, 12, 31))], ["2013"]),
        ([(dt.date(1990, 1, 1), dt.date(1999, 12, 31))], ["1990s"]),
        ([(dt.date(2013, 3, 1), dt.date(2015, 2, 1))], []),  # neither a year nor a decade
        ([], []),
    ],
)
def test_period_terms_spell_periods_as_dates_do(periods, expected):
    assert lexical.period_terms(periods) == expected
    if expected:  # and they match a chunk dated inside the period
        assert set(expected) <= set(lexical.date_terms(periods[0][0].isoformat()))


def test_query_terms_add_the_named_periods():
    nineties = (dt.date(1990, 1, 1), dt.date(1999, 12, 31))
    assert lexical.query_terms("where did I live in the nineties?", [nineties]) == ["live", "nineti", "1990s"]


@pytest.mark.parametrize(
    ("counts", "n_chunks", "expected"),
    [
        ({"otter": 40, "get": 30_000}, 50_000, ["otter"]),  # "get" in 60 %: it scores, it does not select
        ({"otter": 40, "year": 5_100}, 50_000, ["otter"]),  # in 10.2 %: common
        ({"otter": 40, "year": 4_900}, 50_000, ["otter", "year"]),  # under a tenth: distinctive
        ({"priya": 2, "otter": 1}, 3, ["priya", "otter"]),  # a small workspace: reading every match is cheap
        ({"otter": 40, "get": 2_000}, 4_000, ["otter", "get"]),  # half the chunks, but only 2,000 of them
        ({"get": 30_000, "current": 20_000}, 50_000, ["current"]),  # every term common: the rarest
        ({"b": 20_000, "a": 20_000}, 50_000, ["a"]),  # ties by the term, so each call reads the same chunks
        ({}, 50_000, []),
    ],
)
def test_distinctive_terms(counts, n_chunks, expected):
    assert lexical.distinctive_terms(counts, n_chunks) == expected
