"""The Dagster code location: every asset, check, job, sensor and schedule of LucasRAG."""

from dagster import Definitions, load_assets_from_modules

from lucasrag.huge_pages import avoid_huge_page_stalls
from lucasrag.progress import NullProgress, Progress
from lucasrag_assets.assets import care, catalog, chunks, notes, routing
from lucasrag_assets.assets.care import care_reviewed, record_care_decision
from lucasrag_assets.assets.indexes import INDEX_ASSETS
from lucasrag_assets.assets.routing import quarantine_reviewed
from lucasrag_assets.automation import (
    approve_quarantined_note,
    ingest_job,
    vault_changed,
    workspace_jobs,
    workspace_schedules,
)
from lucasrag_assets.io_manager import data_folder_io_manager
from lucasrag_assets.pending_reviews import approve_pending_note, decide_pending_care, pending_reviews
from lucasrag_assets.resources import LucasragSettings

# every process that runs the ingest's steps loads this module: its big per-run frames and matrices (lucasrag.huge_pages)
avoid_huge_page_stalls()

ALL_ASSETS = [*load_assets_from_modules([notes, routing, chunks, catalog, care]), *INDEX_ASSETS]


def build_definitions(settings: LucasragSettings | None = None, progress: Progress | None = None) -> Definitions:
    """The code location. The CLI passes its settings and its own ``progress`` (a progress bar);
    ``dagster dev`` (and every step process of a multiprocess or Kubernetes run, which loads this module
    again) gets the defaults: settings read once from the environment, progress in logs and metadata.
    A run's ``resources.lucasrag.config`` (see ``lucasrag_assets.ingest.run_config``) replaces them."""
    return Definitions(
        assets=ALL_ASSETS,
        asset_checks=[quarantine_reviewed, care_reviewed],
        jobs=[
            ingest_job,
            *workspace_jobs.values(),
            approve_quarantined_note,
            record_care_decision,
            approve_pending_note,
            decide_pending_care,
        ],
        sensors=[vault_changed, pending_reviews],
        schedules=workspace_schedules,
        resources={
            "lucasrag": settings or LucasragSettings.from_env(),
            "progress": progress or NullProgress(),
            "io_manager": data_folder_io_manager,
        },
    )


defs = build_definitions()


def resolved_ingest_job():
    """The ``ingest`` job of the code location, for ``reconstructable(resolved_ingest_job)``: how a step process
    (multiprocess executor) finds the job again."""
    return build_definitions().resolve_job_def("ingest")
