"""Evidence recall@k and latency figures for retrieval evaluations.

A question's recall@k is the share of its evidence turn ids whose ``[D3:7]``
marker appears in the text of the top k returned chunks. Means are taken per
question (macro), per category and over all scored questions.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

KS: tuple[int, ...] = (5, 10, 25)
TURN_MARKER = re.compile(r"\[(D\d+:\d+)\]")


def turn_ids(text: str) -> set[str]:
    """The turn ids whose markers appear in ``text``."""
    return set(TURN_MARKER.findall(text))


def recall_at(evidence: Sequence[str], texts: Sequence[str], k: int) -> float:
    """Share of ``evidence`` found in the first ``k`` of ``texts``."""
    if not evidence:
        raise ValueError("a question without evidence cannot be scored")
    found: set[str] = set()
    for text in texts[:k]:
        found |= turn_ids(text)
    return sum(1 for e in evidence if e in found) / len(evidence)


def word_count(texts: Iterable[str]) -> int:
    return sum(len(t.split()) for t in texts)


@dataclass
class SystemScores:
    """Per-question recalls, returned words and latencies for one system."""

    name: str
    recalls: dict[int, list[float]] = field(default_factory=lambda: {k: [] for k in KS})
    categories: list[str] = field(default_factory=list)
    words: list[int] = field(default_factory=list)  # words returned at the largest k
    turns: list[int] = field(default_factory=list)  # distinct turns returned at the largest k
    latencies_ms: list[float] = field(default_factory=list)
    date_cue: list[bool] = field(default_factory=list)  # the question names a date (the date-cue slice)

    def add(
        self, category: str, evidence: Sequence[str], texts: Sequence[str], latency_ms: float, date_cue: bool = False
    ) -> None:
        self.date_cue.append(date_cue)
        for k in KS:
            self.recalls[k].append(recall_at(evidence, texts, k))
        self.categories.append(category)
        self.words.append(word_count(texts[: max(KS)]))
        self.turns.append(len(set().union(*map(turn_ids, texts[: max(KS)]))))
        self.latencies_ms.append(latency_ms)

    def table(self, categories: Sequence[str]) -> dict[str, dict[str, float]]:
        """{category, "date cue" (questions naming a date, any category) or "all": {"n", "R@5", "R@10", "R@25"}}."""
        rows: dict[str, dict[str, float]] = {}
        by_cat: dict[str, list[int]] = defaultdict(list)
        for i, c in enumerate(self.categories):
            by_cat[c].append(i)
        by_cat["date cue"] = [i for i, d in enumerate(self.date_cue) if d]
        for name in [*categories, "date cue", "all"]:
            idx = list(range(len(self.categories))) if name == "all" else by_cat.get(name, [])
            row: dict[str, float] = {"n": len(idx)}
            for k in KS:
                row[f"R@{k}"] = float(np.mean([self.recalls[k][i] for i in idx])) if idx else float("nan")
            rows[name] = row
        return rows

    def summary(self) -> dict[str, float]:
        lat = np.array(self.latencies_ms) if self.latencies_ms else np.array([np.nan])
        return {
            "queries": len(self.categories),
            "mean_words_at_25": float(np.mean(self.words)) if self.words else float("nan"),
            "mean_turns_at_25": float(np.mean(self.turns)) if self.turns else float("nan"),
            "latency_p50_ms": float(np.percentile(lat, 50)),
            "latency_p95_ms": float(np.percentile(lat, 95)),
        }

    def to_dict(self, categories: Sequence[str]) -> dict:
        return {"system": self.name, "recall": self.table(categories), **self.summary()}
