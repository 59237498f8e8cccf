"""A run's whole-vault files written by a background thread (file_memo.writes_in_background): the process is
given what it is writing, every file is in place when the block is left, and a failed write is raised then."""

from __future__ import annotations

import threading

import polars as pl
import pytest
from dagster import AssetKey, build_input_context, build_output_context

from lucasrag.file_memo import KeptByIdentity, parquet_writer, writes_in_background
from lucasrag_assets import io_manager
from lucasrag_assets.io_manager import DataFolderIOManager, asset_value_path


def held(frame: pl.DataFrame, gate: threading.Event):
    """A save that waits for ``gate`` before it writes: the write is still under way until the test opens it."""

    def save(path):
        assert gate.wait(10)
        parquet_writer(frame)(path)

    return save


def never_loaded(path):
    raise AssertionError(f"{path} was read back")


def test_a_value_being_written_is_given_back_and_the_file_is_in_place_when_the_block_is_left(tmp_path):
    kept, path, gate = KeptByIdentity(4), tmp_path / "memo.parquet", threading.Event()
    frame = pl.DataFrame({"n": [1, 2]})
    with writes_in_background():
        kept.write(path, frame, held(frame, gate))
        assert not path.exists()  # the write is the background thread's
        assert kept.read(path, never_loaded) is frame
        gate.set()
    assert pl.read_parquet(path).equals(frame)
    assert kept.read(path, never_loaded) is frame  # the file is the one written: not read back


def test_the_last_of_two_writes_of_one_file_wins(tmp_path):
    kept, path, gate = KeptByIdentity(4), tmp_path / "memo.parquet", threading.Event()
    first, second = pl.DataFrame({"n": [1]}), pl.DataFrame({"n": [2]})
    with writes_in_background():
        kept.write(path, first, held(first, gate))
        kept.write(path, second, parquet_writer(second))
        assert kept.read(path, never_loaded) is second
        gate.set()
    assert pl.read_parquet(path).equals(second)
    assert kept.read(path, never_loaded) is second


def test_a_failed_write_is_raised_when_the_block_is_left_and_its_value_forgotten(tmp_path):
    kept, path = KeptByIdentity(4), tmp_path / "memo.parquet"
    pl.DataFrame({"n": [0]}).write_parquet(path)

    def broken(_):
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        with writes_in_background():
            kept.write(path, pl.DataFrame({"n": [1]}), broken)
    assert kept.read(path, pl.read_parquet)["n"].to_list() == [0]  # the file as it is, read again


def test_outside_the_block_a_write_is_done_when_it_returns(tmp_path):
    kept, path = KeptByIdentity(4), tmp_path / "memo.parquet"
    frame = pl.DataFrame({"n": [3]})
    kept.write(path, frame, parquet_writer(frame))
    assert pl.read_parquet(path).equals(frame) and kept.read(path, never_loaded) is frame


def test_an_asset_value_is_given_to_the_next_step_before_its_first_file_exists(tmp_path):
    """A cold ingest: the IO manager's first file of an asset is still being written when the next step asks."""
    manager, gate = DataFolderIOManager(tmp_path), threading.Event()
    frame = pl.DataFrame({"path": ["a.md"]})
    with writes_in_background():
        io_manager._frames.write(asset_value_path(tmp_path, ["notes"]), frame, held(frame, gate))
        assert manager.load_input(build_input_context(asset_key=AssetKey("notes"))) is frame
        gate.set()
        manager.handle_output(build_output_context(asset_key=AssetKey("other")), frame)
    assert pl.read_parquet(asset_value_path(tmp_path, ["notes"])).equals(frame)
    assert pl.read_parquet(asset_value_path(tmp_path, ["other"])).equals(frame)
    with pytest.raises(FileNotFoundError, match="materialise it first"):
        manager.load_input(build_input_context(asset_key=AssetKey("missing")))
