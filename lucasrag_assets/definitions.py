"""The Dagster code location: every asset, check, job, sensor and schedule of LucasRAG."""

from dagster import Definitions, load_assets_from_modules

from lucasrag.progress import NullProgress, Progress
from lucasrag_assets.assets import care, catalog, chunks, evaluation, notes, routing
from lucasrag_assets.assets.care import care_reviewed, record_care_decision
from lucasrag_assets.assets.indexes import INDEX_ASSETS
from lucasrag_assets.assets.routing import quarantine_reviewed
from lucasrag_assets.automation import (
    approve_quarantined_note,
    evaluate_job,
    ingest_job,
    vault_changed,
    workspace_jobs,
    workspace_schedules,
)
from lucasrag_assets.resources import LucasragSettings

ALL_ASSETS = [*load_assets_from_modules([notes, routing, chunks, catalog, evaluation, care]), *INDEX_ASSETS]


def build_definitions(settings: LucasragSettings | None = None, progress: Progress | None = None) -> Definitions:
    """The code location. The CLI passes explicit settings and its own ``progress`` (a progress bar);
    ``dagster dev`` gets the defaults: settings from the environment, progress in logs and metadata."""
    return Definitions(
        assets=ALL_ASSETS,
        asset_checks=[quarantine_reviewed, care_reviewed],
        jobs=[ingest_job, evaluate_job, *workspace_jobs.values(), approve_quarantined_note, record_care_decision],
        sensors=[vault_changed],
        schedules=workspace_schedules,
        resources={"lucasrag": settings or LucasragSettings(), "progress": progress or NullProgress()},
    )


defs = build_definitions()
