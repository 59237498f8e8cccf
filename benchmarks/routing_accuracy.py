"""Routing accuracy and calibration on a vault with known truth.

    python benchmarks/routing_accuracy.py                      # the sample vault
    python benchmarks/routing_accuracy.py --vault DIR --truth DIR.truth.json   # a generated vault

Prints accuracy on notes without a ``workspace:`` key (the ones the router
decides), how many content-free notes were quarantined, and a reliability
table: within each confidence bin, how often the top guess was right.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import polars as pl
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lucasrag.embedding_cache import EmbeddingCache  # noqa: E402
from lucasrag_assets.assets.notes import notes_frame  # noqa: E402
from lucasrag_assets.rules.routing.passes import route_frame  # noqa: E402
from lucasrag_assets.rules.vault_scan import scan_vault  # noqa: E402


def load_truth(path: Path) -> dict[str, dict]:
    raw = json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())
    return raw["notes"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vault", type=Path, default=REPO / "vault")
    parser.add_argument("--truth", type=Path, default=REPO / "tests" / "fixtures" / "sample_vault_truth.yaml")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--cache", type=Path, help="reuse an embedding cache (e.g. LUCASRAG_DATA/embeddings.sqlite)")
    args = parser.parse_args()

    truth = load_truth(args.truth)
    notes = notes_frame(scan_vault(args.vault, max_bytes=1 << 20))
    with tempfile.TemporaryDirectory() as tmp:
        cache = EmbeddingCache(args.cache or Path(tmp) / "emb.sqlite")
        decided = route_frame(notes, cache.embed, threshold=0.0)  # threshold 0: see every top guess
        cache.close()
    rows = decided.with_columns(
        pl.col("path")
        .map_elements(lambda p: truth.get(p, {}).get("workspace"), return_dtype=pl.String)
        .alias("truth_ws"),
        pl.col("path")
        .map_elements(lambda p: truth.get(p, {}).get("status"), return_dtype=pl.String)
        .alias("truth_status"),
    )
    routed = rows.filter(pl.col("declared_workspace").is_null() & (pl.col("truth_status") == "indexed"))
    content_free = rows.filter(pl.col("truth_status") == "quarantined")
    correct = routed.filter(pl.col("suggestion") == pl.col("truth_ws"))
    gated = routed.filter(pl.col("confidence") >= args.threshold)
    print(f"vault: {args.vault}  notes routed by content: {routed.height}")
    print(
        f"top-1 accuracy (no threshold): {correct.height / max(routed.height, 1):.3f} ({correct.height}/{routed.height})"
    )
    ok_gated = gated.filter(pl.col("suggestion") == pl.col("truth_ws")).height
    print(
        f"at threshold {args.threshold}: indexed {gated.height}/{routed.height}, "
        f"accuracy of indexed {ok_gated / max(gated.height, 1):.3f}, quarantined {routed.height - gated.height}"
    )
    held = content_free.filter(
        (pl.col("confidence") < args.threshold) | pl.col("route_reason").str.starts_with("too little")
    ).height
    print(f"truth-quarantined notes held back: {held}/{content_free.height}")
    print("\nreliability (confidence bin → accuracy, count):")
    bins = routed.with_columns((pl.col("confidence") * 10).floor().clip(0, 9).alias("bin"))
    for b, group in sorted(bins.group_by("bin"), key=lambda kv: kv[0][0]):
        acc = group.filter(pl.col("suggestion") == pl.col("truth_ws")).height / group.height
        print(f"  [{b[0] / 10:.1f}, {b[0] / 10 + 0.1:.1f})  accuracy {acc:.2f}  n={group.height}")
    wrong = routed.filter(pl.col("suggestion") != pl.col("truth_ws")).select(
        "path", "suggestion", "truth_ws", "confidence"
    )
    if wrong.height:
        print("\nmisrouted:")
        for row in wrong.head(30).iter_rows():
            print("  ", *row)
    print("\nquarantine candidates (truth):")
    for row in content_free.select("path", "suggestion", "confidence", "route_reason").iter_rows():
        print("  ", *row)


if __name__ == "__main__":
    main()
