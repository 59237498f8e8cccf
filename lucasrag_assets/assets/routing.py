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

from lucasrag.catalog import read_decisions, read_previous_catalog, read_state
from lucasrag.embedding_models import CALIBRATED_MODEL
from lucasrag.privacy import private_link_names, split_private_links
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.assets._metadata import markdown_table
from lucasrag_assets.assets.notes import parse_key
from lucasrag_assets.memo import hashed_body, memoised_rows, row_keys, source_fingerprint
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.routing_memory import keep_routing, remembered_routing
from lucasrag_assets.rules import clippings
from lucasrag_assets.rules.changes import note_changes
from lucasrag_assets.rules.routing import evidence as routing_evidence
from lucasrag_assets.rules.routing.evidence import EVIDENCE_SCHEMA, note_evidence
from lucasrag_assets.rules.routing.remembered import RoutingMemory, pass_context
from lucasrag_assets.rules.routing.stability import keep_placed
from lucasrag_assets.rules.routing.vault_rules import load_routing_rules

#: What :func:`note_evidence` reads of a note: its memo key covers these and the rules' source.
EVIDENCE_INPUTS = ("path", "title", "body", "tags", "kinds", "links", "source")
#: The rules :func:`note_evidence` is made by: a change to any of their source files rereads every note.
EVIDENCE_RULES = (routing_evidence, clippings)


def evidence_salt(settings) -> str:
    """What every note's evidence depends on besides the note: the rules' source and the parse."""
    return source_fingerprint(*EVIDENCE_RULES) + parse_key(settings)


def remembered_evidence(settings, salt: str, counted: list[int]):
    """:func:`note_evidence` through a memo under the data folder: only notes whose inputs (or the
    rules' source: ``salt``, :func:`evidence_salt`) changed since the last run are read again; ``counted`` gets
    how many were."""

    def evidence(valid: pl.DataFrame) -> pl.DataFrame:
        keys = row_keys(valid, hashed_body(valid, [c for c in EVIDENCE_INPUTS if c in valid.columns]), salt)
        frame, fresh = memoised_rows(settings, "route_evidence", valid, keys, note_evidence, EVIDENCE_SCHEMA)
        counted.append(fresh)
        return frame

    return evidence


def without_private_links(routed: pl.DataFrame, notes: pl.DataFrame) -> pl.DataFrame:
    """Each routed note's wikilinks without the ones that reach a private note, those in ``private_links``
    (the index keys its graph on them: a note that becomes private is dropped from its linkers' graphs)."""
    names = private_link_names(notes.filter(pl.col("status") == "private")["path"].to_list())
    if not names:  # no private note: every link is kept (0.5 s of Python at 20,000 notes otherwise)
        return routed.with_columns(
            pl.col("links").fill_null(pl.lit([], pl.List(pl.String))).cast(pl.List(pl.String)),
            pl.lit([], pl.List(pl.String)).alias("private_links"),
        )
    pairs = [split_private_links(links or (), names) for links in routed["links"].to_list()]
    return routed.with_columns(
        pl.Series("links", [kept for kept, _ in pairs], dtype=pl.List(pl.String)),
        pl.Series("private_links", [dropped for _, dropped in pairs], dtype=pl.List(pl.String)),
    )


def routing_changes(settings, notes: pl.DataFrame, decided: pl.DataFrame) -> pl.DataFrame:
    """Status and workspace changes against the last ingest's catalogue, with their reasons."""
    catalog = pl.concat(
        [
            decided.select("path", "workspace").with_columns(
                pl.when(pl.col("workspace").is_null())
                .then(pl.lit("quarantined"))
                .otherwise(pl.lit("indexed"))
                .alias("status"),
                pl.lit(None, pl.String).alias("reason"),
            ),
            notes.filter(pl.col("status") == "invalid").select(
                "path", pl.lit(None, pl.String).alias("workspace"), "status", "reason"
            ),
        ]
    ).with_columns(pl.lit(None, pl.String).alias("band"))
    inputs = (
        notes.select("path", "content_hash", "declared_workspace")
        .join(decided.select("path", "route_reason"), on="path", how="left")
        .with_columns(pl.lit(None, pl.String).alias("band_rule"))
    )
    return note_changes(
        read_previous_catalog(settings),
        catalog,
        read_state(settings),
        inputs,
        read_decisions(settings),
        fields=("status", "workspace"),
    )


@multi_asset(
    outs={
        "routed_documents": AssetOut(description="Valid notes with their workspace and routing confidence."),
        "quarantine": AssetOut(description="Notes the router would not place: reason and best suggestion."),
    },
    group_name="ingest",
)
def route_notes(context: AssetExecutionContext, lucasrag: LucasragSettings, vault_notes: pl.DataFrame):
    settings = lucasrag.get()
    # routing prototypes and thresholds were calibrated on this model's cosines, whatever the index uses
    cache = lucasrag.embedding_cache(CALIBRATED_MODEL)
    try:
        rules = load_routing_rules(settings.vault)  # a broken routing.yaml fails here, naming the entry
        read_afresh: list[int] = []
        salt = evidence_salt(settings)  # reads the rules' source files: once a run
        evidence = remembered_evidence(settings, salt, read_afresh)
        # what the last routing computed (this process's, or the file the last run wrote): only the notes a
        # change touches are scored again (rules/routing/remembered.py)
        depends_on = (salt, CALIBRATED_MODEL)  # besides the notes, the threshold and the rules
        memory = RoutingMemory(
            last=remembered_routing(settings.data, pass_context(settings.route_threshold, rules, depends_on))
        )
        with cache.remembering("routing"):  # a long-lived process reads only the changed notes' vectors
            decided = memory.route(
                vault_notes,
                cache.embed,
                settings.route_threshold,
                rules,
                evidence=evidence,
                context=depends_on,
            )
    finally:
        cache.close()
    keep_routing(settings.data, memory)
    # reviews converge: an unchanged indexed note keeps its workspace (rules/routing/stability.py)
    decided = keep_placed(decided, read_previous_catalog(settings), read_state(settings))
    routed = without_private_links(decided.filter(pl.col("workspace").is_not_null()), vault_notes)
    quarantined = decided.filter(pl.col("workspace").is_null()).select(
        "path", "suggestion", "confidence", pl.col("route_reason").alias("reason"), "title", "date"
    )
    per_ws = {ws: routed.filter(pl.col("workspace") == ws).height for ws in WORKSPACES}
    moves = routing_changes(settings, vault_notes, decided)
    yield Output(
        routed,
        output_name="routed_documents",
        metadata={
            **{f"notes_{ws}": n for ws, n in per_ws.items()},
            "threshold": settings.route_threshold,
            # notes whose own evidence was not in the memo (remembered: the changed notes, read afresh)
            "evidence_read_afresh": sum(read_afresh) if memory.read_afresh is None else memory.read_afresh,
            # "full: <why>" or "remembered" (rules/routing/remembered.py), and how many notes were scored
            "routing_pass": memory.how,
            "rescored": memory.rescored,
            "moved": moves.height,  # status or workspace changed since the last ingest (docs/routing.md)
            "moves": MetadataValue.md(markdown_table(moves)),
        },
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
            "(or --folder DIR), or pick them in the approve_pending_note job (or approve_quarantined_note for a batch)"
        ),
        metadata={"pending": pending.height, "pending_notes": MetadataValue.md(markdown_table(pending))},
    )
