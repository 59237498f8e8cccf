"""Does a quarantine review converge on a real vault? Prints figures.

    python benchmarks/quarantine_review.py VAULT --out /tmp/qreview

Copies VAULT, ingests it, then reviews as a person would from the pending list (``lucasrag quarantine list``,
or the ``approve_pending_note`` partitions): one decision per pending note, into the router's suggestion
(``personal`` when it has none), then ingests again; repeated until nothing is pending (at most five rounds).
Prints, per round, pending before, decisions, pending after, and indexed notes that left the index or moved
workspace without a decision of their own (0 when reviews converge).
"""

from __future__ import annotations

import argparse
import shutil
from datetime import date
from pathlib import Path

from lucasrag.catalog import read_catalog
from lucasrag.settings import Settings
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.routing_decisions import approve_quarantined


def state(settings: Settings) -> dict[str, tuple[str, str | None]]:
    return {r["path"]: (r["status"], r["workspace"]) for r in read_catalog(settings).to_dicts()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    vault = args.out / "vault"
    shutil.copytree(args.vault, vault, ignore=shutil.ignore_patterns(".git"))
    settings = Settings(vault=vault, data=args.out / "data", now=date(2026, 6, 1))
    run_ingest(settings)
    before = state(settings)
    print(f"{args.vault.name}: {len(before)} notes")
    total = 0
    for round_ in range(1, 6):
        rows = read_catalog(settings).to_dicts()
        pending = [r for r in rows if r["status"] == "quarantined"]
        if not pending:
            break
        decided = set()
        for row in pending:
            approve_quarantined(settings, row["path"], row["suggestion"] or "personal", rows=rows)
            decided.add(row["path"])
        total += len(decided)
        run_ingest(settings)
        after = state(settings)
        moved = [p for p, s in before.items() if s[0] == "indexed" and p not in decided and after.get(p) != s]
        left = sum(1 for s in after.values() if s[0] == "quarantined")
        print(
            f"round {round_}: pending {len(pending)}, decisions {len(decided)}, pending after {left}, "
            f"unchanged indexed notes moved {len(moved)}"
        )
        before = after
    print(
        f"decisions in all: {total}; pending at the end: {sum(1 for s in state(settings).values() if s[0] == 'quarantined')}"
    )


if __name__ == "__main__":
    main()
