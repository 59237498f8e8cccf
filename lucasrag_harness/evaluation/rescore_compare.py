"""Two (or more) second-stage model files side by side on the same recorded LoCoMo pools: session Hit@1 /
R@3 / R@5 / R@10 / MRR / NDCG@5 per question, so a sign test between the first two; and, with ``--cost``,
what the stage itself costs with each model.

The pools are those ``lucasrag eval locomo`` ranks: each question of the ``--half`` asked once of
``query()`` on the builds a run left under ``--out`` (per conversation) and/or ``--pooled-out`` (the pooled
run's ``pooled`` folder, all ten conversations in one vault), and the inputs the final ranking hands the
stage recorded (``rescore_fit.collect``). The fused order is printed beside the models.

``--cost``: ``_rescore.rescore`` over each question's recorded inputs (per conversation), once per model
and round, interleaved; each question's best of the rounds; p50 and p95 (ms), and the load average.

    python -m lucasrag_harness.evaluation.rescore_compare --half report --out .lucasrag_data/eval/locomo \\
        --pooled-out .lucasrag_data/eval/locomo/pooled \\
        --model shipped=lucasrag_query/rescore_model.json \\
        --model candidate=/tmp/rescore_model.candidate.json
    python -m lucasrag_harness.evaluation.rescore_compare --half tune --out .lucasrag_data/eval/locomo --cost \\
        --model ... --model ...

Cited by docs/locomo.md, "The learned second stage" (its cost) and "Tried and not kept" (the stage that keeps
the fused top 5, look 7 on the report half).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

from lucasrag_harness.evaluation import rescore_fit as rf
from lucasrag_harness.evaluation.locomo import SESSION_CATEGORIES, load_locomo
from lucasrag_harness.evaluation.locomo_eval import select_conversations
from lucasrag_harness.evaluation.locomo_sweep import record_pools, recorded_pools_parser
from lucasrag_query import _rescore

COLUMNS = ("Hit@1", "R@3", "R@5", "R@10", "MRR", "NDCG@5")
FUSED = "fused"


def _means(rows: list[dict], columns=COLUMNS, where=None) -> str:
    picked = rows if where is None else [rows[i] for i in where]
    return " / ".join(f"{np.mean([r[c] for r in picked]):.3f}" for c in columns)


def report(label: str, questions: list[rf.Question], models: dict[str, _rescore.RescoreModel]) -> None:
    rows = {FUSED: [rf.metrics(q, None) for q in questions]}
    rows.update({name: [rf.metrics(q, m) for q in questions] for name, m in models.items()})
    for name, r in rows.items():
        print(f"{label} {name}: {_means(r)}")
    if len(models) >= 2:
        first, second = list(models)[:2]
        wins = sum(a["Hit@1"] > b["Hit@1"] for a, b in zip(rows[second], rows[first]))
        losses = sum(a["Hit@1"] < b["Hit@1"] for a, b in zip(rows[second], rows[first]))
        print(f"{label} {second} vs {first}, Hit@1: +{wins} −{losses}, sign test p {rf.sign_test(wins, losses):.3f}")
    for conv in dict.fromkeys(q.conversation for q in questions):
        where = [i for i, q in enumerate(questions) if q.conversation == conv]
        hits = ", ".join(f"{name} {_means(r, ('Hit@1',), where)}" for name, r in rows.items())
        print(f"  {conv} (n {len(where)}): Hit@1 {hits}")
    scored = [i for i, q in enumerate(questions) if q.category != SESSION_CATEGORIES[5]]
    print(
        f"{label} categories 1-4 (n {len(scored)}): "
        + "; ".join(f"{name} {_means(r, ('Hit@1', 'R@5', 'MRR'), scored)}" for name, r in rows.items())
    )


def stage_cost(chosen, out: Path, models: dict[str, _rescore.RescoreModel], rounds: int) -> None:
    inputs = [rf.stage_inputs(r) for r in record_pools(chosen, out)]
    took = {name: np.zeros((rounds, len(inputs))) for name in models}
    for round_ in range(rounds):
        for i, given in enumerate(inputs):
            for name, model in models.items():
                started = time.perf_counter()
                _rescore.rescore(**given, model=model)
                took[name][round_, i] = (time.perf_counter() - started) * 1000
    for name, t in took.items():
        best = t.min(0)
        print(
            f"{name} (k {models[name].top_k}, keep_top {models[name].keep_top}): p50 {np.median(best):.3f} ms, "
            f"p95 {np.percentile(best, 95):.3f} ms over {len(inputs)} questions, best of {rounds}"
        )
    print(f"load {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f}")


def main(argv: list[str] | None = None) -> None:
    parser = recorded_pools_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--pooled-out", type=Path, default=None, help="the pooled run's `pooled` folder")
    parser.add_argument(
        "--model", action="append", required=True, help="NAME=PATH of a model file (repeat; the first two are tested)"
    )
    parser.add_argument("--no-per-conversation", action="store_true", help="the pooled protocol only")
    parser.add_argument("--cost", action="store_true", help="time the stage with each model instead of scoring")
    parser.add_argument("--rounds", type=int, default=2, help="--cost: rounds (best of)")
    args = parser.parse_args(argv)
    models = {}
    for spec in args.model:
        name, _, path = spec.partition("=")
        if not path:
            parser.error(f"--model {spec!r}: expected NAME=PATH")
        models[name] = _rescore.RescoreModel.from_dict(json.loads(Path(path).read_text()))
    chosen = select_conversations(load_locomo(args.data), args.half, args.conversations)
    print(f"{args.half} half: {', '.join(c.sample_id for _, c in chosen)}")
    if args.cost:
        stage_cost(chosen, args.out.resolve(), models, args.rounds)
        return
    started = time.time()
    if not args.no_per_conversation:
        questions = rf.collect_all(chosen, args.out.resolve())
        report("per conversation", questions, models)
        print(f"{len(questions)} questions, {time.time() - started:.0f} s", flush=True)
    if args.pooled_out:
        now = max(c.now for _, c in select_conversations(load_locomo(args.data), "all", None))
        questions = rf.collect_pooled(chosen, args.pooled_out, now)
        report("pooled", questions, models)
        print(f"{len(questions)} questions, {time.time() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
