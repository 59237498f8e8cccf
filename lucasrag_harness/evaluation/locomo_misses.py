"""The session Hit@1 misses of recorded LoCoMo pools, looked at: where the gold session ranks instead, which
(keyword rank, similarity rank) the wrong top chunk had, the misses per LoCoMo category, and the signal ranks
of the gold session's best chunk.

Each question of the ``--half`` is asked once of ``query()`` on the builds a ``lucasrag eval locomo`` run
left under ``--out`` (``locomo_sweep.record_pools``); its pool is then ranked by the product's ``rank_pool``
with the ``--knob`` settings (``locomo_sweep.KNOBS``) and the second stage on or off (``--rescore``), and its
top 25 mapped to sessions (first appearance). A miss: the first session is not a gold one.

    python -m lucasrag_harness.evaluation.locomo_misses --half tune --out .lucasrag_data/eval/locomo \\
        --knob KEYWORD_WEIGHT=2 --knob FUSION_K=2 --knob PERIOD_WEIGHT=3 --rescore off

Cited by docs/locomo.md, "Where Hit@1 still misses" (the misses at the chosen fusion weights).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from contextlib import ExitStack

from lucasrag_harness.evaluation.locomo import load_locomo
from lucasrag_harness.evaluation.locomo_eval import TOP_K, select_conversations
from lucasrag_harness.evaluation.locomo_sweep import knob, record_pools, recorded_pools_parser
from lucasrag_harness.evaluation.sessions import chunk_sessions, evidence_sessions, ranked_sessions


def _ranks(signals: dict) -> tuple:
    """(keyword rank, similarity rank) of one chunk's signals (None: no keyword match)."""
    return signals.get("keywords", (0, None))[1], signals["similarity"][1]


def misses(recorded, rescore: bool) -> dict:
    """Counters over the Hit@1 misses of ``recorded`` ranked under the knobs set now."""
    from lucasrag_query import _ranking

    gold_rank, top_signals, gold_signals = Counter(), Counter(), Counter()
    per_category, totals = Counter(), Counter()
    for r in recorded:
        args = list(r.args)
        args[4] = dataclasses.replace(args[4], rescore=rescore)  # rank_pool(text, vector, pool, stores, settings, …)
        ranked = _ranking.rank_pool(*args, **r.kwargs)
        gold = set(evidence_sessions(r.evidence))
        sessions = ranked_sessions([c.text for c, _ in ranked.items[:TOP_K]])
        totals[r.category] += 1
        if sessions and sessions[0] in gold:
            continue
        per_category[r.category] += 1
        rank = next((i + 1 for i, s in enumerate(sessions) if s in gold), None)
        gold_rank[rank if rank is None or rank <= 5 else "6+"] += 1
        top_signals[_ranks(ranked.signals[ranked.items[0][0].chunk_id])] += 1
        best = next((c for c, _ in ranked.items if set(chunk_sessions(c.text)) & gold), None)
        if best is not None:
            gold_signals[_ranks(ranked.signals[best.chunk_id])] += 1
    return dict(
        gold_rank=gold_rank,
        top_signals=top_signals,
        gold_signals=gold_signals,
        per_category=per_category,
        totals=totals,
    )


def main(argv: list[str] | None = None) -> None:
    parser = recorded_pools_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--knob", action="append", default=[], help="NAME=VALUE of a ranking knob (repeat)")
    parser.add_argument("--rescore", choices=("on", "off"), default="on", help="the second stage (default: on)")
    parser.add_argument("--most", type=int, default=15, help="how many (keyword, similarity) rank pairs to list")
    args = parser.parse_args(argv)
    chosen = select_conversations(load_locomo(args.data), args.half, args.conversations)
    recorded = record_pools(chosen, args.out.resolve())
    with ExitStack() as stack:
        for spec in args.knob:
            name, _, value = spec.partition("=")
            stack.enter_context(knob(name, float(value)))
        found = misses(recorded, args.rescore == "on")
    print(f"misses {sum(found['per_category'].values())} of {len(recorded)}")
    print("gold session's rank in the misses (None: not in the top 25):", dict(found["gold_rank"]))
    print("the wrong top chunk's (keyword rank, similarity rank):", found["top_signals"].most_common(args.most))
    print(
        "misses / questions per category:",
        {k: (found["per_category"][k], n) for k, n in sorted(found["totals"].items())},
    )
    print(
        "the gold session's best chunk (keyword rank, similarity rank):", found["gold_signals"].most_common(args.most)
    )


if __name__ == "__main__":
    main()
