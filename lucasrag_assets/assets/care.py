"""Care in Dagster: a WARN check listing pending reviews, a job to record a batch decision."""

from enum import Enum

import polars as pl
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    Config,
    Failure,
    MetadataValue,
    OpExecutionContext,
    asset_check,
    job,
    op,
)
from pydantic import Field

from lucasrag.catalog import read_catalog
from lucasrag.deference import load_deference
from lucasrag_assets.assets._metadata import markdown_table
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.care.decisions import CareDecisionError, decided_items, record
from lucasrag_assets.rules.care.review import review_rows
from lucasrag_assets.rules.chunk_table import care_assessments


@asset_check(
    asset="banded_chunks",
    blocking=False,
    description="Warns while passages that refer to a deference subject are withheld awaiting a person's decision.",
)
def care_reviewed(banded_chunks: pl.DataFrame) -> AssetCheckResult:
    pending = review_rows(care_assessments(banded_chunks, "path"))
    shown = [{c: r[c] for c in ("subject", "path", "neutral", "why")} for r in pending]  # no passage text
    table = pl.DataFrame(
        shown, schema={"subject": pl.String, "path": pl.String, "neutral": pl.Float64, "why": pl.String}
    )
    return AssetCheckResult(
        passed=not pending,
        severity=AssetCheckSeverity.WARN,
        description=(
            "no care decisions await you"
            if not pending
            else f"{len(pending)} (note, subject) pairs are withheld until you decide: pick them in the "
            "decide_pending_care job (its partitions are the pending pairs), decide a batch with the "
            "record_care_decision job (a folder, tag or neutral score), or `lucasrag care list`"
        ),
        metadata={"pending": len(pending), "pending_reviews": MetadataValue.md(markdown_table(table))},
    )


class CareDecision(Enum):
    dismiss = "dismiss"  # release: the passages are ordinary material
    confirm = "confirm"  # keep withheld: recorded in the note's frontmatter charged:


class CareDecisionConfig(Config):
    """One decision for the pending pairs it selects; every field left empty selects nothing more specific."""

    decision: CareDecision = Field(
        default=CareDecision.dismiss, description="dismiss (release) or confirm (keep withheld)"
    )
    path: str = Field(default="", description="a note's vault-relative path (as `care list` shows it)")
    subject: str = Field(default="", description="a deference subject (name or alias); empty: every subject")
    folder: str = Field(default="", description="every pending note under this folder")
    tag: str = Field(default="", description="every pending note with this tag")
    neutral_above: float = Field(default=-1.0, description="only pairs scored at least this neutral (0..1; -1: any)")
    dry_run: bool = Field(default=True, description="list what would be decided; record nothing")


@op(description="Record a person's care decision for the pending pairs it selects, in the vault.")
def record_care(context: OpExecutionContext, config: CareDecisionConfig, lucasrag: LucasragSettings) -> None:
    vault = lucasrag.get().vault
    subjects = load_deference(vault)

    def pairs():
        return ((r["path"], a) for r in read_catalog(lucasrag.get()).to_dicts() for a in r["care"] or [])

    try:
        items = decided_items(
            vault,
            pairs,
            subjects,
            path=config.path or None,
            subject=config.subject or None,
            folder=config.folder or None,
            tag=config.tag or None,
            neutral_above=config.neutral_above if config.neutral_above >= 0 else None,
        )
    except CareDecisionError as exc:
        raise Failure(str(exc)) from None
    listed = "\n".join(f"- {p}: {s}" for p, s in items) or "(none)"
    if config.dry_run:
        context.log.info(f"would {config.decision.value} {len(items)} pair(s); nothing recorded:\n{listed}")
        return
    record(vault, items, config.decision.value, subjects, by="dagster")
    context.log.info(f"{config.decision.value}ed {len(items)} pair(s); the vault sensor will re-ingest:\n{listed}")


@job(
    description="Release (dismiss) or keep withheld (confirm) pending care pairs: pick the decision and a note, "
    "folder, tag or neutral score in the launchpad form; dry_run first lists them."
)
def record_care_decision():
    record_care()
