"""Sensor, approval job and the quarantine check, run through Dagster's own APIs."""

from __future__ import annotations

import polars as pl
import pytest
from dagster import DagsterInstance, RunRequest, SkipReason, build_sensor_context

from lucasrag.catalog import CATALOG_SCHEMA, write_catalog
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


def test_the_sensor_s_run_executes_in_one_process(fresh_vault):
    request, _ = _tick(fresh_vault, None)
    assert request.run_config == {"execution": {"config": {"in_process": {}}}}  # not a process per step
    job = build_definitions(_resource(fresh_vault)).resolve_job_def("ingest")
    assert job.executor_def.name == "multi_or_in_process_executor"  # the key above is this executor's config


def test_sensor_notices_a_deference_list_change(fresh_vault):
    _, cursor = _tick(fresh_vault, None)
    with (fresh_vault.vault / ".lucasrag" / "deference.yaml").open("a") as fh:
        fh.write("  - name: Biscuit\n")
    assert isinstance(_tick(fresh_vault, cursor)[0], RunRequest)


def _last_ingest(settings, **statuses):
    """The catalogue an ingest would have written for these notes (path → status)."""
    rows = [
        {"path": p, "status": s, "workspace": "personal" if s == "indexed" else None, "confidence": 0.9,
         "band": None, "date": None, "charged": [], "reason": None, "suggestion": "creative"}
        for p, s in statuses.items()
    ]  # fmt: skip
    write_catalog(settings, pl.DataFrame(rows, schema=CATALOG_SCHEMA))


def _approve(settings, **config):
    job = build_definitions(_resource(settings)).resolve_job_def("approve_quarantined_note")
    return job.execute_in_process(
        run_config={"ops": {"approve_note": {"config": config}}} if config else None,
        instance=DagsterInstance.ephemeral(),
        raise_on_error=False,
    )


def test_approval_job_records_the_workspace(fresh_vault):
    note = "inbox/ideas.md"
    _last_ingest(fresh_vault, **{note: "quarantined"})
    result = _approve(fresh_vault, path=note, workspace="creative")
    assert result.success
    assert (fresh_vault.vault / note).read_text().startswith("---\nworkspace: creative\n---\n")


def test_approval_launchpad_default_is_valid_on_any_vault(fresh_vault):
    _last_ingest(fresh_vault, **{"notes/elsewhere.md": "quarantined"})  # not a sample-vault path
    before = {p: p.read_bytes() for p in fresh_vault.vault.rglob("*.md")}
    instance = DagsterInstance.ephemeral()
    job = build_definitions(_resource(fresh_vault)).resolve_job_def("approve_quarantined_note")
    result = job.execute_in_process(instance=instance)  # no config at all: lists what awaits, decides nothing
    assert result.success
    logged = " ".join(r.user_message for r in instance.all_logs(result.run_id))
    assert "1 notes await a decision" in logged and "notes/elsewhere.md" in logged
    assert {p: p.read_bytes() for p in fresh_vault.vault.rglob("*.md")} == before


@pytest.mark.parametrize(
    "path, status, message",
    [
        pytest.param("journal/2013-04-02.md", "indexed", "not quarantined", id="routed-note"),
        pytest.param("inbox/binary.md", "invalid", "is invalid (binary content", id="invalid-file"),
        pytest.param("inbox/idea.md", None, "did you mean 'inbox/ideas.md'", id="typo"),
    ],
)
def test_approval_job_shares_the_cli_checks(fresh_vault, path, status, message):
    _last_ingest(fresh_vault, **({path: status} if status else {"inbox/ideas.md": "quarantined"}))
    before = {p: p.read_bytes() for p in fresh_vault.vault.rglob("*.md")}
    result = _approve(fresh_vault, path=path, workspace="administrative")
    assert not result.success
    (failure,) = [e for e in result.all_events if e.is_failure and e.step_key == "approve_note"]
    assert message in failure.step_failure_data.user_failure_data.description
    assert {p: p.read_bytes() for p in fresh_vault.vault.rglob("*.md")} == before


def test_approval_job_approves_a_folder(fresh_vault):
    _last_ingest(
        fresh_vault, **{"inbox/ideas.md": "quarantined", "inbox/todo.md": "quarantined", "tech/homelab.md": "indexed"}
    )
    assert _approve(fresh_vault, folder="inbox", workspace="personal").success
    for note in ("inbox/ideas.md", "inbox/todo.md"):
        assert (fresh_vault.vault / note).read_text().startswith("---\nworkspace: personal\n---\n")
    assert b"workspace:" not in (fresh_vault.vault / "tech/homelab.md").read_bytes()


def test_approval_workspace_is_an_enum(fresh_vault):
    from dagster import DagsterInvalidConfigError

    with pytest.raises(DagsterInvalidConfigError, match="kitchen"):
        _approve(fresh_vault, path="inbox/ideas.md", workspace="kitchen")


@pytest.mark.slow
def test_quarantine_check_warns_and_lists_pending(fresh_vault):
    defs = build_definitions(_resource(fresh_vault))
    result = defs.resolve_job_def("ingest").execute_in_process(instance=DagsterInstance.ephemeral())
    assert result.success  # a pending review never fails the run
    (evaluation,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "quarantine_reviewed"]
    assert not evaluation.passed and evaluation.severity.value == "WARN"
    assert evaluation.metadata["pending"].value == 4
    assert "inbox/ideas.md" in evaluation.metadata["pending_notes"].value


def test_approval_job_settles_many_by_suggestion_with_a_dry_run_first(fresh_vault):
    held = {"inbox/ideas.md": "quarantined", "inbox/todo.md": "quarantined", "tech/homelab.md": "indexed"}
    _last_ingest(fresh_vault, **held)  # every quarantined note's suggestion is creative
    before = {p: p.read_bytes() for p in fresh_vault.vault.rglob("*.md")}
    assert _approve(fresh_vault, suggested=True, workspace="creative", dry_run=True).success
    assert {p: p.read_bytes() for p in fresh_vault.vault.rglob("*.md")} == before
    config = {"suggested": True, "workspace": "creative", "excluding": ["inbox/todo.md"]}
    assert _approve(fresh_vault, **config).success
    assert (fresh_vault.vault / "inbox/ideas.md").read_text().startswith("---\nworkspace: creative\n---\n")
    assert (fresh_vault.vault / "inbox/todo.md").read_bytes() == before[fresh_vault.vault / "inbox/todo.md"]
