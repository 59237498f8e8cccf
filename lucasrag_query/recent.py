"""What's new: the notes written or changed in the last N days (``lucasrag recent``, the MCP ``recent`` tool).

A note's moment is its own date (``date:``, a dated file name) or, when later, its ``updated:``/``modified:``
property: the vault's record, never a file's mtime (a sync or a checkout touches every file). The list
comes from the last ingest's catalogue, so it costs a read of one table, not of the notes.

The same policy as search, through :func:`lucasrag_query.policy.apply_policy`: a note with passages
withheld for a deference subject is left out and counted in that subject's hint (unless bridged), an
archival note is left out and counted in the archive hint, quarantined and private notes never appear.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from lucasrag.catalog import CatalogMissing, catalog_written_at, scan_catalog
from lucasrag.deference import load_deference
from lucasrag.privacy import load_privacy, private_now
from lucasrag.settings import Settings
from lucasrag.vocabulary import WORKSPACES, check_workspace
from lucasrag_query.policy import Candidate, Hint, apply_policy
from lucasrag_query.temporal import TemporalSignals

#: Most days a caller may ask for (a longer look back is a search with a period).
MAX_DAYS = 366


class RecentError(ValueError):
    """A bad argument; the message says what was expected."""


@dataclass(frozen=True)
class RecentNote:
    path: str
    workspace: str
    band: str
    date: str | None  # the note's own date
    updated: str | None  # its updated:/modified: property, if any
    changed: str  # the later of the two: what put it in the list

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "workspace": self.workspace,
            "band": self.band,
            "date": self.date,
            "updated": self.updated,
            "changed": self.changed,
        }


@dataclass(frozen=True)
class RecentResult:
    days: int
    since: str
    notes: list[RecentNote]
    hints: list[Hint] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "days": self.days,
            "since": self.since,
            "notes": [n.to_dict() for n in self.notes],
            "hints": [h.to_dict() for h in self.hints],
            "warnings": list(self.warnings),
        }


def recent(
    days: int = 7,
    *,
    workspaces: Sequence[str] | None = None,
    bridge: Sequence[str] = (),
    settings: Settings | None = None,
) -> RecentResult:
    """The notes whose own date or update falls in the last ``days`` days (today included), newest first."""
    settings = settings or Settings.from_env()
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        raise RecentError(f"days must be a whole number from 1 to {MAX_DAYS} (got {days!r})")
    if isinstance(workspaces, str):
        workspaces = [workspaces]
    try:
        selected = set(WORKSPACES if workspaces is None else (check_workspace(w) for w in workspaces))
    except ValueError as exc:
        raise RecentError(str(exc)) from None
    since = (settings.now - dt.timedelta(days=days - 1)).isoformat()
    today = settings.now.isoformat()
    try:
        rows = _rows_in(settings, since, today)
    except CatalogMissing as exc:
        raise RecentError(str(exc)) from None
    private = load_privacy(settings.vault)
    candidates, when = [], {}
    for row in rows:
        if row["workspace"] not in selected or private.matches(row["path"]):
            continue
        changed = max(d for d in (row.get("date"), row.get("updated"), "") if d is not None)[:10]
        if not since <= changed <= today:
            continue
        when[row["path"]] = (row.get("date"), row.get("updated"), changed)
        band, charged = row["band"] or "present", tuple(row.get("charged") or ())
        candidates.append(Candidate(row["path"], row["workspace"], row["path"], band, row.get("date"), charged, ""))
    closed = TemporalSignals(False, (), ())  # no period in a "what's new": the archive stays closed
    outcome = apply_policy(candidates, temporal=closed, subjects=load_deference(settings.vault), bridge=bridge)
    vault, ingested = settings.vault.resolve(), catalog_written_at(settings)
    notes = [
        RecentNote(c.path, c.workspace, c.band, when[c.path][0], when[c.path][1], when[c.path][2])
        for c in outcome.kept
        # made private (private: true) since the last ingest: left out, as search leaves it out
        if not private_now(vault, c.path, private, max_bytes=settings.max_note_bytes, unchanged_since=ingested)
    ]
    notes.sort(key=lambda n: (n.changed, n.path), reverse=True)
    return RecentResult(days, since, notes, list(outcome.hints), list(outcome.warnings))


_COLUMNS = ("path", "status", "workspace", "band", "date", "updated", "charged")


def _rows_in(settings: Settings, since: str, today: str) -> list[dict]:
    """The indexed notes whose date or update falls in ``since..today``, read from the catalogue's few columns
    it needs and filtered before any row becomes a dict (the care evidence and reasons are never read)."""
    import polars as pl

    frame = scan_catalog(settings)
    present = set(frame.collect_schema().names())
    day = [
        pl.col(c).str.slice(0, 10).is_between(pl.lit(since), pl.lit(today)) for c in ("date", "updated") if c in present
    ]
    columns = [c for c in _COLUMNS if c in present]
    found = frame.select(columns).filter((pl.col("status") == "indexed") & pl.any_horizontal(day)).collect()
    return found.to_dicts()
