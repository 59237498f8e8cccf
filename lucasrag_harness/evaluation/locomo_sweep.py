"""Sweep the final ranking's knobs over LoCoMo conversations already ingested.

The honest-tuning tool: choose on the tuning half, then check the choice once on the
report half. It reads the vaults and indexes a ``lucasrag eval locomo`` run left under
``--out`` (it ingests nothing). Each question is asked of ``query()`` once, with the
candidate pool handed to the final ranking recorded; every setting of the grid then
re-ranks those recorded pools (``lucasrag_query._ranking.rank_pool``, the product's own
function, with the knobs set for the length of the setting). The fan-out does not read
the knobs, so this is what ``query()`` would return under each setting, at a fraction of
the cost; the first pass checks that re-ranking the pools under the defaults gives back
``query()``'s own results. Per setting it prints the session-level metrics (per
conversation, categories 1–5 and 1–4) and the chunk-level evidence recall.

    python -m lucasrag_harness.evaluation.locomo_sweep --half tune \\
        --grid KEYWORD_WEIGHT=1,2 --grid FUSION_K=10,60
"""

from __future__ import annotations

import argparse
import itertools
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from lucasrag.settings import Settings
from lucasrag_harness.evaluation.locomo import ADVERSARIAL, CATEGORIES, SESSION_CATEGORIES, load_locomo
from lucasrag_harness.evaluation.locomo_eval import TOP_K, select_conversations
from lucasrag_harness.evaluation.recall import SystemScores
from lucasrag_harness.evaluation.sessions import SessionScores, evidence_sessions, ranked_sessions

#: the knobs a sweep may set: name → the module that holds it
KNOBS = {
    "KEYWORD_WEIGHT": "lucasrag_query._ranking",
    "GRAPH_WEIGHT": "lucasrag_query._ranking",
    "RECENCY_WEIGHT": "lucasrag_query._ranking",
    "PERIOD_WEIGHT": "lucasrag_query._ranking",
    "TEMPORAL_SHARE": "lucasrag_query._ranking",
    "FUSION_K": "lucasrag_query._ranking",
    "K1": "lucasrag.lexical",
    "B": "lucasrag.lexical",
}


@contextmanager
def knob(name: str, value: float):
    """Set one ranking knob for the duration of a block (the evaluation's lever, not a product setting)."""
    import importlib

    if name not in KNOBS:
        raise ValueError(f"unknown knob {name!r} (expected one of {', '.join(KNOBS)})")
    module = importlib.import_module(KNOBS[name])
    before = getattr(module, name)
    setattr(module, name, type(before)(value))
    try:
        yield
    finally:
        setattr(module, name, before)


@dataclass
class Recorded:
    """One question and the arguments ``query()`` handed to the final ranking."""

    category: int
    evidence: tuple[str, ...]
    args: tuple
    kwargs: dict
    texts: tuple[str, ...]  # query()'s own top TOP_K texts


def record_questions(settings: Settings, questions) -> list[Recorded]:
    """Ask each question of ``query()`` once under ``settings``, recording the pool of its final ranking."""
    from lucasrag_query import _query, query

    real = _query.rank_pool
    seen: list[tuple[tuple, dict]] = []

    def recording(*args, **kwargs):
        seen.append((args, kwargs))
        return real(*args, **kwargs)

    recorded: list[Recorded] = []
    _query.rank_pool = recording
    try:
        for q in questions:
            seen.clear()
            result = query(q.text, top_k=TOP_K, settings=settings, chunks=True)  # the pool ranks passages
            (args, kwargs), texts = seen[-1], tuple(r.text for r in result.results)
            recorded.append(Recorded(q.category, tuple(q.evidence), args, kwargs, texts))
    finally:
        _query.rank_pool = real
    return recorded


def record_pools(chosen, out: Path) -> list[Recorded]:
    """Every question of the ``chosen`` conversations, recorded (see :func:`record_questions`)."""
    recorded: list[Recorded] = []
    for _, conv in chosen:
        root = out / conv.sample_id
        if not (root / "data").is_dir():
            raise FileNotFoundError(f"{root / 'data'} not found: run `lucasrag eval locomo` for {conv.sample_id} first")
        settings = Settings.from_env(vault=(root / "vault").resolve(), data=(root / "data").resolve(), now=conv.now)
        recorded += record_questions(settings, [*conv.questions, *conv.adversarial])
    return recorded


def record_pooled(chosen, root: Path, now) -> list[Recorded]:
    """Every question of the ``chosen`` conversations asked of the pooled vault under ``root`` (the
    ``pooled`` folder of ``lucasrag eval locomo --protocol pooled``; ``now``: that run's, the latest
    conversation's date)."""
    if not (root / "data").is_dir():
        raise FileNotFoundError(f"{root / 'data'} not found: run `lucasrag eval locomo --protocol pooled` first")
    settings = Settings.from_env(vault=(root / "vault").resolve(), data=(root / "data").resolve(), now=now)
    return [r for _, conv in chosen for r in record_questions(settings, [*conv.questions, *conv.adversarial])]


def rerank(recorded: Recorded) -> list[str]:
    """The top TOP_K texts the final ranking gives ``recorded``'s pool under the knobs set now."""
    from lucasrag_query import _ranking

    ranked = _ranking.rank_pool(*recorded.args, **recorded.kwargs)
    return [c.text for c, _ in ranked.items[:TOP_K]]


def score(recorded: list[Recorded], texts_of=rerank) -> tuple[SessionScores, SystemScores]:
    """Session-level and chunk-level scores of the ranked texts ``texts_of`` gives each question."""
    sessions, chunks = SessionScores("query()"), SystemScores("query()")
    for r in recorded:
        texts = texts_of(r)
        sessions.add(SESSION_CATEGORIES[r.category], set(evidence_sessions(r.evidence)), ranked_sessions(texts))
        if r.category in CATEGORIES:
            chunks.add(CATEGORIES[r.category], r.evidence, texts, 0.0)
    return sessions, chunks


def table_row(label: str, sessions: SessionScores, chunks: SystemScores) -> str:
    every, scored = sessions.table(), sessions.table({SESSION_CATEGORIES[ADVERSARIAL]})
    recall = chunks.table(list(CATEGORIES.values()))["all"]
    cells = [every["Hit@1"], every["R@3"], every["R@5"], every["MRR"], scored["Hit@1"], scored["R@5"]]
    cells += [recall["R@5"], recall["R@10"]]
    return f"| {label} | " + " | ".join(f"{c:.3f}" for c in cells) + " |"


HEADER = (
    "| setting | Hit@1 (1–5) | R@3 (1–5) | R@5 (1–5) | MRR (1–5) | Hit@1 (1–4) | R@5 (1–4) | chunk R@5 | chunk R@10 |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def parse_grid(specs: list[str]) -> list[tuple[tuple[str, float], ...]]:
    """``["A=1,2", "B=3"]`` → every combination ``((A, 1), (B, 3)), ((A, 2), (B, 3))``."""
    axes = []
    for spec in specs:
        name, sep, values = spec.partition("=")
        if not sep or name not in KNOBS:
            raise SystemExit(f"--grid {spec!r}: expected NAME=v1,v2 with NAME one of {', '.join(KNOBS)}")
        axes.append([(name, float(v)) for v in values.split(",")])
    return list(itertools.product(*axes))


def recorded_pools_parser(description: str) -> argparse.ArgumentParser:
    """The arguments every script over recorded LoCoMo pools takes (data, built indexes, half, how many)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo/locomo10.json"))
    parser.add_argument("--out", type=Path, default=Path(".lucasrag_data/eval/locomo"))
    parser.add_argument("--half", default="tune", choices=("tune", "report", "all"))
    parser.add_argument("--conversations", type=int, default=None)
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = recorded_pools_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--grid", action="append", default=[], help="NAME=v1,v2 (repeat for a cartesian grid)")
    args = parser.parse_args(argv)
    chosen = select_conversations(load_locomo(args.data), args.half, args.conversations)
    print(f"{args.half} half: {', '.join(c.sample_id for _, c in chosen)}")
    started = time.perf_counter()
    recorded = record_pools(chosen, args.out.resolve())
    print(f"{len(recorded)} questions asked in {time.perf_counter() - started:.0f} s", flush=True)
    print(HEADER)
    print(table_row("query() as asked", *score(recorded, lambda r: list(r.texts))), flush=True)
    differ = sum(rerank(r) != list(r.texts) for r in recorded)
    if differ:  # the recorded pools do not stand for query(): no figure below would mean anything
        raise SystemExit(f"re-ranking under the defaults changed {differ} of {len(recorded)} results")
    for setting in parse_grid(args.grid) or [()]:
        with ExitStack() as stack:
            for name, value in setting:
                stack.enter_context(knob(name, value))
            label = ", ".join(f"{n} {v:g}" for n, v in setting) or "defaults, re-ranked"
            print(table_row(label, *score(recorded)), flush=True)


if __name__ == "__main__":
    main()
