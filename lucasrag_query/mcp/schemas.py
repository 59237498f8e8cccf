"""Output schemas the tools advertise (``tools/list``) and their structured content is checked against.

They name the fields an assistant can rely on; ``extra="allow"`` keeps them open,
so a key the query side adds later (the temporal block gains detail) passes through.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Why(_Open):
    signals: dict[str, dict[str, Any]] = Field(
        description="Per ranking signal (similarity, keywords, entity_graph, time_fit, cross_encoder): "
        "score, rank in the merged pool (1 = best, null = no share); keywords also lists the shared words."
    )
    pool: int = Field(description="How many candidates were ranked.")
    summary: str


class SearchResultItem(_Open):
    rank: int
    chunk_id: str
    workspace: str
    path: str = Field(description="Vault-relative path: read the whole note with read_note(path).")
    band: Literal["present", "archival"] | str
    date: str | None
    score: float
    text: str
    why: Why | None = None


class Reach(_Open):
    tool: str
    arguments: dict[str, Any] | None
    when: str


class SearchHint(_Open):
    subject: str | None = Field(description="The deference subject, or null for the archive hint.")
    kind: Literal["deference", "archive"] | str
    withheld: int
    message: str
    reach: Reach


class SearchOutput(_Open):
    query: str
    results: list[SearchResultItem]
    hints: list[SearchHint]
    temporal: dict[str, Any] = Field(description="archival_open and the temporal signals found in the query.")
    reranker: str


class Passage(_Open):
    index: int
    text: str | None = None
    withheld: bool = False
    subjects: list[str] = []
    count: int = 1
    notice: str | None = None


class NoteOutput(_Open):
    path: str
    workspace: str
    band: str
    archival: bool
    date: str | None
    stale: bool = Field(description="The file changed since the last ingest; this is the text as indexed.")
    passages: list[Passage]
    withheld: int
    hints: list[dict[str, Any]]
    text: str


class StatusOutput(_Open):
    vault: str
    profile: str
    reranker: dict[str, Any]
    ingested: bool
    deference_subjects: list[str]
    workspaces: list[dict[str, Any]]
    watch: dict[str, Any] | None = None
