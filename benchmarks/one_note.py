"""A one-note change, from saving the file to a query that finds it (a benchmark, not a test).

    python benchmarks/one_note.py --work /tmp/speed-scale --notes 1000             # in-process, CLI, sensor
    python benchmarks/one_note.py --work W --notes 10000 --compare BASE_CODE --base-work W_BASE [--branch-first]
        # side by side: BASE_CODE (e.g. `git archive main | tar -x -C BASE_CODE`) on its own copy W_BASE,
        # then this tree on W (or this tree first), each in a process of its own; one table with both,
        # load averages, steps

Reads the vault and data folder ``benchmarks/scale.py --work DIR`` left
(``vault-n<N>-s7``, ``data-n<N>-s7``; the vault is edited, so give it a copy you
do not mind). Each round appends a sentence with a made-up word to one indexed,
present note and times, until a ``query()`` in this (long-lived, already warm)
process returns that note first:

* ``run_ingest``: the asset graph executed in this process (what ``lucasrag ingest``
  runs after its imports), split by Dagster step; "Dagster" is the run's time outside
  its steps (instance, run and event bookkeeping);
* ``lucasrag ingest``: the CLI in a fresh process (imports, Dagster, the same run);
* sensor: the ``vault_changed`` sensor evaluated on the previous cursor, then the run it
  requests executed in process (what the daemon's run would do, without its launcher);

A real ``dagster-daemon`` (its sensor loop, the run queue, the launched run's process) is timed by
``benchmarks/daemon_note.py``.

The query time after an ingest includes reopening the rewritten workspace index.
The load average is printed with the figures: compare rows of one run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# --code DIR: the tree whose lucasrag packages are timed (another checkout, e.g. the base of a change)
CODE = Path(sys.argv[sys.argv.index("--code") + 1]).resolve() if "--code" in sys.argv else REPO
sys.path.insert(0, str(CODE))

NOW = "2026-06-01"


def _env(vault: Path, data: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(CODE),
        "LUCASRAG_VAULT": str(vault),
        "LUCASRAG_DATA": str(data),
        "LUCASRAG_NOW": NOW,
        "LUCASRAG_GRAPH": "0",
        "DAGSTER_HOME": str(data / "dagster"),
    }


def pick_note(settings) -> Path:
    """An indexed, present note with no charged subject: a change to it is searchable at once."""
    import polars as pl

    from lucasrag.catalog import read_catalog

    catalog = read_catalog(settings).filter(
        (pl.col("status") == "indexed") & (pl.col("band") == "present") & (pl.col("charged").list.len() == 0)
    )
    return settings.vault / catalog.sort("path")["path"][0]


class Edit:
    """One appended sentence with a word no note has, and the query that should find it first."""

    def __init__(self, note: Path, n: int) -> None:
        self.word = f"quokkalite{n}x{int(time.time()) % 100000}"
        self.note, self.query = note, f"{self.word} gasket"

    def save(self) -> float:
        with self.note.open("a", encoding="utf-8") as fh:
            fh.write(f"\n\nThe {self.word} gasket sealed the pump after the benchmark.\n")
        return time.perf_counter()

    def found(self, settings) -> bool:
        from lucasrag_query import query

        result = query(self.query, settings=settings)
        return bool(result.results) and self.word in result.results[0].text


def in_process(settings, note: Path, n: int) -> dict:
    from lucasrag_assets.ingest import run_ingest

    edit = Edit(note, n)
    t0 = edit.save()
    summary = run_ingest(settings)
    t1 = time.perf_counter()
    ok = edit.found(settings)
    t2 = time.perf_counter()
    steps = dict(sorted(summary.step_seconds.items(), key=lambda kv: -kv[1]))
    return {
        "path": "run_ingest (in process)",
        "ingest_s": t1 - t0,
        "query_s": t2 - t1,
        "total_s": t2 - t0,
        "found": ok,
        "steps": steps,
        "dagster_s": summary.seconds - sum(steps.values()),
    }


def _cli_ingest(vault: Path, data: Path) -> None:
    """``lucasrag ingest`` in a fresh process of the timed tree. Its working directory is that tree: ``python -c``
    puts the working directory first on ``sys.path``, so run from another checkout it would time that one."""
    subprocess.run(
        [sys.executable, "-c", "from lucasrag_cli import app; app()", "ingest", "--vault", str(vault)],
        env=_env(vault, data),
        cwd=CODE,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def cli(settings, vault: Path, data: Path, note: Path, n: int) -> dict:
    edit = Edit(note, n)
    t0 = edit.save()
    _cli_ingest(vault, data)
    t1 = time.perf_counter()
    ok = edit.found(settings)
    t2 = time.perf_counter()
    return {
        "path": "lucasrag ingest (CLI process)",
        "ingest_s": t1 - t0,
        "query_s": t2 - t1,
        "total_s": t2 - t0,
        "found": ok,
    }


def cli_no_change(vault: Path, data: Path) -> dict:
    """A fresh ``lucasrag ingest`` with nothing changed: the fixed cost (imports, Dagster's instance and run, the
    ten steps finding nothing to do, the process's exit)."""
    t0 = time.perf_counter()
    _cli_ingest(vault, data)
    seconds = time.perf_counter() - t0
    return {"path": "lucasrag ingest, no change (CLI process)", "ingest_s": seconds, "total_s": seconds, "found": True}


def sensor(settings, note: Path, n: int) -> dict:
    from dagster import RunRequest, build_sensor_context

    from lucasrag_assets.automation import vault_changed
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_assets.resources import LucasragSettings

    resource = LucasragSettings.from_settings(settings)

    def tick(cursor):
        with build_sensor_context(cursor=cursor, resources={"lucasrag": resource}) as context:
            return vault_changed(context), context.cursor

    _, cursor = tick(None)
    edit = Edit(note, n)
    t0 = edit.save()
    request, _ = tick(cursor)
    t_sensor = time.perf_counter()
    assert isinstance(request, RunRequest), request
    summary = run_ingest(settings)  # the requested job (ingest), executed in process
    t1 = time.perf_counter()
    ok = edit.found(settings)
    t2 = time.perf_counter()
    steps = dict(sorted(summary.step_seconds.items(), key=lambda kv: -kv[1]))
    return {
        "path": "sensor tick + ingest job in process",
        "steps": steps,
        "dagster_s": summary.seconds - sum(steps.values()),
        "sensor_s": t_sensor - t0,
        "ingest_s": t1 - t0,
        "query_s": t2 - t1,
        "total_s": t2 - t0,
        "found": ok,
    }


#: A one-asset job executed in process on a persistent SQLite instance (a folder a first run set up): Dagster's floor.
EMPTY_DAGSTER_RUN = """
import os
from dagster import DagsterInstance, asset, materialize
from dagster._core.instance.ref import InstanceRef
@asset
def nothing() -> None:
    return None
with DagsterInstance.from_ref(InstanceRef.from_dir(os.environ["EMPTY_DAGSTER_HOME"])) as instance:
    assert materialize([nothing], instance=instance).success
"""


#: The CLI's collector settings (lucasrag_cli/_collector.py) in a process that is not the CLI.
TUNED_COLLECTOR = "import atexit, gc; gc.set_threshold(50_000, 10, 10); atexit.register(gc.freeze)\n"


def empty_dagster_run_seconds(prefix: str = "") -> float:
    """The second run of :data:`EMPTY_DAGSTER_RUN` in one folder (the first creates the instance's databases)."""
    import tempfile

    with tempfile.TemporaryDirectory() as home:
        Path(home, "dagster.yaml").write_text("telemetry:\n  enabled: false\n")  # as ours
        env = {**os.environ, "EMPTY_DAGSTER_HOME": home}
        for _ in range(2):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", prefix + EMPTY_DAGSTER_RUN], check=True, env=env, capture_output=True)
        return time.perf_counter() - t0


def import_seconds() -> dict:
    """Fresh-process costs: Python itself, Dagster, the code location, the CLI; Dagster's floor (an empty
    one-asset run); and what a one-note run needs on top (the embedding model for the changed note, LightRAG for
    its workspace's index step)."""
    out = {}
    for name, code in (
        ("python", "pass"),
        ("import dagster", "import dagster"),
        ("import lucasrag_assets.definitions", "import lucasrag_assets.definitions"),
        (
            "import lucasrag_cli (+ ingest imports)",
            "import lucasrag_cli.app, lucasrag_assets.ingest, lucasrag_assets.definitions",
        ),
        (
            "load the embedding model, embed one text",
            "from lucasrag.embedding import get_embedder; get_embedder().embed(['x'])",
        ),
        ("import LightRAG", "import lightrag.lightrag"),
    ):
        t0 = time.perf_counter()
        env = {**os.environ, "PYTHONPATH": str(CODE)}
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=CODE, capture_output=True)
        out[name] = time.perf_counter() - t0
    out["import dagster, one empty asset run (persistent SQLite instance)"] = empty_dagster_run_seconds()
    out["the same, with the CLI's collector settings"] = empty_dagster_run_seconds(TUNED_COLLECTOR)
    return out


def compile_tree() -> None:
    """Bytecode for the timed tree, as an installed package has it. This machine sets PYTHONDONTWRITEBYTECODE,
    so without it every fresh process would compile our ~90 modules from source (0.1-0.2 s)."""
    packages = [str(CODE / p) for p in ("lucasrag", "lucasrag_assets", "lucasrag_query", "lucasrag_cli")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True, help="the --work folder of benchmarks/scale.py")
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=2, help="rounds of each in-process path")
    ap.add_argument("--fresh", type=int, default=1, help="fresh `lucasrag ingest` processes, no change and one change")
    ap.add_argument("--code", type=Path, default=REPO, help="the tree whose packages are timed (default: this one)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--compare", type=Path, help="a base tree: time it on --base-work, then this tree, side by side")
    ap.add_argument("--base-work", type=Path, help="the base's own copy of the --work folder (its vault is edited)")
    ap.add_argument("--branch-first", action="store_true", help="with --compare: time this tree first, then the base")
    args = ap.parse_args()
    if args.compare:
        compare(args)
        return

    from lucasrag.settings import Settings

    try:  # the collector as every `lucasrag` command sets it (`lucasrag watch` runs run_ingest like this process)
        from lucasrag_cli._collector import tune_for_a_command
    except ImportError:  # a tree from before it
        pass
    else:
        tune_for_a_command()
    vault, data = (args.work / f"vault-n{args.notes}-s7").resolve(), (args.work / f"data-n{args.notes}-s7").resolve()
    os.environ.update({k: v for k, v in _env(vault, data).items() if k.startswith(("DAGSTER_", "LUCASRAG_"))})
    settings = Settings(vault=vault, data=data, now=dt.date.fromisoformat(NOW), graph=False)
    note = pick_note(settings)
    from lucasrag_assets.ingest import run_ingest

    compile_tree()
    run_ingest(settings)  # in line with the vault, warm imports and caches
    load0 = os.getloadavg()
    rows, n = [], 0
    imports = import_seconds()
    for _ in range(args.rounds):
        rows.append(in_process(settings, note, n := n + 1))
    for _ in range(args.rounds):
        rows.append(sensor(settings, note, n := n + 1))
    for _ in range(args.fresh):
        rows.append(cli_no_change(vault, data))
        rows.append(cli(settings, vault, data, note, n := n + 1))
    load1 = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps({"imports": imports, "rows": rows, "load": [load0, load1]}, indent=1))

    print(f"notes {args.notes} (edited: {note.relative_to(vault)})")
    print(
        f"load average before {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}, after {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}"
    )
    print("\n| fresh process | s |\n|---|---|")
    for name, s in imports.items():
        print(f"| {name} | {s:.2f} |")
    print("\n| path | save → ingest done s | first query s | save → found s | found |\n|---|---|---|---|---|")
    for r in rows:
        ingest = f"{r['ingest_s']:.2f}" if "ingest_s" in r else "–"
        query = f"{r['query_s']:.2f}" if "query_s" in r else "–"
        total = f"{r['total_s']:.2f}" if r.get("total_s") is not None else "not found"
        print(f"| {r['path']} | {ingest} | {query} | {total} | {r['found']} |")
    for r in rows:
        if r.get("steps"):
            parts = ", ".join(f"{k} {v:.2f}" for k, v in r["steps"].items())
            extra = f"; outside steps {r['dagster_s']:.2f}" if "dagster_s" in r else ""
            print(f"\n{r['path']} steps (s): {parts}{extra}")


def _row_label(r: dict) -> str:
    return r["path"]


def compare(args) -> None:
    """This script on the base tree, then on this one (each its own process and data copy), and one table."""
    runs = {}
    order = [("base", args.compare.resolve(), args.base_work), ("branch", REPO, args.work)]
    for name, code, work in reversed(order) if args.branch_first else order:  # alternate: the load drifts
        out = Path(f"/tmp/one_note-{name}-{os.getpid()}.json")
        cmd = [sys.executable, __file__, "--code", str(code), "--work", str(work), "--notes", str(args.notes)]
        cmd += ["--rounds", str(args.rounds), "--fresh", str(args.fresh), "--json", str(out)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        runs[name] = json.loads(out.read_text())
        out.unlink()
    base, branch = runs["base"], runs["branch"]
    print(f"notes {args.notes}; base {args.compare}, branch {REPO}; {'branch' if args.branch_first else 'base'} first")
    for name, run in runs.items():
        (a, b) = run["load"]
        print(f"load average ({name}) before {a[0]:.2f} {a[1]:.2f} {a[2]:.2f}, after {b[0]:.2f} {b[1]:.2f} {b[2]:.2f}")
    print("\n| fresh process | base s | branch s |\n|---|---|---|")
    for name in branch["imports"]:
        print(f"| {name} | {base['imports'].get(name, float('nan')):.2f} | {branch['imports'][name]:.2f} |")
    print("\n| path (save → found s; first query s) | base | branch | found |\n|---|---|---|---|")
    for rb, rn in zip(base["rows"], branch["rows"]):
        cells = [f"{r['total_s']:.2f}" + (f" ({r['query_s']:.2f})" if "query_s" in r else "") for r in (rb, rn)]
        print(f"| {_row_label(rn)} | {cells[0]} | {cells[1]} | {rb['found']} / {rn['found']} |")
    steps_b = [r for r in base["rows"] if r.get("steps")]
    steps_n = [r for r in branch["rows"] if r.get("steps")]
    for k, (rb, rn) in enumerate(zip(steps_b, steps_n), 1):
        print(f"\n| {steps_n[k - 1]['path']}, run {k}: step s | base | branch |\n|---|---|---|")
        for step in sorted(set(rb["steps"]) | set(rn["steps"]), key=lambda s: -rb["steps"].get(s, 0)):
            print(f"| {step} | {rb['steps'].get(step, 0):.2f} | {rn['steps'].get(step, 0):.2f} |")
        print(f"| outside the steps (Dagster) | {rb['dagster_s']:.2f} | {rn['dagster_s']:.2f} |")


if __name__ == "__main__":
    main()
