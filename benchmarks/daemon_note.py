"""A one-note change through a real ``dagster-daemon``, from saving the file to a query that finds it
(a benchmark, not a test).

    python benchmarks/daemon_note.py --work /tmp/speed-scale --notes 1000 --rounds 3
    python benchmarks/daemon_note.py --work W_BASE --notes 1000 --code BASE_CODE   # another tree (e.g. git archive)

Reads the vault and data folder ``benchmarks/scale.py --work DIR`` left (the vault is edited, so give it
a copy you do not mind). Starts ``dagster-daemon run`` on this repository's ``workspace.yaml`` with the
data folder's Dagster instance (the ``dagster.yaml`` an ingest writes there, as ``scripts/dagster-ui``
uses it), waits for the ``vault_changed`` sensor's first tick (and the run it requests, if any), then per round appends a sentence with
a made-up word to one note and splits save → found into what the deployed sensor path costs:

* wait for the tick: save → the run's creation (the sensor's ``minimum_interval_seconds`` and the
  daemon's own loop);
* in the queue: creation → launching (the queued run coordinator's loop, every ``dequeue_interval_seconds``);
* launch: launching → the run executing (the launched run process: Python, Dagster and the code location
  imported again, the instance opened);
* the run: executing → done (the job's executor and its steps);
* the query: the run's end → a ``query()`` in this (warm) process that returns the note first.

``benchmarks/one_note.py`` times the same sensor and job in one process (its "sensor tick + ingest job in
process" row): the difference is what the daemon's scheduling and processes add.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from one_note import CODE, NOW, Edit, _env, compile_tree, pick_note  # noqa: E402

#: seconds to wait for any one run (the first one reads the whole vault's fingerprints and starts every process)
RUN_TIMEOUT_S = 300


def _poll(ready, daemon: subprocess.Popen, what: str, poll_s: float):
    """``ready()``'s first value that is not None, checked every ``poll_s`` while the daemon lives."""
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            raise SystemExit(f"dagster-daemon exited with {daemon.returncode}; see its log")
        if (value := ready()) is not None:
            return value
        time.sleep(poll_s)
    raise SystemExit(f"{what} within {RUN_TIMEOUT_S} s; see the daemon's log")


def _wait_for_run(instance, after: float, daemon: subprocess.Popen):
    """The first run created after ``after`` (epoch s), once it has finished."""
    from dagster import DagsterRunStatus, RunsFilter

    done = {DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED}
    created_after = RunsFilter(created_after=dt.datetime.fromtimestamp(after, dt.UTC))

    def finished():
        records = instance.get_run_records(filters=created_after, ascending=True)
        return records[0] if records and records[0].dagster_run.status in done else None

    return _poll(finished, daemon, "no run finished after the change", 0.1)


def _wait_for_a_quiet_daemon(instance, after: float, daemon: subprocess.Popen) -> None:
    """Until the sensor has ticked after ``after`` and no run is queued or in progress (its first tick
    requests a run when the vault changed since the cursor it kept, e.g. the first time)."""
    from dagster import DagsterRunStatus, RunsFilter
    from dagster._core.scheduler.instigation import InstigatorType

    busy = RunsFilter(
        statuses=[
            DagsterRunStatus.QUEUED,
            DagsterRunStatus.NOT_STARTED,
            DagsterRunStatus.STARTING,
            DagsterRunStatus.STARTED,
        ]
    )

    def quiet():
        ticked = any(
            state.name == "vault_changed" and (state.instigator_data.last_tick_success_timestamp or 0) > after
            for state in instance.all_instigator_state(instigator_type=InstigatorType.SENSOR)
            if state.instigator_data is not None
        )
        return True if ticked and not instance.get_runs(filters=busy) else None

    _poll(quiet, daemon, "the daemon did not settle", 0.5)


def _steps(instance, run_id: str) -> dict[str, float]:
    stats = instance.get_run_step_stats(run_id)
    return {s.step_key: (s.end_time or 0) - (s.start_time or 0) for s in stats}


def _run_events(instance, run_id: str) -> dict[str, float]:
    """Epoch seconds of the run's lifecycle events: launching, executing, done."""
    from dagster import DagsterEventType

    wanted = {
        DagsterEventType.RUN_STARTING: "launching",
        DagsterEventType.RUN_START: "executing",
        DagsterEventType.RUN_SUCCESS: "done",
        DagsterEventType.RUN_FAILURE: "done",
    }
    return {
        wanted[e.dagster_event.event_type]: e.timestamp
        for e in instance.all_logs(run_id)
        if e.dagster_event is not None and e.dagster_event.event_type in wanted
    }


def one_round(settings, instance, daemon, note: Path, n: int) -> dict:
    edit = Edit(note, n)
    saved_at = time.time()
    t0 = edit.save()
    record = _wait_for_run(instance, saved_at, daemon)
    t1 = time.perf_counter()
    ok = edit.found(settings)
    t2 = time.perf_counter()
    run = record.dagster_run
    events = _run_events(instance, run.run_id)
    created, end = record.create_timestamp.timestamp(), events["done"]
    launching = events.get("launching", created)  # Dagster 1.13 logs no DEQUEUED: the launch's start ends the wait
    return {
        "status": run.status.value,
        "tick_wait_s": created - saved_at,
        "queue_s": launching - created,
        "launch_s": events["executing"] - launching,
        "run_s": end - events["executing"],
        "noticed_s": (t1 - t0) - (end - saved_at),  # this script's polling interval
        "query_s": t2 - t1,
        "total_s": t2 - t0,
        "found": ok,
        "steps": _steps(instance, run.run_id),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True, help="the --work folder of benchmarks/scale.py")
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--code", type=Path, help="the tree the daemon, its runs and this process use (default: this one)")
    args = ap.parse_args()

    from dagster import DagsterInstance

    from lucasrag.settings import Settings
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_query import query

    vault, data = (args.work / f"vault-n{args.notes}-s7").resolve(), (args.work / f"data-n{args.notes}-s7").resolve()
    env = _env(vault, data)
    os.environ.update({k: v for k, v in env.items() if k.startswith(("DAGSTER_", "LUCASRAG_"))})
    settings = Settings(vault=vault, data=data, now=dt.date.fromisoformat(NOW), graph=False)
    note = pick_note(settings)
    compile_tree()
    run_ingest(settings)  # in line with the vault; writes the instance's dagster.yaml
    query("a first query loads the model and LightRAG", settings=settings)  # the asking process is warm
    home = data / "dagster"
    log_path = args.work / f"daemon-n{args.notes}.log"
    load0 = os.getloadavg()
    with log_path.open("w") as log:
        started = time.time()
        daemon = subprocess.Popen(
            [str(Path(sys.executable).with_name("dagster-daemon")), "run", "-w", str(CODE / "workspace.yaml")],
            cwd=home,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            with DagsterInstance.from_config(str(home)) as instance:
                _wait_for_a_quiet_daemon(instance, started, daemon)
                print(f"daemon up and quiet {time.time() - started:.1f} s after its start")
                rows = [one_round(settings, instance, daemon, note, n) for n in range(1, args.rounds + 1)]
        finally:
            daemon.terminate()
            daemon.wait(timeout=60)
    load1 = os.getloadavg()

    print(f"notes {args.notes} (edited: {note.relative_to(vault)}); daemon log {log_path}")
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f}, after {load1[0]:.2f} {load1[1]:.2f}")
    print(
        "\n| round | wait for the tick s | in the queue s | launch s | the run s | noticed s | query s"
        " | save → found s | run | found |\n|---|---|---|---|---|---|---|---|---|---|"
    )
    for k, r in enumerate(rows, 1):
        print(
            f"| {k} | {r['tick_wait_s']:.2f} | {r['queue_s']:.2f} | {r['launch_s']:.2f} | {r['run_s']:.2f}"
            f" | {r['noticed_s']:.2f}"
            f" | {r['query_s']:.2f} | {r['total_s']:.2f} | {r['status']} | {r['found']} |"
        )
    for k, r in enumerate(rows, 1):
        parts = ", ".join(f"{s} {v:.2f}" for s, v in sorted(r["steps"].items(), key=lambda kv: -kv[1]))
        print(f"\nround {k} steps (s, each in its run's executor): {parts}")


if __name__ == "__main__":
    main()
