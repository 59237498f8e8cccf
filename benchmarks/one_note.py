"""A one-note change, from saving the file to a query that finds it (a benchmark, not a test).

    python benchmarks/one_note.py --work /tmp/speed-scale --notes 1000             # in-process, CLI, sensor

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

Not timed: a real ``dagster-daemon`` (its sensor interval, the launched run's process and the
multiprocess executor's process per step come on top of the in-process sensor row).

The query time after an ingest includes reopening the rewritten workspace index.
The load average is printed with the figures: compare rows of one run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

NOW = "2026-06-01"


def _env(vault: Path, data: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
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


def cli(settings, vault: Path, data: Path, note: Path, n: int) -> dict:
    edit = Edit(note, n)
    t0 = edit.save()
    subprocess.run(
        [sys.executable, "-c", "from lucasrag_cli import app; app()", "ingest", "--vault", str(vault)],
        env=_env(vault, data),
        check=True,
        stdout=subprocess.DEVNULL,
    )
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
    run_ingest(settings)  # the requested job (ingest), executed in process
    t1 = time.perf_counter()
    ok = edit.found(settings)
    t2 = time.perf_counter()
    return {
        "path": "sensor tick + ingest job in process",
        "sensor_s": t_sensor - t0,
        "ingest_s": t1 - t0,
        "query_s": t2 - t1,
        "total_s": t2 - t0,
        "found": ok,
    }


def import_seconds() -> dict:
    """Fresh-process import costs: Python itself, Dagster, the code location, the CLI."""
    out = {}
    for name, code in (
        ("python", "pass"),
        ("import dagster", "import dagster"),
        ("import lucasrag_assets.definitions", "import lucasrag_assets.definitions"),
        (
            "import lucasrag_cli (+ ingest imports)",
            "import lucasrag_cli.app, lucasrag_assets.ingest, lucasrag_assets.definitions",
        ),
    ):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        out[name] = time.perf_counter() - t0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True, help="the --work folder of benchmarks/scale.py")
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=2, help="rounds of each in-process path")
    args = ap.parse_args()

    from lucasrag.settings import Settings

    vault, data = (args.work / f"vault-n{args.notes}-s7").resolve(), (args.work / f"data-n{args.notes}-s7").resolve()
    os.environ.update({k: v for k, v in _env(vault, data).items() if k.startswith(("DAGSTER_", "LUCASRAG_"))})
    settings = Settings(vault=vault, data=data, now=dt.date.fromisoformat(NOW), graph=False)
    note = pick_note(settings)
    from lucasrag_assets.ingest import run_ingest

    run_ingest(settings)  # in line with the vault, warm imports and caches
    load0 = os.getloadavg()
    rows, n = [], 0
    imports = import_seconds()
    for _ in range(args.rounds):
        rows.append(in_process(settings, note, n := n + 1))
    for _ in range(args.rounds):
        rows.append(sensor(settings, note, n := n + 1))
    rows.append(cli(settings, vault, data, note, n := n + 1))
    load1 = os.getloadavg()

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


if __name__ == "__main__":
    main()
