"""Sensor, approval job and the quarantine check, run through Dagster's own APIs."""

from __future__ import annotations

import pytest
from dagster import DagsterInstance, RunRequest, SkipReason, build_sensor_context

from lucasrag_assets.automation import vault_changed
from lucasrag_assets.definitions import build_definitions
from lucasrag_assets.resources import LucasragSettings


def _resource(settings) -> LucasragSettings:
    return LucasragSettings(vault=str(settings.vault), data=str(settings.data), now=settings.now.isoformat())


def _tick(settings, cursor):
    # A context manager: the resource holds a nested one (its in-memory secrets), which Dagster opens and closes.
    with build_sensor_context(cursor=cursor, resources={"lucasrag": _resource(settings)}) as context:
        result = vault_changed(context)
        return result, context.cursor


def test_sensor_requests_a_run_only_when_the_vault_changes(fresh_vault):
    first, cursor = _tick(fresh_vault, None)
    assert isinstance(first, RunRequest)
    again, same = _tick(fresh_vault, cursor)
    assert isinstance(again, SkipReason) and same == cursor
    (fresh_vault.vault / "journal" / "2026-05-30.md").write_text(
        "A new diary entry about the cat and the balcony plants.\n"
    )
    changed, new_cursor = _tick(fresh_vault, cursor)
    assert isinstance(changed, RunRequest) and new_cursor != cursor


def test_sensor_notices_a_deference_list_change(fresh_vault):
    _, cursor = _tick(fresh_vault, None)
    with (fresh_vault.vault / ".lucasrag" / "deference.yaml").open("a") as fh:
        fh.write("  - name: Biscuit\n")
    assert isinstance(_tick(fresh_vault, cursor)[0], RunRequest)


def test_approval_job_records_the_workspace(fresh_vault):
    note = "inbox/ideas.md"
    defs = build_definitions(_resource(fresh_vault))
    job = defs.resolve_job_def("approve_quarantined_note")
    result = job.execute_in_process(
        run_config={"ops": {"approve_note": {"config": {"path": note, "workspace": "creative"}}}},
        instance=DagsterInstance.ephemeral(),
    )
    assert result.success
    assert (fresh_vault.vault / note).read_text().startswith("---\nworkspace: creative\n---\n")


@pytest.mark.slow
def test_quarantine_check_warns_and_lists_pending(fresh_vault):
    defs = build_definitions(_resource(fresh_vault))
    result = defs.resolve_job_def("ingest").execute_in_process(instance=DagsterInstance.ephemeral())
    assert result.success  # a pending review never fails the run
    (evaluation,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "quarantine_reviewed"]
    assert not evaluation.passed and evaluation.severity.value == "WARN"
    assert evaluation.metadata["pending"].value == 4
    assert "inbox/ideas.md" in evaluation.metadata["pending_notes"].value
