"""A second stage over the fused top 10 that keeps the fused top 5 unless a margin says otherwise, judged
leave one conversation out (LOCO) and nested LOCO on recorded LoCoMo pools, per conversation and pooled.

The window: the stage re-orders the fused top ``--window`` (10) with a model fitted on its own top k. The
margin δ is added to the scores of the fused top ``--protect`` (5) before they are sorted: δ = 0 is the free
re-ordering, δ = ∞ is ``keep_top`` 5 (``_rescore.reorder``: the top 5 keep their set). Models are fitted by
``rescore_fit.fit`` over the 17 shipped features, one per (loss, k, λ) and held-out conversation; pooled
folds use the model fitted on the per-conversation pools of the other conversations. The sign test is over
questions, against the reference model's (the shipped family's) own LOCO predictions.

``--window 0`` re-orders each model's own top k (with δ 0: the shipped stage's way, ``rescore_fit``);
``--reference fused`` counts wins and losses against the fused order. Without pooled pools (no
``--pooled-cache`` nor ``--pooled-out``) the pooled columns are left out.

``--grid`` prints every (loss, k, λ, δ) cell. The nested check: inside each outer fold, an inner LOCO over
the whole family chooses the cell with the best Hit@1, judged on the per-conversation pools (``--nested-by
per-conversation``) or the pooled ones (``pooled``) of the training conversations; the chosen cell's model of
the outer fold then scores the held-out conversation.

    python -m lucasrag_harness.evaluation.rescore_protect --cache /tmp/rescore-tune.pkl \\
        --pooled-cache /tmp/rescore-tune-pooled.pkl --grid --nested-by per-conversation
    python -m lucasrag_harness.evaluation.rescore_protect ... --nested-by per-conversation,pooled --deltas inf
    python -m lucasrag_harness.evaluation.rescore_protect --cache /tmp/rescore-tune.pkl --loss pairwise \\
        --k 3,5,7,10,15 --l2 0.001,0.01,0.1,1 --deltas 0 --window 0 --reference fused --nested-by per-conversation

The pools are read from the caches when they exist; otherwise recorded from the builds a ``lucasrag eval
locomo`` run left (``--out``, and ``--pooled-out`` for the pooled vault's ``pooled`` folder) and written there.

Cited by docs/locomo.md, "The learned second stage" (the nested check: "The choice of k and λ is not where
the gain comes from") and "Tried and not kept" (the stage that keeps the fused top 5).
"""

from __future__ import annotations

import pickle
import time
from itertools import product
from pathlib import Path

import numpy as np

from lucasrag_harness.evaluation import rescore_fit as rf
from lucasrag_harness.evaluation.locomo import load_locomo
from lucasrag_harness.evaluation.locomo_eval import select_conversations
from lucasrag_harness.evaluation.locomo_sweep import recorded_pools_parser
from lucasrag_query import _rescore

INF = float("inf")
FEATURES = list(_rescore.FEATURES)


def protected_metrics(q: rf.Question, model: _rescore.RescoreModel, window: int, delta: float, protect: int):
    """Session metrics of ``q`` with its fused top ``window`` re-ordered by ``model``, the fused top ``protect``
    given a head start of ``delta`` (∞: they keep their set)."""
    k = min(window or model.top_k, len(q.sessions))
    scores = model.scores(q.matrix[:k])
    if delta == INF:
        return rf.head_metrics(q, rf.reordered_head(scores, protect))
    return rf.head_metrics(q, rf.reordered_head(scores + delta * (np.arange(k) < protect)))


def loco_models(questions, fits, held_out) -> dict:
    """``{(fit, held): model}``: each fit (k, λ, loss) fitted without the conversation ``held``."""
    return {
        (f, held): rf.fit([q for q in questions if q.conversation != held], FEATURES, *f)
        for held in held_out
        for f in fits
    }


def summary(rows: list[dict], reference: list[dict]) -> str:
    """Hit@1 / R@5 / MRR, and the Hit@1 wins and losses against ``reference`` with their sign test."""
    if not rows:
        return "–"
    wins = sum(r["Hit@1"] > b["Hit@1"] for r, b in zip(rows, reference))
    losses = sum(r["Hit@1"] < b["Hit@1"] for r, b in zip(rows, reference))
    means = " / ".join(f"{np.mean([r[m] for r in rows]):.3f}" for m in ("Hit@1", "R@5", "MRR"))
    return f"{means} (+{wins} −{losses}, p {rf.sign_test(wins, losses):.3f})"


def nested(per_conv, pooled, fits, deltas, by: str, outer: dict, window: int, protect: int):
    """Held-out rows of both protocols when an inner LOCO chooses (fit, δ) by ``by``'s Hit@1; the choices."""
    convs = list(dict.fromkeys(q.conversation for q in per_conv))
    rows, rows_pooled, chosen = [None] * len(per_conv), [None] * len(pooled), []
    for held in convs:
        train = [q for q in per_conv if q.conversation != held]
        inner = loco_models(train, fits, [c for c in convs if c != held])
        judge = train if by == "per-conversation" else [q for q in pooled if q.conversation != held]
        best = None
        for f, d in product(fits, deltas):
            hit = np.mean([protected_metrics(q, inner[f, q.conversation], window, d, protect)["Hit@1"] for q in judge])
            if best is None or hit > best[0] + 1e-12:
                best = (hit, f, d)
        _, f, d = best
        chosen.append((held, f, d))
        for out, questions in ((rows, per_conv), (rows_pooled, pooled)):
            for i, q in enumerate(questions):
                if q.conversation == held:
                    out[i] = protected_metrics(q, outer[f, held], window, d, protect)
    return rows, rows_pooled, chosen


def _questions(cache: Path | None, record) -> list[rf.Question]:
    if cache and cache.exists():
        return rf.load_questions(cache)
    questions = record()
    if cache:
        cache.write_bytes(pickle.dumps(questions))
    return questions


def main(argv: list[str] | None = None) -> None:
    parser = recorded_pools_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--pooled-out", type=Path, default=None, help="the pooled run's `pooled` folder")
    parser.add_argument("--cache", type=Path, default=None, help="per-conversation pools (a rescore_fit cache)")
    parser.add_argument("--pooled-cache", type=Path, default=None, help="pooled pools (the same format)")
    parser.add_argument("--loss", default="listwise,pairwise", help="losses of the family")
    parser.add_argument("--k", default="5,7,10,15", help="the top k each model is fitted on")
    parser.add_argument("--l2", default="0.001,0.01", help="L2 penalties")
    parser.add_argument("--deltas", default="0,0.25,0.5,1,2,inf", help="head starts of the fused top --protect")
    parser.add_argument("--window", type=int, default=10, help="the fused top this many are re-ordered (0: k)")
    parser.add_argument("--protect", type=int, default=5)
    parser.add_argument(
        "--reference", default="5,0.001,pairwise", help="k,λ,loss of the model compared against, or fused"
    )
    parser.add_argument("--grid", action="store_true", help="print every cell of the family")
    parser.add_argument("--nested-by", default="", help="per-conversation and/or pooled (comma-separated)")
    args = parser.parse_args(argv)

    chosen = select_conversations(load_locomo(args.data), args.half, args.conversations)
    every = select_conversations(load_locomo(args.data), "all", None)
    per_conv = _questions(args.cache, lambda: rf.collect_all(chosen, args.out.resolve()))
    pooled = []
    if args.pooled_cache or args.pooled_out:
        pooled = _questions(
            args.pooled_cache, lambda: rf.collect_pooled(chosen, args.pooled_out, max(c.now for _, c in every))
        )
    fits = [
        (int(k), float(l2), loss)
        for loss in args.loss.split(",")
        for k in args.k.split(",")
        for l2 in args.l2.split(",")
    ]
    deltas = [float(d) for d in args.deltas.split(",")]
    started = time.time()
    convs = list(dict.fromkeys(q.conversation for q in per_conv))
    fused, fused_pooled = [rf.metrics(q, None) for q in per_conv], [rf.metrics(q, None) for q in pooled]
    print(f"{len(per_conv)} questions per conversation, {len(pooled)} pooled ({', '.join(convs)})")
    if args.reference == "fused":
        models = loco_models(per_conv, fits, convs)
        ref, ref_pooled = fused, fused_pooled
    else:
        k, l2, loss = args.reference.split(",")
        reference = (int(k), float(l2), loss)
        models = loco_models(per_conv, list(dict.fromkeys([*fits, reference])), convs)
        ref = [rf.metrics(q, models[reference, q.conversation]) for q in per_conv]
        ref_pooled = [rf.metrics(q, models[reference, q.conversation]) for q in pooled]
        print(
            f"reference {reference} LOCO: per conversation {summary(ref, fused)}; "
            f"pooled {summary(ref_pooled, fused_pooled)}"
        )
    print(f"fused order: per conversation {summary(fused, ref)}; pooled {summary(fused_pooled, ref_pooled)}")
    if args.grid:
        print("| loss | k fit | λ | δ | per conversation (vs reference) | pooled (vs reference) |")
        print("|---|---|---|---|---|---|")
        for (k, l2, loss), d in product(fits, deltas):
            a = [
                protected_metrics(q, models[(k, l2, loss), q.conversation], args.window, d, args.protect)
                for q in per_conv
            ]
            b = [
                protected_metrics(q, models[(k, l2, loss), q.conversation], args.window, d, args.protect)
                for q in pooled
            ]
            print(f"| {loss} | {k} | {l2:g} | {d:g} | {summary(a, ref)} | {summary(b, ref_pooled)} |", flush=True)
        print(f"grid {time.time() - started:.0f} s", flush=True)
    for by in filter(None, args.nested_by.split(",")):
        rows, rows_pooled, picked = nested(per_conv, pooled, fits, deltas, by, models, args.window, args.protect)
        print(
            f"nested, deltas {deltas}, chosen by {by}: per conversation {summary(rows, ref)}; "
            f"pooled {summary(rows_pooled, ref_pooled)}; chosen {picked}; {time.time() - started:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
