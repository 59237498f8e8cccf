"""What a query returns: ranked chunks, hints and how they were chosen (JSON shape of §3.9)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
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
    #: which signals ranked it (see lucasrag_query.why); shown by ``to_dict(why=True)``
    why: dict | None = field(default=None, compare=False)
    #: other passages of the same note that matched too, left out so that the list shows notes (0 with chunks=True)
    more: int = 0

    def to_dict(self, why: bool = False) -> dict[str, Any]:
        # Field by field, not asdict(): that deep-copies the why block (≈2 ms per result).
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if not why or self.why is None:
            out.pop("why")
        if not why:  # the §3.9 item keeps its keys; the explained form (MCP) adds the count
            out.pop("more")
        return out


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
    #: The full ``temporal`` block: the §3.9 keys plus ``archive`` (closed | whole | periods) and
    #: ``details`` (per signal: text, kind, period {start, end, precision}, opens, opened_archive).
    temporal: dict[str, Any] | None = None
    temporal_line: str | None = None  # the same, in one line for the CLI
    filters: dict[str, Any] | None = None  # the caller's filters, echoed (None: none given)

    def to_dict(self, why: bool = False) -> dict[str, Any]:
        """The §3.9 JSON; ``why=True`` adds each result's ``why`` block (the MCP search tool does)."""
        out: dict[str, Any] = {
            "query": self.query,
            "results": [r.to_dict(why) for r in self.results],
            "hints": [h.to_dict() for h in self.hints],
            "temporal": {
                **(self.temporal or {}),
                "archival_open": self.archival_open,
                "signals": list(self.signals),
            },
            "reranker": self.reranker,
            "warnings": list(self.warnings),
        }
        if self.reranker_note:
            out["reranker_note"] = self.reranker_note
        if self.filters:
            out["filters"] = self.filters
        return out
