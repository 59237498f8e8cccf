"""Ordinary questions asked of a real vault with today's date and default settings.

    python benchmarks/real_vault_questions.py kepano-obsidian=/work/shared/data/vaults/kepano-obsidian
    python benchmarks/real_vault_questions.py kepano-obsidian=PATH --now 2026-12-05 --keep /tmp/kepano-data
    python benchmarks/real_vault_questions.py handbook=/tmp/gardens/handbook   # a garden of benchmarks/garden_labels

Ingests the vault into a scratch data folder (the embedded profile, every other setting its default)
and asks the questions of ``benchmarks/real_vault_questions.yaml``: a question is answered when its
note is in the top 3; a closed recency case must keep its old time-bound note out of the results by
default and find it when the question names a period. Then, from the labels in the same file, the
share of timeless notes banded archival and of time-bound notes still present, and, from
``benchmarks/cold_start_labels.yaml`` when it labels the vault, the quarantine share of content notes.
A vault labelled in ``benchmarks/garden_labels/NAME.labels.yaml`` (workspace and what ages per note,
written before LucasRAG ran on it) takes both labels from there.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import tempfile
from pathlib import Path

import polars as pl
import yaml

from lucasrag.settings import Settings
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.io_manager import asset_value_path
from lucasrag_query import query

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "real_vault_questions.yaml"
ROUTING_LABELS = HERE / "cold_start_labels.yaml"
GARDEN_LABELS = HERE / "garden_labels"
TOP = 3


def rank_of(text: str, expect: str, settings: Settings) -> int | None:
    """1-based rank of the first result from ``expect``, or None."""
    paths = [r.path for r in query(text, settings=settings).results]
    return paths.index(expect) + 1 if expect in paths else None


def _content(label: object) -> bool:
    """A note a person would index: a workspace label that does not accept quarantine (``none``)."""
    return label != "none" and not (isinstance(label, list) and "none" in label)


def labels_of(name: str) -> tuple[dict, dict[str, str], set[str] | None]:
    """The vault's questions, what-ages labels and content notes (:func:`_content`; None when nobody
    labelled them)."""
    spec = yaml.safe_load(QUESTIONS.read_text())["vaults"].get(name, {})
    garden = GARDEN_LABELS / f"{name}.labels.yaml"
    if garden.is_file():
        notes = yaml.safe_load(garden.read_text())["notes"]
        ages = {p: label["ages"] for p, label in notes.items()}
        return spec, ages, {p for p, label in notes.items() if _content(label["workspace"])}
    routing = yaml.safe_load(ROUTING_LABELS.read_text())["vaults"].get(name)
    content = None if routing is None else {p for p, label in routing["notes"].items() if _content(label)}
    return spec, spec.get("ages", {}), content


def report(name: str, vault: Path, now: dt.date, data: Path) -> None:
    spec, ages, content = labels_of(name)
    settings = Settings.from_env(vault=vault.resolve(), data=data, now=now)
    summary = run_ingest(settings)
    print(f"{name}: ingested in {summary.seconds:.0f}s, indexed {sum(summary.per_workspace.values())} notes")

    catalog = pl.read_parquet(asset_value_path(settings.data, ["note_catalog"]))
    status = dict(catalog.select("path", "status").iter_rows())
    answered = 0
    for case in spec.get("questions", []):
        rank = rank_of(case["q"], case["expect"], settings)
        answered += rank is not None and rank <= TOP
        print(f"  rank {rank or '-':>2}  {case['q']}  → {case['expect']} ({status.get(case['expect'])})")
    if spec.get("questions"):
        print(f"answered at rank ≤ {TOP}: {answered} of {len(spec['questions'])}")
    for case in spec.get("closed", []):
        if status.get(case["expect"]) != "indexed":
            print(f"  closed case not testable: {case['expect']} is {status.get(case['expect'])}")
            continue
        closed, opened = rank_of(case["q"], case["expect"], settings), rank_of(case["open"], case["expect"], settings)
        kept = closed is None and opened is not None and opened <= TOP
        print(f"  closed case {'kept' if kept else 'LOST'}: default rank {closed}, with a period rank {opened}")

    chunks = pl.read_parquet(asset_value_path(settings.data, ["banded_chunks"]))
    bands = dict(chunks.group_by("path").agg(pl.col("band").first()).iter_rows())
    for kind, wrong in (("timeless", "archival"), ("time-bound", "present")):
        labelled = [p for p, label in ages.items() if label == kind and p in bands]
        off = [p for p in labelled if bands[p] == wrong]
        share = len(off) / len(labelled) if labelled else 0.0
        print(f"{kind} notes banded {wrong}: {len(off)} of {len(labelled)} indexed ({share:.0%})  {off[:10]}")
    if content is not None:
        quarantined = sorted({p for p, _, _ in summary.quarantined} & content)
        share = len(quarantined) / len(content)
        print(f"quarantined content notes: {len(quarantined)} of {len(content)} ({share:.0%})  {quarantined[:10]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", help="NAME=PATH, NAME as in real_vault_questions.yaml")
    parser.add_argument("--now", default=dt.date.today().isoformat(), help="today, YYYY-MM-DD (default: today)")
    parser.add_argument("--keep", type=Path, help="data folder to keep (default: a scratch folder, removed)")
    args = parser.parse_args()
    name, _, path = args.vault.partition("=")
    data = args.keep or Path(tempfile.mkdtemp(prefix="lucasrag-real-vault-"))
    try:
        report(name, Path(path), dt.date.fromisoformat(args.now), data)
    finally:
        if args.keep is None:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
