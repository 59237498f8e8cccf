"""Where a fresh ``lucasrag ingest`` spends its time, phase by phase (a benchmark, not a test).

    python benchmarks/fresh_ingest_phases.py --work /tmp/onenote --notes 1000 --repeats 3
    python benchmarks/fresh_ingest_phases.py --work W --notes N --compare BASE_CODE --base-work W_BASE
        # BASE_CODE (e.g. `git archive main | tar -x -C BASE_CODE`) on its own copy W_BASE, interleaved with this tree
    python benchmarks/fresh_ingest_phases.py --work /tmp/standin --notes 100000 --stand-in-vectors
        # the build benchmarks/change_kinds.py --stand-in-vectors --build made

Each repetition starts two fresh processes per tree: one with nothing changed, one after a sentence is appended to
one indexed note (as ``benchmarks/one_note.py`` does). Each process does what ``lucasrag ingest`` does (the CLI's
imports and collector settings, ``run_ingest``'s instance, event-log shard and in-process run) with a clock
between the phases and ``gc.callbacks`` summing the time the cyclic collector ran; the parent adds the process's
whole wall time, so "start and exit" is the interpreter's start plus everything after the last line (the final
collection among it). Medians over the repetitions; the load average is printed with them.

Reads the folders ``benchmarks/scale.py --work DIR`` left (``vault-n<N>-s7``, ``data-n<N>-s7``) with the
settings that built them (``--no-graph``, ``--stand-in-vectors``: other ones would re-index the vault); the vault
is edited, so give it a copy you do not mind.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOW = "2026-06-01"

#: What `lucasrag ingest` runs, split by a clock (the tree's own functions; its CLI's collector setting if it has one).
PHASES = r"""
import time, gc, json, os, sys
T0 = time.perf_counter()
if os.environ.get("BENCH_STAND_IN_VECTORS"):
    sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
    from _common import install_stand_in_vectors
    install_stand_in_vectors()
collector = [0.0, 0.0]
def _timed(phase, info):
    if phase == "start":
        collector[1] = time.perf_counter()
    else:
        collector[0] += time.perf_counter() - collector[1]
gc.callbacks.append(_timed)
marks = []
def mark(name):
    marks.append((name, time.perf_counter()))
import typer, rich.table
mark("typer, rich")
import lucasrag_cli.app
try:
    from lucasrag_cli._collector import tune_for_a_command
except ImportError:
    pass
else:
    tune_for_a_command()  # what the CLI's callback does before a command
mark("the CLI (lucasrag_cli)")
import polars
mark("polars")
import dagster
mark("import dagster")
import uuid
import lucasrag_assets.ingest as ingest
from lucasrag_assets.definitions import build_definitions
from lucasrag_assets.resources import LucasragSettings
from lucasrag.settings import Settings
try:  # run_ingest writes the run's files beside its later steps (trees before it: in line)
    from lucasrag.file_memo import writes_in_background
except ImportError:
    from contextlib import nullcontext as writes_in_background
mark("our asset code (lucasrag_assets)")
settings = Settings.from_env()
with ingest._run_instance(settings) as instance:
    mark("the Dagster instance (its storage's imports: SQLAlchemy, Alembic)")
    job = build_definitions(LucasragSettings.from_settings(settings)).resolve_job_def("ingest")
    run_id = str(uuid.uuid4())
    with ingest._event_log_held_open(instance, run_id):
        mark("the run's event-log shard (Dagster creates and stamps it)")
        with writes_in_background():
            result = job.execute_in_process(instance=instance, run_config=ingest._QUIET, raise_on_error=False, run_id=run_id)
        assert result.success
    mark("the run: ten steps and their events, its files written")
    stats = instance.get_run_step_stats(run_id)
steps = {s.step_key: (s.end_time or 0) - (s.start_time or 0) for s in stats}
out, prev = {}, T0
for name, t in marks:
    out[name] = t - prev
    prev = t
end = time.perf_counter() - T0  # what follows is the interpreter's exit
print(json.dumps({"phases": out, "steps": steps, "collector_s": collector[0], "in_process_s": end}))
"""


def _env(work: Path, notes: int, code: Path, build: argparse.Namespace) -> dict[str, str]:
    """The build's own settings: another graph setting or other vectors would re-index the vault."""
    data = (work / f"data-n{notes}-s7").resolve()
    env = {
        **os.environ,
        "PYTHONPATH": str(code),
        "LUCASRAG_VAULT": str((work / f"vault-n{notes}-s7").resolve()),
        "LUCASRAG_DATA": str(data),
        "LUCASRAG_NOW": NOW,
        "LUCASRAG_GRAPH": "0" if build.no_graph else "1",
        "DAGSTER_HOME": str(data / "dagster"),
    }
    if build.stand_in_vectors:
        env["BENCH_STAND_IN_VECTORS"] = "1"
    return env


def one_process(work: Path, notes: int, code: Path, build: argparse.Namespace) -> dict:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PHASES], env=_env(work, notes, code, build), cwd=code, capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["wall_s"] = wall
    figures["start_and_exit_s"] = wall - figures["in_process_s"]
    return figures


def edit(work: Path, notes: int, n: int) -> None:
    """Append a sentence to the first indexed, present, uncharged note (``one_note.py``'s choice)."""
    import polars as pl

    catalog = pl.read_parquet(work / f"data-n{notes}-s7" / "assets" / "note_catalog.parquet")
    chosen = catalog.filter(
        (pl.col("status") == "indexed") & (pl.col("band") == "present") & (pl.col("charged").list.len() == 0)
    ).sort("path")["path"][0]
    with (work / f"vault-n{notes}-s7" / chosen).open("a", encoding="utf-8") as fh:
        fh.write(f"\n\nThe quokkaphase{n}x{int(time.time()) % 100000} gasket sealed the pump.\n")


def compile_tree(code: Path) -> None:
    """Bytecode for the timed tree, as an installed package has it (this machine sets PYTHONDONTWRITEBYTECODE)."""
    packages = [str(code / p) for p in ("lucasrag", "lucasrag_assets", "lucasrag_query", "lucasrag_cli")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], check=True, stdout=subprocess.DEVNULL)


def _row(figures: list[dict], key: str) -> float:
    return statistics.median(f["phases"].get(key, 0.0) for f in figures)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True, help="the --work folder of benchmarks/scale.py")
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--compare", type=Path, help="a base tree, timed on --base-work, interleaved with this one")
    ap.add_argument("--base-work", type=Path, help="the base's own copy of the --work folder")
    ap.add_argument("--no-graph", action="store_true", help="the build was made with scale.py --no-graph")
    ap.add_argument(
        "--stand-in-vectors", action="store_true", help="the build was made with change_kinds.py --stand-in-vectors"
    )
    args = ap.parse_args()
    trees = [("branch", REPO, args.work)]
    if args.compare:
        trees.insert(0, ("base", args.compare.resolve(), args.base_work))
    for _, code, work in trees:
        compile_tree(code)
        one_process(work, args.notes, code, args)  # in line with the vault before the first timed run
    runs = {(name, kind): [] for name, _, _ in trees for kind in ("no change", "one change")}
    load0, n = os.getloadavg(), 0
    for _ in range(args.repeats):
        for name, code, work in trees:
            runs[name, "no change"].append(one_process(work, args.notes, code, args))
            edit(work, args.notes, n := n + 1)
            runs[name, "one change"].append(one_process(work, args.notes, code, args))
    load1 = os.getloadavg()

    vectors = ", stand-in vectors" if args.stand_in_vectors else ""
    print(
        f"notes {args.notes}{vectors}, graph {'off' if args.no_graph else 'on'}, {args.repeats} repetitions, medians (s); trees: "
        + ", ".join(f"{n} {c}" for n, c, _ in trees)
    )
    print(
        f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}"
    )
    columns = list(runs)
    print("\n| phase | " + " | ".join(f"{n}, {k}" for n, k in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    names = list(next(iter(runs.values()))[0]["phases"])
    for key in names:
        print(f"| {key} | " + " | ".join(f"{_row(runs[c], key):.2f}" for c in columns) + " |")
    for label, key in (
        ("the cyclic collector, inside the phases above", "collector_s"),
        ("interpreter start and exit (the final collection among it)", "start_and_exit_s"),
        ("**the process, wall**", "wall_s"),
    ):
        print(f"| {label} | " + " | ".join(f"{statistics.median(f[key] for f in runs[c]):.2f}" for c in columns) + " |")
    for column in columns:
        steps = {k: statistics.median(f["steps"].get(k, 0.0) for f in runs[column]) for k in runs[column][0]["steps"]}
        parts = ", ".join(f"{k} {v:.2f}" for k, v in sorted(steps.items(), key=lambda kv: -kv[1]))
        print(f"\n{column[0]}, {column[1]}: steps (medians, s): {parts}; sum {sum(steps.values()):.2f}")


if __name__ == "__main__":
    main()
