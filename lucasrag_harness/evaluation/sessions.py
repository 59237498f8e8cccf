"""Session-level retrieval metrics: the protocol the published LoCoMo retrieval figures use.

A question's gold sessions are the sessions its evidence turns belong to (``D3:7`` is
turn 7 of session ``D3``). A system's ranked chunks become a ranked list of sessions by
first appearance: a session takes the rank of its best chunk, and later chunks of the
same session add nothing. On that list, per question (macro means over questions):

- Hit@1: the first session is a gold session.
- R@k: at least one gold session is among the first k (``recall_any@k``, the LongMemEval
  convention the anchors use; Lysenstøen 2026 calls it R@k).
- MRR: 1 / rank of the first gold session (0 when none is ranked).
- NDCG@5: binary relevance, DCG = Σ 1/log2(rank + 1) over gold sessions in the first 5,
  divided by the DCG of a perfect list (min(|gold|, 5) gold sessions on top).

Session keys are strings; the pooled protocol prefixes them with the conversation
(``conv-26/D3``) so that ``D3`` of two conversations stay apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from lucasrag_harness.evaluation.recall import TURN_MARKER

SESSION_KS: tuple[int, ...] = (3, 5, 10)
NDCG_K = 5
METRICS: tuple[str, ...] = ("Hit@1", *(f"R@{k}" for k in SESSION_KS), "MRR", f"NDCG@{NDCG_K}")

#: a ranked item's text → the session keys it holds, in order
SessionsOf = Callable[[str], list[str]]


def session_of(dia_id: str) -> str:
    """``"D3:7"`` → ``"D3"``."""
    head, sep, _ = dia_id.partition(":")
    if not sep or not head.startswith("D") or not head[1:].isdigit():
        raise ValueError(f"not a LoCoMo turn id: {dia_id!r} (expected e.g. 'D3:7')")
    return head


def evidence_sessions(evidence: Iterable[str], prefix: str = "") -> tuple[str, ...]:
    """The distinct sessions of a question's evidence turns, in evidence order."""
    return tuple(dict.fromkeys(prefix + session_of(e) for e in evidence))


def chunk_sessions(text: str, prefix: str = "") -> list[str]:
    """The sessions whose turn markers appear in ``text``, in order of first appearance."""
    return list(dict.fromkeys(prefix + session_of(m) for m in TURN_MARKER.findall(text)))


def ranked_sessions(texts: Sequence[str], sessions_of: SessionsOf = chunk_sessions) -> list[str]:
    """Ranked items → ranked sessions, each at the rank of its first appearance."""
    ranked: dict[str, None] = {}
    for text in texts:
        for s in sessions_of(text):
            ranked.setdefault(s, None)
    return list(ranked)


def hit_at(gold: Collection, ranked: Sequence[str], k: int) -> float:
    """1.0 when at least one gold session is among the first ``k``."""
    return 1.0 if any(s in gold for s in ranked[:k]) else 0.0


def reciprocal_rank(gold: Collection, ranked: Sequence[str]) -> float:
    return next((1.0 / (i + 1) for i, s in enumerate(ranked) if s in gold), 0.0)


def ndcg_at(gold: Collection, ranked: Sequence[str], k: int) -> float:
    """Binary-relevance NDCG@k."""
    dcg = sum(1.0 / math.log2(i + 2) for i, s in enumerate(ranked[:k]) if s in gold)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal if ideal else 0.0


def session_metrics(gold: Collection, ranked: Sequence[str]) -> dict[str, float]:
    """Every metric of :data:`METRICS` for one question."""
    if not gold:
        raise ValueError("a question without gold sessions cannot be scored")
    return {
        "Hit@1": hit_at(gold, ranked, 1),
        **{f"R@{k}": hit_at(gold, ranked, k) for k in SESSION_KS},
        "MRR": reciprocal_rank(gold, ranked),
        f"NDCG@{NDCG_K}": ndcg_at(gold, ranked, NDCG_K),
    }


@dataclass
class SessionScores:
    """Per-question session metrics of one system, with each question's category."""

    name: str
    categories: list[str] = field(default_factory=list)
    rows: list[dict[str, float]] = field(default_factory=list)
    sessions_ranked: list[int] = field(default_factory=list)  # distinct sessions the system ranked

    def add(self, category: str, gold: Collection, ranked: Sequence[str]) -> None:
        self.categories.append(category)
        self.rows.append(session_metrics(gold, ranked))
        self.sessions_ranked.append(len(ranked))

    def table(self, excluded: Collection[str] = ()) -> dict[str, float]:
        """Means over the questions whose category is not in ``excluded``, with ``n``."""
        idx = [i for i, c in enumerate(self.categories) if c not in excluded]
        out: dict[str, float] = {"n": len(idx)}
        for m in METRICS:
            out[m] = float(np.mean([self.rows[i][m] for i in idx])) if idx else float("nan")
        out["mean_sessions_ranked"] = float(np.mean([self.sessions_ranked[i] for i in idx])) if idx else float("nan")
        return out

    def to_dict(self, adversarial: str) -> dict:
        return {"system": self.name, "with_adversarial": self.table(), "without_adversarial": self.table({adversarial})}
