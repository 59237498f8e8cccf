"""Asset values between steps: Parquet files in the data folder, one per asset.

Every step of a run may be its own process (the multiprocess executor) or pod (dagster-k8s); a step
reads its inputs from here, never from memory, so the data folder is the one thing steps share
besides the services. It also lets a later run re-materialise one index from the last
``banded_chunks`` (the ``rebuild_<workspace>`` jobs).

A long-lived process (``lucasrag watch``, ``mcp --watch``, the sensor's in-process run) keeps the frames it
last wrote or read, each with its file's identity: a step whose input file is the one this process wrote
gets the frame without reading it back (at 100,000 notes the note and chunk frames are hundreds of MB of
Parquet). Another process's write changes the file's identity, and the file is read again.
"""

from pathlib import Path

import polars as pl
from dagster import InputContext, IOManager, OutputContext, io_manager

from lucasrag.file_memo import KeptByIdentity, parquet_writer

#: The frames this process last wrote or read (every asset of one data folder, with room to spare).
_frames = KeptByIdentity(limit=16)


def asset_value_path(data: Path, asset_key_path: list[str]) -> Path:
    return data / "assets" / f"{'/'.join(asset_key_path)}.parquet"


def stored_value(data: Path, asset_key_path: list[str]) -> pl.DataFrame:
    """The asset's last stored value, as this process kept it or read from its file."""
    return _frames.read(asset_value_path(data, asset_key_path), pl.read_parquet)


class DataFolderIOManager(IOManager):
    """Polars frames as Parquet under ``<LUCASRAG_DATA>/assets/``; other outputs (None) store nothing."""

    def __init__(self, data: Path):
        self.data = data

    def handle_output(self, context: OutputContext, obj) -> None:
        if obj is None:
            return
        if not isinstance(obj, pl.DataFrame):
            raise TypeError(f"{context.asset_key.to_user_string()}: expected a polars DataFrame, got {type(obj)}")
        path = asset_value_path(self.data, context.asset_key.path)
        _frames.write(path, obj, parquet_writer(obj))  # atomic: a reader never sees half a file
        context.add_output_metadata({"stored_at": str(path)})

    def load_input(self, context: InputContext) -> pl.DataFrame:
        path = asset_value_path(self.data, context.asset_key.path)
        try:  # a value this process is still writing (file_memo.writes_in_background) is given back as kept
            return stored_value(self.data, context.asset_key.path)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"{context.asset_key.to_user_string()} has no stored value at {path}: materialise it first "
                "(the ingest job)"
            ) from None


@io_manager(required_resource_keys={"lucasrag"}, description="Parquet files under <LUCASRAG_DATA>/assets/.")
def data_folder_io_manager(init_context) -> DataFolderIOManager:
    return DataFolderIOManager(init_context.resources.lucasrag.get().data)
