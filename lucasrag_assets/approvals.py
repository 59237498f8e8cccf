"""A person's routing decisions, end to end: approve a quarantined note (one or a folder), move a
routed note. The CLI (`lucasrag quarantine approve`, `lucasrag route`) and the Dagster approval job
both call these, so they refuse and record exactly the same things (rules/approval_gate.py)."""

from __future__ import annotations

from pathlib import PurePosixPath

from lucasrag.catalog import read_catalog, record_decision
from lucasrag.settings import Settings
from lucasrag.vault_files import iter_vault_files
from lucasrag.vocabulary import check_workspace
from lucasrag_assets.rules.approval import _resolve_note, record_approval
from lucasrag_assets.rules.approval_gate import check_approve, describe_move, did_you_mean, quarantined_under
from lucasrag_assets.rules.vault_scan import Note, parse_note


def _note_now(settings: Settings, rel: str) -> Note:
    """The note as parsed now; FileNotFoundError says what was probably meant."""
    try:
        path = _resolve_note(settings.vault, rel)
    except FileNotFoundError as exc:
        files = [p.relative_to(settings.vault).as_posix() for p in iter_vault_files(settings.vault)]
        raise FileNotFoundError(f"{exc}{did_you_mean(rel, files)}") from None
    return parse_note(settings.vault.resolve(), path, max_bytes=settings.max_note_bytes)


def _catalog_rows(settings: Settings) -> list[dict]:
    return read_catalog(settings).to_dicts()


def approve_quarantined(settings: Settings, rel: str, workspace: str, rows: list[dict] | None = None) -> str:
    """Record the approval of a note the last ingest quarantined; ApprovalRefused for any other note."""
    check_workspace(workspace)
    note = _note_now(settings, rel)
    rows = _catalog_rows(settings) if rows is None else rows
    row = next((r for r in rows if r["path"] == rel), None)
    check_approve(rel, row, note.status, note.reason, workspace, note.workspace)
    if note.workspace == workspace:
        return f"{rel} is already approved into {workspace}: nothing to change"
    record_approval(settings.vault, rel, workspace, max_bytes=settings.max_note_bytes)
    record_decision(settings, rel, workspace, "approve")
    return f"approved {rel} → {workspace}"


def approve_folder(settings: Settings, folder: str, workspace: str) -> tuple[list[str], list[str]]:
    """Approve every note quarantined under ``folder``: (approved paths, 'path: why not' for the rest)."""
    check_workspace(workspace)
    rows = _catalog_rows(settings)
    approved, skipped = [], []
    for rel in quarantined_under(folder, rows):
        try:
            message = approve_quarantined(settings, rel, workspace, rows)
        except (ValueError, FileNotFoundError) as exc:  # one bad note never stops the others
            skipped.append(f"{rel}: {exc}")
            continue
        if "nothing to change" in message:
            skipped.append(f"{rel}: {message}")
        else:
            approved.append(rel)
    if not approved and not skipped:
        known = {str(PurePosixPath(r["path"]).parent) for r in rows}
        hint = did_you_mean(folder.strip().strip("/"), known)
        raise FileNotFoundError(f"no quarantined notes under {folder!r} at the last ingest{hint}")
    return approved, skipped


def move_note(settings: Settings, rel: str, workspace: str) -> str:
    """Record an explicit move of a note (routed or quarantined) to ``workspace``; says what changes."""
    check_workspace(workspace)
    note = _note_now(settings, rel)
    rows = _catalog_rows(settings)
    row = next((r for r in rows if r["path"] == rel), None)
    message = describe_move(rel, row, note.status, note.reason, workspace, note.workspace)
    if "nothing to change" not in message:
        record_approval(settings.vault, rel, workspace, max_bytes=settings.max_note_bytes)
        record_decision(settings, rel, workspace, "route")
    return message
