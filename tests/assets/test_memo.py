"""The per-note memos (lucasrag_assets/memo.py): a row is computed again exactly when its key changes, with
one result row per row (routing evidence) or several (a note's chunks), and each memo's key covers the
source of every rules module its computation reaches (an edit of any of them redoes every note)."""

from __future__ import annotations

import datetime as dt
import sys
import types
from pathlib import Path

import polars as pl
import pytest

from lucasrag_assets.assets.chunks import CHUNK_RULES
from lucasrag_assets.assets.routing import EVIDENCE_RULES
from lucasrag_assets.memo import memoised_rows, row_keys, source_files
from lucasrag_assets.rules import chunk_table
from lucasrag_assets.rules.routing import evidence as routing_evidence


def _rules_reached(module: types.ModuleType) -> set[str]:
    """The lucasrag_assets.rules modules ``module`` uses, directly or through another (module imports,
    and functions and classes by the module that defines them)."""
    seen: set[str] = set()
    todo = [module.__name__]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for value in vars(sys.modules[name]).values():
            owner = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
            if isinstance(owner, str) and owner.startswith("lucasrag_assets.rules") and owner in sys.modules:
                todo.append(owner)
    return seen


@pytest.mark.parametrize(
    ("computation", "salted"),
    [(routing_evidence, EVIDENCE_RULES), (chunk_table, CHUNK_RULES)],
    ids=["route_evidence: note_evidence", "chunk_rows: chunk_frame"],
)
def test_a_memo_key_covers_every_rules_source_its_computation_reaches(computation, salted):
    covered = {path.resolve() for path in source_files(*salted)}
    reached = {name: Path(sys.modules[name].__file__).resolve() for name in _rules_reached(computation)}
    assert {name for name, path in reached.items() if path not in covered} == set()


def _run(settings, frame, compute, schema, **many):
    seen: list[list[str]] = []

    def counting(rows: pl.DataFrame) -> pl.DataFrame:
        seen.append(rows["path"].to_list())
        return compute(rows)

    keys = [f"{p}:{v}" for p, v in zip(frame["path"], frame["value"])]
    result, fresh = memoised_rows(settings, "test_rows", frame, keys, counting, schema, **many)
    assert fresh == len(seen[0])
    return result, seen[0]


def _double(rows: pl.DataFrame) -> pl.DataFrame:
    return rows.select((pl.col("value") * 2).alias("double"))


def _pieces(rows: pl.DataFrame) -> pl.DataFrame:
    """``value`` pieces per row, made last piece first (the memo orders them by ``piece``)."""
    out = [
        {"path": p, "piece": i, "text": f"{p}#{i}"}
        for p, v in zip(rows["path"], rows["value"])
        for i in reversed(range(v))
    ]
    return pl.DataFrame(out, schema={"path": pl.String, "piece": pl.Int64, "text": pl.String})


ONE_ROW = (_double, {"double": pl.Int64}, {})
SEVERAL_ROWS = (
    _pieces,
    {"path": pl.String, "piece": pl.Int64, "text": pl.String},
    {"by": "path", "sort_within": "piece"},
)


def _want(frame: pl.DataFrame, compute, many) -> pl.DataFrame:
    """``compute(frame)`` in the memo's order: the frame's, then (several rows) each row's own."""
    rows = compute(frame)
    if not many:
        return rows
    order = {p: i for i, p in enumerate(frame["path"])}
    return rows.sort(pl.col("path").replace_strict(order), "piece")


@pytest.mark.parametrize(
    ("compute", "schema", "many"), [ONE_ROW, SEVERAL_ROWS], ids=["one row per row", "several rows"]
)
def test_only_rows_whose_key_changed_are_computed_again(tmp_path, settings_for, compute, schema, many):
    settings = settings_for(tmp_path / "vault", tmp_path / "data")
    first = pl.DataFrame({"path": ["a", "b", "c"], "value": [1, 2, 3]})
    got, computed = _run(settings, first, compute, schema, **many)
    assert computed == ["a", "b", "c"] and got.equals(_want(first, compute, many))

    # b changed, c deleted, d new, and the rows come in another order
    second = pl.DataFrame({"path": ["d", "b", "a"], "value": [2, 4, 1]})
    got, computed = _run(settings, second, compute, schema, **many)
    assert sorted(computed) == ["b", "d"] and got.equals(_want(second, compute, many))

    got, computed = _run(settings, second, compute, schema, **many)
    assert computed == [] and got.equals(_want(second, compute, many))  # the memo kept this run's rows, all of them


@pytest.mark.parametrize(
    ("compute", "schema", "many"), [ONE_ROW, SEVERAL_ROWS], ids=["one row per row", "several rows"]
)
@pytest.mark.parametrize("moved", ["one row changed", "every row reordered"])
def test_a_memos_rows_come_back_in_the_frames_order_however_far_they_moved(
    tmp_path, settings_for, compute, schema, many, moved
):
    """The rows are taken from the memo as slices when they come in few runs (a long-lived process's next run),
    and gathered one by one past that; either way they are the rows a fresh computation gives, in its order."""
    settings = settings_for(tmp_path / "vault", tmp_path / "data")
    paths = [f"n{i:03}" for i in range(300)]
    first = pl.DataFrame({"path": paths, "value": [1 + i % 3 for i in range(300)]})
    _run(settings, first, compute, schema, **many)
    if moved == "one row changed":
        second = first.with_columns(pl.when(pl.col("path") == "n150").then(5).otherwise(pl.col("value")).alias("value"))
    else:
        second = first.sample(fraction=1.0, shuffle=True, seed=3)
    for _ in range(2):  # the second time from the memo this run wrote
        got, computed = _run(settings, second, compute, schema, **many)
        assert got.equals(_want(second, compute, many))
    assert computed == []


KEY_SCHEMA = {"path": pl.String, "title": pl.String, "tags": pl.List(pl.String), "date": pl.Date, "body": pl.String}
BASE_ROW = {"path": "a.md", "title": "A", "tags": ["x"], "date": dt.date(2024, 1, 2), "body": "text"}
#: one change per row → it must get a key of its own (a column's null and empty apart, the body's edge)
KEY_CHANGES = [
    {"path": "b.md"},
    {"title": "B"},
    {"title": None},
    {"title": ""},
    {"tags": []},
    {"tags": None},
    {"tags": ["x", "y"]},
    {"tags": ["x,y"]},
    {"date": dt.date(2024, 1, 3)},
    {"date": None},
    {"body": None},
    {"body": ""},
    {"body": "text "},
    {"title": 'A", "tags": ["x"]'},  # a value that spells the next column
    {"title": "A\x00", "body": "ext"},  # the body's separator inside a value (JSON escapes it)
]


def test_row_keys_differ_for_every_change_of_a_keyed_column_and_only_for_those():
    rows = [BASE_ROW, *({**BASE_ROW, **change} for change in KEY_CHANGES)]
    frame = pl.DataFrame(rows, schema={**KEY_SCHEMA, "other": pl.String})
    keys = row_keys(frame, list(KEY_SCHEMA), "salt")
    assert len(set(keys)) == len(rows)
    again = frame.with_columns(pl.lit("not keyed").alias("other"))
    assert row_keys(again, list(KEY_SCHEMA), "salt") == keys  # a column outside ``columns`` is not read
    assert row_keys(frame, list(KEY_SCHEMA), "salt2") != keys and row_keys(frame.head(0), list(KEY_SCHEMA), "s") == []
