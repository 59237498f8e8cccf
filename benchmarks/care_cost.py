"""The care detector's embedding calls and share of ingest time, on a generated vault.

    python benchmarks/care_cost.py [--notes 1000] [--out .lucasrag_data/bench/care_cost]

Generates a vault (``lucasrag_harness.evaluation.vault_generator``, seed 7) and
runs two cold in-process ingests of it side by side, each from an empty data
folder: one as shipped (the detector's vector evidence on: one forward pass per
chunk that names a subject, whose passage vector the index finds in the shared
embedding cache) and one with the vector evidence off (lexical only, the
detector's cheapest form). The difference in texts the embedding model ran on
(``EmbeddingStats``) is the detector's extra embedding calls. Then the detector
alone is timed over every chunk of the first ingest, through a fresh, empty
embedding cache (its forward passes included, which the index then does not
repeat), and lexical only. Prints the figures and the load average.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from datetime import date
from pathlib import Path

import polars as pl

import lucasrag_assets.assets.chunks as chunks_asset
from lucasrag.deference import load_deference
from lucasrag.embedding import get_embedder
from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.embedding_models import CALIBRATED_MODEL, DEFAULT_MODEL
from lucasrag.settings import Settings
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.rules.care.detector import assess_chunk
from lucasrag_harness.evaluation.vault_generator import generate_vault


def embedded_texts() -> int:
    """Texts every loaded embedder instance ran on (``get_embedder()`` and ``get_embedder(id)`` are two)."""
    embedders = {id(e): e for e in (get_embedder(), get_embedder(DEFAULT_MODEL), get_embedder(CALIBRATED_MODEL))}
    return sum(e.stats.texts for e in embedders.values())


def ingest(out: Path, vault: Path, now: date, *, vectors: bool) -> tuple[float, int, dict, Settings]:
    data = out / ("data-vectors" if vectors else "data-lexical")
    os.environ["DAGSTER_HOME"] = str((data / "dagster").resolve())
    settings = Settings.from_env(vault=vault, data=data, now=now)
    shipped = chunks_asset.vector_warning
    if not vectors:  # the asset's own switch: the warning that turns the vector evidence off
        chunks_asset.vector_warning = lambda *_: "vector evidence off for the benchmark's lexical-only run"
    try:
        before, start = embedded_texts(), time.perf_counter()
        summary = run_ingest(settings)
        return time.perf_counter() - start, embedded_texts() - before, summary.step_seconds, settings
    finally:
        chunks_asset.vector_warning = shipped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=Path(".lucasrag_data/bench/care_cost"))
    args = ap.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    truth = generate_vault(args.out / "vault", args.notes, seed=7, overwrite=True)
    now = date.fromisoformat(truth.now)
    get_embedder().embed(["warm the session"])  # not counted against either run
    runs = {v: ingest(args.out, args.out / "vault", now, vectors=v) for v in (True, False)}
    (on_s, on_texts, on_steps, settings), (off_s, off_texts, off_steps, _) = runs[True], runs[False]

    frame = pl.read_parquet(settings.data / "assets" / "banded_chunks.parquet")  # the IO manager's output
    subjects = load_deference(settings.vault)
    texts = frame["text"].to_list()
    cache = EmbeddingCache(args.out / "care_only_embeddings.sqlite", CALIBRATED_MODEL)
    start = time.perf_counter()
    for t in texts:
        assess_chunk(t, subjects, embed=cache.embed_spans)
    vector_s = time.perf_counter() - start
    passes = cache.misses
    start = time.perf_counter()
    for t in texts:
        assess_chunk(t, subjects)
    lexical_s = time.perf_counter() - start
    cache.close()
    print(
        f"notes={args.notes} chunks={len(texts)} load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n"
        f"ingest, vector evidence on:  {on_s:.1f}s, texts embedded={on_texts}, "
        f"banded_chunks step {on_steps.get('banded_chunks', float('nan')):.1f}s\n"
        f"ingest, lexical only:        {off_s:.1f}s, texts embedded={off_texts}, "
        f"banded_chunks step {off_steps.get('banded_chunks', float('nan')):.1f}s\n"
        f"extra embedding calls of the detector: {on_texts - off_texts}\n"
        f"detector alone over every chunk: {vector_s:.2f}s with its {passes} forward passes "
        f"({100 * vector_s / on_s:.2f}% of the ingest; the index reuses those passes), "
        f"{lexical_s:.2f}s lexical only ({100 * lexical_s / on_s:.2f}%)"
    )


if __name__ == "__main__":
    main()
