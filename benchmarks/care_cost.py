"""The care detector's share of ingest time, on a generated vault.

    python benchmarks/care_cost.py [--notes 120] [--out .lucasrag_data/bench/care_cost]

Generates a vault (``lucasrag_harness.evaluation.vault_generator``), runs a full
in-process ingest from an empty data folder and times it, counting the texts the
embedding model ran on (``EmbeddingStats``). Then times the care detector alone
(``assess_chunk`` with the vault's deference list and its vector evidence through
a fresh, empty embedding cache, so its sentence embeddings are included) over
every chunk the ingest produced, and counts its extra embedding calls: the
sentences about a subject that are not themselves chunk texts (a chunk text is
embedded by the index anyway; the shared cache makes it one call). Prints both
and the shares; the share at 1,000 notes is the same ratio (both are linear in
chunks), which the script states rather than extrapolating a constant.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from datetime import date
from pathlib import Path

import polars as pl

from lucasrag.deference import load_deference
from lucasrag.embedding import get_embedder
from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.settings import Settings
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.rules.care.detector import assess_chunk
from lucasrag_assets.rules.care.mentions import resolve_all
from lucasrag_harness.evaluation.vault_generator import generate_vault


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=120)
    ap.add_argument("--out", type=Path, default=Path(".lucasrag_data/bench/care_cost"))
    args = ap.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    truth = generate_vault(args.out / "vault", args.notes, seed=7, overwrite=True)
    os.environ.setdefault("DAGSTER_HOME", str((args.out / "dagster").resolve()))
    settings = Settings.from_env(vault=args.out / "vault", data=args.out / "data", now=date.fromisoformat(truth.now))
    stats = get_embedder().stats
    embedded_before = stats.texts
    start = time.perf_counter()
    run_ingest(settings)
    ingest_s = time.perf_counter() - start
    ingest_texts = stats.texts - embedded_before
    chunks = pl.read_parquet(settings.data / "assets" / "banded_chunks.parquet")  # the IO manager's output
    subjects = load_deference(settings.vault)
    texts = chunks["text"].to_list()
    chunk_texts = set(texts)
    sentences = {s for t in texts for c in resolve_all(t, subjects) for s in c.sentences if s.strip()}
    extra = len(sentences - chunk_texts)
    cache = EmbeddingCache(args.out / "care_only_embeddings.sqlite")
    start = time.perf_counter()
    for t in texts:
        assess_chunk(t, subjects, embed=cache.embed)
    care_s = time.perf_counter() - start
    print(
        f"notes={args.notes} chunks={len(texts)} ingest={ingest_s:.1f}s texts_embedded_by_ingest={ingest_texts} "
        f"care_detector={care_s:.2f}s share={100 * care_s / ingest_s:.2f}% "
        f"({1000 * care_s / max(len(texts), 1):.2f} ms/chunk, vector evidence included); "
        f"care sentences embedded={cache.misses}, of which not chunk texts (extra calls)={extra} "
        f"= {100 * extra / max(ingest_texts, 1):.2f}% of the ingest's embedded texts; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
