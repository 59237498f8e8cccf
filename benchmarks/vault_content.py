"""What gets in from a vault, without writing an index: file statuses, date sources, the router's split.

    python benchmarks/vault_content.py /work/shared/data/vaults/kepano-obsidian

Scans with the vault's own conventions, builds the notes frame and calls ``route_frame`` with the
packaged embedding model at the configured threshold (default 0.5). Read-only: nothing is written.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import polars as pl

from lucasrag.embedding import get_embedder
from lucasrag.settings import Settings
from lucasrag_assets.assets.notes import notes_frame
from lucasrag_assets.rules.routing.passes import route_frame
from lucasrag_assets.rules.vault_scan import scan_vault


def main(vault: Path) -> None:
    settings = Settings.from_env(vault=vault.resolve())
    started = time.perf_counter()
    frame = notes_frame(scan_vault(settings.vault, max_bytes=settings.max_note_bytes))
    scanned = time.perf_counter() - started
    print(f"{vault}: {frame.height} files scanned in {scanned:.2f}s")
    print("status:", dict(Counter(frame["status"])))
    valid = frame.filter(pl.col("status") == "ok")
    print("dated:", valid.filter(pl.col("date").is_not_null()).height, "of", valid.height)
    print("date sources:", dict(Counter(valid["date_source"].fill_null("undated"))))
    print("warnings:", frame.filter(pl.col("warnings").list.len() > 0).height)
    decided = route_frame(frame, get_embedder().embed, settings.route_threshold)
    routed = decided.filter(pl.col("workspace").is_not_null()).height
    print(f"routed {routed}, quarantined {decided.height - routed} (threshold {settings.route_threshold})")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "vault"))
