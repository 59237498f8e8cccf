"""The runs ``run_ingest`` records stay whole for Dagster's own readers (the UI, ``dagster asset`` commands) when one
process keeps its instance between runs and holds the run's event-log shards open during each run."""

from __future__ import annotations

import shutil

import pytest
from dagster import AssetKey, DagsterEventType, DagsterRunStatus

from lucasrag_assets.ingest import dagster_home, open_instance, run_ingest

pytestmark = pytest.mark.slow

EXPECTED_EVENTS = (
    DagsterEventType.RUN_START,
    DagsterEventType.STEP_START,
    DagsterEventType.ASSET_MATERIALIZATION,
    DagsterEventType.STEP_SUCCESS,
    DagsterEventType.RUN_SUCCESS,
)


def _runs(settings):
    """What a fresh instance (another process: the UI) reads: runs, newest first, and each run's event types."""
    with open_instance(settings) as instance:
        runs = instance.get_runs()
        events = {
            r.run_id: {e.dagster_event.event_type for e in instance.all_logs(r.run_id) if e.is_dagster_event}
            for r in runs
        }
        latest = instance.get_latest_materialization_event(AssetKey("technical_index"))
        return runs, events, latest.run_id if latest else None


def test_runs_and_lineage_read_back_after_runs_in_one_process(fresh_vault):
    settings = fresh_vault
    run_ingest(settings)
    (settings.vault / "journal" / "2026-05-30.md").write_text("A new diary entry about the cat and the plants.\n")
    run_ingest(settings)

    runs, events, latest = _runs(settings)
    assert [r.status for r in runs] == [DagsterRunStatus.SUCCESS] * 2
    for run in runs:
        assert set(EXPECTED_EVENTS) <= events[run.run_id], run.run_id
    assert latest == runs[0].run_id  # the asset's lineage points at the newest run

    # the instance's files deleted between two runs of one process: the kept instance is not reused
    shutil.rmtree(dagster_home(settings))
    run_ingest(settings)
    runs, events, latest = _runs(settings)
    assert len(runs) == 1 and runs[0].status == DagsterRunStatus.SUCCESS
    assert set(EXPECTED_EVENTS) <= events[runs[0].run_id] and latest == runs[0].run_id


def test_a_run_instance_writes_through_kept_engines_and_the_ui_reads_them_with_dagsters_own(fresh_vault):
    from dagster import DagsterInstance
    from dagster._core.instance.ref import InstanceRef

    from lucasrag_assets.dagster_storage import KeptEnginesEventLogStorage
    from lucasrag_assets.ingest import _KEPT

    settings = fresh_vault
    run_ingest(settings)
    instance = _KEPT["instance"][1]
    assert isinstance(instance.event_log_storage, KeptEnginesEventLogStorage)
    # what the UI opens: the dagster.yaml as written, Dagster's own storage classes
    with DagsterInstance.from_ref(InstanceRef.from_dir(str(dagster_home(settings)))) as ui:
        assert type(ui.event_log_storage).__name__ == "SqliteEventLogStorage"
        (run,) = ui.get_runs()
        assert run.status == DagsterRunStatus.SUCCESS
        assert set(EXPECTED_EVENTS) <= {
            e.dagster_event.event_type for e in ui.all_logs(run.run_id) if e.is_dagster_event
        }


def test_kept_engines_are_the_index_shards_and_the_newest_run_shards_only(tmp_path):
    from sqlalchemy import text

    from lucasrag_assets.dagster_storage import KEPT_RUN_SHARDS, KeptEnginesEventLogStorage

    storage = KeptEnginesEventLogStorage(str(tmp_path))
    runs = [f"run{k}" for k in range(KEPT_RUN_SHARDS + 3)]
    for run_id in runs:
        with storage.run_connection(run_id) as conn:
            assert conn.execute(text("SELECT count(*) FROM event_logs")).scalar() == 0
        with storage.index_connection() as conn:
            conn.execute(text("SELECT 1"))
    assert set(storage._engines) == {"index", *runs[-KEPT_RUN_SHARDS:]}  # a long-lived process holds few
    storage.dispose()
    assert not storage._engines


def test_kept_engines_commit_to_the_write_ahead_log_without_an_fsync_each(tmp_path):
    from sqlalchemy import text

    from lucasrag_assets.dagster_storage import KeptEnginesEventLogStorage

    storage = KeptEnginesEventLogStorage(str(tmp_path))
    try:
        with storage.run_connection("run0"):  # creates the run's shard (Dagster switches it to its log)
            pass
        for connect in (lambda: storage.run_connection("run0"), storage.index_connection):
            with connect() as conn:
                assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"  # consistent across a power cut
                assert conn.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL: no fsync per commit
    finally:
        storage.dispose()
