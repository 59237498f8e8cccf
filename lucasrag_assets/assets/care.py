"""Care in Dagster: a WARN check listing pending reviews, a job to record a decision, the care evaluation."""

import json

import polars as pl
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetExecutionContext,
    Config,
    MaterializeResult,
    MetadataValue,
    OpExecutionContext,
    asset,
    asset_check,
    job,
    op,
)

from lucasrag.deference import load_deference
from lucasrag_assets.assets._metadata import markdown_table
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.care.decisions import confirm, dismiss
from lucasrag_assets.rules.care.review import REVIEW_COLUMNS, review_rows


@asset_check(
    asset="banded_chunks",
    blocking=False,
    description="Warns while uncertain care inferences (withheld meanwhile) await a person's review.",
)
def care_reviewed(banded_chunks: pl.DataFrame) -> AssetCheckResult:
    pairs = ((p, a) for p, care in banded_chunks.select("path", "care").iter_rows() for a in json.loads(care or "[]"))
    pending = review_rows(pairs, pending_only=True)
    table = pl.DataFrame(pending, schema={c: pl.String for c in REVIEW_COLUMNS}, strict=False)
    return AssetCheckResult(
        passed=not pending,
        severity=AssetCheckSeverity.WARN,
        description=(
            "no care inferences await review"
            if not pending
            else f"{len(pending)} (note, subject) pairs are uncertain and withheld until reviewed: "
            "`lucasrag care confirm|dismiss PATH SUBJECT` or the record_care_decision job"
        ),
        metadata={"pending": len(pending), "pending_reviews": MetadataValue.md(markdown_table(table))},
    )


class CareDecisionConfig(Config):
    path: str  # vault-relative path of the note
    subject: str  # a deference subject (name or alias)
    decision: str  # "confirm" (charged) or "dismiss" (not charged)


@op(description="Record a person's care decision in the vault (frontmatter charged: or .lucasrag/care_decisions.yaml).")
def record_care(context: OpExecutionContext, config: CareDecisionConfig, lucasrag: LucasragSettings) -> None:
    vault = lucasrag.get().vault
    if config.decision not in ("confirm", "dismiss"):
        raise ValueError(f"decision must be 'confirm' or 'dismiss', not {config.decision!r}")
    record = confirm if config.decision == "confirm" else dismiss
    subject = record(vault, config.path, config.subject, load_deference(vault))
    context.log.info(f"{config.decision}ed {subject} for {config.path}; the vault sensor will re-ingest it")


@job(description="Confirm or dismiss a care inference (fill in path, subject and decision in the launchpad).")
def record_care_decision():
    record_care()


@asset(
    group_name="evaluation",
    description="Care detector on the generated care corpus: recall, false positives, uncertain share and "
    "query-level leaks, tune and test halves (what `lucasrag eval care` prints).",
)
def care_evaluation(context: AssetExecutionContext) -> MaterializeResult:
    from lucasrag_assets.rules.care.evaluation import evaluate_care

    report = evaluate_care(cost=False)
    figures = ("recall", "false_positive_rate", "uncertain_share", "leaks", "over_withheld")
    return MaterializeResult(
        metadata={
            "model": report["model"],
            "vector_evidence": report["vector_evidence"],
            **{f"{half}_{f}": report[half][f] for half in ("tune", "test") for f in figures},
            **{f"{half}_lexical_only_recall": report[half]["lexical_only"]["recall"] for half in ("tune", "test")},
            **{f"{half}_chunk_view_recall": report[half]["chunk_view"]["recall"] for half in ("tune", "test")},
            "report": MetadataValue.json(report),
        }
    )
