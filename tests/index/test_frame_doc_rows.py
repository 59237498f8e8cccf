"""The index step reads a workspace's chunk frame without a record per chunk: ``FrameDocRows`` gives every
document the fingerprint its records give, fingerprints again only a document whose synced rows, graph mode or
salt changed since this process last saw it, and builds records only for the documents asked for."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

import lucasrag_assets.assets.indexes as indexes
from lucasrag.index.sync import DocRows
from lucasrag.settings import Settings
from lucasrag_assets.assets.indexes import FrameDocRows, chunk_records


def _frame() -> pl.DataFrame:
    docs = ["doc-a", "doc-a", "doc-b", "doc-c"]
    return pl.DataFrame(
        {
            "chunk_id": ["a0", "a1", "b0", "c0"],
            "doc_id": docs,
            "workspace": ["personal"] * 4,
            "path": ["a.md", "a.md", "b.md", "c.md"],
            "chunk_index": [0, 1, 0, 0],
            "text": ["one", "two", "three", "four"],
            "band": ["present"] * 4,
            "band_rule": ["default"] * 4,
            "date": [None, None, "2019-03-01", None],
            "charged": [[], [], [], ["Grandad Tom"]],
            "content_hash": ["ha", "ha", "hb", "hc"],
        },
        schema_overrides={"date": pl.String, "charged": pl.List(pl.String)},
    )


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=dt.date(2026, 6, 1))


@pytest.fixture
def computed(monkeypatch) -> list[str]:
    """The documents fingerprinted from their records (by path of their first chunk)."""
    seen: list[str] = []
    original = indexes.doc_fingerprint

    def counting(chunks, mode=""):
        seen.append(chunks[0].path)
        return original(chunks, mode)

    monkeypatch.setattr(indexes, "doc_fingerprint", counting)
    return seen


CHANGES = [
    # (what changes between two runs, the mode, salts, which documents are fingerprinted again)
    ("nothing", lambda f: f, "", {}, []),
    (
        "a band",
        lambda f: f.with_columns(band=pl.when(pl.col("doc_id") == "doc-b").then(pl.lit("archival")).otherwise("band")),
        "",
        {},
        ["b.md"],
    ),
    (
        "a chunk's text (its id)",
        lambda f: f.with_columns(
            chunk_id=pl.when(pl.col("chunk_id") == "a1").then(pl.lit("a1x")).otherwise("chunk_id")
        ),
        "",
        {},
        ["a.md"],
    ),
    ("charged subjects", lambda f: f.with_columns(charged=pl.lit([], dtype=pl.List(pl.String))), "", {}, ["c.md"]),
    ("a document gone", lambda f: f.filter(pl.col("doc_id") != "doc-c"), "", {}, []),
    ("a private link's salt", lambda f: f, "", {"doc-b": ":private-links:x"}, ["b.md"]),
    ("the graph mode", lambda f: f, "graph-v9", {}, ["a.md", "b.md", "c.md"]),
]


@pytest.mark.parametrize(("change", "edit", "mode", "salts", "again"), CHANGES, ids=[c[0] for c in CHANGES])
def test_fingerprints_equal_the_records_and_only_changes_are_fingerprinted_again(
    settings, computed, change, edit, mode, salts, again
):
    first = FrameDocRows(_frame(), settings, "personal").fingerprints("", {})
    assert first == DocRows(chunk_records(_frame())).fingerprints("", {})
    computed.clear()
    frame = edit(_frame())
    second = FrameDocRows(frame, settings, "personal").fingerprints(mode, salts)
    assert second == DocRows(chunk_records(frame)).fingerprints(mode, salts)
    assert sorted(set(computed)) == again


def test_records_of_the_documents_asked_for_in_their_order(settings):
    rows = FrameDocRows(_frame(), settings, "personal")
    assert [r.chunk_id for r in rows.records(["doc-c", "doc-a"])] == ["c0", "a0", "a1"]
    assert rows.records([]) == []


def test_each_workspace_and_data_folder_has_its_own_memory(settings, computed, tmp_path):
    FrameDocRows(_frame(), settings, "personal").fingerprints("", {})
    computed.clear()
    FrameDocRows(_frame(), settings, "technical").fingerprints("", {})
    other = Settings(vault=tmp_path / "v2", data=tmp_path / "d2", now=settings.now)
    FrameDocRows(_frame(), other, "personal").fingerprints("", {})
    assert len(computed) == 6  # three documents, twice: nothing taken from another workspace's memory
