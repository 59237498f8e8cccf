"""note_catalog: one row per vault file and what became of it (``lucasrag notes`` reads it)."""

import json

import polars as pl
from dagster import AssetExecutionContext, AssetKey, asset

from lucasrag.catalog import CARE_PAIR_SCHEMA, CATALOG_SCHEMA, catalog_path, write_catalog
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.resources import LucasragSettings


def care_pairs(chunks: pl.DataFrame) -> pl.DataFrame:
    """Per note path, every (chunk, subject) care assessment of its chunks."""
    by_path: dict[str, list[dict]] = {}
    for path, index, care in chunks.select("path", "chunk_index", "care").iter_rows():
        by_path.setdefault(path, []).extend({"chunk_index": index, **a} for a in json.loads(care or "[]"))
    return pl.DataFrame(
        {"path": list(by_path), "care": list(by_path.values())},
        schema={"path": pl.String, "care": pl.List(pl.Struct(CARE_PAIR_SCHEMA))},
    )


def catalog_frame(
    notes: pl.DataFrame, routed: pl.DataFrame, quarantine: pl.DataFrame, chunks: pl.DataFrame
) -> pl.DataFrame:
    per_note = chunks.group_by("path").agg(
        pl.col("band").first(),
        pl.col("charged").list.explode(keep_nulls=False, empty_as_null=False).unique().sort().alias("charged"),
    )
    indexed = (
        routed.select("path", "workspace", "confidence", "date")
        .join(per_note, on="path", how="left")
        .join(care_pairs(chunks), on="path", how="left")
        .with_columns(
            pl.lit("indexed").alias("status"),
            pl.lit(None, pl.String).alias("reason"),
            pl.lit(None, pl.String).alias("suggestion"),
        )
    )
    held = quarantine.select("path", "confidence", "date", "reason", "suggestion").with_columns(
        pl.lit("quarantined").alias("status"),
        pl.lit(None, pl.String).alias("workspace"),
        pl.lit(None, pl.String).alias("band"),
        pl.lit([], pl.List(pl.String)).alias("charged"),
        pl.lit([], pl.List(pl.Struct(CARE_PAIR_SCHEMA))).alias("care"),
    )
    invalid = (
        notes.filter(pl.col("status") == "invalid")
        .select("path", "reason")
        .with_columns(
            pl.lit("invalid").alias("status"),
            pl.lit(None, pl.String).alias("workspace"),
            pl.lit(None, pl.Float64).alias("confidence"),
            pl.lit(None, pl.String).alias("band"),
            pl.lit(None, pl.Date).alias("date"),
            pl.lit([], pl.List(pl.String)).alias("charged"),
            pl.lit(None, pl.String).alias("suggestion"),
            pl.lit([], pl.List(pl.Struct(CARE_PAIR_SCHEMA))).alias("care"),
        )
    )
    columns = list(CATALOG_SCHEMA)
    frames = [f.with_columns(pl.col("date").cast(pl.String)).select(columns) for f in (indexed, held, invalid)]
    return pl.concat(frames).with_columns(pl.col("charged").fill_null([]), pl.col("care").fill_null([])).sort("path")


@asset(
    group_name="indexes",
    deps=[AssetKey(f"{ws}_index") for ws in WORKSPACES],
    description="Every vault file with its status, workspace, confidence, band, date, charged subjects and reason.",
)
def note_catalog(
    context: AssetExecutionContext,
    lucasrag: LucasragSettings,
    vault_notes: pl.DataFrame,
    routed_documents: pl.DataFrame,
    quarantine: pl.DataFrame,
    banded_chunks: pl.DataFrame,
) -> pl.DataFrame:
    settings = lucasrag.get()
    frame = catalog_frame(vault_notes, routed_documents, quarantine, banded_chunks)
    write_catalog(settings, frame)
    context.add_output_metadata(
        {
            "rows": frame.height,
            "path": str(catalog_path(settings)),
            **{s: frame.filter(pl.col("status") == s).height for s in ("indexed", "quarantined", "invalid")},
        }
    )
    return frame
