"""The care detector's share of ingest time, on a generated vault.

    python benchmarks/care_cost.py [--notes 120] [--out .lucasrag_data/bench/care_cost]

Generates a vault (``lucasrag_harness.evaluation.vault_generator``), runs a full
in-process ingest from an empty data folder and times it, then times the care
detector alone (``assess_chunk`` with the vault's deference list) over every
chunk the ingest produced. Prints both and the share; the share at 1,000 notes
is the same ratio (both are linear in chunks), which the script states rather
than extrapolating a constant.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from datetime import date
from pathlib import Path

from lucasrag.deference import load_deference
from lucasrag.settings import Settings
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.rules.care.detector import assess_chunk
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
    start = time.perf_counter()
    run_ingest(settings)
    ingest_s = time.perf_counter() - start
    import pickle

    chunks = pickle.loads((Path(os.environ["DAGSTER_HOME"]) / "storage" / "banded_chunks").read_bytes())
    subjects = load_deference(settings.vault)
    texts = chunks["text"].to_list()
    start = time.perf_counter()
    for t in texts:
        assess_chunk(t, subjects)
    care_s = time.perf_counter() - start
    print(
        f"notes={args.notes} chunks={len(texts)} ingest={ingest_s:.1f}s care_detector={care_s:.2f}s "
        f"share={100 * care_s / ingest_s:.2f}% ({1000 * care_s / max(len(texts), 1):.2f} ms/chunk)"
    )


if __name__ == "__main__":
    main()
