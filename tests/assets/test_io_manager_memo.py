"""A long-lived process takes the frames it last wrote or read — asset values (the IO manager), memos, the
catalogue and decision inputs — from memory while the file is unchanged, and reads the file again when another
process replaced it."""

from __future__ import annotations

import datetime as dt

import polars as pl
from dagster import AssetKey, build_input_context, build_output_context

from lucasrag.settings import Settings
from lucasrag_assets.io_manager import DataFolderIOManager, asset_value_path


def test_a_frame_this_process_wrote_is_not_read_back(tmp_path):
    manager = DataFolderIOManager(tmp_path)
    frame = pl.DataFrame({"path": ["a.md", "b.md"], "n": [1, 2]})
    manager.handle_output(build_output_context(asset_key=AssetKey("notes")), frame)
    loaded = manager.load_input(build_input_context(asset_key=AssetKey("notes")))
    assert loaded is frame  # no Parquet read

    # another process (or a rebuild) replaces the file: its frame is read, not the one kept
    other = pl.DataFrame({"path": ["c.md"], "n": [3]})
    path = asset_value_path(tmp_path, ["notes"])
    other.write_parquet(path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)
    reread = manager.load_input(build_input_context(asset_key=AssetKey("notes")))
    assert reread is not frame and reread.equals(other)
    assert manager.load_input(build_input_context(asset_key=AssetKey("notes"))) is reread


def test_each_data_folder_keeps_its_own_frames(tmp_path):
    one, two = DataFolderIOManager(tmp_path / "one"), DataFolderIOManager(tmp_path / "two")
    a, b = pl.DataFrame({"n": [1]}), pl.DataFrame({"n": [2]})
    one.handle_output(build_output_context(asset_key=AssetKey("notes")), a)
    two.handle_output(build_output_context(asset_key=AssetKey("notes")), b)
    assert one.load_input(build_input_context(asset_key=AssetKey("notes"))) is a
    assert two.load_input(build_input_context(asset_key=AssetKey("notes"))) is b


def test_a_memo_this_process_wrote_is_not_read_back_until_another_writer_replaces_it(tmp_path):
    from lucasrag_assets.memo import load_memo, memo_path, save_memo

    settings = Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=dt.date(2026, 6, 1))
    assert load_memo(settings, "chunk_rows") is None
    frame = pl.DataFrame({"key": ["k1"], "n": [1]})
    save_memo(settings, "chunk_rows", frame)
    assert load_memo(settings, "chunk_rows") is frame  # no Parquet read

    other = pl.DataFrame({"key": ["k2"], "n": [2]})
    path = memo_path(settings, "chunk_rows")
    other.write_parquet(path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)
    reread = load_memo(settings, "chunk_rows")
    assert reread is not frame and reread.equals(other)
    assert load_memo(settings, "chunk_rows") is reread

    path.write_bytes(b"not parquet")  # a torn or foreign file: recomputed, never the kept frame
    assert load_memo(settings, "chunk_rows") is None


def test_the_catalogue_this_process_wrote_is_not_read_back_until_another_writer_replaces_it(tmp_path):
    from lucasrag.catalog import catalog_path, read_previous_catalog, read_state, write_catalog, write_state

    settings = Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=dt.date(2026, 6, 1))
    assert read_previous_catalog(settings) is None and read_state(settings) is None
    catalog, state = pl.DataFrame({"path": ["a.md"]}), pl.DataFrame({"path": ["a.md"], "content_hash": ["h"]})
    write_catalog(settings, catalog)
    write_state(settings, state)
    assert read_previous_catalog(settings) is catalog and read_state(settings) is state

    other = pl.DataFrame({"path": ["b.md"]})
    path = catalog_path(settings)
    other.write_parquet(path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)
    assert read_previous_catalog(settings).equals(other)
