"""Per-note work kept between runs, so an unchanged vault re-ingests quickly.

Two memos live under ``LUCASRAG_DATA/cache``: parsed notes keyed by
(path, size, mtime, size cap) — the same test a sync tool uses, never used to
decide a band — and chunk texts keyed by (note content hash, chunk size).
Each is rewritten with only the current notes, so it never outgrows the vault.
Deleting the folder is always safe: the work is simply redone.
"""

from pathlib import Path

import polars as pl

from lucasrag.settings import Settings


def memo_path(settings: Settings, name: str) -> Path:
    return settings.data / "cache" / f"{name}.parquet"


def load_memo(settings: Settings, name: str) -> pl.DataFrame | None:
    path = memo_path(settings, name)
    if not path.is_file():
        return None
    try:
        return pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError):  # a torn or foreign file: recompute
        return None


def save_memo(settings: Settings, name: str, frame: pl.DataFrame) -> None:
    path = memo_path(settings, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    frame.write_parquet(tmp)
    tmp.replace(path)
