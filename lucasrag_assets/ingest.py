"""In-process materialisation of the whole asset graph (what ``lucasrag ingest`` runs)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from lucasrag.settings import Settings
from lucasrag_assets.resources import Progress

_DAGSTER_YAML = "telemetry:\n  enabled: false\n"


def dagster_home(settings: Settings) -> Path:
    """``DAGSTER_HOME`` if set, else a SQLite instance under ``LUCASRAG_DATA/dagster``,
    so CLI runs show up in ``dagster dev`` started with the same data folder."""
    home = Path(os.environ.get("DAGSTER_HOME") or settings.data / "dagster").resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text(_DAGSTER_YAML)
    return home


@dataclass
class IngestSummary:
    seconds: float
    per_workspace: dict[str, int] = field(default_factory=dict)
    quarantined: list[tuple[str, str, str]] = field(default_factory=list)  # path, suggestion, reason
    invalid: list[tuple[str, str]] = field(default_factory=list)  # path, reason
    index_metadata: dict[str, dict] = field(default_factory=dict)
    step_seconds: dict[str, float] = field(default_factory=dict)  # Dagster step → wall seconds


def run_ingest(settings: Settings, progress: Progress | None = None) -> IngestSummary:
    """Materialise every asset for ``settings`` with the in-process executor."""
    from dagster import DagsterInstance

    from lucasrag_assets.definitions import build_definitions
    from lucasrag_assets.resources import LucasragSettings

    started = time.perf_counter()
    resource = LucasragSettings(vault=str(settings.vault), data=str(settings.data), now=settings.now.isoformat())
    defs = build_definitions(resource, progress)
    with DagsterInstance.from_config(str(dagster_home(settings))) as instance:
        result = defs.resolve_job_def("ingest").execute_in_process(
            instance=instance, run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
        )
        catalog: pl.DataFrame = result.output_for_node("note_catalog")
        quarantine: pl.DataFrame = result.output_for_node("route_notes", "quarantine")
        materializations = [e.step_materialization_data.materialization for e in result.get_asset_materialization_events()]
        steps = {
            s.step_key: (s.end_time or 0) - (s.start_time or 0) for s in instance.get_run_step_stats(result.run_id)
        }
    summary = IngestSummary(seconds=time.perf_counter() - started, step_seconds=steps)
    indexed = catalog.filter(pl.col("status") == "indexed")
    summary.per_workspace = {ws: n for ws, n in indexed.group_by("workspace").len().iter_rows()}
    summary.quarantined = list(quarantine.select("path", "suggestion", "reason").iter_rows())
    summary.invalid = list(catalog.filter(pl.col("status") == "invalid").select("path", "reason").iter_rows())
    for mat in materializations:
        key = mat.asset_key.to_user_string()
        if key.endswith("_index"):
            summary.index_metadata[key.removesuffix("_index")] = {k: v.value for k, v in mat.metadata.items()}
    return summary
