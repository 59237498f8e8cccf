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
