"""vault_notes: every note file of the vault, parsed, with invalid files and their reasons."""


import polars as pl
from dagster import AssetExecutionContext, MetadataValue, asset

from lucasrag_assets.assets._metadata import markdown_table
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.vault_scan import Note, scan_vault

NOTE_SCHEMA = {
    "path": pl.String,
    "status": pl.String,
    "reason": pl.String,
    "title": pl.String,
    "body": pl.String,
    "date": pl.Date,
    "date_source": pl.String,
    "declared_workspace": pl.String,
    "declared_band": pl.String,
    "declared_charged": pl.List(pl.String),
    "tags": pl.List(pl.String),
    "content_hash": pl.String,
    "size": pl.Int64,
}


def notes_frame(notes: list[Note]) -> pl.DataFrame:
    rows = [
        {
            "path": n.path,
            "status": n.status,
            "reason": n.reason,
            "title": n.title,
            "body": n.body,
            "date": n.date,
            "date_source": n.date_source,
            "declared_workspace": n.workspace,
            "declared_band": n.band,
            "declared_charged": list(n.charged),
            "tags": [str(t) for t in n.tags],
            "content_hash": n.content_hash,
            "size": n.size,
        }
        for n in notes
    ]
    return pl.DataFrame(rows, schema=NOTE_SCHEMA)


@asset(group_name="ingest", description="Every Markdown note of the vault, parsed; bad files carry a reason.")
def vault_notes(context: AssetExecutionContext, lucasrag: LucasragSettings) -> pl.DataFrame:
    settings = lucasrag.get()
    if not settings.vault.is_dir():
        raise FileNotFoundError(f"vault folder {settings.vault} does not exist (set LUCASRAG_VAULT or --vault)")
    frame = notes_frame(scan_vault(settings.vault, max_bytes=settings.max_note_bytes))
    invalid = frame.filter(pl.col("status") == "invalid").select("path", "reason")
    context.add_output_metadata(
        {
            "notes": len(frame),
            "invalid": len(invalid),
            "invalid_files": MetadataValue.md(markdown_table(invalid)),
        }
    )
    return frame

