"""What the assistants' calls cost: ``recent`` on a 10,000-note catalogue, and filtered against unfiltered search.

    python benchmarks/recent_and_filters.py --data .lucasrag_data/eval/policy/data-n1000-s7 \\
        --vault .lucasrag_data/eval/policy/vault-n1000-s7 [--now 2026-06-01]

``recent``: the catalogue of an ingested vault, repeated with distinct paths and dates spread over twenty
years until it holds 10,000 notes, in a temporary data folder (``recent`` reads only the catalogue); p50/p95
of ``recent(7)`` and ``recent(30)``. Search: the same questions asked of ``query()`` without a filter and
with ``folders``/``after`` filters on the ingested vault; p50/p95 of each (warm: one round first).
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import polars as pl

from lucasrag.catalog import catalog_path, read_catalog
from lucasrag.settings import Settings

QUESTIONS = ["where do I live?", "what car do I have?", "which bank am I with?", "what is my job?", "my pet"]


def timed(fn, rounds: int) -> tuple[float, float]:
    fn()  # warm
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def ten_thousand(settings: Settings, folder: Path) -> Settings:
    frame = read_catalog(settings)
    copies = []
    for i in range(-(-10_000 // frame.height)):
        shift = dt.timedelta(days=730 * i)
        copies.append(
            frame.with_columns(
                (pl.lit(f"copy{i}/") + pl.col("path")).alias("path"),
                (pl.col("date").str.to_date(strict=False) - shift).cast(pl.String).alias("date"),
            )
        )
    big = pl.concat(copies).head(10_000)
    target = replace(settings, data=folder)
    catalog_path(target).parent.mkdir(parents=True, exist_ok=True)
    big.write_parquet(catalog_path(target))
    assert big.height == 10_000
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--now", default="2026-06-01")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    from lucasrag_query import query
    from lucasrag_query.recent import recent

    settings = Settings(vault=args.vault.resolve(), data=args.data.resolve(), now=dt.date.fromisoformat(args.now))
    with tempfile.TemporaryDirectory() as tmp:
        big = ten_thousand(settings, Path(tmp))
        for days in (7, 30):
            p50, p95 = timed(lambda days=days: recent(days, settings=big), args.rounds)
            print(f"recent({days}) over 10,000 catalogued notes: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    variants = {
        "unfiltered": {},
        "folders=['journal']": {"folders": ["journal"]},
        "after='2020'": {"after": "2020"},
        "after='2020', folders=['journal']": {"after": "2020", "folders": ["journal"]},
    }
    for name, kwargs in variants.items():
        p50, p95 = timed(lambda kwargs=kwargs: [query(q, settings=settings, **kwargs) for q in QUESTIONS], 6)
        print(f"search {name}: p50 {p50 / len(QUESTIONS):.1f} ms, p95 {p95 / len(QUESTIONS):.1f} ms per query")


if __name__ == "__main__":
    main()
