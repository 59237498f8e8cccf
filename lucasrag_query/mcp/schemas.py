"""Output schemas the tools advertise (``tools/list``) and their structured content is checked against.

They name the fields an assistant can rely on; ``extra="allow"`` keeps them open,
so a key the query side adds later (the temporal block gains detail) passes through.

Clients validate every result against these schemas (the SDK's client does, with
jsonschema, in pure Python), so they are kept flat: list items are inlined instead of
``$ref``-ed and nullable fields say ``"type": [..., "null"]`` instead of ``anyOf``; a
nested, ``$ref``-heavy schema cost the SDK client ≈100 ms per 25-result search to check.
The search results themselves (up to 100 per call) name their fields as ``required``
and describe them in words instead of one sub-schema per field: jsonschema's cost is
one step per (field schema × result), and per-field sub-schemas made the client's check
of a 25-result search 2-4 ms on an idle core and 10-16 ms on this loaded machine — the
largest single cost of an MCP round trip (docs/mcp.md, Figures).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

NullableStr = Annotated[str | None, WithJsonSchema({"type": ["string", "null"]})]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


def _items(model: type[BaseModel], description: str) -> Any:
    """A list field whose item schema is ``model``'s, inlined (no ``$ref``); items arrive as dicts."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    return Annotated[
        list[dict[str, Any]], WithJsonSchema({"type": "array", "items": schema, "description": description})
    ]


def _described_items(model: type[BaseModel], description: str) -> Any:
    """A list field whose items must carry every field of ``model`` (``required``), each field
    described in words in the item schema's description rather than checked by a sub-schema of
    its own: what an assistant relies on is stated and checked, at one step per item."""
    schema = model.model_json_schema()
    fields = "; ".join(
        f"{name} ({_type_name(prop)}){': ' + prop['description'].rstrip('.') if prop.get('description') else ''}"
        for name, prop in schema["properties"].items()
    )
    item = {"type": "object", "required": schema["required"], "description": f"Fields: {fields}."}
    return Annotated[list[dict[str, Any]], WithJsonSchema({"type": "array", "items": item, "description": description})]


def _type_name(prop: dict) -> str:
    kinds = prop.get("type", "object")
    return " or ".join(kinds) if isinstance(kinds, list) else kinds


class SearchResultItem(_Open):
    rank: int
    chunk_id: str
    workspace: str
    path: str = Field(description="Vault-relative path: read the whole note with read_note(path).")
    band: str = Field(description="present or archival")
    date: NullableStr = Field(description="ISO date, or null when undated")
    score: float = Field(description="fused ranking score, higher is better")
    text: str
    why: dict[str, Any] = Field(
        description="Why it surfaced: signals (similarity, keywords, entity_graph, time_fit, cross_encoder) "
        "each with score and rank in the merged pool (1 = best, null = no share; keywords also lists the "
        "shared words), pool (candidates ranked) and a one-line summary."
    )


class SearchHint(_Open):
    subject: NullableStr = Field(description="The deference subject, or null for the archive hint.")
    kind: str = Field(description="deference or archive")
    withheld: int
    message: str
    reach: dict[str, Any] = Field(description="How to reach the material (tool, arguments) and when it may be done.")


class SearchOutput(_Open):
    query: str
    results: _described_items(SearchResultItem, "Ranked passages, best first.")
    hints: _items(SearchHint, "One per reason something was withheld; never any withheld text.")
    temporal: dict[str, Any] = Field(description="archival_open and the temporal signals found in the query.")
    reranker: str


class Passage(_Open):
    index: int
    text: NullableStr = None
    withheld: bool = False
    subjects: list[str] = []
    count: int = 1
    notice: NullableStr = None


class RecentNoteItem(_Open):
    path: str = Field(description="Vault-relative path, for read_note.")
    workspace: str
    band: str
    date: NullableStr = Field(description="The note's own date.")
    updated: NullableStr = Field(description="Its updated:/modified: property.")
    changed: str = Field(description="The later of the two: what put it in the list.")


class RecentOutput(_Open):
    days: int
    since: str
    notes: _described_items(RecentNoteItem, "Newest first.")
    hints: _items(SearchHint, "One per reason a note was left out; never any withheld text.")


class NoteOutput(_Open):
    path: str
    workspace: str
    band: str
    archival: bool
    date: NullableStr
    stale: bool = Field(description="The file changed since the last ingest; this is the text as indexed.")
    passages: _items(Passage, "The note's passages in order; a withheld one carries a notice instead of text.")
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
