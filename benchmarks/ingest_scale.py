"""Ingest cost at scale on generated vaults (a benchmark, not a test).

    python benchmarks/ingest_scale.py --notes 1000 10000

For each size: a fresh ingest (time per Dagster step; embedding seconds
measured inside the embedder; index write seconds), the pipeline's own
overhead (everything but computing embeddings) as a share of the total, a
re-ingest with nothing changed, and a re-ingest after changing one note.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lucasrag.embedding import get_embedder  # noqa: E402
from lucasrag.settings import Settings  # noqa: E402
from lucasrag_assets.ingest import run_ingest  # noqa: E402
from lucasrag_harness.evaluation.vault_generator import generate_vault  # noqa: E402

NOW = "2026-06-01"


def _folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def run(n: int, root: Path) -> dict:
    import datetime as dt

    vault, data = root / f"vault{n}", root / f"data{n}"
    generate_vault(vault, n, seed=7)
    settings = Settings(vault=vault, data=data, now=dt.date.fromisoformat(NOW))
    stats = get_embedder().stats
    e0 = stats.seconds
    first = run_ingest(settings)
    embed = stats.seconds - e0
    write = sum(m.get("write_seconds", 0) for m in first.index_metadata.values())
    unchanged = run_ingest(settings)

    note = next(p for p in sorted((vault / "tech").rglob("*.md")))
    with note.open("a", encoding="utf-8") as fh:
        fh.write("\n\nAdded a line about connection pool sizing after the benchmark run.\n")
    e1 = stats.seconds
    one = run_ingest(settings)
    return {
        "notes": n,
        "total_s": first.seconds,
        "embed_s": embed,
        "write_s": write,
        "overhead_s": first.seconds - embed,
        "overhead_pct": 100 * (first.seconds - embed) / first.seconds,
        "steps": first.step_seconds,
        "reingest_unchanged_s": unchanged.seconds,
        "reingest_one_note_s": one.seconds,
        "reingest_one_note_embed_s": stats.seconds - e1,
        "index_mb": _folder_mb(data / "indexes"),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [run(n, Path(tmp)) for n in args.notes]
    print(
        "\n| notes | total s | embedding s | index write s | overhead s (%) | re-ingest unchanged s | re-ingest 1 note s | index MB | peak RSS MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['notes']} | {r['total_s']:.1f} | {r['embed_s']:.1f} | {r['write_s']:.1f} | "
            f"{r['overhead_s']:.1f} ({r['overhead_pct']:.1f}%) | {r['reingest_unchanged_s']:.1f} | "
            f"{r['reingest_one_note_s']:.1f} | {r['index_mb']:.0f} | {r['peak_rss_mb']:.0f} |"
        )
    for r in rows:
        steps = ", ".join(f"{k} {v:.1f}s" for k, v in sorted(r["steps"].items(), key=lambda kv: -kv[1]))
        print(f"\nsteps at {r['notes']} notes: {steps}")


if __name__ == "__main__":
    main()
