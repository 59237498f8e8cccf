"""Sweep one fusion weight of the fallback ranking over LoCoMo conversations already ingested.

The honest-tuning tool: choose on the tuning half, then check the choice once on the
report half. It reads the vaults and indexes a ``lucasrag eval locomo`` run left under
``--out`` (it ingests nothing), sets a module-level weight of ``lucasrag_query._ranking``
for the length of each setting, and prints per setting the session-level metrics
(per conversation, categories 1–5 and 1–4) and the chunk-level evidence recall.

    python -m lucasrag_harness.evaluation.locomo_sweep --half tune --conversations 2 \\
        --weight KEYWORD_WEIGHT --values 0.5,1,1.5,2
"""

from __future__ import annotations

import argparse
import time
from contextlib import contextmanager
from pathlib import Path

from lucasrag.settings import Settings
from lucasrag_harness.evaluation.locomo import ADVERSARIAL, CATEGORIES, SESSION_CATEGORIES, load_locomo
from lucasrag_harness.evaluation.locomo_eval import TOP_K, select_conversations
from lucasrag_harness.evaluation.recall import SystemScores
from lucasrag_harness.evaluation.sessions import SessionScores, evidence_sessions, ranked_sessions

#: the weights of lucasrag_query._ranking a sweep may set
WEIGHTS = ("KEYWORD_WEIGHT", "GRAPH_WEIGHT", "RECENCY_WEIGHT", "PERIOD_WEIGHT")


@contextmanager
def ranking_weight(name: str, value: float):
    """Set one fusion weight for the duration of a block (the evaluation's knob, not a product setting)."""
    from lucasrag_query import _ranking

    if name not in WEIGHTS:
        raise ValueError(f"unknown weight {name!r} (expected one of {', '.join(WEIGHTS)})")
    before = getattr(_ranking, name)
    setattr(_ranking, name, value)
    try:
        yield
    finally:
        setattr(_ranking, name, before)


def score_setting(chosen, out: Path) -> tuple[SessionScores, SystemScores]:
    """Session-level and chunk-level scores of the default ``query()`` over ``chosen``."""
    from lucasrag_query import query

    sessions, chunks = SessionScores("query()"), SystemScores("query()")
    for _, conv in chosen:
        root = out / conv.sample_id
        if not (root / "data").is_dir():
            raise FileNotFoundError(f"{root / 'data'} not found: run `lucasrag eval locomo` for {conv.sample_id} first")
        settings = Settings.from_env(vault=(root / "vault").resolve(), data=(root / "data").resolve(), now=conv.now)
        for q in [*conv.questions, *conv.adversarial]:
            result = query(q.text, top_k=TOP_K, settings=settings)
            texts = [r.text for r in result.results]
            sessions.add(SESSION_CATEGORIES[q.category], set(evidence_sessions(q.evidence)), ranked_sessions(texts))
            if q.category in CATEGORIES:
                chunks.add(CATEGORIES[q.category], q.evidence, texts, 0.0)
    return sessions, chunks


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo/locomo10.json"))
    parser.add_argument("--out", type=Path, default=Path(".lucasrag_data/eval/locomo"))
    parser.add_argument("--half", default="tune", choices=("tune", "report", "all"))
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--weight", required=True, choices=WEIGHTS)
    parser.add_argument("--values", required=True, help="comma-separated values, e.g. 0.5,1,2")
    args = parser.parse_args(argv)
    chosen = select_conversations(load_locomo(args.data), args.half, args.conversations)
    print(f"{args.weight} on {args.half} half: {', '.join(c.sample_id for _, c in chosen)}")
    print("| value | Hit@1 (1–5) | R@5 (1–5) | MRR (1–5) | Hit@1 (1–4) | R@5 (1–4) | chunk R@5 | chunk R@10 | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for value in (float(v) for v in args.values.split(",")):
        started = time.perf_counter()
        with ranking_weight(args.weight, value):
            sessions, chunks = score_setting(chosen, args.out.resolve())
        every, scored = sessions.table(), sessions.table({SESSION_CATEGORIES[ADVERSARIAL]})
        recall = chunks.table(list(CATEGORIES.values()))["all"]
        print(
            f"| {value:g} | {every['Hit@1']:.3f} | {every['R@5']:.3f} | {every['MRR']:.3f} | {scored['Hit@1']:.3f} | "
            f"{scored['R@5']:.3f} | {recall['R@5']:.3f} | {recall['R@10']:.3f} | {time.perf_counter() - started:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
