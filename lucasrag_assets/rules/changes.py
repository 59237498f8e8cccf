"""No silent moves: what changed for each note between two ingests, and why.

A change is a note whose status (indexed / quarantined / invalid / removed), workspace, band
or withheld subjects (care) differs from the last ingest. Its reason is read from the inputs of
both decisions:

* ``workspace:`` frontmatter changed → ``approval`` or ``explicit move`` when LucasRAG's
  journal recorded that decision, else ``frontmatter`` (a person edited the key);
* the note's text changed → ``note edited``;
* the deciding routing.yaml rule changed → ``routing rule``;
* a band decided by a different rule → ``band rule``; by the same date rule → ``archive cutoff``;
* the subjects a note is withheld for changed while its text did not → ``care decision`` when a
  person's decision now settles it (dismissed, or confirmed in its frontmatter), else ``care
  learning`` (released like a note the person released);
* otherwise the note did not change but its neighbours did → ``router learning``: labels,
  approvals or confidently routed notes moved the workspace centroids or the folder evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from lucasrag.catalog import CHANGES_SCHEMA

FIELDS = ("status", "workspace", "band", "withheld")
_VERBS = {"approve": "approval (lucasrag quarantine approve)", "route": "explicit move (lucasrag route)"}
ROUTER_LEARNING = "router learning: the note is unchanged; other notes' labels, approvals or routing moved it"


_CATALOG_COLUMNS = ("path", "status", "workspace", "band", "reason", "charged", "care")
_INPUT_COLUMNS = ("path", "content_hash", "declared_workspace", "route_reason", "band_rule")


def _rows(frame: pl.DataFrame | None, columns: Sequence[str], paths: pl.Series) -> dict[str, dict]:
    """path → row (the columns a change is read from) for the rows of ``paths``."""
    if frame is None:
        return {}
    narrow = frame.select([c for c in columns if c in frame.columns]).filter(pl.col("path").is_in(paths.implode()))
    return {r["path"]: r for r in narrow.iter_rows(named=True)}


def _candidates(old_catalog: pl.DataFrame, new_catalog: pl.DataFrame, fields: Sequence[str]) -> pl.Series:
    """The old catalogue's paths where one of ``fields`` may have changed (a superset of the changes: the
    rules below decide), so the rest of the vault is never read row by row. Only the fields asked for are
    compared: routing's own check has no band, and comparing it would make every note a candidate."""

    def values(frame: pl.DataFrame) -> pl.DataFrame:
        if "charged" in frame.columns:  # the withheld subjects, as one comparable string
            frame = frame.with_columns(pl.col("charged").list.sort().list.join(", ").alias("withheld"))
        return frame.select(
            "path", *(pl.col(f) if f in frame.columns else pl.lit(None, pl.String).alias(f) for f in fields)
        ).with_columns(pl.col(f).cast(pl.String) for f in fields)

    joined = values(old_catalog).join(values(new_catalog), on="path", how="left", suffix="_new")
    differs = pl.any_horizontal(pl.col(f).ne_missing(pl.col(f"{f}_new")) for f in fields)
    return joined.filter(differs)["path"]


def _rule(route_reason: str | None) -> str | None:
    return route_reason if route_reason and "(routing.yaml)" in route_reason else None


def _reason(
    field: str, old: dict | None, new: dict | None, new_row: dict | None, decisions: Mapping[str, tuple[str, str]]
) -> str:
    if new_row is None:
        return "file removed from the vault"
    if new_row["status"] == "invalid":
        return f"file became invalid: {new_row.get('reason')}"
    if new_row["status"] == "private":
        return "made private: everything stored about it was removed"
    if old is None or new is None:
        return "unknown: no record of the previous decision's inputs (first ingest with change tracking)"
    if old["declared_workspace"] != new["declared_workspace"]:
        decision = decisions.get(new["path"])
        if decision and decision[0] == new["declared_workspace"]:
            return _VERBS.get(decision[1], decision[1])
        return f"frontmatter: workspace {old['declared_workspace'] or 'unset'} → {new['declared_workspace'] or 'unset'}"
    if old["content_hash"] != new["content_hash"]:
        return "note edited"
    if _rule(old["route_reason"]) != _rule(new["route_reason"]):
        return f"routing rule: {_rule(new['route_reason']) or 'no rule applies any more'}"
    if field == "band" and old["band_rule"] != new["band_rule"]:
        return f"band rule: {old['band_rule']} → {new['band_rule']}"
    if field == "band" and new["band_rule"] == "date":
        return "archive cutoff moved (a new 'now': LUCASRAG_NOW or today)"
    if field == "withheld":
        sources = {a.get("source") for a in new_row.get("care") or ()}
        if sources & {"dismissed", "declared"}:
            return "care decision (lucasrag care dismiss|confirm, or charged: in its frontmatter)"
        return "care learning: released like a passage you released, or the deference list changed"
    return ROUTER_LEARNING


def _withheld(row: dict) -> str:
    """The subjects a note's passages are withheld for, as a change shows them."""
    return ", ".join(sorted(row.get("charged") or ())) or "none"


def _status(row: dict | None) -> str:
    if row is None:
        return "removed"
    return f"indexed in {row['workspace']}" if row["status"] == "indexed" else row["status"]


def note_changes(
    old_catalog: pl.DataFrame | None,
    new_catalog: pl.DataFrame,
    old_inputs: pl.DataFrame | None,
    new_inputs: pl.DataFrame,
    decisions: Mapping[str, tuple[str, str]] = {},  # noqa: B006 - read only
    fields: Sequence[str] = FIELDS,
) -> pl.DataFrame:
    """One row per (note, field) that changed, with old and new value and the reason.

    Catalogues have ``path, status, workspace, band, reason`` (the `lucasrag notes` rows);
    inputs have ``path, content_hash, declared_workspace, route_reason, band_rule``.
    New notes are not changes; removed notes are (status → removed).
    """
    if old_catalog is None:
        return pl.DataFrame(schema=CHANGES_SCHEMA)
    paths = _candidates(old_catalog, new_catalog, fields)
    olds, news = _rows(old_catalog, _CATALOG_COLUMNS, paths), _rows(new_catalog, _CATALOG_COLUMNS, paths)
    old_in, new_in = _rows(old_inputs, _INPUT_COLUMNS, paths), _rows(new_inputs, _INPUT_COLUMNS, paths)
    out = []
    for path, before in sorted(olds.items()):
        after = news.get(path)
        pairs = []
        if "status" in fields and (after is None or before["status"] != after["status"]):
            if not (after is None and before["status"] == "invalid"):
                pairs.append(("status", _status(before), _status(after)))
        both_indexed = after is not None and before["status"] == after["status"] == "indexed"
        if "workspace" in fields and both_indexed and before["workspace"] != after["workspace"]:
            pairs.append(("workspace", before["workspace"], after["workspace"]))
        if "band" in fields and both_indexed and before.get("band") != after.get("band"):
            pairs.append(("band", before.get("band"), after.get("band")))
        if "withheld" in fields and both_indexed and _withheld(before) != _withheld(after):
            pairs.append(("withheld", _withheld(before), _withheld(after)))
        for field, old_value, new_value in pairs:
            reason = _reason(field, old_in.get(path), new_in.get(path), after, decisions)
            out.append({"path": path, "field": field, "old": old_value, "new": new_value, "reason": reason})
    return pl.DataFrame(out, schema=CHANGES_SCHEMA)
