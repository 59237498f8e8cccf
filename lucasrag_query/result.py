"""What a query returns: ranked chunks, hints and how they were chosen (JSON shape of §3.9)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from lucasrag_query.policy import Hint


@dataclass(frozen=True)
class ResultItem:
    rank: int
    chunk_id: str
    workspace: str
    path: str
    band: str
    date: str | None
    score: float
    text: str


@dataclass(frozen=True)
class QueryResult:
    query: str
    results: list[ResultItem]
    hints: list[Hint]
    archival_open: bool
    signals: tuple[str, ...]
    reranker: str  # "llama.cpp" | "embedding-similarity"
    reranker_note: str | None = None  # why the fallback ran, when it did
    timings_ms: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # e.g. a bridge naming no deference subject

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "results": [asdict(r) for r in self.results],
            "hints": [h.to_dict() for h in self.hints],
            "temporal": {"archival_open": self.archival_open, "signals": list(self.signals)},
            "reranker": self.reranker,
            "warnings": list(self.warnings),
        }
        if self.reranker_note:
            out["reranker_note"] = self.reranker_note
        return out
