"""An index step with nothing to do answers from the digest its last complete sync recorded, never from a stale one.

``in_line_report`` trusts a recorded digest only while no write has happened since, no stopped run left writes
in flight and the model is the one the index was built with; ``chunk_rows_digest`` changes with every field
the sync reads (so an edit to any of them is synced, not skipped).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt

import numpy as np
import polars as pl
import pytest

from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.index import in_line_report, open_chunk_store, sync_workspace
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord
from lucasrag_assets.assets.indexes import chunk_records, chunk_rows_digest

NOW = dt.date(2026, 6, 1)
TEXTS = ["Ellie moved to Lisbon in 2019.", "The postgres vacuum runs nightly.", "My cat is called Miso."]


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "chunk_id": [f"chunk-{i}" for i in range(3)],
            "doc_id": [f"doc-{i}" for i in range(3)],
            "workspace": ["personal"] * 3,
            "path": [f"notes/{i}.md" for i in range(3)],
            "chunk_index": [0, 0, 0],
            "text": TEXTS,
            "band": ["present"] * 3,
            "band_rule": ["default"] * 3,
            "date": [None, "2019-03-01", None],
            "charged": [[], [], ["grief"]],
            "content_hash": ["h0", "h1", "h2"],
        },
        schema_overrides={"date": pl.String, "charged": pl.List(pl.String)},
    )


@pytest.fixture
def settings(tmp_path) -> Settings:
    (tmp_path / "vault").mkdir()
    return Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=NOW, graph=False)


def _sync(settings: Settings, frame: pl.DataFrame):
    records = chunk_records(frame)
    cache = EmbeddingCache(settings.data / "embeddings.sqlite", settings.embedding_model)
    try:
        return asyncio.run(
            sync_workspace(
                settings,
                "personal",
                records,
                {r.doc_id: r.text for r in records},
                cache,
                rows_digest=chunk_rows_digest(frame, settings),
            )
        )
    finally:
        cache.close()


def _remove_one(settings: Settings) -> None:
    store = open_chunk_store(settings, "personal")
    try:
        store.remove_docs(["doc-0"])
    finally:
        store.close()


def _add_one(settings: Settings) -> None:
    store = open_chunk_store(settings, "personal")
    try:
        record = ChunkRecord("chunk-9", "doc-9", "personal", "notes/9.md", 0, "x", "present", "default", None)
        store.add_chunks([record], np.zeros((1, 384), dtype=np.float32))
    finally:
        store.close()


def _in_flight(settings: Settings) -> None:
    store = open_chunk_store(settings, "personal")
    try:
        store.record_writes_in_flight({"doc-1": ["chunk-1"]})
    finally:
        store.close()


#: what happens to the store after a complete sync → whether its digest still answers for it
AFTER_THE_SYNC = {
    "nothing": (lambda settings: None, True),
    "a document removed by another writer": (_remove_one, False),
    "chunks added by another writer": (_add_one, False),
    "a stopped run's writes in flight": (_in_flight, False),
}


@pytest.mark.parametrize("case", list(AFTER_THE_SYNC))
def test_a_recorded_digest_answers_only_for_an_untouched_store(case, settings):
    frame = _frame()
    assert _sync(settings, frame).docs_added == 3
    touch, answers = AFTER_THE_SYNC[case]
    touch(settings)
    report = in_line_report(settings, "personal", chunk_rows_digest(frame, settings))
    if answers:
        assert (report.docs_total, report.chunks_total, report.docs_unchanged) == (3, 3, 3)
    else:
        assert report is None
        again = _sync(settings, frame)  # the full sync puts it right and records the digest again
        store = open_chunk_store(settings, "personal")
        try:
            assert store.doc_fingerprints().keys() == {"doc-0", "doc-1", "doc-2"} and not store.writes_in_flight()
        finally:
            store.close()
        assert again.docs_total == 3
        assert in_line_report(settings, "personal", chunk_rows_digest(frame, settings)) is not None


def test_another_embedding_model_is_never_answered_from_the_digest(settings):
    frame = _frame()
    _sync(settings, frame)
    other = dataclasses.replace(settings, embedding_model="bge-small")
    assert in_line_report(other, "personal", chunk_rows_digest(frame, settings)) is None


#: one edit per field the sync reads (document fingerprints, paths, grouping, order)
EDITS = {
    "chunk_id": pl.col("chunk_id").str.replace("chunk-2", "chunk-2b"),
    "doc_id": pl.col("doc_id").str.replace("doc-2", "doc-1"),
    "workspace": pl.col("workspace").str.replace("personal", "private"),
    "path": pl.col("path").str.replace("notes/2", "notes/two"),
    "chunk_index": pl.col("chunk_index") + 1,
    "band": pl.col("band").str.replace("present", "archival"),
    "band_rule": pl.col("band_rule").str.replace("default", "date"),
    "date": pl.col("date").fill_null("2020-01-01"),
    "charged": pl.col("charged").list.concat(pl.lit(["work"])),
    "content_hash": pl.col("content_hash").str.replace("h1", "h1b"),
}


@pytest.mark.parametrize("field", list(EDITS))
def test_the_digest_changes_with_every_field_the_sync_reads(field, settings):
    frame = _frame()
    assert chunk_rows_digest(frame.with_columns(EDITS[field].alias(field)), settings) != chunk_rows_digest(
        frame, settings
    )


def test_the_digest_changes_with_row_order_and_graph_mode_but_not_with_the_text(settings):
    frame = _frame()
    digest = chunk_rows_digest(frame, settings)
    assert chunk_rows_digest(frame.reverse(), settings) != digest
    assert chunk_rows_digest(frame, dataclasses.replace(settings, graph=True)) != digest
    # the text is not part of a document's fingerprint (its chunk id is): the sync ignores it, so may the digest
    assert chunk_rows_digest(frame.with_columns(pl.lit("other").alias("text")), settings) == digest


@pytest.mark.parametrize("field", list(EDITS))
def test_a_digest_this_process_remembers_is_the_one_it_would_work_out(field, settings):
    """A long-lived writer recognises rows it digested before; every digest is still the one worked out afresh."""
    from lucasrag_assets.assets import indexes

    frame, edited = _frame(), _frame().with_columns(EDITS[field].alias(field))
    remembered = [chunk_rows_digest(f, settings) for f in (frame, edited, frame, edited)]
    indexes._DIGESTS.clear()
    afresh = [chunk_rows_digest(f, settings) for f in (frame, edited)]
    assert remembered == afresh * 2 and afresh[0] != afresh[1]
