"""Every kind of one-note change at scale — edit, add, delete, a note moving workspace — from saving the
file to a query that shows it, in a long-lived process (what ``lucasrag watch``, ``mcp --watch`` and the
sensor's in-process run do), with the index step split by LightRAG store (a benchmark, not a test).

    python benchmarks/change_kinds.py --work /tmp/scale --notes 10000 [--rounds 2] [--json out.json]

    python benchmarks/change_kinds.py --work /tmp/standin --notes 100000 --stand-in-vectors --build

Reads the vault and data folder ``benchmarks/scale.py --work DIR`` left (``vault-n<N>-s7``, ``data-n<N>-s7``);
the vault is edited (a note is appended to, a note is added and deleted, a note's ``workspace:`` is set), so
give it a copy you do not mind. The process's first ingest is the watchers' (``long_lived.ingest_kept_warm``:
every workspace warmed after it). Each round: the change is saved, the ingest runs in this process as the
watcher runs it (``ingest_kept_warm`` given the notes the file system's change events named;
``--list-each-run``: the vault listed by every run, as before the events' paths were followed), and a
``query()`` checks the outcome (the query side opened once before the first change, as a running MCP
server's is; the new word is found first; the deleted note's word is found nowhere; the
moved note is found in its new workspace). Meanwhile another process with the four workspaces open asks
every ``--poll`` seconds (0.25; 0: no such process) until the change shows: what an assistant asking a
running server sees, which can be before the ingest's last steps end. Printed per kind: save → the run done
and the check, [save → shown to the other process], the slowest Dagster steps, and the seconds each LightRAG store spent writing its files (``index_done_callback``) with their
sizes on disk — the part of a change that grows with the vault on the embedded profile.

``--stand-in-vectors`` replaces the model's transformer by a table of word-piece vectors
(``_common.install_stand_in_vectors``: everything else runs as in production), and ``--build`` generates and
ingests the vault first when its data folder is missing: a 100,000-note vault in minutes instead of hours of
embedding, to measure what a change costs besides embedding its note. Its figures are not the model's: every
one of them is printed with "stand-in vectors" (the changed note's own embedding, ≈ 0.05–0.1 s with the
model, is not in them).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _change_poller import Poller, found_anywhere, found_first  # noqa: E402

NOW = "2026-06-01"

#: seconds per (store class, namespace) spent in index_done_callback during the current change
STORE_SECONDS: dict[str, float] = defaultdict(float)


def _unique(tag: str) -> str:
    return f"zorbel{tag}{int(time.time() * 1000) % 10_000_000}"


def _without_earlier_changes(text: str) -> str:
    """A note's text without the lines earlier rounds (or runs) added: otherwise a note edited run after run
    fills with "gasket" lines and outranks the note a later check looks for."""
    return re.sub(r"\n*The zorbel\w+ gasket [^\n]*\n?", "", text).rstrip("\n")


def clean_earlier_runs(vault: Path) -> int:
    """Take out what earlier runs left in the vault: the gasket lines of notes an edit or a move changed (each run
    moves a note it has not moved before) and a note an added-then-interrupted run did not delete. Left in, they
    pile up run after run and outrank the note a check looks for. Returns how many files it changed."""
    changed = 0
    for note in vault.rglob("*.md"):
        raw = note.read_bytes()
        if b"zorbel" not in raw:
            continue
        if note.name.startswith("2026-05-20 zorbel"):
            note.unlink()
        else:
            note.write_text(_without_earlier_changes(raw.decode("utf-8")) + "\n", encoding="utf-8")
        changed += 1
    return changed


def pick_note(settings, workspace: str) -> Path:
    """An indexed, present, uncharged note of ``workspace`` that declares no workspace of its own, written in
    the last year: present in whichever workspace it moves to (an older technical reference stays present
    where it is and would be archival among the diary entries: the move's check would find it withheld)."""
    import polars as pl

    from lucasrag.catalog import read_catalog

    year_ago = (settings.now.replace(year=settings.now.year - 1)).isoformat()
    catalog = read_catalog(settings).filter(
        (pl.col("status") == "indexed")
        & (pl.col("band") == "present")
        & (pl.col("charged").list.len() == 0)
        & (pl.col("workspace") == workspace)
        & (pl.col("date") >= year_ago)
    )
    for path in catalog.sort("path")["path"]:
        text = (settings.vault / path).read_text(encoding="utf-8")
        if "workspace:" not in text:
            return settings.vault / path
    raise SystemExit(f"no {workspace} note to change")


class ChangeIngest:
    """The ingest after each change, as the watcher runs it: ``ingest_kept_warm`` with the notes the file
    system's change events named (the listing kept from the run before, brought up to date from them), or with
    ``list_each_run`` — or on code before the events' paths were followed — the vault listed by every run."""

    def __init__(self, settings, list_each_run: bool) -> None:
        import inspect

        from lucasrag_assets.ingest import run_ingest

        self.settings, self.events = settings, None
        try:
            from lucasrag_assets.long_lived import ingest_kept_warm
        except ImportError:  # older code (an A/B run's base), whose watchers ran run_ingest alone
            ingest_kept_warm = run_ingest
        self._ingest = run_ingest
        if not list_each_run and "changed" in inspect.signature(ingest_kept_warm).parameters:
            from lucasrag.vault_events import VaultEvents

            self.events = VaultEvents(settings.vault)
            if self.events.start():
                self._ingest = ingest_kept_warm
            else:
                self.events = None

    @property
    def how(self) -> str:
        return "the notes the change events named" if self.events else "the vault listed by every run"

    def __call__(self):
        if self.events is None:
            return self._ingest(self.settings)
        self.events.changed.wait(2.0)  # the save's events (a watcher would wait its debounce on top)
        time.sleep(0.05)  # the rest of a save's events (created, modified, closed)
        self.events.changed.clear()
        return self._ingest(self.settings, self.events.take())

    def close(self) -> None:
        if self.events is not None:
            self.events.stop()


def one_change(settings, kind: str, state: dict, ingest: ChangeIngest, poller: Poller | None = None) -> dict:
    STORE_SECONDS.clear()
    word = _unique(kind)
    ask: dict = {}  # what the other process waits for: the word found first (there), or gone
    if kind == "edit":
        note = state["edit_note"]
        text = _without_earlier_changes(note.read_text(encoding="utf-8"))
        content = f"{text}\n\nThe {word} gasket sealed the pump after the benchmark.\n"
    elif kind == "add":
        note = settings.vault / "journal" / f"2026-05-20 {word}.md"
        state["added"] = (note, word)
        content = f"# Pump notes\n\nToday the {word} gasket sealed the pump at last; I went home happy.\n"
    elif kind == "delete":
        note, word = state.pop("added")
        content, ask = None, {"gone": True}
    elif kind == "move":
        note, target = state["move_note"], state["move_to"]
        text = re.sub(r"\Aworkspace: \w+\n", "", note.read_text(encoding="utf-8").removeprefix("---\n"))
        text = _without_earlier_changes(text)
        head = "---\n" if note.read_text(encoding="utf-8").startswith("---\n") else "---\n---\n"
        # the note's own frontmatter kept: only its workspace changes (a person's declared workspace)
        content = f"---\nworkspace: {target}\n{head[4:]}{text}\n\nThe {word} gasket moved with it.\n"
        state["move_to"], state["move_from"] = state["move_from"], target  # the next round moves it back
        ask = {"workspaces": [target]}
    else:
        raise ValueError(kind)

    def check() -> bool:
        if ask.get("gone"):
            return not found_anywhere(settings, word)
        return found_first(settings, word, ask.get("workspaces"))

    if poller is not None:
        poller.ask(word, **ask)
    saved_at, t0 = time.time(), time.perf_counter()
    if content is None:
        note.unlink()
    else:
        note.write_text(content, encoding="utf-8")
    summary = ingest()
    t1 = time.perf_counter()
    ok = check()
    t2 = time.perf_counter()
    steps = dict(sorted(summary.step_seconds.items(), key=lambda kv: -kv[1])[:4])
    return {
        "kind": kind,
        "ingest_s": t1 - t0,
        "query_s": t2 - t1,
        "total_s": t2 - t0,
        # found by the other process (while the ingest's last steps still ran, or after)
        "searchable_s": found - saved_at if poller is not None and (found := poller.found_at()) else None,
        "ok": ok,
        "steps": steps,
        "stores": dict(sorted(STORE_SECONDS.items(), key=lambda kv: -kv[1])[:6]),
    }


def _shown(row: dict, poller) -> str:
    if poller is None:
        return ""
    return " [never]" if row["searchable_s"] is None else f" [{row['searchable_s']:.2f}]"


def store_sizes(settings) -> dict[str, float]:
    """MB on disk per store file, summed over the four workspaces."""
    sizes: dict[str, float] = defaultdict(float)
    for path in (settings.data / "indexes").rglob("*"):
        if path.is_file():
            sizes[path.name] += path.stat().st_size / 1e6
    return dict(sorted(sizes.items(), key=lambda kv: -kv[1]))


def build(settings, notes: int) -> None:
    """Generate the vault (unless it is there) and ingest it cold, printing each step's seconds."""
    import resource

    from lucasrag_assets.ingest import run_ingest
    from lucasrag_harness.evaluation.vault_generator import generate_vault, truth_path

    if not truth_path(settings.vault).is_file():
        t0 = time.perf_counter()
        generate_vault(settings.vault, notes, overwrite=True)
        print(f"generated {notes} notes in {time.perf_counter() - t0:.0f} s", flush=True)
    summary = run_ingest(settings)
    steps = ", ".join(f"{k} {v:.0f}" for k, v in sorted(summary.step_seconds.items(), key=lambda kv: -kv[1]))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"cold ingest {summary.seconds:.0f} s (load {os.getloadavg()[0]:.1f}, peak RSS {peak:.0f} MB): {steps}",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True, help="the --work folder of benchmarks/scale.py")
    ap.add_argument("--notes", type=int, required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--stand-in-vectors", action="store_true", help="a word-piece table instead of the model")
    ap.add_argument("--build", action="store_true", help="generate and ingest the vault if its data folder is missing")
    ap.add_argument(
        "--cold-first", action="store_true", help="the first ingest without warming the workspaces (run_ingest alone)"
    )
    ap.add_argument(
        "--list-each-run",
        action="store_true",
        help="every run lists the vault itself (not given the notes the change events named)",
    )
    ap.add_argument(
        "--poll", type=float, default=0.25, help="another process asks every POLL s until the change shows (0: none)"
    )
    args = ap.parse_args()
    if args.stand_in_vectors:
        from _common import install_stand_in_vectors

        install_stand_in_vectors()

    import datetime as dt

    from lucasrag.index import time_store_writes
    from lucasrag.settings import Settings
    from lucasrag_assets.ingest import run_ingest

    try:
        from lucasrag_assets.long_lived import ingest_kept_warm
    except ImportError:  # older code (an A/B run's base), whose watchers ran run_ingest alone
        ingest_kept_warm = run_ingest
    first_ingest = run_ingest if args.cold_first else ingest_kept_warm

    vault, data = args.work / f"vault-n{args.notes}-s7", args.work / f"data-n{args.notes}-s7"
    os.environ["DAGSTER_HOME"] = str(data / "dagster")
    settings = Settings(vault=vault.resolve(), data=data.resolve(), now=dt.date.fromisoformat(NOW))
    time_store_writes(lambda store, seconds: STORE_SECONDS.__setitem__(store, STORE_SECONDS[store] + seconds))
    if args.build and not data.is_dir():
        build(settings, args.notes)
    # The first ingest of the process, as `lucasrag watch` and `mcp --watch` run it: imports, the model, the
    # instance, anything left from an earlier run, then every workspace warmed (lucasrag_assets.long_lived).
    import resource

    cleaned = clean_earlier_runs(settings.vault)
    if cleaned:
        print(f"{cleaned} notes cleaned of earlier runs' changes (the first ingest takes them in)", flush=True)
    started = time.perf_counter()
    first_ingest(settings)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    warmed = "not warmed" if args.cold_first or first_ingest is run_ingest else "workspaces warmed"
    print(f"first ingest ({warmed}): {time.perf_counter() - started:.1f} s, peak RSS {rss:.0f} MB", flush=True)
    # the query side open, as a running MCP server's is (the first check would otherwise time opening the four
    # workspaces: 4.6-7.5 s at 100,000 notes)
    found_anywhere(settings, "warm")
    state = {
        "edit_note": pick_note(settings, "personal"),
        "move_note": pick_note(settings, "technical"),
        "move_from": "technical",
        "move_to": "personal",
    }
    poller = Poller(settings, args.stand_in_vectors, args.poll) if args.poll else None
    ingest = ChangeIngest(settings, args.list_each_run)
    if ingest.events is not None:
        ingest.events.take()  # what the first ingest already listed
    try:
        rows = [
            one_change(settings, kind, state, ingest, poller)
            for _ in range(args.rounds)
            for kind in ("edit", "add", "delete", "move")
        ]
    finally:
        ingest.close()
        if poller is not None:
            poller.close()
    load = os.getloadavg()[0]
    vectors = ", stand-in vectors" if args.stand_in_vectors else ""
    print(
        f"{args.notes} notes{vectors}, load {load:.1f}; save → the run done and a query that shows it (s), in process;"
        f" each run given {ingest.how}"
    )
    if poller is not None:
        print(f"  and save → shown to another process asking every {args.poll:g} s (s), in brackets")
    for kind in ("edit", "add", "delete", "move"):
        mine = [r for r in rows if r["kind"] == kind]
        totals = ", ".join(f"{r['total_s']:.2f}" + _shown(r, poller) for r in mine)
        print(f"  {kind:6s} {totals}   ok {all(r['ok'] for r in mine)}")
        last = mine[-1]
        print("         steps:  " + ", ".join(f"{k} {v:.2f}" for k, v in last["steps"].items()))
        print("         stores: " + ", ".join(f"{k} {v:.2f}" for k, v in last["stores"].items()))
    sizes = store_sizes(settings)
    print("  store files (MB, four workspaces): " + ", ".join(f"{k} {v:.1f}" for k, v in list(sizes.items())[:8]))
    medians = {
        k: statistics.median(r["total_s"] for r in rows if r["kind"] == k) for k in ("edit", "add", "delete", "move")
    }
    print(f"  median of all {len(rows)}: {statistics.median(r['total_s'] for r in rows):.2f} s", end="")
    shown = [r["searchable_s"] for r in rows if r["searchable_s"] is not None]
    if poller is not None:
        print(f", shown to the other process {statistics.median(shown):.2f} s ({len(shown)} of {len(rows)})", end="")
    print()
    if args.json:
        args.json.write_text(
            json.dumps({"notes": args.notes, "load": load, "rows": rows, "sizes": sizes, "medians": medians}, indent=1)
        )


if __name__ == "__main__":
    main()
