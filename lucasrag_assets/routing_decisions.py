"""A person's routing decisions, end to end: approve a quarantined note (one, or many at once: a folder,
a tag, the notes like an example), move a routed note. The CLI (`lucasrag quarantine approve`, `lucasrag route`) and the Dagster approval job
both call these, so they refuse and record exactly the same things (rules/approval_checks.py)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from lucasrag.catalog import read_catalog, record_decision
from lucasrag.settings import Settings
from lucasrag.vault_files import iter_vault_files
from lucasrag.vocabulary import check_workspace
from lucasrag_assets.rules.approval_checks import (
    LIKE_SIMILARITY,
    ApprovalRefused,
    check_approve,
    describe_move,
    did_you_mean,
    quarantined_under,
    select_quarantined,
)
from lucasrag_assets.rules.frontmatter_edit import _resolve_note, record_approval
from lucasrag_assets.rules.routing.evidence import routing_text
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


@dataclass
class BatchApproval:
    """What one decision for many notes did (or, in a dry run, would do)."""

    selected: list[str] = field(default_factory=list)
    approved: list[str] = field(default_factory=list)  # in a dry run: would be approved
    skipped: list[str] = field(default_factory=list)  # "path: why not"
    similarity: dict[str, float] = field(default_factory=dict)  # --like: each selected note's cosine to the example


def _similarity_to(settings: Settings, example: str, paths: list[str]) -> dict[str, float]:
    """Cosine of each note's routing text to the example note's, with the router's embedding model."""
    from lucasrag.embedding import get_embedder

    texts = [routing_text(_note_now(settings, p).body or "") for p in [example, *paths]]
    vectors = get_embedder().embed(texts)  # unit vectors: the dot product is the cosine
    return {p: float(vectors[0] @ v) for p, v in zip(paths, vectors[1:])}


def approve_many(
    settings: Settings,
    workspace: str,
    *,
    folder: str | None = None,
    tag: str | None = None,
    like: str | None = None,
    min_similarity: float = LIKE_SIMILARITY,
    suggested: bool = False,
    excluding: Collection[str] = (),
    dry_run: bool = False,
) -> BatchApproval:
    """Approve every note the last ingest quarantined under ``folder``, carrying ``tag``, like the note
    ``like`` and, with ``suggested``, whose best guess was ``workspace`` (each given condition must hold);
    ``excluding``: paths a person took out of the batch (after a dry run); ``dry_run`` writes nothing and
    says what would be approved. One bad note never stops the others: it is skipped with its reason."""
    check_workspace(workspace)
    if folder is None and tag is None and like is None and not suggested:
        raise ApprovalRefused("say which notes: --folder DIR, --tag TAG, --like PATH or --suggested (any together)")
    rows = _catalog_rows(settings)
    candidates = select_quarantined(rows, folder=folder)
    tags_of = {p: _note_now(settings, p).tags for p in candidates} if tag is not None else None
    candidates = select_quarantined(rows, folder=folder, tag=tag, tags_of=tags_of)
    similarity = _similarity_to(settings, like, candidates) if like is not None and candidates else None
    batch = BatchApproval(
        selected=select_quarantined(
            rows,
            folder=folder,
            tag=tag,
            tags_of=tags_of,
            similarity=similarity,
            min_similarity=min_similarity,
            suggested=workspace if suggested else None,
        )
    )
    excluded, by_path = set(excluding), {r["path"]: r for r in rows}
    batch.selected = [p for p in batch.selected if p not in excluded]
    batch.similarity = {p: round(similarity[p], 3) for p in batch.selected} if similarity else {}
    for rel in batch.selected:
        try:
            if dry_run:
                note = _note_now(settings, rel)
                check_approve(rel, by_path[rel], note.status, note.reason, workspace, note.workspace)
                message = "nothing to change" if note.workspace == workspace else "would approve"
            else:
                message = approve_quarantined(settings, rel, workspace, rows)
        except (ValueError, FileNotFoundError) as exc:  # one bad note never stops the others
            batch.skipped.append(f"{rel}: {exc}")
            continue
        if "nothing to change" in message:
            batch.skipped.append(f"{rel}: already approved into {workspace}")
        else:
            batch.approved.append(rel)
    if not batch.selected and folder is not None:
        known = {str(PurePosixPath(r["path"]).parent) for r in rows}
        if not quarantined_under(folder, rows):
            hint = did_you_mean(folder.strip().strip("/"), known)
            raise FileNotFoundError(f"no quarantined notes under {folder!r} at the last ingest{hint}")
    return batch


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
