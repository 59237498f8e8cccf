"""Materialisation of the whole asset graph (what ``lucasrag ingest`` runs): in process, or multiprocess."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from dagster import DagsterEventType

from lucasrag.catalog import read_changes
from lucasrag.data_folder import LOCK_HOLDER_TAG, exclusive_ingest, tighten
from lucasrag.file_memo import writes_in_background
from lucasrag.progress import Progress
from lucasrag.settings import Settings
from lucasrag.vault_health import VaultHealth, vault_health
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.io_manager import asset_value_path

# Both profiles skip per-step stdout capture: it spawns two `tail` processes per step (per step
# process under the multiprocess executor; seconds per ingest on two cores), the CLI shows its own
# progress, and what the assets report goes through the event log (context.log, metadata), which
# the compute-log manager does not touch. On Kubernetes a pod's stdout is the pod's log.
_NO_COMPUTE_LOGS = """compute_logs:
  module: dagster._core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager
"""
# The daemon's queue hands a run to its launcher every 5 s by default: up to 5 s of a sensor's one-note run
# spent waiting (docs/benchmarks.md, "One-note change"). Every second costs one query of the runs table.
_QUICK_QUEUE = """run_coordinator:
  module: dagster._core.run_coordinator
  class: QueuedRunCoordinator
  config:
    dequeue_interval_seconds: 1
"""
_DAGSTER_YAML = "telemetry:\n  enabled: false\n" + _NO_COMPUTE_LOGS + _QUICK_QUEUE
# The production profile's instance (same content as dagster.production.yaml at the repository root):
# runs, event logs and schedules in PostgreSQL through dagster-postgres.
DAGSTER_PG_URL_ENV = "LUCASRAG_DAGSTER_PG_URL"
_DAGSTER_PRODUCTION_YAML = (
    "storage:\n  postgres:\n    postgres_url:\n      env: LUCASRAG_DAGSTER_PG_URL\ntelemetry:\n  enabled: false\n"
    + _NO_COMPUTE_LOGS
    + _QUICK_QUEUE
)
#: What earlier versions wrote (without the queue's interval; the production one also without the compute-log
#: setting): still ours to rewrite.
_EARLIER_YAMLS = (
    _DAGSTER_YAML.removesuffix(_QUICK_QUEUE),
    _DAGSTER_PRODUCTION_YAML.removesuffix(_QUICK_QUEUE),
    _DAGSTER_PRODUCTION_YAML.removesuffix(_NO_COMPUTE_LOGS + _QUICK_QUEUE),
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
    if current is None or (current != wanted and current in (_DAGSTER_YAML, _DAGSTER_PRODUCTION_YAML, *_EARLIER_YAMLS)):
        config.write_text(wanted)
    return home


def dagster_postgres_url(dsn: str) -> str:
    """A SQLAlchemy URL for dagster-postgres from a PostgreSQL DSN (URL or ``key=value``), with the
    psycopg2 driver: under SQLAlchemy 2.1 a bare ``postgresql://`` means psycopg 3, with which
    dagster-postgres 0.29's event log fails (``NOTIFY run_events, $1``)."""
    from lucasrag.dsn import sqlalchemy_url

    return sqlalchemy_url(dsn, driver="psycopg2")


def open_instance(settings: Settings, *, for_runs: bool = False):
    """The persistent Dagster instance of :func:`dagster_home`. On the production profile our own
    ``dagster.yaml`` names ``LUCASRAG_DAGSTER_PG_URL``; the URL (that variable, else one derived from
    ``LUCASRAG_POSTGRES_DSN``) is given to the instance directly, the environment left as it is.
    ``for_runs``: the instance a run of this process is recorded in; on the embedded profile with our own
    ``dagster.yaml`` its event log keeps an engine per shard (:mod:`lucasrag_assets.dagster_storage`: the same
    files, read by the UI with Dagster's own classes)."""
    from dagster import DagsterInstance
    from dagster._core.instance.ref import InstanceRef

    home = dagster_home(settings)
    overrides = None
    config = (home / "dagster.yaml").read_text()
    if settings.profile == "production" and config == _DAGSTER_PRODUCTION_YAML:
        url = dagster_postgres_url(os.environ.get(DAGSTER_PG_URL_ENV) or settings.postgres_dsn)
        overrides = {"storage": {"postgres": {"postgres_url": url}}}
    elif for_runs and settings.profile != "production" and config == _DAGSTER_YAML:
        try:  # a private method of the pinned Dagster: another version's layout only loses the speed-up
            from lucasrag_assets.dagster_storage import storage_override
        except ImportError:
            pass
        else:
            overrides = storage_override(str(home))
    return DagsterInstance.from_ref(InstanceRef.from_dir(str(home), overrides=overrides))


#: The embedded profile's instance of the last ``run_ingest`` in this process, and what it was opened on.
_KEPT: dict[str, tuple[tuple, object]] = {}


def _storage_identity(home: Path) -> tuple:
    """What a kept instance was opened on: its ``dagster.yaml`` and its SQLite files (a data folder deleted and
    made again, or a storage rewritten, is a new one)."""

    def ident(path: Path):
        try:
            st = path.stat()
        except OSError:
            return None
        return st.st_dev, st.st_ino

    config = home / "dagster.yaml"
    text = config.read_text() if config.exists() else None
    return str(home), text, ident(home / "history" / "runs.db"), ident(home / "history" / "runs" / "index.db")


@contextmanager
def _run_instance(settings: Settings) -> Iterator:
    """The instance a run is recorded in. On the embedded profile it is kept for the next run in this process
    (``lucasrag watch``, ``mcp --watch``): opening one and initialising its event log's index shard costs
    0.5 s a run at 10,000 notes, for the same files. A kept one is dropped when its files are not the same."""
    if settings.profile == "production":
        with open_instance(settings) as instance:
            yield instance
        return
    home = dagster_home(settings)
    kept = _KEPT.get("instance")
    if kept is None or kept[0] != _storage_identity(home):
        if kept is not None:
            kept[1].dispose()
            _KEPT.clear()
        instance = open_instance(settings, for_runs=True)
        _KEPT["instance"] = kept = (_storage_identity(home), instance)
    yield kept[1]


@contextmanager
def _event_log_held_open(instance, run_id: str) -> Iterator[None]:
    """Keep a reader connection on the run's event-log shard and the index shard for the run (Dagster's default
    SQLite event log, unchanged). Dagster opens and closes a connection per event (101 events in a one-note run,
    388 connections); closing the last connection to a WAL database checkpoints it (fsyncs), and with ours open
    none of those closes is the last. Replaying a 10,000-note run's events: 4.95 → 3.12 s at load 5-6
    (``docs/benchmarks.md``, "One-note change"). The shard is created by Dagster's own code first."""
    try:  # a private module of the pinned Dagster: another version's layout only loses the speed-up
        from dagster._core.storage.event_log.sqlite.sqlite_event_log import INDEX_SHARD_NAME, SqliteEventLogStorage
    except ImportError:
        yield
        return

    storage = instance.event_log_storage
    if not isinstance(storage, SqliteEventLogStorage):  # PostgreSQL, or a storage someone configured
        yield
        return
    with storage.run_connection(run_id):  # what Dagster does for the run's first event: create and stamp the shard
        pass
    held = []
    try:
        for shard in (run_id, INDEX_SHARD_NAME):
            connection = sqlite3.connect(storage.path_for_shard(shard), timeout=30)
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()  # joins the WAL; blocks no writer
            held.append(connection)
        yield
    finally:
        for connection in held:
            connection.close()


def _require_services(settings: Settings) -> None:
    """Clear errors (service + setting) before Dagster wraps them in a step failure."""
    if settings.profile == "production":
        from lucasrag.services import require_neo4j, require_postgres

        require_postgres(settings.postgres_dsn)
        require_neo4j(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password))


_QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def run_config(settings: Settings) -> dict:
    """Run config that carries ``settings`` whole to every step (secrets as ``{"env": NAME}``): what a run
    launched into other processes, or another machine, needs. Raises
    :class:`~lucasrag.settings.SettingsError` for a password that is not in its environment variable."""
    from lucasrag_assets.resources import settings_config

    return {**_QUIET, "resources": {"lucasrag": {"config": settings_config(settings)}}}


@dataclass(frozen=True)
class StepFailed:
    """One failed step of an ingest run: its key, the workspace of an index step, the error's class and message."""

    step: str
    workspace: str | None
    error: str  # the exception's class name: ServiceError, IndexDamaged, …
    message: str


class IngestFailed(RuntimeError):
    """Steps of an ingest run failed. Every step that does not depend on a failed one ran to the end: the
    other workspaces are updated, a failed workspace keeps its last complete state (its chunk store is
    written last, in one transaction), and the next ingest redoes what is left."""

    def __init__(self, run_id: str, failed: Sequence[StepFailed], updated: Sequence[str], not_run: Sequence[str]):
        self.run_id = run_id
        self.failed = tuple(failed)
        self.updated = tuple(updated)  # workspaces whose index step completed in this run
        self.not_run = tuple(not_run)  # steps left out because a step they need failed
        lines = [
            f"{f'the {f.workspace} workspace' if f.workspace else f.step} failed ({f.step}): {f.message}"
            for f in self.failed
        ]
        if self.updated:
            lines.append("updated: " + ", ".join(self.updated))
        if self.not_run:
            lines.append("not run (they need a failed step): " + ", ".join(self.not_run))
        super().__init__(f"ingest run {run_id}: " + "; ".join(lines))

    @property
    def workspaces(self) -> tuple[str, ...]:
        """The workspaces whose index step failed."""
        return tuple(f.workspace for f in self.failed if f.workspace)


def _failed(result, instance) -> IngestFailed:
    """The :class:`IngestFailed` of a run that did not succeed, from its events: each failure's exception as the
    asset raised it (under Dagster's wrappers), the workspaces whose index step completed, the steps
    that never ran."""
    failed = []
    for event in result.get_step_failure_events():
        error = event.step_failure_data.error
        while error.cause is not None and error.cls_name.startswith("Dagster"):  # Dagster's wrappers, not its cause
            error = error.cause
        message = error.message.strip()
        head, _, rest = message.partition(": ")
        if rest and head.rsplit(".", 1)[-1] == error.cls_name:  # "sqlite3.OperationalError: …": the class is named
            message = rest
        workspace = event.step_key.removesuffix("_index") if event.step_key.endswith("_index") else None
        failed.append(StepFailed(event.step_key, workspace, error.cls_name, message))
    status = {s.step_key: s.status.value if s.status else "" for s in instance.get_run_step_stats(result.run_id)}
    updated = [ws for ws in WORKSPACES if status.get(f"{ws}_index") == "SUCCESS"]
    not_run = [node.name for node in result.job_def.nodes if status.get(node.name, "SKIPPED") == "SKIPPED"]
    return IngestFailed(result.run_id, failed, updated, not_run)


@dataclass
class IngestSummary:
    seconds: float
    per_workspace: dict[str, int] = field(default_factory=dict)
    quarantined: list[tuple[str, str, str]] = field(default_factory=list)  # path, suggestion, reason
    invalid: list[tuple[str, str]] = field(default_factory=list)  # path, reason
    skipped: list[tuple[str, str]] = field(default_factory=list)  # path, reason (templates, embed-only pages)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # path, warning (e.g. an unreadable date)
    health: VaultHealth | None = None  # counts and grouped reasons (lucasrag/vault_health.py)
    index_metadata: dict[str, dict] = field(default_factory=dict)
    step_seconds: dict[str, float] = field(default_factory=dict)  # Dagster step → wall seconds
    changes: list[dict] = field(default_factory=list)  # notes moved since the last ingest (lucasrag notes --changed)
    first: bool = False  # no earlier ingest in this data folder: nothing could have changed
    new_notes: int = 0  # files the last ingest had not seen
    vault_fingerprint: str | None = None  # the vault as this run listed it (lucasrag.vault_files.vault_fingerprint)


def catalog_paths(settings: Settings) -> set[str] | None:
    """The paths of the last ingest's catalogue, or None before the first ingest."""
    from lucasrag.catalog import catalog_path

    path = catalog_path(settings)
    return set(pl.read_parquet(path, columns=["path"])["path"]) if path.is_file() else None


def run_ingest(
    settings: Settings,
    progress: Progress | None = None,
    *,
    multiprocess: bool = False,
    rebuild: Sequence[str] = (),
) -> IngestSummary:
    """Materialise every asset for ``settings``: in this process (the default; ``progress`` receives the
    index stages), or with Dagster's multiprocess executor, every step in a process of its own that
    rebuilds its settings from the run config and reads its inputs from the data folder. The workspaces
    in ``rebuild`` are forgotten first (``lucasrag ingest --rebuild W``: a damaged index) and built again."""
    from dagster import execute_job, reconstructable

    from lucasrag_assets.definitions import build_definitions, resolved_ingest_job
    from lucasrag_assets.resources import LucasragSettings

    # A fresh Dagster instance logs its schema migrations at INFO; not news for the CLI.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    started = time.perf_counter()
    _require_services(settings)
    earlier = catalog_paths(settings)
    # One ingest per data folder (a second waits); the run's outputs are read before the lock is released.
    # Every run takes it too (LucasragSettings.yield_for_execution): the tag says this one is ours.
    with exclusive_ingest(settings.data) as holder:
        tags = {LOCK_HOLDER_TAG: holder}
        if rebuild:
            from lucasrag.index import drop_workspace

            for workspace in rebuild:
                asyncio.run(drop_workspace(settings, workspace))
        with _run_instance(settings) as instance:
            if multiprocess:
                result = execute_job(
                    reconstructable(resolved_ingest_job),
                    instance=instance,
                    run_config=run_config(settings),
                    tags=tags,
                )
            else:
                defs = build_definitions(LucasragSettings.from_settings(settings), progress)
                run_id = str(uuid.uuid4())  # as Dagster makes one; named here so that its event log is held open
                # raise_on_error=False: the executor goes on with every step that does not depend on a failed
                # one (the other workspaces' index steps), as the multiprocess executor does; _failed says which.
                # the run's whole-vault files are written beside its later steps; all of them before the lock goes
                with _event_log_held_open(instance, run_id), writes_in_background():
                    result = defs.resolve_job_def("ingest").execute_in_process(
                        instance=instance, run_config=_QUIET, raise_on_error=False, tags=tags, run_id=run_id
                    )
            if not result.success:
                raise _failed(result, instance)
            materializations = [
                e.dagster_event.step_materialization_data.materialization
                for e in instance.all_logs(result.run_id, of_type=DagsterEventType.ASSET_MATERIALIZATION)
            ]
            steps = {
                s.step_key: (s.end_time or 0) - (s.start_time or 0) for s in instance.get_run_step_stats(result.run_id)
            }
        catalog = pl.read_parquet(asset_value_path(settings.data, ["note_catalog"]))
        quarantine = pl.read_parquet(asset_value_path(settings.data, ["quarantine"]))
        changes = read_changes(settings).to_dicts()
    tighten(settings.data)  # the run's last events (Dagster's storage) are written after the resources' teardown
    summary = IngestSummary(seconds=time.perf_counter() - started, step_seconds=steps)
    indexed = catalog.filter(pl.col("status") == "indexed")
    summary.per_workspace = {ws: n for ws, n in indexed.group_by("workspace").len().iter_rows()}
    summary.quarantined = list(quarantine.select("path", "suggestion", "reason").iter_rows())
    summary.invalid = list(catalog.filter(pl.col("status") == "invalid").select("path", "reason").iter_rows())
    summary.changes = changes
    summary.first = earlier is None
    summary.new_notes = 0 if earlier is None else len(set(catalog["path"]) - earlier)
    summary.skipped = list(catalog.filter(pl.col("status") == "skipped").select("path", "reason").iter_rows())
    summary.warnings = [
        (path, warning) for path, warnings in catalog.select("path", "warnings").iter_rows() for warning in warnings
    ]
    summary.health = vault_health(
        catalog.select("path", "status", "reason").iter_rows(), undated_warnings=len({p for p, _ in summary.warnings})
    )
    for mat in materializations:
        key = mat.asset_key.to_user_string()
        if key == "vault_notes" and "vault_fingerprint" in mat.metadata:
            summary.vault_fingerprint = mat.metadata["vault_fingerprint"].value
        if key.endswith("_index"):
            summary.index_metadata[key.removesuffix("_index")] = {k: v.value for k, v in mat.metadata.items()}
    return summary
