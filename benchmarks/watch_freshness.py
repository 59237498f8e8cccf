"""Freshness: seconds from saving a note to finding it through `lucasrag mcp --watch` (a benchmark, not a test).

    python benchmarks/watch_freshness.py --work /tmp/fresh                 # the sample vault and 1,000 notes
    python benchmarks/watch_freshness.py --work /tmp/fresh --notes 0       # the sample vault only
    python benchmarks/watch_freshness.py --work /tmp/fresh --debounce 1

For each vault (the sample vault; the generated vault of ``--notes`` notes, seed 7, built and
ingested once under ``--work``): a copy of the vault and its data folder, `lucasrag mcp --watch`
started over stdio with the SDK client, and — once the watcher's catch-up ingest (nothing
changed) is done — two saves, each timed until `search` returns it (polled every 0.25 s):
  new     a new note with a word found nowhere else
  edited  a line with another such word appended to an existing note
Where the time goes: the debounce (no change event for that long), one fingerprint of the vault once it
settled (its cost at this size is printed; with ``--poll`` the watcher would take one every second), and the
ingest as the watcher timed
it (the note is found as soon as its workspace's index is written, before the ingest ends). Then, on the same copy in this process, one more
one-note ingest split by Dagster step (``run_ingest``'s own step times; the first, unchanged
ingest in this process warms Dagster and is timed too).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio  # noqa: E402
from _common import CLI, NOW, build_generated, cli_env, ensure_ingested  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from lucasrag.settings import Settings  # noqa: E402
from lucasrag.vault_files import vault_fingerprint  # noqa: E402


async def _until_watching(client: Client) -> dict:
    while True:
        watch = (await client.call_tool("status", {})).structured_content["watch"]
        if watch["state"] == "watching":
            return watch
        await anyio.sleep(0.5)


async def _until_found(client: Client, word: str, saved: float) -> float:
    while True:
        found = await client.call_tool("search", {"query": word, "top_k": 5})
        if any(word in r["text"] for r in found.structured_content["results"]):
            return time.perf_counter() - saved
        await anyio.sleep(0.25)


def _edit_target(vault: Path) -> Path:
    """An existing, ordinary note (a journal entry if there is one)."""
    notes = sorted(p for p in vault.rglob("*.md") if not any(part.startswith(".") for part in p.parts))
    journal = [p for p in notes if "journal" in p.parts or "personal" in p.parts]
    return (journal or notes)[len(journal or notes) // 2]


def measure(settings: Settings, debounce: float) -> dict:
    """The two saves under `mcp --watch` on ``settings``'s vault (a copy of ``settings.data`` is used)."""
    args = [*CLI[1:], "mcp", "--watch", "--debounce", str(debounce)]
    params = StdioServerParameters(command=sys.executable, args=args, env=cli_env(settings), cwd=str(REPO))
    vault = settings.vault
    out: dict = {}

    async def run() -> None:
        async with Client(params, read_timeout_seconds=900) as client:
            t0 = time.perf_counter()
            watch = await _until_watching(client)
            out["catch_up_s"] = watch["last_seconds"]
            out["start_s"] = time.perf_counter() - t0
            for case in ("new", "edited"):
                word = f"zebrafinch{case}lantern"
                if case == "new":
                    (vault / "watch-probe.md").write_text(
                        f"---\nworkspace: personal\n---\nToday I saw a {word} by the river.\n", encoding="utf-8"
                    )
                else:  # a note search returns (so one that is indexed: not invalid, not quarantined)
                    top = await client.call_tool("search", {"query": "today I", "top_k": 1})
                    target = vault / top.structured_content["results"][0]["path"]
                    with target.open("a", encoding="utf-8") as fh:
                        fh.write(f"\n\nLater that day: a {word} again.\n")
                before = (await client.call_tool("status", {})).structured_content["watch"]["ingests"]
                saved = time.perf_counter()
                seconds = await _until_found(client, word, saved)
                # Found once its workspace's index is written; the ingest goes on (catalog, checks).
                while (watch := (await client.call_tool("status", {})).structured_content["watch"])[
                    "ingests"
                ] <= before or watch["state"] != "watching":
                    await anyio.sleep(0.5)
                out[case] = {
                    "seconds": seconds,
                    "ingest_s": watch["last_seconds"],
                    "ended_s": time.perf_counter() - saved,
                }

    anyio.run(run)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        vault_fingerprint(vault)
        times.append((time.perf_counter() - t0) * 1000)
    out["fingerprint_ms"] = statistics.median(times)
    return out


def steps(settings: Settings) -> dict:
    """One unchanged and one one-note ingest in this process, by Dagster step."""
    from lucasrag_assets.ingest import run_ingest

    os.environ["DAGSTER_HOME"] = str(settings.data / "dagster")
    unchanged = run_ingest(settings)
    with _edit_target(settings.vault).open("a", encoding="utf-8") as fh:
        fh.write("\n\nOne more line about the heron by the weir.\n")
    one = run_ingest(settings)
    return {"unchanged_s": unchanged.seconds, "one_s": one.seconds, "steps": one.step_seconds}


def copy_of(settings: Settings, tmp: Path) -> Settings:
    vault = Path(shutil.copytree(settings.vault, tmp / "vault", symlinks=True))
    data = Path(shutil.copytree(settings.data, tmp / "data", symlinks=True))
    return Settings(vault=vault, data=data, now=settings.now)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True, help="ingested vaults are kept here between runs")
    parser.add_argument("--notes", type=int, default=1000, help="size of the generated vault (0: sample vault only)")
    parser.add_argument("--debounce", type=float, default=2.0)
    parser.add_argument("--no-steps", action="store_true", help="skip the in-process ingests split by step")
    parser.add_argument("--no-sample", action="store_true", help="the generated vault only")
    args = parser.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    now = dt.date.fromisoformat(NOW)
    vaults = {} if args.no_sample else {"sample": Settings(vault=REPO / "vault", data=work / "data-sample", now=now)}
    if args.notes:
        vault, _ = build_generated(work, args.notes)
        vaults[f"{args.notes} notes"] = Settings(vault=vault, data=work / f"data-embedded-n{args.notes}", now=now)
    print(f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, debounce {args.debounce:g} s")
    rows = {}
    for name, settings in vaults.items():
        ensure_ingested(settings, work / f"ingest-{name.replace(' ', '-')}.log")
        with tempfile.TemporaryDirectory(prefix="lucasrag-fresh-") as tmp:
            copy = copy_of(settings, Path(tmp))
            load0 = os.getloadavg()[0]
            row = measure(copy, args.debounce)
            if not args.no_steps:
                row.update(steps(copy))
            row["load"] = (load0, os.getloadavg()[0])
            rows[name] = row
            print(_lines(name, row, args.debounce), flush=True)
    print("\n| vault | new note → found s | edited note → found s | their ingests s | catch-up ingest (unchanged) s |")
    print("|---|---|---|---|---|")
    for name, r in rows.items():
        print(
            f"| {name} | {r['new']['seconds']:.1f} | {r['edited']['seconds']:.1f} | "
            f"{r['new']['ingest_s']:.1f} / {r['edited']['ingest_s']:.1f} | {r['catch_up_s']:.1f} |"
        )


def _lines(name: str, r: dict, debounce: float) -> str:
    lines = [f"\n{name} (load average {r['load'][0]:.1f} → {r['load'][1]:.1f}):"]
    lines.append(
        f"  server start + catch-up ingest (nothing changed): {r['start_s']:.1f} s (ingest {r['catch_up_s']:.1f} s)"
    )
    for case in ("new", "edited"):
        c = r[case]
        lines.append(
            f"  {case:6} saved → found {c['seconds']:.1f} s (debounce {debounce:g} s, then the ingest: found once its "
            f"workspace is written); the ingest took {c['ingest_s']:.1f} s and ended {c['ended_s']:.1f} s after the save"
        )
    lines.append(f"  fingerprint of the vault (once per settled change): {r['fingerprint_ms']:.1f} ms")
    if "steps" not in r:
        return "\n".join(lines)
    by_step = ", ".join(f"{k} {v:.1f}" for k, v in sorted(r["steps"].items(), key=lambda kv: -kv[1])[:8])
    lines.append(
        f"  in this process: unchanged ingest {r['unchanged_s']:.1f} s (first in the process: Dagster warms up), "
        f"one-note ingest {r['one_s']:.1f} s; by step (s): {by_step}"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
