"""What a watcher costs while nothing happens, and how soon it sees a save (a benchmark, not a test).

    python benchmarks/watch_idle.py --notes 100000 --work /tmp/watch-idle [--idle 20]

Generates a vault (``lucasrag_harness.evaluation.vault_generator``, seed 7; kept in ``--work`` for the next run)
and runs ``VaultWatcher`` over it with an ingest that does nothing, with the file system's change events (the
default; the ingest saying nothing, then saying what it listed as ``run_ingest`` does) and checking the
fingerprint every second (``lucasrag watch --poll``). Printed per mode: the
CPU seconds the process spent over ``--idle`` seconds with no change (the watcher's own cost), and the seconds
from appending a line to a note to the ingest being called, less the debounce (0.5 s), over three saves.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from lucasrag.settings import Settings
from lucasrag.vault_files import vault_fingerprint
from lucasrag.vault_watch import VaultWatcher

DEBOUNCE_S = 0.5


def vault_of(work: Path, notes: int) -> Path:
    vault = work / f"vault-n{notes}-s7"
    if not vault.is_dir():
        subprocess.run(
            [sys.executable, "-m", "lucasrag_harness.evaluation.vault_generator", str(vault), "--notes", str(notes)],
            check=True,
        )
    return vault


def one_mode(settings: Settings, events: bool, idle_s: float, note: Path, says: bool) -> tuple[float, list[float]]:
    """``says``: the ingest says what it listed, as ``run_ingest`` does (``IngestSummary.vault_fingerprint``), after
    a catch-up ingest; otherwise it says nothing (the watcher lists the vault before calling it)."""
    called = threading.Event()

    def ingest(s: Settings, changed: frozenset[str] | None) -> str | None:
        called.set()
        return vault_fingerprint(s.vault) if says else None  # run_ingest's scan lists the vault anyway

    watcher = VaultWatcher(settings, ingest, debounce_s=DEBOUNCE_S, catch_up=says, events=events).start()
    try:
        while watcher.state()["state"] != "watching":
            time.sleep(0.05)
        cpu = time.process_time()
        time.sleep(idle_s)
        idle_cpu = time.process_time() - cpu
        seen = []
        for i in range(3):
            called.clear()
            saved = time.perf_counter()
            with note.open("a", encoding="utf-8") as fh:
                fh.write(f"\nwatch benchmark line {i} {time.time()}\n")
            called.wait(60)
            seen.append(time.perf_counter() - saved - DEBOUNCE_S)
            time.sleep(1.0)
    finally:
        watcher.stop(timeout=10)
    return idle_cpu, seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--idle", type=float, default=20.0, help="seconds with no change, per mode")
    args = ap.parse_args()
    vault = vault_of(args.work, args.notes)
    settings = Settings.from_env(vault=vault, data=args.work / f"data-watch-n{args.notes}")
    note = next(p for p in sorted((vault / "journal").glob("*.md")))
    print(f"{args.notes} notes, idle {args.idle:g} s per mode, debounce {DEBOUNCE_S} s")
    print("| mode | CPU while idle (s per minute) | save → ingest called, less the debounce (s) |\n|---|---|---|")
    modes = (
        (True, False, "change events, an ingest that says nothing"),
        (True, True, "change events, an ingest that says what it listed (run_ingest)"),
        (False, False, "a check every second (--poll)"),
    )
    for events, says, label in modes:
        idle_cpu, seen = one_mode(settings, events, args.idle, note, says)
        per_minute = idle_cpu * 60 / args.idle
        print(f"| {label} | {per_minute:.2f} | {statistics.median(seen):.2f} (max {max(seen):.2f}) |")


if __name__ == "__main__":
    main()
