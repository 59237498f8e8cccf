"""``lucasrag eval policy``: recency, care and governance judged on a generated vault.

Imports nothing heavy at module level (``lucasrag --help`` stays fast).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import typer

REPO_ROOT = Path(__file__).resolve().parents[2]  # the repository (lucasrag_harness/commands/ → root)
DEFAULT_OUT = ".lucasrag_data/eval/policy"


def prepare(out: Path, notes: int, seed: int):
    """Generate (or reuse) ``out/vault-n{notes}-s{seed}`` and ingest it (incremental: an
    unchanged vault costs seconds). Returns (settings, truth, ingest summary)."""
    import datetime as dt

    from lucasrag.settings import Settings
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_harness.evaluation.vault_generator import GroundTruth, generate_vault, truth_path

    vault = out / f"vault-n{notes}-s{seed}"
    tpath = truth_path(vault)
    truth = GroundTruth.load(tpath) if tpath.is_file() and vault.is_dir() else None
    if truth is None or truth.n_notes != notes or truth.seed != seed:
        truth = generate_vault(vault, notes, seed=seed, overwrite=True)
    settings = Settings.from_env(vault=vault, data=out / f"data-n{notes}-s{seed}", now=dt.date.fromisoformat(truth.now))
    return settings, truth, run_ingest(settings)


def policy_command(
    notes: int = typer.Option(1000, "--notes", help="Files in the generated vault."),
    seed: int = typer.Option(7, "--seed", help="Generator seed."),
    out: Path | None = typer.Option(
        None, "--out", help=f"Working folder (default {DEFAULT_OUT}); an ingest there is reused."
    ),
    json_file: Path | None = typer.Option(None, "--json", help="Also write the full report as JSON here."),
    ablations: bool = typer.Option(
        True, "--ablations/--no-ablations", help="Re-run with banding, deference, temporal preference off."
    ),
) -> None:
    """Judge every generated query case (present facts, archive, care, quarantine, workspaces) and the ingest."""
    from lucasrag_harness.evaluation.policy_eval import run_policy_eval

    folder = (out.expanduser() if out else REPO_ROOT / DEFAULT_OUT).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    settings, truth, summary = prepare(folder, notes, seed)
    print(
        f"vault {settings.vault} ({truth.n_notes} files, {len(truth.cases)} cases) ingested in {summary.seconds:.1f}s",
        file=sys.stderr,
    )

    def progress(run: str, done: int, total: int) -> None:
        if done == total or done % 20 == 0:
            print(f"  {run}: {done}/{total} queries", file=sys.stderr)

    report = run_policy_eval(settings, truth, ablations=ablations, progress=progress)
    print(
        f"# Policy evaluation: {truth.n_notes} generated files, seed {seed} ({time.perf_counter() - t0:.0f}s in all)\n"
    )
    print(report.to_markdown())
    if json_file:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        json_file.write_text(json.dumps(report.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"\nfull report: {json_file}", file=sys.stderr)
