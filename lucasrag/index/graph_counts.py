"""Each workspace's entity-graph counts as its last sync recorded them (``<data>/graph/<workspace>.json``): what
``status`` and a sync with nothing to do report without opening the graph."""

from __future__ import annotations

import json
from pathlib import Path

from lucasrag.settings import Settings


def _counts_file(settings: Settings, workspace: str) -> Path:
    return settings.data / "graph" / f"{workspace}.json"


def read_graph_counts(settings: Settings, workspace: str) -> tuple[int, int]:
    """(entities, relations) recorded by the last sync of ``workspace`` (0, 0 if none)."""
    try:
        data = json.loads(_counts_file(settings, workspace).read_text())
        return int(data["entities"]), int(data["relations"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0, 0


def forget_graph_counts(settings: Settings, workspace: str) -> None:
    _counts_file(settings, workspace).unlink(missing_ok=True)


def write_graph_counts(settings: Settings, workspace: str, entities: int, relations: int) -> None:
    path = _counts_file(settings, workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"entities": entities, "relations": relations}))
    tmp.replace(path)
