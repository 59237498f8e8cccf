"""The entity graph's row formats (what LightRAG's own merge writes) and the small
functions that build and merge them; no LightRAG state."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

#: Description fragments kept per entity/relation (the first sources' sentences).
_FRAGMENTS = 4


@dataclass
class GraphStats:
    entities_written: int = 0
    relations_written: int = 0
    entities_removed: int = 0
    relations_removed: int = 0
    texts: int = 0  # entity/relation texts whose vectors were asked of the embedding cache
    embed_seconds: float = 0.0
    llm_chunks: int = 0
    llm_entities: int = 0
    llm_relations: int = 0


@dataclass
class _GraphAcc:
    sources: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    fragments: list[str] = field(default_factory=list)
    type: str | None = None
    weight: float = 0.0
    keywords: list[str] = field(default_factory=list)

    def add(
        self,
        chunk_id: str,
        path: str,
        fragment: str,
        *,
        type_: str | None = None,
        weight: float = 0.0,
        keywords: str = "",
    ) -> None:
        if chunk_id not in self.sources:
            self.sources.append(chunk_id)
        if path and path not in self.paths:
            self.paths.append(path)
        if fragment and fragment not in self.fragments:
            self.fragments.append(fragment)
        if type_:
            self.type = _best_type(self.type, type_)
        self.weight += weight
        for k in (keywords or "").split(","):
            if k.strip() and k.strip() not in self.keywords:
                self.keywords.append(k.strip())


def _node_name(name: str) -> str:
    from lightrag.utils import GRAPH_FIELD_SEP, normalize_entity_name

    try:
        name = normalize_entity_name(name)
    except Exception:  # noqa: BLE001 — a name LightRAG cannot normalise is skipped
        return ""
    return "" if not name or GRAPH_FIELD_SEP in name else name


def _split(value: object) -> list[str]:
    from lightrag.utils import GRAPH_FIELD_SEP

    return [v for v in str(value or "").split(GRAPH_FIELD_SEP) if v.strip() and v.strip() != "UNKNOWN"]


def _keywords(value: object) -> list[str]:
    from lightrag.utils import GRAPH_FIELD_SEP

    return [k.strip() for k in str(value or "").replace(GRAPH_FIELD_SEP, ",").split(",") if k.strip()]


def _tracked_sources(row: dict | None, graph_row: dict | None) -> list[str]:
    """The full chunk list: the tracking row when present, else the (capped) graph source_id."""
    from lightrag.utils import has_chunk_tracking_row

    if has_chunk_tracking_row(row):
        return [c for c in row.get("chunk_ids") or [] if c]
    return _split((graph_row or {}).get("source_id"))


def _merged_sources(existing: Iterable[str], new: Iterable[str]) -> list[str]:
    """``merge_source_ids(existing, new)`` — flat, ordered, deduplicated, stripped — without a regex split of
    every id: only an element that holds ``GRAPH_FIELD_SEP`` is split (none does in the rows LucasRAG writes).
    A hub entity lists thousands of chunks, and every edit that touches it merged them all again."""
    from lightrag.utils import GRAPH_FIELD_SEP

    merged: dict[str, None] = {}
    for sequence in (existing, new):
        for value in sequence or ():
            if not value:
                continue
            value = value if isinstance(value, str) else str(value)
            for part in value.split(GRAPH_FIELD_SEP) if GRAPH_FIELD_SEP in value else (value,):
                if part := part.strip():
                    merged.setdefault(part)
    return list(merged)


def _merge_fragments(old_description: object, new: list[str]) -> list[str]:
    old = _split(old_description)
    if len(old) >= _FRAGMENTS:
        return old
    return list(dict.fromkeys(old + new))[:_FRAGMENTS]


def _merge_paths(old: list[str], new: list[str], cap: int) -> list[str]:
    return list(dict.fromkeys(p for p in old + new if p))[:cap]


def _best_type(old: object, new: object) -> str:
    from lucasrag.entities import TYPE_RANK

    candidates = [str(t).strip().lower() for t in (old, new) if t and str(t).strip() and str(t) != "UNKNOWN"]
    if not candidates:
        return "concept"
    return max(candidates, key=lambda t: TYPE_RANK.get(t, 0))


def _entity_vdb_id(name: str) -> str:
    from lightrag.utils import compute_mdhash_id

    return compute_mdhash_id(name, prefix="ent-")


def _relation_key(a: str, b: str) -> str:
    from lightrag.utils import make_relation_chunk_key

    return make_relation_chunk_key(a, b)


#: Characters of an entity's vector text. LightRAG embeds the whole description;
#: the structural graph embeds the name and the first sentence only:
#: a name is what a query matches, and short texts embed 3-4x faster (docs/graph.md).
VECTOR_TEXT_CHARS = 160


def _vector_text(head: str, description: str) -> str:
    first = _split(description)[:1]
    text = head + ("\n" + first[0] if first else "")
    return text if len(text) <= VECTOR_TEXT_CHARS else text[: VECTOR_TEXT_CHARS - 1].rstrip() + "…"


def _entity_vdb_row(name: str, node: dict) -> dict:
    return {
        "entity_name": name,
        "entity_type": node["entity_type"],
        "content": _vector_text(name, node["description"]),
        "source_id": node["source_id"],
        "file_path": node["file_path"],
    }
