"""Reviews in the Dagster UI by picking: the pending items are dynamic partitions.

A sensor keeps two partition sets equal to what awaits the person: ``pending_notes`` (every note the last
ingest quarantined) and ``pending_care`` (every withheld care pair with no decision, ``path | subject``).
The jobs ``approve_pending_note`` and ``decide_pending_care`` are partitioned by them, so the launchpad
offers the pending items as choices (one or many: a backfill runs one decision per item) and refuses a key
that is not pending before any run starts. The decision itself is a drop-down (a workspace; confirm or
dismiss), so an invalid choice fails config validation, also before the run.
"""

from pathlib import Path
from typing import Optional

from dagster import (
    AddDynamicPartitionsRequest,
    Config,
    DefaultSensorStatus,
    DeleteDynamicPartitionsRequest,
    DynamicPartitionsDefinition,
    Failure,
    OpExecutionContext,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    job,
    op,
    sensor,
)
from dagster._core.definitions.partitions.utils.base import INVALID_PARTITION_SUBSTRINGS
from pydantic import Field

from lucasrag.catalog import CatalogMissing, care_pending, catalog_path, read_catalog
from lucasrag.deference import load_deference
from lucasrag_assets.assets.care import CareDecision
from lucasrag_assets.automation import WorkspaceChoice
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.routing_decisions import approve_quarantined
from lucasrag_assets.rules.care.decisions import CareDecisionError, record

PENDING_NOTES = DynamicPartitionsDefinition(name="pending_notes")
PENDING_CARE = DynamicPartitionsDefinition(name="pending_care")
#: Between a care pair's note path and its subject (no Obsidian file name holds a "|").
CARE_KEY_SEPARATOR = " | "


def care_key(path: str, subject: str) -> str:
    return f"{path}{CARE_KEY_SEPARATOR}{subject}"


def split_care_key(key: str) -> tuple[str, str]:
    path, _, subject = key.rpartition(CARE_KEY_SEPARATOR)
    return path, subject


def _usable(key: str) -> bool:
    """Dagster refuses a few substrings in a partition key (``...``, control characters): such an item stays
    decidable from the CLI and the batch jobs."""
    return not any(bad in key for bad in INVALID_PARTITION_SUBSTRINGS)


def pending_keys(rows: list[dict]) -> tuple[list[str], list[str]]:
    """The partition keys of what awaits a decision in the catalogue rows: quarantined notes, pending care pairs."""
    notes = sorted(r["path"] for r in rows if r["status"] == "quarantined")
    care = sorted({care_key(r["path"], a["subject"]) for r in rows for a in r.get("care") or [] if care_pending(a)})
    return [k for k in notes if _usable(k)], [k for k in care if _usable(k)]


def _sync(partitions: DynamicPartitionsDefinition, wanted: list[str], context: SensorEvaluationContext):
    have = set(context.instance.get_dynamic_partitions(partitions.name))
    requests = []
    if added := [k for k in wanted if k not in have]:
        requests.append(AddDynamicPartitionsRequest(partitions_def_name=partitions.name, partition_keys=added))
    if gone := sorted(have - set(wanted)):
        requests.append(DeleteDynamicPartitionsRequest(partitions_def_name=partitions.name, partition_keys=gone))
    return requests


def _catalog_stamp(path: Path) -> str:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return "none"
    return f"{stat.st_mtime_ns}:{stat.st_size}"


@sensor(
    minimum_interval_seconds=5,
    default_status=DefaultSensorStatus.RUNNING,
    description="Keeps the pending_notes and pending_care partitions equal to what awaits a decision "
    "after the last ingest: the choices of the approve_pending_note and decide_pending_care jobs.",
)
def pending_reviews(context: SensorEvaluationContext, lucasrag: LucasragSettings):
    settings = lucasrag.get()
    stamp = _catalog_stamp(catalog_path(settings))
    if stamp == context.cursor:
        return SkipReason("no ingest since the last look")
    try:
        rows = read_catalog(settings).to_dicts()
    except CatalogMissing:
        rows = []
    notes, care = pending_keys(rows)
    requests = [*_sync(PENDING_NOTES, notes, context), *_sync(PENDING_CARE, care, context)]
    return SensorResult(dynamic_partitions_requests=requests, cursor=stamp)


def _picked(context: OpExecutionContext, partitions: DynamicPartitionsDefinition) -> str:
    """The run's item, refused unless still pending: the picker offers only pending items, but a launchpad
    left open while the item was settled, or a key sent through the API, reaches here."""
    key = context.get_tag("dagster/partition") or ""
    if not context.instance.has_dynamic_partition(partitions.name, key):
        raise Failure(
            f"{key!r} is not awaiting a decision (settled or changed since the list was made): pick from {partitions.name}"
        )
    return key


class PendingApprovalConfig(Config):
    workspace: Optional[WorkspaceChoice] = Field(  # noqa: UP045 (Dagster's config types read Optional)
        default=None, description="where the note belongs; empty: the router's suggestion"
    )


@op(description="Approve the picked quarantined note into a workspace (the checks of `lucasrag quarantine approve`).")
def approve_picked_note(context: OpExecutionContext, config: PendingApprovalConfig, lucasrag: LucasragSettings):
    settings = lucasrag.get()
    path = _picked(context, PENDING_NOTES)
    rows = read_catalog(settings).to_dicts()
    row = next((r for r in rows if r["path"] == path), None)
    workspace = WorkspaceChoice(config.workspace).value if config.workspace else (row or {}).get("suggestion")
    if not workspace:
        raise Failure(f"{path}: the router has no suggestion for it; pick a workspace")
    try:
        message = approve_quarantined(settings, path, workspace, rows=rows)
    except (ValueError, FileNotFoundError) as exc:
        raise Failure(description=str(exc)) from None  # one line in the UI, not a stack trace
    context.log.info(f"{message}; the vault sensor will re-ingest it")


@job(
    partitions_def=PENDING_NOTES,
    description="Approve quarantined notes picked from the pending list (the partitions) into a workspace.",
)
def approve_pending_note():
    approve_picked_note()


class PendingCareConfig(Config):
    # No default: the person picks one in the launchpad (anything else is refused before the run).
    decision: CareDecision = Field(description="dismiss (release the passages) or confirm (keep them withheld)")


@op(description="Record the person's care decision for the picked pending pair, in the vault.")
def record_picked_care(context: OpExecutionContext, config: PendingCareConfig, lucasrag: LucasragSettings):
    vault = lucasrag.get().vault
    path, subject = split_care_key(_picked(context, PENDING_CARE))
    try:
        recorded = record(vault, [(path, subject)], config.decision.value, load_deference(vault), by="dagster")
    except (CareDecisionError, ValueError, FileNotFoundError) as exc:
        raise Failure(description=str(exc)) from None
    context.log.info(f"{config.decision.value}: {', '.join(recorded) or path}; the vault sensor will re-ingest it")


@job(
    partitions_def=PENDING_CARE,
    description="Dismiss (release) or confirm (keep withheld) care pairs picked from the pending list (the partitions).",
)
def decide_pending_care():
    record_picked_care()
