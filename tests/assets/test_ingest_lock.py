"""One ingest at a time per data folder: a second one waits with a notice (or refuses when asked
not to wait); a holder killed with -9 leaves nothing locked."""

import logging
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from lucasrag.data_folder import DataFolderBusy, exclusive_ingest

HOLD = """
import sys
from pathlib import Path
from lucasrag.data_folder import exclusive_ingest
with exclusive_ingest(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def _holder(root, repo):
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_second_ingest_refuses_or_waits_and_a_killed_holder_frees_the_folder(tmp_path, caplog, repo):
    root = tmp_path / "data"
    holder = _holder(root, repo)
    try:
        with pytest.raises(DataFolderBusy, match=rf"another ingest \(pid {holder.pid}, started .*\) is running"):
            with exclusive_ingest(root, wait=False):
                pass
        entered = threading.Event()

        def second():
            with exclusive_ingest(root):
                entered.set()

        with caplog.at_level(logging.WARNING, logger="lucasrag.data_folder"):
            waiter = threading.Thread(target=second)
            waiter.start()
            assert not entered.wait(1.0)  # still waiting while the first one runs
            holder.send_signal(signal.SIGKILL)  # dies without cleaning up
            waiter.join(20)
        assert entered.is_set()
        assert any("waiting for it to finish" in r.getMessage() for r in caplog.records)
    finally:
        holder.kill()
        holder.wait()
    with exclusive_ingest(root, wait=False):  # nothing left locked
        assert oct(os.stat(root / ".ingest.lock").st_mode & 0o777) == "0o600"


@pytest.mark.slow
def test_run_ingest_waits_for_the_running_one(tmp_path, repo, settings_for):
    from lucasrag_assets.ingest import run_ingest

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "note.md").write_text("---\nworkspace: technical\n---\nPostgres vacuum tuning notes.\n")
    settings = settings_for(vault, tmp_path / "data")
    holder = _holder(settings.data, repo)
    done = {}
    worker = threading.Thread(target=lambda: done.update(summary=run_ingest(settings)))
    try:
        worker.start()
        time.sleep(3)
        assert worker.is_alive() and not (settings.data / "catalog").exists()  # waiting, nothing written
    finally:
        holder.stdin.close()  # the first ingest finishes
        holder.wait()
    worker.join(600)
    assert done["summary"].per_workspace == {"technical": 1}


SENSOR_RUN = """
from dagster import DagsterInstance, build_sensor_context, execute_job, reconstructable
from lucasrag_assets.definitions import defs, resolved_ingest_job
from lucasrag_assets.resources import LucasragSettings

# What the daemon does: evaluate the sensor, then execute its run request as a run of its own, in
# another process, with the request's run config (the executor's in-process mode: one resource set for the
# whole run, so the lock is held from the first step to the last; multiprocess steps take it one by one).
with DagsterInstance.get() as instance:
    sensor = defs.get_sensor_def("vault_changed")
    with build_sensor_context(instance=instance, resources={"lucasrag": LucasragSettings.from_env()}) as context:
        request = sensor(context)
    print("requested", request.run_key, flush=True)
    result = execute_job(
        reconstructable(resolved_ingest_job),
        instance=instance,
        tags=request.tags,
        run_config=request.run_config,
    )
    print("success" if result.success else "failed", flush=True)
"""


@pytest.mark.slow
def test_a_sensor_launched_run_waits_for_the_ingest_holding_the_folder(tmp_path, repo, settings_for):
    from lucasrag.index import open_chunk_store

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "note.md").write_text("---\nworkspace: technical\n---\nPostgres vacuum tuning notes.\n")
    data = tmp_path / "data"
    holder = _holder(data, repo)
    env = {
        **os.environ,
        "PYTHONPATH": str(repo),
        "LUCASRAG_VAULT": str(vault),
        "LUCASRAG_DATA": str(data),
        "DAGSTER_HOME": str(tmp_path / "dagster"),
    }
    (tmp_path / "dagster").mkdir()
    (tmp_path / "dagster" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    run = subprocess.Popen(
        [sys.executable, "-c", SENSOR_RUN], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(run.stderr), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 600
        while not any("waiting for it to finish" in line for line in err):  # the run's log says it waits
            assert run.poll() is None and time.monotonic() < deadline, "".join(err)[-3000:]
            time.sleep(0.2)
        notice = next(line for line in err if "waiting for it to finish" in line)
        assert f"another ingest (pid {holder.pid}, started" in notice and f"LUCASRAG_DATA={data.resolve()}" in notice
        time.sleep(2)
        assert run.poll() is None
        assert not (data / "assets").exists(), "the sensor's run wrote while another ingest held the folder"
    finally:
        holder.stdin.close()  # the first ingest finishes
        holder.wait()
    out = run.stdout.read()
    run.wait(timeout=900)
    reader.join(10)
    assert "success" in out, "".join(err)[-3000:]
    store = open_chunk_store(settings_for(vault, data), "technical")
    try:
        assert store.counts() == (1, 1)
    finally:
        store.close()
