"""Reviews converge: an unchanged note keeps its place.

The router learns — from the person's approvals and `workspace:` keys, from the notes it places
confidently, from folder-mates — so a decision about one note could move another that nobody touched
("router learning"), and a review would grow as the person did it. So a note the last ingest indexed keeps
its workspace while nothing about it changed: the same bytes, the same `workspace:` key, the same
routing rule. What the router would do now is kept as a suggestion in its reason. A note that changed,
or that a person moved, is routed afresh; a quarantined note may still be placed by what the router
learned (that settles a pending item, it does not add one). Plain functions over frames, no Dagster.
"""

from __future__ import annotations

import polars as pl

#: A routing reason that names a rule of ``.lucasrag/routing.yaml`` (rules/routing/vault_rules.py).
_RULE_MARK = "(routing.yaml)"


def _rule(reason: str | None) -> str | None:
    return reason if reason and _RULE_MARK in reason else None


def keep_placed(
    decided: pl.DataFrame, previous_catalog: pl.DataFrame | None, previous_state: pl.DataFrame | None
) -> pl.DataFrame:
    """``decided`` (``route_frame``'s rows) with every unchanged note the last ingest indexed back in its
    workspace at its confidence, when the router would now quarantine it or place it elsewhere.
    ``previous_catalog``: the last ``lucasrag notes`` rows; ``previous_state``: their decision inputs
    (``content_hash``, ``declared_workspace``, ``route_reason``)."""
    if previous_catalog is None or previous_state is None or decided.is_empty():
        return decided
    before = (
        previous_catalog.filter(pl.col("status") == "indexed")
        .select("path", pl.col("workspace").alias("was"), pl.col("confidence").alias("was_confidence"))
        .join(
            previous_state.select(
                "path",
                pl.col("content_hash").alias("was_hash"),
                pl.col("declared_workspace").alias("was_declared"),
                pl.col("route_reason").alias("was_reason"),
            ),
            on="path",
        )
    )
    joined = decided.join(before, on="path", how="left")
    unchanged = (
        pl.col("was").is_not_null()
        & (pl.col("content_hash") == pl.col("was_hash"))
        & pl.col("declared_workspace").eq_missing(pl.col("was_declared"))
        & pl.col("workspace").ne_missing(pl.col("was"))
    )
    rules = [_rule(a) == _rule(b) for a, b in zip(joined["route_reason"], joined["was_reason"])]
    keep = unchanged & pl.Series(rules, dtype=pl.Boolean)
    now = (
        pl.when(pl.col("workspace").is_null())
        .then(pl.lit("quarantine it (") + pl.col("route_reason") + pl.lit(")"))
        .otherwise(
            pl.lit("place it in ")
            + pl.col("workspace")
            + pl.lit(" at ")
            + pl.col("confidence").round(2).cast(pl.String)
        )
    )
    return joined.with_columns(
        pl.when(keep)
        .then(
            pl.lit("kept in ")
            + pl.col("was")
            + pl.lit(": unchanged since the last ingest; the router would now ")
            + now
        )
        .otherwise(pl.col("route_reason"))
        .alias("route_reason"),
        pl.when(keep).then(pl.col("was")).otherwise(pl.col("workspace")).alias("workspace"),
        pl.when(keep).then(pl.col("was_confidence")).otherwise(pl.col("confidence")).alias("confidence"),
    ).select(decided.columns)
