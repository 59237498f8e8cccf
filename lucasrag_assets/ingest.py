"""In-process materialisation of the whole asset graph (what ``lucasrag ingest`` runs)."""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from lucasrag.data_folder import exclusive_ingest, tighten
from lucasrag.settings import Settings
from lucasrag_assets.resources import Progress

# CLI runs skip per-step stdout capture: it spawns two `tail` processes per step
# (seconds per ingest on two cores) and the CLI shows its own progress anyway.
_DAGSTER_YAML = """telemetry:
  enabled: false
compute_logs:
  module: dagster._core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager
"""
# The production profile's instance (same content as dagster.production.yaml at the repository root):
# runs, event logs and schedules in PostgreSQL through dagster-postgres.
DAGSTER_PG_URL_ENV = "LUCASRAG_DAGSTER_PG_URL"
_DAGSTER_PRODUCTION_YAML = (
    "storage:\n  postgres:\n    postgres_url:\n      env: LUCASRAG_DAGSTER_PG_URL\ntelemetry:\n  enabled: false\n"
)


def dagster_home(settings: Settings) -> Path:
    """``DAGSTER_HOME`` if set, else an instance under ``LUCASRAG_DATA/dagster``, so CLI runs
    show up in ``dagster dev`` started with the same data folder. Its ``dagster.yaml``:
    SQLite storage on the embedded profile, PostgreSQL (``LUCASRAG_DAGSTER_PG_URL``) on the
    production profile. A ``dagster.yaml`` someone wrote themselves is left alone."""
    home = Path(os.environ.get("DAGSTER_HOME") or settings.data / "dagster").resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    wanted = _DAGSTER_PRODUCTION_YAML if settings.profile == "production" else _DAGSTER_YAML
    current = config.read_text() if config.exists() else None
    if current is None or (current != wanted and current in (_DAGSTER_YAML, _DAGSTER_PRODUCTION_YAML)):
        config.write_text(wanted)
    return home


def dagster_postgres_url(dsn: str) -> str:
    """A SQLAlchemy URL for dagster-postgres from a PostgreSQL DSN (URL or ``key=value``), with the
    psycopg2 driver: under SQLAlchemy 2.1 a bare ``postgresql://`` means psycopg 3, with which
    dagster-postgres 0.29's event log fails (``NOTIFY run_events, $1``)."""
    from urllib.parse import quote

    if dsn.startswith(("postgresql+", "postgres+")):
        return dsn
    for scheme in ("postgresql://", "postgres://"):
        if dsn.startswith(scheme):
            return "postgresql+psycopg2://" + dsn[len(scheme) :]
    from psycopg.conninfo import conninfo_to_dict

    params = conninfo_to_dict(dsn)
    user = quote(params.get("user") or "postgres", safe="")
    password = params.get("password")
    auth = f"{user}:{quote(password, safe='')}@" if password else f"{user}@"
    host = params.get("host") or "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    port = f":{params['port']}" if params.get("port") else ""
    return f"postgresql+psycopg2://{auth}{host}{port}/{quote(params.get('dbname') or 'postgres', safe='')}"


@contextlib.contextmanager
def _profile_environment(settings: Settings) -> Iterator[None]:
    """The Dagster resource builds its Settings from the environment: put this run's profile and
    service addresses there for the run (and the Dagster instance's PostgreSQL URL, unless set)."""
    values = {"LUCASRAG_PROFILE": settings.profile, "LUCASRAG_GRAPH": "1" if settings.graph else "0"}
    if settings.profile == "production":
        from lucasrag.services import require_neo4j, require_postgres

        # Clear errors (service + setting) before Dagster wraps them in a step failure.
        require_postgres(settings.postgres_dsn)
        require_neo4j(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password))
        values.update(
            LUCASRAG_POSTGRES_DSN=settings.postgres_dsn,
            LUCASRAG_NEO4J_URI=settings.neo4j_uri,
            LUCASRAG_NEO4J_USER=settings.neo4j_user,
            LUCASRAG_NEO4J_PASSWORD=settings.neo4j_password,
        )
        values[DAGSTER_PG_URL_ENV] = dagster_postgres_url(os.environ.get(DAGSTER_PG_URL_ENV) or settings.postgres_dsn)
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update({k: v for k, v in values.items() if v is not None})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


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

    # A fresh Dagster instance logs its schema migrations at INFO; not news for the CLI.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    started = time.perf_counter()
    resource = LucasragSettings(vault=str(settings.vault), data=str(settings.data), now=settings.now.isoformat())
    defs = build_definitions(resource, progress)
    with (
        exclusive_ingest(settings.data),
        _profile_environment(settings),
        DagsterInstance.from_config(str(dagster_home(settings))) as instance,
    ):
        result = defs.resolve_job_def("ingest").execute_in_process(
            instance=instance, run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
        )
        catalog: pl.DataFrame = result.output_for_node("note_catalog")
        quarantine: pl.DataFrame = result.output_for_node("route_notes", "quarantine")
        materializations = [
            e.step_materialization_data.materialization for e in result.get_asset_materialization_events()
        ]
        steps = {
            s.step_key: (s.end_time or 0) - (s.start_time or 0) for s in instance.get_run_step_stats(result.run_id)
        }
    tighten(settings.data)  # the run's last events (Dagster's storage) are written after the resources' teardown
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
