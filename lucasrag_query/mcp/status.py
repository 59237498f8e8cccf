"""``status``: what the indexes hold and how fresh they are, per workspace.

"Stale" compares the vault with the last ingest: notes added or deleted since,
and notes whose modification time is after the catalogue was written (the
catalogue is rewritten by every ingest). Mtimes never decide a band, but they are
what the vault sensor and the watcher use to notice edits, so the same yardstick
says what they would pick up next.
"""

from __future__ import annotations

import datetime as dt

from lucasrag.catalog import CatalogMissing, care_pending, catalog_path
from lucasrag.deference import load_deference
from lucasrag.index.stores import index_exists, open_chunk_store
from lucasrag.settings import Settings, mask_secrets
from lucasrag.vault_files import iter_vault_files
from lucasrag.vocabulary import WORKSPACES
from lucasrag_query.mcp.notes import catalog_rows

#: At most this many stale paths are listed (the count is always complete).
MAX_LISTED = 50


def _iso(ns: int) -> str:
    return dt.datetime.fromtimestamp(ns / 1e9, dt.UTC).isoformat(timespec="seconds")


def _stale(settings: Settings, rows: dict[str, dict], ingested_ns: int) -> dict:
    on_disk = {p.relative_to(settings.vault).as_posix(): p for p in iter_vault_files(settings.vault)}
    added = sorted(set(on_disk) - set(rows))
    deleted = sorted(set(rows) - set(on_disk))
    changed = []
    for rel, path in on_disk.items():
        try:
            if rel in rows and path.stat().st_mtime_ns > ingested_ns:
                changed.append(rel)
        except OSError:  # deleted mid-scan
            continue
    changed.sort()
    return {
        "count": len(added) + len(deleted) + len(changed),
        "added": added[:MAX_LISTED],
        "changed": changed[:MAX_LISTED],
        "deleted": deleted[:MAX_LISTED],
    }


def _workspace(settings: Settings, workspace: str, rows: dict[str, dict]) -> dict:
    notes = sum(1 for r in rows.values() if r["status"] == "indexed" and r["workspace"] == workspace)
    out = {"workspace": workspace, "notes": notes, "chunks": 0, "indexed": index_exists(settings, workspace)}
    if out["indexed"]:
        store = open_chunk_store(settings, workspace)
        try:
            out["chunks"] = store.counts()[1]
        finally:
            store.close()
        if settings.profile == "embedded":
            files = [p.stat().st_mtime_ns for p in settings.workspace_dir(workspace).glob("*") if p.is_file()]
            out["last_changed"] = _iso(max(files)) if files else None
    return out


def status(settings: Settings, watch: dict | None = None) -> dict:
    """The ``status`` tool's structured content (see the module doc)."""
    reranker = "llama.cpp" if settings.reranker_url else "embedding-similarity"
    out: dict = {
        "vault": str(settings.vault),
        "profile": settings.profile,
        "reranker": {"kind": reranker, "url": mask_secrets(settings.reranker_url)},
        "now": settings.now.isoformat(),
        "deference_subjects": [s.name for s in load_deference(settings.vault)],
        "watch": watch,
    }
    try:
        rows = catalog_rows(settings)
    except CatalogMissing as exc:
        return {**out, "ingested": False, "message": str(exc), "workspaces": []}
    ingested_ns = catalog_path(settings).stat().st_mtime_ns
    quarantined = [
        {"path": r["path"], "suggestion": r["suggestion"], "reason": r["reason"]}
        for r in rows.values()
        if r["status"] == "quarantined"
    ]
    invalid = [{"path": r["path"], "reason": r["reason"]} for r in rows.values() if r["status"] == "invalid"]
    # Pending pairs are withheld until a person confirms or dismisses them (`lucasrag care list`);
    # only path and subject are reported, never the mention or any passage text.
    care = sorted({(r["path"], a["subject"]) for r in rows.values() for a in r.get("care") or () if care_pending(a)})
    return {
        **out,
        "ingested": True,
        "last_ingest": _iso(ingested_ns),
        "workspaces": [_workspace(settings, ws, rows) for ws in WORKSPACES],
        "stale": _stale(settings, rows, ingested_ns),
        "pending_quarantine": {"count": len(quarantined), "notes": quarantined},
        "invalid": {"count": len(invalid), "notes": invalid},
        "pending_care": {"count": len(care), "notes": [{"path": p, "subject": subject} for p, subject in care]},
    }
