"""Jobs, the vault sensor, per-workspace schedules and the approval job."""

from enum import Enum

from dagster import (
    AssetSelection,
    Config,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    Failure,
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

from lucasrag.vault_files import vault_fingerprint
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.routing_decisions import approve_many, approve_quarantined
from lucasrag_assets.rules.approval_checks import LIKE_SIMILARITY

ingest_job = define_asset_job("ingest", selection=AssetSelection.all(), description="Ingest the whole vault.")

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


#: The sensor's run executes its steps in the run's own process, as `lucasrag ingest` does. A vault change is
#: usually a note or two: the multiprocess default starts a Python process per step (ten), which under a daemon
#: cost ~60 s of a 70 s one-note run on two cores against ~3 s of work (docs/benchmarks.md, "One-note change").
#: One process also holds the ingest lock from the first step to the last (docs/reliability.md).
IN_PROCESS_RUN = {"execution": {"config": {"in_process": {}}}}


@sensor(
    job=ingest_job,
    # The daemon's loop evaluates sensors every 5 s at most: 1 s here means every loop (5 s here skipped every
    # other loop that ran a few ms early: 10 s). A tick at 10,000 notes stats every file (~0.2 s).
    minimum_interval_seconds=1,
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
    return RunRequest(run_key=fingerprint, run_config=IN_PROCESS_RUN)


WorkspaceChoice = Enum("WorkspaceChoice", {ws: ws for ws in WORKSPACES}, type=str)  # a drop-down in the launchpad


class ApprovalConfig(Config):
    # Launched as it opens (no path, no selection), the job lists the pending notes with the router's guess
    # and decides nothing: valid on any vault. Then give a path, or a selection, and launch again.
    path: str = ""  # vault-relative path of a note quarantined at the last ingest
    workspace: WorkspaceChoice = WorkspaceChoice.creative
    # Instead of path, many at once (every one given must hold): a folder, a tag, the notes like an example.
    folder: str = ""  # every note quarantined under this folder
    tag: str = ""  # every quarantined note with this tag (or a nested tag under it)
    like: str = ""  # every quarantined note like this one (cosine of their texts ≥ similarity)
    similarity: float = LIKE_SIMILARITY
    suggested: bool = False  # only the notes whose best guess was this workspace (alone: all of them)
    excluding: list[str] = []  # paths left out of the batch (after a dry run: the ones you disagree with)
    dry_run: bool = False  # only log what would be approved


@op(description="Approve a quarantined note: the same checks as `lucasrag quarantine approve` (body bytes untouched).")
def approve_note(context: OpExecutionContext, config: ApprovalConfig, lucasrag: LucasragSettings) -> None:
    from lucasrag.catalog import CatalogMissing, read_catalog

    workspace = WorkspaceChoice(config.workspace).value
    try:
        if config.folder or config.tag or config.like or config.suggested:
            batch = approve_many(
                lucasrag.get(),
                workspace,
                folder=config.folder or None,
                tag=config.tag or None,
                like=config.like or None,
                min_similarity=config.similarity,
                suggested=config.suggested,
                excluding=config.excluding,
                dry_run=config.dry_run,
            )
            verb = "would approve" if config.dry_run else "approved"
            message = f"{verb} {len(batch.approved)} notes → {workspace}: {', '.join(batch.approved)}"
            for line in batch.skipped:
                context.log.warning(f"skipped {line}")
        elif config.path:
            message = approve_quarantined(lucasrag.get(), config.path, workspace)
        else:
            held = [r for r in read_catalog(lucasrag.get()).to_dicts() if r["status"] == "quarantined"]
            listed = "\n".join(f"- {r['path']} (suggestion {r['suggestion']}: {r['reason']})" for r in held)
            context.log.info(
                f"{len(held)} notes await a decision; nothing was decided. Launch again with a path (or a folder, "
                f"a tag, like, or suggested) and a workspace:\n{listed or '(none)'}"
            )
            return
    except (CatalogMissing, ValueError, FileNotFoundError) as exc:
        raise Failure(description=str(exc)) from None  # one line in the UI, not a stack trace
    context.log.info(f"{message}; the vault sensor will re-ingest it")


@job(
    description="Approve a quarantined note (path), or many at once (a folder, a tag, the notes like an example; "
    "dry_run lists them), into a workspace (launchpad)."
)
def approve_quarantined_note():
    approve_note()
