"""Jobs, the vault sensor, per-workspace schedules and the approval job."""

from dagster import (
    AssetSelection,
    Config,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    OpExecutionContext,
    RunRequest,
    ScheduleDefinition,
    SensorEvaluationContext,
    SkipReason,
    define_asset_job,
    job,
    op,
    sensor,
)

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.approval import record_approval
from lucasrag_assets.rules.vault_scan import vault_fingerprint

# The evaluation is not part of ingest (it adds a few hundred queries); `evaluate` runs it.
ingest_job = define_asset_job(
    "ingest",
    selection=AssetSelection.all() - AssetSelection.assets("evaluation", "care_evaluation"),
    description="Ingest the whole vault.",
)
evaluate_job = define_asset_job(
    "evaluate",
    selection=AssetSelection.assets("evaluation", "care_evaluation"),
    description="Judge the materialised indexes against a generated vault's ground truth (skipped otherwise).",
)

workspace_jobs = {
    ws: define_asset_job(
        f"rebuild_{ws}",
        selection=AssetSelection.assets(f"{ws}_index"),
        description=f"Re-materialise the {ws} index alone from the last banded_chunks.",
    )
    for ws in WORKSPACES
}

# Staggered so the four rebuilds never compete for the same two cores.
workspace_schedules = [
    ScheduleDefinition(
        name=f"nightly_{ws}",
        job=workspace_jobs[ws],
        cron_schedule=f"{15 * i} 3 * * *",
        default_status=DefaultScheduleStatus.STOPPED,
        description=f"Rebuild the {ws} index every night (touches no other workspace).",
    )
    for i, ws in enumerate(WORKSPACES)
]


@sensor(
    job=ingest_job,
    minimum_interval_seconds=30,
    default_status=DefaultSensorStatus.RUNNING,
    description="Requests an ingest when any note (path, size or mtime) or the deference list changes.",
)
def vault_changed(context: SensorEvaluationContext, lucasrag: LucasragSettings):
    vault = lucasrag.get().vault
    if not vault.is_dir():
        return SkipReason(f"vault folder {vault} does not exist")
    fingerprint = vault_fingerprint(vault)
    if fingerprint == context.cursor:
        return SkipReason("vault unchanged")
    context.update_cursor(fingerprint)
    return RunRequest(run_key=fingerprint)


class ApprovalConfig(Config):
    path: str  # vault-relative path of the quarantined note
    workspace: str


@op(description="Record a person's approval in the note's frontmatter (body bytes untouched).")
def approve_note(context: OpExecutionContext, config: ApprovalConfig, lucasrag: LucasragSettings) -> None:
    record_approval(lucasrag.get().vault, config.path, config.workspace)
    context.log.info(f"approved {config.path} for {config.workspace}; the vault sensor will re-ingest it")


@job(description="Approve a quarantined note into a workspace (fill in path and workspace in the launchpad).")
def approve_quarantined_note():
    approve_note()
