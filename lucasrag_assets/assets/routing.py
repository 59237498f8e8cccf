"""routed_documents and quarantine: each valid note goes to one workspace or waits for a person."""

import polars as pl
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    AssetOut,
    MetadataValue,
    Output,
    asset_check,
    multi_asset,
)

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.assets._metadata import markdown_table
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.routing import route_frame


@multi_asset(
    outs={
        "routed_documents": AssetOut(description="Valid notes with their workspace and routing confidence."),
        "quarantine": AssetOut(description="Notes the router would not place: reason and best suggestion."),
    },
    group_name="ingest",
)
def route_notes(context: AssetExecutionContext, lucasrag: LucasragSettings, vault_notes: pl.DataFrame):
    settings = lucasrag.get()
    cache = lucasrag.embedding_cache()
    try:
        decided = route_frame(vault_notes, cache.embed, settings.route_threshold)
    finally:
        cache.close()
    routed = decided.filter(pl.col("workspace").is_not_null())
    quarantined = decided.filter(pl.col("workspace").is_null()).select(
        "path", "suggestion", "confidence", pl.col("route_reason").alias("reason"), "title", "date"
    )
    per_ws = {ws: routed.filter(pl.col("workspace") == ws).height for ws in WORKSPACES}
    yield Output(
        routed,
        output_name="routed_documents",
        metadata={**{f"notes_{ws}": n for ws, n in per_ws.items()}, "threshold": settings.route_threshold},
    )
    yield Output(
        quarantined,
        output_name="quarantine",
        metadata={
            "pending": quarantined.height,
            "notes": MetadataValue.md(markdown_table(quarantined.select("path", "suggestion", "confidence", "reason"))),
        },
    )


@asset_check(asset="quarantine", blocking=False, description="Warns while quarantined notes await a person's review.")
def quarantine_reviewed(quarantine: pl.DataFrame) -> AssetCheckResult:
    pending = quarantine.select("path", "suggestion", "confidence", "reason")
    return AssetCheckResult(
        passed=pending.is_empty(),
        severity=AssetCheckSeverity.WARN,
        description=(
            "no notes await review"
            if pending.is_empty()
            else f"{pending.height} notes await review: approve with `lucasrag quarantine approve PATH --workspace W` "
            "or the approve_quarantined_note job"
        ),
        metadata={"pending": pending.height, "pending_notes": MetadataValue.md(markdown_table(pending))},
    )
