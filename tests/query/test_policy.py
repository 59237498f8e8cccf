"""Table-driven tests for deference, band filtering and recency weighting (§3.4, §3.5)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import date

import pytest

from lucasrag.vocabulary import ChunkRecord, DeferenceSubject
from lucasrag_query.policy import (
    Candidate,
    Hint,
    apply_policy,
    period_strength,
    precision_of,
    recency_weight,
    resolve_bridge,
    temporal_weight,
)
from lucasrag_query.temporal import TemporalSignals

NOW = date(2025, 6, 1)
TOM = DeferenceSubject("Grandad Tom", ("grandad", "Tom Lucas"))
ANNA = DeferenceSubject("Anna", ())
SUBJECTS = (TOM, ANNA)
OPEN = TemporalSignals(True, ("2013",), ((date(2013, 1, 1), date(2013, 12, 31)),))
CLOSED = TemporalSignals(False, (), ())
CUE = TemporalSignals(True, ("back then",), ())  # a cue opens the whole archive


def cand(
    cid: str, band: str = "present", charged: tuple[str, ...] = (), text: str = "", day: str | None = "2024-01-01"
) -> Candidate:
    return Candidate(cid, "personal", f"journal/{cid}.md", band, day, charged, text or f"text of {cid}")


# (id, candidates, temporal, bridge, kept ids, [(subject, kind, withheld)])
CASES = [
    ("plain-present", [cand("a")], CLOSED, [], ["a"], []),
    (
        "archive-closed",
        [cand("a"), cand("b", "archival"), cand("c", "archival")],
        CLOSED,
        [],
        ["a"],
        [(None, "archive", 2)],
    ),
    ("archive-open-by-cue", [cand("a"), cand("b", "archival")], CUE, [], ["a", "b"], []),
    # A period opens only itself: archival chunks dated outside it stay out, counted in the hint.
    (
        "archive-open-for-period",
        [cand("a"), cand("b", "archival", day="2013-05-02"), cand("c", "archival"), cand("d", "archival", day=None)],
        OPEN,
        [],
        ["a", "b"],
        [(None, "archive", 2)],
    ),
    (
        "charged-withheld",
        [cand("a", charged=("Grandad Tom",)), cand("b")],
        CLOSED,
        [],
        ["b"],
        [("Grandad Tom", "deference", 1)],
    ),
    ("bridged", [cand("a", charged=("Grandad Tom",))], CLOSED, ["Grandad Tom"], ["a"], []),
    ("alias-bridge", [cand("a", charged=("Grandad Tom",))], CLOSED, ["Tom Lucas"], ["a"], []),
    ("case-insensitive-bridge", [cand("a", charged=("Grandad Tom",))], CLOSED, ["grandad tom"], ["a"], []),
    ("alias-charged-name", [cand("a", charged=("GRANDAD",))], CLOSED, [], [], [("Grandad Tom", "deference", 1)]),
    ("unknown-name-bridged", [cand("a", charged=("Rex",))], CLOSED, ["rex"], ["a"], []),
    ("unknown-name-withheld", [cand("a", charged=("Rex",))], CLOSED, ["Anna"], [], [("Rex", "deference", 1)]),
    ("archival-charged-open-released", [cand("a", "archival", ("Anna",))], CUE, [], ["a"], []),
    ("archival-charged-in-period-released", [cand("a", "archival", ("Anna",), day="2013-01-01")], OPEN, [], ["a"], []),
    (
        "archival-charged-outside-period-withheld",
        [cand("a", "archival", ("Anna",))],
        OPEN,
        [],
        [],
        [("Anna", "deference", 1)],
    ),
    ("present-charged-open-withheld", [cand("a", charged=("Anna",))], OPEN, [], [], [("Anna", "deference", 1)]),
    (
        "archival-charged-closed-care-first",
        [cand("a", "archival", ("Anna",)), cand("b", "archival")],
        CLOSED,
        [],
        [],
        [("Anna", "deference", 1), (None, "archive", 1)],
    ),
    (
        "bridged-archival-closed-is-archive",
        [cand("a", "archival", ("Anna",))],
        CLOSED,
        ["Anna"],
        [],
        [(None, "archive", 1)],
    ),
    (
        "two-subjects-one-bridged",
        [cand("a", charged=("Anna", "grandad"))],
        CLOSED,
        ["Anna"],
        [],
        [("Grandad Tom", "deference", 1)],
    ),
    (
        "two-subjects-counted-each",
        [cand("a", charged=("Anna", "grandad")), cand("b", charged=("Anna",))],
        CLOSED,
        [],
        [],
        [("Anna", "deference", 2), ("Grandad Tom", "deference", 1)],
    ),
]


@pytest.mark.parametrize(
    ("candidates", "temporal", "bridge", "kept", "hints"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_apply_policy(candidates, temporal, bridge, kept, hints):
    out = apply_policy(candidates, temporal=temporal, subjects=SUBJECTS, bridge=bridge)
    assert [c.chunk_id for c in out.kept] == kept
    assert [(h.subject, h.kind, h.withheld) for h in out.hints] == hints
    assert out.withheld_ids == {c.chunk_id for c in candidates} - set(kept)


def test_hint_messages_and_dict():
    out = apply_policy(
        [cand("a", charged=("Grandad Tom",)), cand("b", "archival")], temporal=CLOSED, subjects=SUBJECTS, bridge=[]
    )
    dh, ah = out.hints
    assert 'bridge=["Grandad Tom"]' in dh.message and '--bridge "Grandad Tom"' in dh.message
    assert ah.message.startswith("1 older (archival) passage matched")
    assert ah.to_dict() == {"subject": None, "kind": "archive", "withheld": 1, "message": ah.message}
    assert isinstance(dh, Hint)


@pytest.mark.parametrize(
    ("bridge", "expected"),
    [
        (["grandad"], {"Grandad Tom"}),
        (["TOM LUCAS", "anna"], {"Grandad Tom", "Anna"}),
        (["Rex", " ", ""], {"Rex"}),
        ([], set()),
    ],
    ids=["alias", "case", "unknown-and-blank", "empty"],
)
def test_resolve_bridge(bridge, expected):
    assert resolve_bridge(bridge, SUBJECTS) == expected


def test_from_record():
    r = ChunkRecord("c1", "d1", "personal", "p.md", 0, "t", "archival", "date", "2010-01-01", ("Anna",))
    assert Candidate.from_record(r) == Candidate(
        "c1", "personal", "p.md", "archival", "2010-01-01", ("Anna",), "t", "date"
    )


def test_hint_order_is_deterministic():
    cs = [cand("a", charged=("zed",)), cand("b", charged=("Anna",)), cand("c", "archival"), cand("d", charged=("bob",))]
    for order in (cs, cs[::-1]):
        out = apply_policy(order, temporal=CLOSED, subjects=SUBJECTS, bridge=[])
        assert [h.subject for h in out.hints] == ["Anna", "bob", "zed", None]


def test_withheld_text_never_leaks():
    rng = random.Random(1234)
    names = ["Grandad Tom", "grandad", "Anna", "Rex", "tom lucas"]
    for trial in range(300):
        cands = []
        for i in range(rng.randint(1, 12)):
            charged = tuple(rng.sample(names, rng.randint(0, 2))) if rng.random() < 0.5 else ()
            secret = f"SECRET-{trial}-{i}-{rng.getrandbits(64):016x}"
            cands.append(cand(f"c{trial}-{i}", rng.choice(["present", "archival"]), charged, secret))
        temporal = rng.choice([OPEN, CLOSED, CUE])
        bridge = rng.sample(names + ["nobody"], rng.randint(0, 2))
        out = apply_policy(cands, temporal=temporal, subjects=SUBJECTS, bridge=bridge)
        hints_json = json.dumps([h.to_dict() for h in out.hints])
        kept_json = json.dumps([c.__dict__ for c in out.kept])
        assert {c.chunk_id for c in out.kept} | out.withheld_ids == {c.chunk_id for c in cands}
        assert not {c.chunk_id for c in out.kept} & out.withheld_ids
        for c in cands:
            assert c.text not in hints_json
            if c.chunk_id in out.withheld_ids:
                assert c.text not in kept_json
        # counts: every withheld chunk is announced by at least one hint
        assert sum(h.withheld for h in out.hints) >= len(out.withheld_ids)


# (id, date, periods, expected)
WEIGHTS = [
    ("new", "2025-06-01", (), 1.0),
    ("two-years", "2023-06-01", (), 0.5),
    ("future", "2026-01-01", (), 1.0),
    ("undated", None, (), 0.5),
    ("garbage", "someday", (), 0.5),
    ("ancient-floor", "1900-01-01", (), 0.01),
    ("in-period", "2013-04-02", ((date(2013, 1, 1), date(2013, 12, 31)),), 1.0),
    ("year-after-period", "2014-12-31", ((date(2013, 1, 1), date(2013, 12, 31)),), 0.5),
    (
        "nearest-period",
        "2000-06-01",
        ((date(1990, 1, 1), date(1999, 12, 31)), (date(2013, 1, 1), date(2013, 12, 31))),
        0.5 ** (152 / 365.25),
    ),
    ("year-only", "2013", ((date(2013, 1, 1), date(2013, 12, 31)),), 1.0),
    # The distance half-life follows the period's precision: three days off a day halves it.
    ("day-three-days-off", "2024-01-10", ((date(2024, 1, 7), date(2024, 1, 7)),), 0.5),
    ("day-in", "2024-01-07", ((date(2024, 1, 7), date(2024, 1, 7)),), 1.0),
    ("month-a-month-off", "2019-04-30", ((date(2019, 3, 1), date(2019, 3, 31)),), 0.5),
]


@pytest.mark.parametrize(
    ("start", "end", "precision"),
    [
        (date(2024, 1, 7), date(2024, 1, 7), "day"),
        (date(2026, 5, 25), date(2026, 5, 31), "week"),
        (date(2019, 2, 1), date(2019, 2, 28), "month"),
        (date(2015, 12, 1), date(2016, 2, 29), "season"),
        (date(2013, 1, 1), date(2013, 12, 31), "year"),
        (date(1990, 1, 1), date(1999, 12, 31), "decade"),
    ],
)
def test_precision_of(start, end, precision):
    assert precision_of(start, end) == precision


def test_period_strength_follows_the_finest_period():
    day, year, decade = (
        (date(2024, 1, 7),) * 2,
        (date(2013, 1, 1), date(2013, 12, 31)),
        (date(1990, 1, 1), date(1999, 12, 31)),
    )
    assert period_strength([day]) > period_strength([year]) > period_strength([decade]) > period_strength([]) == 0
    assert period_strength([decade, day]) == period_strength([day])


def test_period_hint_names_the_period():
    out = apply_policy([cand("b", "archival")], temporal=OPEN, subjects=SUBJECTS, bridge=[])
    assert out.hints[0].kind == "archive" and "outside the period you named" in out.hints[0].message
    assert "archive=True" in out.hints[0].message  # both archive hints name the assistant's parameter


@pytest.mark.parametrize(("value", "periods", "expected"), [w[1:] for w in WEIGHTS], ids=[w[0] for w in WEIGHTS])
def test_recency_weight(value, periods, expected):
    w = recency_weight(value, now=NOW, periods=periods)
    assert 0 < w <= 1 and w == pytest.approx(expected, abs=2e-3)


def test_newer_scores_higher_and_temporal_weight():
    assert recency_weight("2024-01-01", now=NOW) > recency_weight("2020-01-01", now=NOW)
    cue_only = TemporalSignals(True, ("growing up",), ())
    assert temporal_weight("1995-01-01", now=NOW, temporal=cue_only) == 1.0
    assert temporal_weight("2013-05-05", now=NOW, temporal=OPEN) == 1.0
    assert temporal_weight("2025-01-01", now=NOW, temporal=CLOSED) == recency_weight("2025-01-01", now=NOW)


CHILDHOOD_1990 = (date(1990, 1, 1), date(2007, 12, 31))
NINETIES = TemporalSignals(True, ("the 90s",), ((date(1990, 1, 1), date(1999, 12, 31)),))
YEAR_2015 = TemporalSignals(True, ("2015",), ((date(2015, 1, 1), date(2015, 12, 31)),))
YEAR_1996 = TemporalSignals(True, ("1996",), ((date(1996, 1, 1), date(1996, 12, 31)),))
PLACED = [  # (id, candidate, temporal, kept): an undated chunk's ``about`` span stands in for its date
    ("childhood-in-the-90s", replace(cand("m", "archival", day=None), about=CHILDHOOD_1990), NINETIES, True),
    ("childhood-not-in-2015", replace(cand("m", "archival", day=None), about=CHILDHOOD_1990), YEAR_2015, False),
    (
        "placed-to-the-decade-not-a-year-in-it",
        replace(cand("m", "archival", day=None), about=CHILDHOOD_1990),
        YEAR_1996,
        False,
    ),
    ("unplaced-undated", cand("m", "archival", day=None), NINETIES, False),
    ("a-date-wins-over-about", replace(cand("m", "archival", day="2015-05-01"), about=CHILDHOOD_1990), NINETIES, False),
    ("closed-archive", replace(cand("m", "archival", day=None), about=CHILDHOOD_1990), CLOSED, False),
]


@pytest.mark.parametrize(("candidate", "temporal", "kept"), [p[1:] for p in PLACED], ids=[p[0] for p in PLACED])
def test_an_undated_chunk_is_admitted_by_the_span_it_is_about(candidate, temporal, kept):
    out = apply_policy([candidate], temporal=temporal, subjects=SUBJECTS, bridge=[])
    assert bool(out.kept) is kept


def test_a_placed_charged_chunk_follows_the_archive_rule_like_a_dated_one():
    charged = replace(cand("m", "archival", charged=("Grandad Tom",), day=None), about=CHILDHOOD_1990)
    dated = cand("d", "archival", charged=("Grandad Tom",), day="1995-07-01")
    for temporal in (NINETIES, YEAR_2015):
        outs = [apply_policy([c], temporal=temporal, subjects=SUBJECTS, bridge=[]) for c in (charged, dated)]
        assert bool(outs[0].kept) == bool(outs[1].kept)
