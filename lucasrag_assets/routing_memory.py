"""Routing's memory in a file, so that a fresh process (``lucasrag ingest``) rescores only what changed too.

rules/routing/remembered.py keeps what the last routing pass computed (:class:`Remembered`) and rescores only the
notes a change touches. A long-lived writer keeps it in memory; a fresh process used to route the whole vault
(≈ 3.5 s at 100,000 notes, a third of it reading every note's routing vector back from the embedding cache).
This module writes it under the data folder — one uncompressed ``.npz``, ≈ 1.8 KB a note (its routing vector
most of it), by the background writer where a run has one — after a full pass and whenever the memory has moved
:func:`most_behind` notes past the file, and a fresh process starts from it (reading again the notes that changed
since it was written: a remembered pass reads every note whose inputs differ from the file's).

The file names what it was made with (:func:`memory_key`: the threshold, the routing rules, the evidence rules'
and the router's source, the router's weights, the model, polars' version for its row hashes): a file made with
anything else is ignored and the whole vault routed, as is a torn or foreign file. Deleting it is always safe.
Nothing here decides a route; a remembered score is within the tolerance of a full pass's whatever process
made it (rules/routing/remembered.py).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Hashable
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import polars as pl

from lucasrag.file_memo import KeptByIdentity
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.memo import source_fingerprint
from lucasrag_assets.rules.routing import folder_votes, passes, remembered, router
from lucasrag_assets.rules.routing.passes import FirstPass, RoutingInputs
from lucasrag_assets.rules.routing.remembered import Remembered, RoutingMemory

#: The file's layout: a new one ignores older files (the vault is routed whole once).
FORMAT = 1
#: A long-lived writer rewrites the file (≈ 180 MB at 100,000 notes) once its memory is this share of the notes
#: (and at least this many) ahead of it, not after every change: a fresh process starting from the file reads
#: those notes' inputs again (≈ 0.1 s for 500 notes), which is cheaper than the write.
BEHIND_SHARE = 0.005
BEHIND_AT_LEAST = 50
#: The routing memory this process last wrote or read, by file (its identity kept with it): a long-lived writer
#: takes its own back without reading the file; another writer's file is read again.
_kept = KeptByIdentity(limit=2)


def memory_path(data: Path) -> Path:
    return data / "cache" / "routing_memory.npz"


def memory_key(context: Hashable) -> str:
    """A digest of what a remembered pass depends on besides the notes: ``context`` (:class:`RoutingMemory`'s:
    threshold, rules, evidence salt, model), the router's source and weights, polars' row hashes."""
    weights = sorted((k, v) for k, v in vars(router).items() if k.isupper() and isinstance(v, (int, float)))
    code = source_fingerprint(router, passes, remembered, folder_votes)
    text = repr((FORMAT, context, weights, code, pl.__version__))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _split(prefix: str, values: dict[str, np.ndarray], arrays: dict, objects: dict) -> None:
    for name, value in values.items():
        if value.dtype == object:
            objects[f"{prefix}.{name}"] = value.tolist()
        else:
            arrays[f"{prefix}.{name}"] = value


def save_remembered(path: Path, memory: Remembered) -> None:
    """``memory`` in ``path`` (a new file; :meth:`KeptByIdentity.write` renames it into place)."""
    arrays: dict[str, np.ndarray] = {"hashes": memory.hashes, "near": memory.near, "heard": memory.heard}
    objects: dict[str, list] = {}
    _split("inputs", vars(memory.inputs), arrays, objects)
    _split("first", vars(memory.first), arrays, objects)
    _split("decisions", dict(memory.decisions), arrays, objects)
    for ws in WORKSPACES:
        arrays[f"prototypes.{ws}"] = memory.prototypes[ws]
        for i in (0, 1):
            arrays[f"centroids{i}.{ws}"] = memory.centroids[i][ws]
            arrays[f"sums{i}.{ws}"] = memory.sums[i][ws]
    arrays["objects"] = np.frombuffer(json.dumps(objects).encode(), dtype=np.uint8)
    arrays["key"] = np.frombuffer(memory_key(memory.context).encode(), dtype=np.uint8)
    with path.open("wb") as fh:
        np.savez(fh, **arrays)


def _column(values: list) -> np.ndarray:
    # JSON gives a rule's (workspace, reason) back as a list
    return passes._objects([tuple(v) if isinstance(v, list) else v for v in values])


def load_remembered(path: Path, context: Hashable) -> Remembered | None:
    """The memory in ``path`` if it was made with ``context`` (:func:`memory_key`), else None (no file, another
    key, a torn or foreign file)."""
    try:
        with np.load(path, allow_pickle=False) as saved:
            if bytes(saved["key"]).decode() != memory_key(context):  # read first: the rest only when it is ours
                return None
            arrays = {name: saved[name] for name in saved.files}
        objects = json.loads(bytes(arrays.pop("objects")))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, UnicodeDecodeError):
        return None

    def part(prefix: str, names) -> dict[str, np.ndarray]:
        return {
            n: arrays[f"{prefix}.{n}"] if f"{prefix}.{n}" in arrays else _column(objects[f"{prefix}.{n}"])
            for n in names
        }

    try:
        memory = Remembered(
            context=context,
            hashes=arrays["hashes"],
            prototypes={ws: arrays[f"prototypes.{ws}"] for ws in WORKSPACES},
            centroids=tuple({ws: arrays[f"centroids{i}.{ws}"] for ws in WORKSPACES} for i in (0, 1)),
            inputs=RoutingInputs(**part("inputs", [f.name for f in fields(RoutingInputs)])),
            first=FirstPass(**part("first", [f.name for f in fields(FirstPass)])),
            sums=tuple({ws: arrays[f"sums{i}.{ws}"] for ws in WORKSPACES} for i in (0, 1)),
            near=arrays["near"],
            heard=arrays["heard"],
            decisions=part("decisions", passes.DECISION_COLUMNS),
        )
    except KeyError:
        return None
    rows = len(memory.hashes)
    per_note = [*vars(memory.inputs).values(), *vars(memory.first).values(), *memory.decisions.values()]
    if any(len(a) != rows for a in [*per_note, memory.near, memory.heard]):
        return None  # not one pass's
    return memory


@dataclass(frozen=True)
class _Kept:
    memory: Remembered
    behind: int  # notes read afresh since the file was written: a fresh process would read them again


def most_behind(notes: int) -> int:
    """How many notes' inputs the file may lag behind a long-lived writer's memory (:data:`BEHIND_SHARE`)."""
    return max(BEHIND_AT_LEAST, int(BEHIND_SHARE * notes))


def remembered_routing(data: Path, context: Hashable) -> Remembered | None:
    """What the last routing of the data folder ``data`` computed: this process's own while the file is the one
    it wrote, else the file's (None when there is none made with ``context``)."""
    kept = _kept.read(memory_path(data), lambda path: _from_file(path, context))
    return kept.memory if kept is not None else None


def _from_file(path: Path, context: Hashable) -> _Kept | None:
    memory = load_remembered(path, context)
    return _Kept(memory, 0) if memory is not None else None


def keep_routing(data: Path, routed: RoutingMemory) -> None:
    """Keep what ``routed`` last computed as the data folder's routing memory. The file is written (in the
    background within :func:`~lucasrag.file_memo.writes_in_background`) after a full pass, after a remembered
    one in which a note left the vault (or was made private), and once it lags :func:`most_behind` notes behind;
    until then this process keeps its memory with the file it descends from, and a fresh process reads the few
    notes changed since from the vault."""
    if not routed.changed or routed.last is None:
        return
    path = memory_path(data)
    kept = _kept.get(path)
    behind = (kept.behind if kept is not None else 0) + (routed.read_afresh or 0)
    lagging = behind > most_behind(len(routed.last.hashes))
    # a note gone (deleted, renamed, made private) leaves the file at once: a private note leaves no trace
    if routed.how == "remembered" and kept is not None and not lagging and not routed.forgotten:
        _kept.keep(path, _Kept(routed.last, behind))
        return
    memory = routed.last
    _kept.write(path, _Kept(memory, 0), lambda tmp: save_remembered(tmp, memory))
