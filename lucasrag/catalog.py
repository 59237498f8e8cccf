"""The note catalogue: one row per vault file, written by ingestion, read by the CLI.

Stored as Parquet under ``LUCASRAG_DATA`` so ``lucasrag notes`` and
``lucasrag quarantine list`` answer without Dagster.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from lucasrag.settings import Settings

#: One (chunk, subject) care assessment as the catalogue stores it (see lucasrag_assets/rules/care).
CARE_PAIR_SCHEMA = {
    "chunk_index": pl.Int64,
    "subject": pl.String,
    "outcome": pl.String,  # charged | uncertain | neutral
    "confidence": pl.Float64,
    "source": pl.String,  # declared | dismissed | inferred
    "mention": pl.String,
    "rule_cue": pl.String,
    "score": pl.Float64,
    "nearest": pl.String,
}

CATALOG_SCHEMA = {
    "path": pl.String,
    "status": pl.String,
    "workspace": pl.String,
    "confidence": pl.Float64,
    "band": pl.String,
    "date": pl.String,
    "charged": pl.List(pl.String),
    "reason": pl.String,
    "suggestion": pl.String,  # the router's best guess, for quarantined notes
    "care": pl.List(pl.Struct(CARE_PAIR_SCHEMA)),  # every (chunk, subject) care assessment with its evidence
}


class CatalogMissing(FileNotFoundError):
    """No ingest has run for this data folder yet."""


def catalog_path(settings: Settings) -> Path:
    return settings.data / "catalog" / "notes.parquet"


def write_catalog(settings: Settings, frame: pl.DataFrame) -> None:
    path = catalog_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    frame.write_parquet(tmp)
    tmp.replace(path)


def read_catalog(settings: Settings) -> pl.DataFrame:
    path = catalog_path(settings)
    if not path.is_file():
        raise CatalogMissing(
            f"no note catalogue at {path}: run `lucasrag ingest` first (LUCASRAG_DATA={settings.data})"
        )
    return pl.read_parquet(path)
