"""note_catalog: one row per vault file and what became of it (``lucasrag notes`` reads it).

Status: ``indexed``, ``quarantined``, ``invalid`` or ``skipped`` (a template, or a page with nothing of
its own to index: deliberately not a note, and not a problem to fix)."""

from itertools import chain

import polars as pl
from dagster import AssetExecutionContext, AssetKey, MetadataValue, asset

from lucasrag.catalog import (
    CARE_PAIR_SCHEMA,
    CATALOG_SCHEMA,
    STATE_SCHEMA,
    catalog_path,
    read_decisions,
    read_previous_catalog,
    read_state,
    write_catalog,
    write_changes,
    write_state,
)
from lucasrag.life import Life, find_life, write_life
from lucasrag.vault_health import unsearchable_warning, vault_health, write_health
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.assets._metadata import markdown_table
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.changes import note_changes
from lucasrag_assets.rules.chunk_table import care_assessments, note_names
from lucasrag_assets.rules.routing.evidence import routing_text
from lucasrag_assets.rules.routing.router import WORKSPACE_PROTOTYPES


def care_pairs(chunks: pl.DataFrame) -> pl.DataFrame:
    """Per note path, every (chunk, subject) care assessment of its chunks."""
    # Built as flat columns and grouped by polars: a frame of nested Python dicts took seconds at 10,000 notes.
    pair_paths: list[str] = []
    columns: dict[str, list] = {f: [] for f in CARE_PAIR_SCHEMA}
    for path, index, assessment in care_assessments(chunks, "path", "chunk_index"):
        pair_paths.append(path)
        row = {**assessment, "chunk_index": index}
        for name, values in columns.items():
            values.append(row.get(name))
    pairs = pl.DataFrame({"path": pair_paths, **columns}, schema={"path": pl.String, **CARE_PAIR_SCHEMA})
    grouped = pairs.group_by("path", maintain_order=True).agg(pl.struct(list(CARE_PAIR_SCHEMA)).alias("care"))
    return (
        chunks.select("path")
        .unique(maintain_order=True)
        .join(grouped, on="path", how="left", maintain_order="left")
        .with_columns(pl.col("care").fill_null([]))
        .cast({"care": pl.List(pl.Struct(CARE_PAIR_SCHEMA))})
    )


def writer_life(routed: pl.DataFrame, now) -> Life | None:
    """The writer's birth year from the indexed notes (``lucasrag.life``). Only notes that say "born" are
    read in Python: polars finds them, so a 100,000-note vault costs one vectorised scan."""
    # a coarse net: every property find_life reads (born, birthday, birth_date, date_of_birth, dob) contains one
    said = routed.filter(
        pl.col("body").str.contains(r"(?i)\bborn\b") | pl.col("properties").str.contains(r"(?i)born|birth|dob")
    )
    return find_life(
        (
            (row["path"], row["body"], note_names(row))
            for row in said.select("path", "body", "title", "aliases", "tags", "properties").iter_rows(named=True)
        ),
        now,
    )


def catalog_frame(
    notes: pl.DataFrame, routed: pl.DataFrame, quarantine: pl.DataFrame, chunks: pl.DataFrame
) -> pl.DataFrame:
    per_note = chunks.group_by("path").agg(
        pl.col("band").first(),
        pl.col("band_reason").first(),
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
        pl.lit(None, pl.String).alias("band_reason"),
        pl.lit([], pl.List(pl.String)).alias("charged"),
        pl.lit([], pl.List(pl.Struct(CARE_PAIR_SCHEMA))).alias("care"),
    )
    not_notes = (  # invalid files and skipped ones, each with its reason; private ones, their path only
        notes.filter(pl.col("status").is_in(["invalid", "skipped", "private"]))
        .select("path", pl.when(pl.col("status") != "private").then(pl.col("reason")).alias("reason"), "status")
        .with_columns(
            pl.lit(None, pl.String).alias("workspace"),
            pl.lit(None, pl.Float64).alias("confidence"),
            pl.lit(None, pl.String).alias("band"),
            pl.lit(None, pl.String).alias("band_reason"),
            pl.lit(None, pl.Date).alias("date"),
            pl.lit([], pl.List(pl.String)).alias("charged"),
            pl.lit(None, pl.String).alias("suggestion"),
            pl.lit([], pl.List(pl.Struct(CARE_PAIR_SCHEMA))).alias("care"),
        )
    )
    columns = [c for c in CATALOG_SCHEMA if c not in ("date_source", "warnings", "tags", "updated")]
    frames = [f.with_columns(pl.col("date").cast(pl.String)).select(columns) for f in (indexed, held, not_notes)]
    own = pl.col("status") != "private"  # a private note's row is its path and status alone
    dating = notes.select(
        "path",
        "date_source",
        pl.col("warnings").fill_null([]),
        pl.when(own).then(pl.col("tags")).otherwise(pl.lit([], pl.List(pl.String))).alias("tags"),
        pl.when(own).then(pl.col("updated").cast(pl.String)).alias("updated"),
    )
    return (
        pl.concat(frames)
        .join(dating, on="path", how="left")
        .with_columns(
            pl.col("charged").fill_null([]),
            pl.col("care").fill_null([]),
            pl.col("warnings").fill_null([]),
            pl.col("tags").fill_null([]),
        )
        .select(list(CATALOG_SCHEMA))
        .sort("path")
    )


def made_private(previous: pl.DataFrame | None, frame: pl.DataFrame) -> set[str]:
    """The notes private now that the last ingest had read (indexed, quarantined or invalid)."""
    if previous is None:
        return set()
    private = set(frame.filter(pl.col("status") == "private")["path"])
    return {p for p, status in previous.select("path", "status").iter_rows() if p in private and status != "private"}


def forget_private_vectors(
    lucasrag: LucasragSettings,
    previous: pl.DataFrame | None,
    frame: pl.DataFrame,
    notes: pl.DataFrame,
    chunks: pl.DataFrame,
) -> int:
    """When a note was made private, the embedding cache forgets every vector that no note embeds now (its
    chunks', its routing text's, and whatever else only it gave: vectors are keyed by text, not by note, so
    what is still in use is what stays). Returns how many were forgotten (0: no note was made private)."""
    if not made_private(previous, frame):
        return 0
    valid = notes.filter(pl.col("status") == "ok")
    live = [*chunks["text"], *(routing_text(b) for b in valid["body"]), *chain(*WORKSPACE_PROTOTYPES.values())]
    cache = lucasrag.embedding_cache()
    try:
        return cache.retain(live)
    finally:
        cache.close()


def decision_inputs(notes: pl.DataFrame, decided: pl.DataFrame, chunks: pl.DataFrame | None) -> pl.DataFrame:
    """Per note, the inputs of its decision (what a later ingest compares to explain a change)."""
    frame = notes.select("path", "content_hash", "declared_workspace").join(
        decided.select("path", "route_reason"), on="path", how="left"
    )
    if chunks is not None and not chunks.is_empty():
        frame = frame.join(chunks.group_by("path").agg(pl.col("band_rule").first()), on="path", how="left")
    else:
        frame = frame.with_columns(pl.lit(None, pl.String).alias("band_rule"))
    return frame.select(list(STATE_SCHEMA)).cast(STATE_SCHEMA)


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
    decided = pl.concat(
        [
            routed_documents.select("path", "route_reason"),
            quarantine.select("path", "reason").rename({"reason": "route_reason"}),
        ]
    )
    inputs = decision_inputs(vault_notes, decided, banded_chunks)
    previous = read_previous_catalog(settings)
    changes = note_changes(previous, frame, read_state(settings), inputs, read_decisions(settings))
    forgotten = forget_private_vectors(lucasrag, previous, frame, vault_notes, banded_chunks)
    write_catalog(settings, frame)
    write_state(settings, inputs)
    write_changes(settings, changes)
    health = vault_health(
        frame.select("path", "status", "reason").iter_rows(),
        undated_warnings=frame.filter(pl.col("warnings").list.len() > 0).height,
    )
    write_health(settings, health)  # the query side's "mostly unsearchable" hint reads this
    life = writer_life(routed_documents, settings.now)
    write_life(settings, life)  # the query side places undated childhood memories by it
    context.add_output_metadata(
        {
            "rows": frame.height,
            "path": str(catalog_path(settings)),
            "changed": changes.height,
            "changes": MetadataValue.md(markdown_table(changes)),
            "unsearchable_share": round(health.unsearchable_share, 3),
            # the CLI prints it once; the UI shows it here (a log line too would print it twice in the CLI)
            "unsearchable_warning": unsearchable_warning(health) or "",
            **{
                s: frame.filter(pl.col("status") == s).height
                for s in ("indexed", "quarantined", "invalid", "skipped", "private")
            },
            "vectors_forgotten": forgotten,  # of notes made private at this ingest (embedding cache)
        }
    )
    return frame
