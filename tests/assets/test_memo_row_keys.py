"""A memo's row key names a note's body by its content hash (the digest of the file's bytes) when every row has
one: the body is what the parse made of those bytes, so the key must also name the parse (``parse_key``)."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from lucasrag.settings import Settings
from lucasrag_assets.assets.notes import parse_key
from lucasrag_assets.memo import hashed_body, row_keys


@pytest.mark.parametrize(
    ("hashes", "columns", "expected"),
    [
        (["h1", "h2"], ["path", "body"], ["path", "content_hash"]),
        (["h1", "h2"], ["path", "content_hash", "body"], ["path", "content_hash"]),  # named once
        (["h1", "h2"], ["path", "title"], ["path", "title"]),  # no body: nothing to replace
        (["h1", None], ["path", "body"], ["path", "body"]),  # a row without a hash: bodies are hashed
        (["h1", ""], ["path", "body"], ["path", "body"]),
        (None, ["path", "body"], ["path", "body"]),  # no content_hash column (a frame made by hand)
    ],
)
def test_the_body_is_named_by_its_hash_only_when_every_row_has_one(hashes, columns, expected):
    frame = pl.DataFrame({"path": ["a.md", "b.md"], "title": ["A", "B"], "body": ["one", "two"]})
    if hashes is not None:
        frame = frame.with_columns(pl.Series("content_hash", hashes, dtype=pl.String))
    assert hashed_body(frame, columns) == expected


def test_keys_follow_the_bytes_and_the_parse(tmp_path):
    vault = tmp_path / "vault"
    (vault / ".lucasrag").mkdir(parents=True)
    settings = Settings(vault=vault, data=tmp_path / "data", now=dt.date(2026, 6, 1))
    frame = pl.DataFrame({"path": ["a.md"], "body": ["one"], "content_hash": ["h1"]})
    parse = parse_key(settings)
    key = row_keys(frame, hashed_body(frame, ["path", "body"]), parse)
    changed_bytes = frame.with_columns(pl.lit("h2").alias("content_hash"))
    assert row_keys(changed_bytes, hashed_body(changed_bytes, ["path", "body"]), parse_key(settings)) != key

    # a private pattern is part of the parse: every key changes with it, though no file's bytes did
    (vault / ".lucasrag" / "private").write_text("diary/\n", encoding="utf-8")
    assert parse_key(settings) != parse
    assert row_keys(frame, hashed_body(frame, ["path", "body"]), parse_key(settings)) != key


def _fresh_keys(frame, columns, salt):
    from lucasrag_assets import memo

    memo._KEYS_SEEN.clear()
    return row_keys(frame, columns, salt)


BASE = pl.DataFrame(
    {"path": ["a.md", "b.md", "c.md"], "body": ["one", "two", "three"], "day": ["2026-01-01", "2026-01-02", None]}
)


@pytest.mark.parametrize(
    "after",
    [
        BASE,  # nothing changed: every key remembered
        BASE.with_columns(pl.when(pl.col("path") == "b.md").then(pl.lit("TWO")).otherwise("body").alias("body")),
        pl.concat([BASE, pl.DataFrame({"path": ["d.md"], "body": ["four"], "day": ["2026-01-04"]})]),
        BASE.reverse(),
        pl.concat([BASE, BASE.head(1)]),  # the same row twice
        BASE.with_columns(pl.col("day").str.to_date()),  # the same text as another type: another key
        BASE.head(0),
    ],
)
def test_keys_a_process_remembers_are_the_keys_it_would_work_out(after):
    """A long-lived process digests only rows it has not met; every key is still the one a fresh process gives."""
    want = _fresh_keys(after, ["path", "body", "day"], "salt")
    _fresh_keys(BASE, ["path", "body", "day"], "salt")  # what the last run met
    assert row_keys(after, ["path", "body", "day"], "salt") == want
    assert row_keys(after, ["path", "body", "day"], "another salt") == _fresh_keys(
        after, ["path", "body", "day"], "another salt"
    )
