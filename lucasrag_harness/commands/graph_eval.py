"""``python -m lucasrag_harness.commands.graph_eval sample|locomo``: retrieval with and without the entity graph (docs/graph.md).

The evaluation itself is harness (:mod:`lucasrag_harness.evaluation.graph_eval`); this entry
point composes it with the write side's ingest.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lucasrag_assets.ingest import run_ingest
from lucasrag_harness.evaluation.graph_eval import (
    REPO,
    build_sample,
    evaluate_locomo,
    evaluate_sample,
    locomo_conversation,
    markdown_locomo,
    markdown_sample,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m lucasrag_harness.commands.graph_eval", description=__doc__.split("\n")[0]
    )
    ap.add_argument("dataset", choices=["sample", "locomo", "locomo-one"])
    ap.add_argument("--index", type=int, default=0, help="locomo-one: which conversation")
    ap.add_argument("--out", type=Path, default=Path(".lucasrag_data/eval/graph"))
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo/locomo10.json")
    ap.add_argument("--conversations", type=int, default=3)
    ap.add_argument("--questions", type=int, default=None, help="per conversation (default: all)")
    ap.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.dataset == "sample":
        report = evaluate_sample(build_sample(args.out, run_ingest))
        print(markdown_sample(report))
    elif args.dataset == "locomo-one":
        report = locomo_conversation(args.data, args.out, args.index, args.questions, run_ingest)
    else:
        report = evaluate_locomo(
            args.data,
            args.out / "locomo",
            args.conversations,
            args.questions,
            [sys.executable, "-m", __name__, "locomo-one"],
        )
        print(markdown_locomo(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
