"""Reviews in the Dagster UI on a person's vault (not the sample): the webserver offers the pending items as
choices, a decision launched from them is recorded in the vault, an invalid choice is refused before any run,
and every file the webserver, the daemon and the run workers write is the owner's alone.

The UI is ``scripts/dagster-ui`` as the README starts it (webserver, daemon, code server, run workers),
started here under a permissive umask; it is driven over its GraphQL API, as the launchpad drives it.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from file_modes import loose_entries

from lucasrag.catalog import read_catalog
from lucasrag_assets.pending_reviews import care_key, pending_keys, split_care_key

pytestmark = pytest.mark.slow

#: Seconds the UI may take to start and the daemon's sensor to publish the pending items, on two shared cores.
START_TIMEOUT = 300
RUN_TIMEOUT = 240

NOTES = {
    ".lucasrag/deference.yaml": "subjects:\n  - name: Aunt Rosa\n    aliases: [rosa]\n    since: 2025-02-01\n",
    "Daybook/2026-02-01.md": "A year since Rosa died. I lit a candle for her this morning and cried over her letters.\n",
    "Daybook/2026-03-09.md": "Rosa's funeral was a year ago today. I miss her laugh more than I can say.\n",
    "Daybook/2026-04-11.md": "Long walk by the canal, then pasta with the neighbours. Slept well.\n",
    "Code/borg backups.md": "---\nworkspace: technical\n---\nborg create --stats repo::{now} ~/docs; prune keeps 7 daily.\n",
    "Code/zsh prompt.md": "---\nworkspace: technical\n---\nThe prompt shows the git branch via vcs_info.\n",
    "Paperwork/boiler warranty.md": "---\nworkspace: administrative\n---\nWarranty until 2029, claim ref 55120.\n",
    "Verse/harbour.md": "---\nworkspace: creative\n---\nGulls stitch the grey harbour shut;\nthe boats hum low.\n",
    "Loose/misc.md": "Thursday?\n",
    "Loose/to sort.md": "Bits: the thing from before, ask about it.\n",
}


def _ui_env(repo: Path, vault: Path, data: Path, home: Path) -> dict[str, str]:
    import sys

    env = {k: v for k, v in os.environ.items() if k not in {"LUCASRAG_NOW", "LUCASRAG_DAGSTER_PG_URL"}}
    env.update(
        LUCASRAG_VAULT=str(vault),
        LUCASRAG_DATA=str(data),
        LUCASRAG_NOW="2026-06-01",
        DAGSTER_HOME=str(home),
        PYTHONPATH=os.pathsep.join(p for p in (str(repo), env.get("PYTHONPATH", "")) if p),
        VIRTUAL_ENV=sys.prefix,
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    return env


def _wait(what: str, ready, server: subprocess.Popen, log: Path, timeout: float):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and server.poll() is None:
        try:
            value = ready()
        except Exception:  # the server is still starting: connection refused, no location yet
            value = None
        if value:
            return value
        time.sleep(2)
    raise AssertionError(f"{what} not ready within {timeout}s:\n{log.read_text()[-4000:]}")


def test_pending_items_are_the_choices_keys():
    rows = [
        {"path": "a.md", "status": "quarantined", "care": []},
        {
            "path": "b.md",
            "status": "indexed",
            "care": [{"subject": "Rosa", "outcome": "withheld", "source": "inferred"}],
        },
        {
            "path": "c.md",
            "status": "indexed",
            "care": [{"subject": "Rosa", "outcome": "withheld", "source": "declared"}],
        },
        {"path": "wait... what.md", "status": "quarantined", "care": []},  # Dagster refuses "..." in a key
    ]
    assert pending_keys(rows) == (["a.md"], ["b.md | Rosa"])
    assert split_care_key(care_key("x | y.md", "Rosa")) == ("x | y.md", "Rosa")


def test_reviews_from_the_ui_on_a_persons_vault(tmp_path, repo, notes_vault, settings_for, ingest_at, dagster_ui):
    from dagster import DagsterInstance
    from dagster_graphql import DagsterGraphQLClient, DagsterGraphQLClientError

    vault = notes_vault(tmp_path / "vault", NOTES)
    data, home = tmp_path / "data", tmp_path / "dagster"
    settings = settings_for(vault, data)
    old = os.umask(0o077)  # as the lucasrag command ingests: what is loose afterwards, the UI wrote
    try:
        ingest_at(settings, home)
    finally:
        os.umask(old)
    rows = read_catalog(settings).to_dicts()
    notes_wanted, care_wanted = pending_keys(rows)
    assert notes_wanted and care_wanted, "the vault should leave both reviews something to decide"

    log = tmp_path / "ui.log"
    # Started under a permissive umask: the script must make its processes private itself.
    with dagster_ui(_ui_env(repo, vault, data, home), log, umask=0o022) as (port, server):
        client = DagsterGraphQLClient("127.0.0.1", port_number=port, timeout=30)
        instance = DagsterInstance.from_config(str(home))

        def published():
            notes = sorted(instance.get_dynamic_partitions("pending_notes"))
            care = sorted(instance.get_dynamic_partitions("pending_care"))
            return (notes, care) if (notes, care) == (notes_wanted, care_wanted) else None

        _wait("the pending items as partitions", published, server, log, START_TIMEOUT)

        # The launchpad offers exactly the pending items (the webserver reads them from the instance); the
        # daemon may publish them before the webserver answers, so this waits for the webserver too.
        offered = _wait(
            "the launchpad's choices",
            lambda: (_partition_keys(client, "approve_pending_note"), _partition_keys(client, "decide_pending_care")),
            server,
            log,
            START_TIMEOUT,
        )
        assert offered == (notes_wanted, care_wanted)
        # A decision that is not one of the choices is refused before a run exists.
        runs_before = len(instance.get_run_records())
        with pytest.raises(DagsterGraphQLClientError, match="not in enum type CareDecision"):
            client.submit_job_execution(
                "decide_pending_care",
                run_config={"ops": {"record_picked_care": {"config": {"decision": "maybe"}}}},
                tags={"dagster/partition": care_wanted[0]},
            )
        assert len(instance.get_run_records()) == runs_before
        # An item that is not pending (a sample path, sent through the API past the picker): its run fails
        # with the reason and the vault is untouched.
        vault_before = _bytes(vault)
        stray = client.submit_job_execution(
            "approve_pending_note",
            run_config={"ops": {"approve_picked_note": {"config": {}}}},
            tags={"dagster/partition": "inbox/ideas.md"},
        )
        assert _finished(client, stray, server, log) == "FAILURE"
        assert _bytes(vault) == vault_before
        failures = [e.dagster_event.event_specific_data.error.message for e in _step_failures(instance, stray)]
        assert len(failures) == 1 and "'inbox/ideas.md' is not awaiting a decision" in failures[0], failures

        note = notes_wanted[0]
        path, subject = split_care_key(care_wanted[0])
        launched = [
            client.submit_job_execution(
                "approve_pending_note",
                run_config={"ops": {"approve_picked_note": {"config": {"workspace": "personal"}}}},
                tags={"dagster/partition": note},
            ),
            client.submit_job_execution(
                "decide_pending_care",
                run_config={"ops": {"record_picked_care": {"config": {"decision": "dismiss"}}}},
                tags={"dagster/partition": care_wanted[0]},
            ),
        ]
        for run_id in launched:
            assert _finished(client, run_id, server, log) == "SUCCESS", log.read_text()[-4000:]

    assert (vault / note).read_text().startswith("---\nworkspace: personal\n")
    decisions = yaml.safe_load((vault / ".lucasrag" / "care_decisions.yaml").read_text())
    assert any(path in str(d) and subject in str(d) for d in _flatten(decisions)), decisions
    # Webserver, daemon (sensor ticks) and run workers wrote here under the shell's 022 umask.
    assert loose_entries(home) == [] and loose_entries(data) == []
    assert "tightened" not in log.read_text()


def _finished(client, run_id: str, server, log) -> str:
    done = {"SUCCESS", "FAILURE", "CANCELED"}
    return _wait(
        f"run {run_id}", lambda: (s := client.get_run_status(run_id).value) in done and s, server, log, RUN_TIMEOUT
    )


def _partition_keys(client, job: str) -> list[str]:
    """The partition choices the launchpad shows for ``job``."""
    query = """query ($selector: PipelineSelector!) { pipelineOrError(params: $selector) {
        ... on Pipeline { partitionKeysOrError { ... on PartitionKeys { partitionKeys } } } } }"""
    location = client._get_repo_locations_and_names_with_pipeline(job)[0]
    selector = {
        "repositoryLocationName": location.repository_location_name,
        "repositoryName": location.repository_name,
        "pipelineName": job,
    }
    found = client._execute(query, {"selector": selector})
    return sorted(found["pipelineOrError"]["partitionKeysOrError"]["partitionKeys"])


def _step_failures(instance, run_id: str) -> list:
    return [
        e for e in instance.all_logs(run_id) if e.dagster_event and e.dagster_event.event_type_value == "STEP_FAILURE"
    ]


def _bytes(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*") if p.is_file()}


def _flatten(decisions) -> list:
    if isinstance(decisions, dict):
        return [*decisions.items()] + [x for v in decisions.values() for x in _flatten(v)]
    if isinstance(decisions, list):
        return [x for v in decisions for x in [v, *_flatten(v)]]
    return []
