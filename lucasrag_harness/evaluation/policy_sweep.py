"""The policy evaluation under each setting of the ranking's knobs, on a generated vault already ingested.

The check that a weight chosen on LoCoMo does not cost the product's own duties (present facts,
the archive's years, care, quarantine): it reads the vault, truth and indexes that ``lucasrag eval
policy --out FOLDER`` left (it ingests nothing) and runs every case once per setting, the knobs
set as ``lucasrag_harness.evaluation.locomo_sweep`` sets them.

    python -m lucasrag_harness.evaluation.policy_sweep --out /tmp/policy --notes 1000 \\
        --grid KEYWORD_WEIGHT=1,2
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from contextlib import ExitStack
from pathlib import Path

from lucasrag.settings import Settings
from lucasrag_harness.evaluation.locomo_sweep import knob, parse_grid
from lucasrag_harness.evaluation.policy_eval import run_policy_eval


def main(argv: list[str] | None = None) -> None:
    from lucasrag_harness.evaluation.vault_generator import GroundTruth, truth_path

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the --out folder of a `lucasrag eval policy` run")
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--grid", action="append", default=[], help="NAME=v1,v2 (repeat for a cartesian grid)")
    args = parser.parse_args(argv)
    vault = (args.out / f"vault-n{args.notes}-s{args.seed}").resolve()
    data = (args.out / f"data-n{args.notes}-s{args.seed}").resolve()
    if not truth_path(vault).is_file() or not data.is_dir():
        raise SystemExit(f"no ingested vault under {args.out}: run `lucasrag eval policy --out {args.out}` first")
    truth = GroundTruth.load(truth_path(vault))
    settings = Settings.from_env(vault=vault, data=data, now=dt.date.fromisoformat(truth.now))
    kinds = sorted({c.kind for c in truth.cases})
    print(f"{vault.name}: {len(truth.cases)} cases")
    print("| setting | all | " + " | ".join(kinds) + " | charged returned | s |")
    print("|---|---|" + "---|" * len(kinds) + "---|---|")
    for setting in [(), *(s for s in parse_grid(args.grid) if s)]:  # no grid: the defaults once
        started = time.perf_counter()
        with ExitStack() as stack:
            for name, value in setting:
                stack.enter_context(knob(name, value))
            report = run_policy_eval(settings, truth, ablations=False)
        rates = report.per_kind
        passed = sum(o.passed for o in report.cases)
        cells = [f"{rates[k]['passed']}/{rates[k]['cases']}" if k in rates else "–" for k in kinds]
        charged = sum(o.charged_returned for o in report.cases if o.kind.startswith("charged"))
        label = ", ".join(f"{n} {v:g}" for n, v in setting) or "defaults"
        print(
            f"| {label} | {passed}/{len(report.cases)} | " + " | ".join(cells) + f" | {charged} |"
            f" {time.perf_counter() - started:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
