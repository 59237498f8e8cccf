"""Fit and cross-validate the learned second stage (``lucasrag_query._rescore``) on LoCoMo.

Reads the conversations a ``lucasrag eval locomo`` run left under ``--out`` (it ingests
nothing). Each question is asked of ``query()`` once and its final-ranking pool recorded
(``locomo_sweep.record_pools``); the product's ``rank_pool`` then ranks the pool with the
second stage switched on, and the inputs it hands the stage (the fused order, the signals,
the query terms and their idf, the graph reach) are kept, so the features fitted on are
the features the query path computes. A candidate is relevant when it holds a turn of a
gold session (the session-level Hit@1 protocol).

The model: a linear score over standardised features, fitted either by pairwise logistic
regression (every relevant × irrelevant pair of a question's top k, each question
weighing the same) with an L2 penalty, by Newton's method, or by a listwise loss (the
softmax share of a question's top k on its relevant candidates; ``--loss listwise``, the
shipped model's). ``--keep-top N`` keeps the fused top N as a set: the stage re-orders within
it and within the rest of its top k (``_rescore.reorder``). Cross-validation leaves one
conversation out at a time (five folds on the tuning half); per setting it prints session
Hit@1 / R@5 / MRR of the held-out folds together, against the fused order, and the
per-question wins and losses of Hit@1.

    python -m lucasrag_harness.evaluation.rescore_fit --out .lucasrag_data/eval/locomo --half tune
    python -m lucasrag_harness.evaluation.rescore_fit ... --write lucasrag_query/rescore_model.json \\
        --loss listwise --k 10 --l2 0.001
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pickle
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lucasrag_harness.evaluation.locomo import SESSION_CATEGORIES, load_locomo
from lucasrag_harness.evaluation.locomo_eval import TOP_K, select_conversations
from lucasrag_harness.evaluation.locomo_sweep import Recorded, record_pooled, record_pools, recorded_pools_parser
from lucasrag_harness.evaluation.sessions import chunk_sessions, evidence_sessions, session_metrics
from lucasrag_query import _rescore

#: the deepest top k a fit may rescore (features are extracted this deep once)
MAX_K = 20


@dataclass
class Question:
    conversation: str
    category: str
    gold: frozenset[str]
    sessions: list[list[str]]  # the sessions of each of the fused top TOP_K, in order
    matrix: np.ndarray  # features of the fused top MAX_K (rows) × _rescore.FEATURES
    relevant: np.ndarray  # per row: holds a turn of a gold session
    ranking_ms: float  # the final ranking (rank_pool) with the shipped stage off (best of two) …
    rescored_ms: float  # … and on (best of two; both nan when no model is shipped)


def stage_inputs(recorded: Recorded) -> dict:
    """What the final ranking of ``recorded``'s pool hands the second stage (switched on): the fused
    order (``items``), the ``signals``, the query's ``keywords`` and their ``idf``, the graph's reach
    (``reached``): ``_rescore.rescore(**stage_inputs(r))`` is the stage as the query path runs it."""
    from lucasrag_query import _ranking

    seen = {}

    def capture(items, signals, keywords, idf, reached, model=None):
        seen.update(items=list(items), signals=signals, keywords=keywords, idf=idf, reached=frozenset(reached))
        return list(items)

    args = list(recorded.args)
    args[4] = dataclasses.replace(args[4], rescore=True)  # rank_pool(text, vector, pool, stores, settings, …)
    real, _ranking.rescore = _ranking.rescore, capture
    try:
        _ranking.rank_pool(*args, **recorded.kwargs)
    finally:
        _ranking.rescore = real
    return seen


def collect(recorded: Recorded, conversation: str, pooled: bool = False, timed: bool = True) -> Question:
    """Rank ``recorded``'s pool with the second stage on, keeping the inputs the stage receives. ``pooled``:
    the pool is the pooled vault's (sessions named ``<conversation>/<session>``); ``timed``: also time the
    final ranking with the shipped stage off and on."""
    from lucasrag_query import _ranking

    args = list(recorded.args)
    settings = args[4]  # rank_pool(text, vector, pool, stores, settings, …)
    cost = []
    if timed and _rescore.MODEL_PATH.exists():  # the final ranking with the shipped stage off and on, side by side
        for on in (False, True, False, True):
            args[4] = dataclasses.replace(settings, rescore=on)
            started = time.perf_counter()
            _ranking.rank_pool(*args, **recorded.kwargs)
            cost.append((time.perf_counter() - started) * 1000)
    seen = stage_inputs(recorded)
    items = seen["items"]
    matrix = _rescore.features(items, seen["signals"], seen["keywords"], seen["idf"], seen["reached"], MAX_K)
    gold = frozenset(evidence_sessions(recorded.evidence, f"{conversation}/" if pooled else ""))
    sessions = [chunk_sessions(c.text, f"{c.path.split('/', 1)[0]}/" if pooled else "") for c, _ in items[:TOP_K]]
    relevant = np.array([bool(gold & set(s)) for s in sessions[:MAX_K]], dtype=bool)
    off, on = (min(cost[0::2]), min(cost[1::2])) if cost else (float("nan"), float("nan"))
    return Question(conversation, SESSION_CATEGORIES[recorded.category], gold, sessions, matrix, relevant, off, on)


def collect_all(chosen, out: Path) -> list[Question]:
    questions = []
    for number, conv in chosen:
        for r in record_pools([(number, conv)], out):
            questions.append(collect(r, conv.sample_id))
    return questions


def collect_pooled(chosen, root: Path, now) -> list[Question]:
    """The ``chosen`` conversations' questions asked of the pooled vault under ``root`` (see
    ``locomo_sweep.record_pooled``), untimed."""
    return [
        collect(r, conv.sample_id, pooled=True, timed=False)
        for _, conv in chosen
        for r in record_pooled([(None, conv)], root, now)
    ]


class _Unpickler(pickle.Unpickler):
    """Reads a cache written by this module run as ``python -m`` (its class is ``__main__.Question``) and
    the older recordings whose questions were a bare ``__main__.Q`` with the same attributes."""

    def find_class(self, module, name):
        if module == "__main__" and name in ("Question", "Q"):
            return _Loose
        return super().find_class(module, name)


class _Loose:
    pass


def load_questions(path: Path) -> list[Question]:
    """The questions a ``--cache`` pickle holds; feature columns beyond ``_rescore.FEATURES`` (kept by
    experiments with extra features) are dropped."""
    with path.open("rb") as f:
        raw = _Unpickler(f).load()
    fields = [f.name for f in dataclasses.fields(Question)]
    nan = float("nan")
    out = []
    for q in raw:
        values = {name: getattr(q, name, nan) for name in fields}
        values["matrix"] = np.asarray(values["matrix"])[:, : len(_rescore.FEATURES)]
        out.append(Question(**values))
    return out


def pairs(questions: list[Question], columns: list[int], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Feature differences (relevant − irrelevant) of every pair in each question's top k, and
    their weights (1 / the question's pair count: every question weighs the same)."""
    diffs, weights = [], []
    for q in questions:
        x, y = q.matrix[:k][:, columns], q.relevant[:k]
        pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
        if len(pos) == 0 or len(neg) == 0:
            continue
        d = (x[pos][:, None, :] - x[neg][None, :, :]).reshape(-1, len(columns))
        diffs.append(d)
        weights.append(np.full(len(d), 1.0 / len(d)))
    if not diffs:
        return np.zeros((0, len(columns))), np.zeros(0)
    return np.vstack(diffs), np.concatenate(weights)


def fit_pairwise(diffs: np.ndarray, weights: np.ndarray, l2: float, iterations: int = 30) -> np.ndarray:
    """Weights minimising Σ wᵢ log(1 + exp(−β·dᵢ)) / Σ wᵢ + l2 |β|² (Newton's method; no intercept:
    a pair's order does not depend on one)."""
    beta = np.zeros(diffs.shape[1])
    total = weights.sum() or 1.0
    for _ in range(iterations):
        margin = diffs @ beta
        p = 1.0 / (1.0 + np.exp(np.clip(margin, -30, 30)))  # σ(−margin): the gradient's share per pair
        grad = -(diffs * (weights * p)[:, None]).sum(0) / total + 2 * l2 * beta
        hess = (diffs * (weights * p * (1 - p))[:, None]).T @ diffs / total + 2 * l2 * np.eye(len(beta))
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def lists(questions: list[Question], columns: list[int], k: int, mean: np.ndarray, scale: np.ndarray):
    """Each question's standardised top k as one padded array (questions × k × features), with the
    masks of its real rows and of its relevant rows; only questions with a relevant and an
    irrelevant candidate in their top k (the others carry no order to learn)."""
    x = np.zeros((len(questions), k, len(columns)))
    real, relevant = np.zeros((len(questions), k), bool), np.zeros((len(questions), k), bool)
    for i, q in enumerate(questions):
        rows = q.matrix[:k][:, columns]
        x[i, : len(rows)], real[i, : len(rows)], relevant[i, : len(rows)] = (rows - mean) / scale, True, q.relevant[:k]
    keep = (relevant & real).any(1) & (~relevant & real).any(1)
    return x[keep], real[keep], relevant[keep]


def fit_listwise(
    x: np.ndarray, real: np.ndarray, relevant: np.ndarray, l2: float, steps: int = 400, rate: float = 0.03
) -> np.ndarray:
    """Weights minimising the mean over questions of −log(the softmax share of a question's top k that
    falls on its relevant candidates) + l2 |β|²: it rewards putting *a* relevant candidate first,
    which is what Hit@1 counts, where the pairwise loss counts every pair alike. The loss is not
    convex, so Adam from zero, a fixed number of steps (deterministic)."""
    beta, m, v = np.zeros(x.shape[2]), np.zeros(x.shape[2]), np.zeros(x.shape[2])
    for step in range(1, steps + 1):
        s = np.where(real, x @ beta, -np.inf)
        p = np.exp(s - s.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        on_relevant = np.where(relevant, p, 0.0)
        on_relevant /= on_relevant.sum(1, keepdims=True)
        grad = np.einsum("qk,qkd->d", p - on_relevant, x) / len(x) + 2 * l2 * beta
        m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad**2
        beta -= rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return beta


#: the losses a fit may use
LOSSES = ("pairwise", "listwise")


def fit(
    questions: list[Question], features: list[str], k: int, l2: float, loss: str = "pairwise", keep_top: int = 0
) -> _rescore.RescoreModel:
    columns = [_rescore.FEATURES.index(f) for f in features]
    stacked = np.vstack([q.matrix[:k][:, columns] for q in questions])
    mean, scale = stacked.mean(0), stacked.std(0)
    scale[scale < 1e-9] = 1.0
    if loss == "listwise":
        beta = fit_listwise(*lists(questions, columns, k, mean, scale), l2)
    elif loss == "pairwise":
        diffs, weights = pairs(questions, columns, k)
        beta = fit_pairwise(diffs / scale, weights, l2)
    else:
        raise ValueError(f"unknown loss {loss!r} (expected one of {', '.join(LOSSES)})")
    return _rescore.RescoreModel(1, k, tuple(features), mean, scale, beta, keep_top=min(keep_top, k))


def metrics(q: Question, model: _rescore.RescoreModel | None) -> dict[str, float]:
    if model is None:
        return head_metrics(q, [])
    k = min(model.top_k, len(q.sessions))
    return head_metrics(q, reordered_head(model.scores(q.matrix[:k]), model.keep_top))


def reordered_head(scores: np.ndarray, keep_top: int = 0) -> list[int]:
    """The places of the fused top ``len(scores)`` in the order ``_rescore.reorder`` gives them."""
    return [i for i, _ in _rescore.reorder([(i, 0.0) for i in range(len(scores))], scores, keep_top)]


def head_metrics(q: Question, head: list[int]) -> dict[str, float]:
    """Session metrics of ``q`` with its fused top ``len(head)`` in the order ``head`` (the rest as fused)."""
    order = [*head, *range(len(head), len(q.sessions))]
    return session_metrics(q.gold, list(dict.fromkeys(s for i in order for s in q.sessions[i])))


def cross_validate(
    questions: list[Question], features: list[str], k: int, l2: float, loss: str = "pairwise", keep_top: int = 0
) -> list[dict]:
    """Held-out metrics of every question, each fold fitted without its conversation."""
    rows: list[dict | None] = [None] * len(questions)
    for held in dict.fromkeys(q.conversation for q in questions):
        train = [q for q in questions if q.conversation != held]
        model = fit(train, features, k, l2, loss, keep_top)
        for i, q in enumerate(questions):
            if q.conversation == held:
                rows[i] = metrics(q, model)
    return rows


def summary(rows: list[dict], base: list[dict]) -> str:
    hit = np.mean([r["Hit@1"] for r in rows])
    wins = sum(r["Hit@1"] > b["Hit@1"] for r, b in zip(rows, base))
    losses = sum(r["Hit@1"] < b["Hit@1"] for r, b in zip(rows, base))
    r5, mrr = np.mean([r["R@5"] for r in rows]), np.mean([r["MRR"] for r in rows])
    p = sign_test(wins, losses)
    return f"{hit:.3f} | {r5:.3f} | {mrr:.3f} | +{wins} / −{losses} | {p:.3f}"


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test p-value."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def forward_selection(
    questions, base, k: int, l2: float, steps: int, loss: str = "pairwise"
) -> list[tuple[list[str], float]]:
    """Greedy: add, one at a time, the feature whose addition gives the best cross-validated Hit@1."""
    chosen: list[str] = []
    path = []
    for _ in range(steps):
        best = None
        for f in _rescore.FEATURES:
            if f in chosen:
                continue
            rows = cross_validate(questions, [*chosen, f], k, l2, loss)
            hit = float(np.mean([r["Hit@1"] for r in rows]))
            if best is None or hit > best[1]:
                best = (f, hit)
        chosen.append(best[0])
        path.append((list(chosen), best[1]))
        print(f"| + {best[0]} | {best[1]:.3f} |", flush=True)
    return path


def main(argv: list[str] | None = None) -> None:
    parser = recorded_pools_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--features", default=",".join(_rescore.FEATURES), help="comma-separated (default: all)")
    parser.add_argument("--k", default="5,10,15,20", help="top k values to cross-validate")
    parser.add_argument("--l2", default="0.001,0.01,0.1,1", help="L2 penalties to cross-validate")
    parser.add_argument("--loss", default="pairwise", choices=LOSSES, help="pairwise or listwise (see fit_listwise)")
    parser.add_argument(
        "--keep-top", type=int, default=0, help="the fused top N keep their set (the stage re-orders within; 0: none)"
    )
    parser.add_argument("--select", type=int, default=0, help="greedy forward selection of this many features")
    parser.add_argument("--cache", type=Path, default=None, help="keep the recorded features here (a pickle)")
    parser.add_argument("--write", type=Path, default=None, help="fit on every question and write the model here")
    args = parser.parse_args(argv)
    chosen = select_conversations(load_locomo(args.data), args.half, args.conversations)
    print(f"{args.half} half: {', '.join(c.sample_id for _, c in chosen)}")
    started = time.perf_counter()
    if args.cache and args.cache.exists():
        questions = load_questions(args.cache)
    else:
        questions = collect_all(chosen, args.out.resolve())
        if args.cache:
            args.cache.write_bytes(pickle.dumps(questions))
    print(f"{len(questions)} questions recorded in {time.perf_counter() - started:.0f} s", flush=True)
    off, on = np.array([q.ranking_ms for q in questions]), np.array([q.rescored_ms for q in questions])
    print(
        f"final ranking, shipped stage off / on (ms, p50 and p95): {np.median(off):.2f} / {np.median(on):.2f}, "
        f"{np.percentile(off, 95):.2f} / {np.percentile(on, 95):.2f}; the stage's own cost p50 "
        f"{np.median(on - off):.2f} ms, p95 {np.percentile(on - off, 95):.2f} ms (load {os.getloadavg()[0]:.1f})"
    )
    base = [metrics(q, None) for q in questions]
    print(
        f"fused order: Hit@1 {np.mean([b['Hit@1'] for b in base]):.3f}, R@5 {np.mean([b['R@5'] for b in base]):.3f},"
        f" MRR {np.mean([b['MRR'] for b in base]):.3f}"
    )
    features = args.features.split(",")
    ks, l2s = [int(v) for v in args.k.split(",")], [float(v) for v in args.l2.split(",")]
    if args.select:
        print("| forward selection (k, l2 = first of each list) | CV Hit@1 |\n|---|---|")
        forward_selection(questions, base, ks[0], l2s[0], args.select, args.loss)
    else:
        print("| k | l2 | CV Hit@1 | R@5 | MRR | Hit@1 wins / losses | sign test p |\n|---|---|---|---|---|---|---|")
        for k in ks:
            for l2 in l2s:
                print(
                    f"| {k} | {l2:g} | "
                    f"{summary(cross_validate(questions, features, k, l2, args.loss, args.keep_top), base)} |",
                    flush=True,
                )
    if args.write:
        model = fit(questions, features, ks[0], l2s[0], args.loss, args.keep_top)
        raw = model.to_dict()
        raw["loss"] = args.loss
        raw["fitted_by"] = "python -m lucasrag_harness.evaluation.rescore_fit " + shlex.join(sys.argv[1:])
        raw["questions"] = len(questions)
        args.write.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
