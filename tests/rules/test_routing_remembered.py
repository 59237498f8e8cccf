"""Routing again in a long-lived process (rules/routing/remembered.py): only what a change touches is rescored,
every kept score within the tolerance of a full pass's, and a full pass whenever that cannot be promised."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import polars as pl
import pytest
from routing_vaults import fake_embed, synthetic_notes

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.rules.routing.evidence import note_evidence
from lucasrag_assets.rules.routing.folder_votes import folder_shares
from lucasrag_assets.rules.routing.passes import (
    decision_columns,
    first_pass,
    route_frame,
    routing_inputs,
    second_pass,
    with_decisions,
)
from lucasrag_assets.rules.routing.remembered import RoutingMemory
from lucasrag_assets.rules.routing.vault_rules import RoutingRules, parse_routing_rules

RULES = parse_routing_rules({"folders": {"inbox/clips": "personal"}, "tags": {"recipe": "personal"}})
EVERYTHING = math.inf  # a tolerance that never asks for a full pass: the rescoring itself is what is checked


def _word_vector(word: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(384)


COMMON = _word_vector("a vault's common ground")


def clustered_embed(texts: list[str]) -> np.ndarray:
    """Like a real model's vectors, notes share a direction and similar words give similar vectors: one
    centroid among hundreds of notes then turns by little when one note changes."""
    rows = []
    for text in texts:
        v = 40 * COMMON + sum((_word_vector(w) for w in text.split()), np.zeros(384))
        rows.append(v / np.linalg.norm(v))
    return np.asarray(rows, dtype=np.float32).reshape(len(texts), 384)


def _replace(notes: pl.DataFrame, where: str, **values) -> pl.DataFrame:
    return notes.with_columns(
        pl.when(pl.col("path") == where).then(pl.lit(v, dtype=notes.schema[k])).otherwise(pl.col(k)).alias(k)
        for k, v in values.items()
    )


def _a_voter(notes: pl.DataFrame, folder: str) -> str:
    """A valid note with words of its own in ``folder`` and no workspace key."""
    mine = notes.filter(
        (pl.col("status") == "ok")
        & pl.col("path").str.starts_with(f"{folder}/")
        & ~pl.col("path").str.slice(len(folder) + 1).str.contains("/")
        & pl.col("declared_workspace").is_null()
        & (pl.col("body").str.split(" ").list.len() > 12)
    )
    return mine["path"][0]


def edit(notes):
    return _replace(notes, _a_voter(notes, "journal"), body="kubernetes postgres deploy python server bug " * 3)


def add(notes):
    row = notes.filter(pl.col("path") == _a_voter(notes, "tech")).with_columns(
        pl.lit("tech/brand new.md").alias("path"), pl.lit("poem verse moon sea story draft chapter " * 2).alias("body")
    )
    return pl.concat([notes, row])


def delete(notes):
    return notes.filter(pl.col("path") != _a_voter(notes, "writing"))


def declare(notes):
    return _replace(notes, _a_voter(notes, "admin/tax"), declared_workspace="creative")


def move(notes):
    return _replace(notes, _a_voter(notes, "journal"), path="writing/moved.md")


def tag_a_rule(notes):
    return _replace(notes, _a_voter(notes, "tech/db"), tags=["recipe"])


def with_a_small_folder(notes):
    """Four voting notes of the journal moved to a folder of their own."""
    voters = (
        notes.filter(
            pl.col("path").str.starts_with("journal/")
            & (pl.col("status") == "ok")
            & pl.col("declared_workspace").is_null()
        )
        .filter(pl.col("body").str.split(" ").list.len() > 12)["path"]
        .to_list()[:4]
    )
    return notes.with_columns(
        pl.when(pl.col("path").is_in(voters))
        .then(pl.col("path").str.replace("journal/", "small/"))
        .otherwise(pl.col("path"))
        .alias("path")
    )


def silence(notes):
    """Two of the small folder's four notes lose their words: the other two no longer hear enough folder-mates
    (they hear the whole vault instead) and must be rescored though they did not change."""
    quiet = notes.filter(pl.col("path").str.starts_with("small/"))["path"].to_list()[:2]
    return notes.with_columns(
        pl.when(pl.col("path").is_in(quiet)).then(pl.lit("")).otherwise(pl.col("body")).alias("body")
    )


def frozen_reference(memory: RoutingMemory, notes: pl.DataFrame, rules) -> pl.DataFrame:
    """Every note of ``notes`` scored afresh against the centroids of the memory's last full pass."""
    valid = notes.filter(pl.col("status") == "ok")
    inputs = routing_inputs(valid, clustered_embed, rules or RoutingRules(), note_evidence)
    first_centroids, second_centroids = memory.last.centroids
    first = first_pass(inputs, first_centroids)
    near = folder_shares(inputs.paths.tolist(), first.votes, first.voting)
    scores, heard = second_pass(inputs, second_centroids, near)
    return with_decisions(valid, decision_columns(inputs, scores, heard, 0.5))


def test_a_fresh_memory_routes_the_whole_vault_like_route_frame():
    notes = synthetic_notes(0, 400)
    memory = RoutingMemory()
    assert memory.route(notes, fake_embed, 0.5, RULES).equals(route_frame(notes, fake_embed, 0.5, RULES))
    assert memory.how == "full: nothing remembered" and memory.rescored == notes["status"].eq("ok").sum()


def test_an_unchanged_vault_is_not_scored_again():
    notes = synthetic_notes(1, 400)
    memory = RoutingMemory()
    first = memory.route(notes, fake_embed, 0.5, RULES)
    assert memory.route(notes, fake_embed, 0.5, RULES).equals(first)
    assert (memory.how, memory.rescored) == ("remembered", 0)


@pytest.mark.parametrize("change", [edit, add, delete, declare, move, tag_a_rule, silence])
def test_a_change_rescores_the_notes_it_touches_and_keeps_the_rest(change):
    """The rescored notes are scored exactly as a full pass with the same centroids would; the others keep their
    rows (their inputs did not change and their folder evidence moved within the tolerance)."""
    before = with_a_small_folder(synthetic_notes(2, 600))
    after = change(before)
    memory = RoutingMemory(tolerance=0.5)  # a few labelled notes per workspace: a declared key turns a centroid far
    kept = memory.route(before, clustered_embed, 0.5, RULES)
    got = memory.route(after, clustered_embed, 0.5, RULES)
    assert memory.how == "remembered" and memory.rescored < 150
    assert got.drop(*kept.columns[-4:]).equals(after.filter(pl.col("status") == "ok"))  # the notes, in order
    want = frozen_reference(memory, after, RULES)
    old = {r["path"]: r for r in kept.iter_rows(named=True)}
    rescored = 0
    for mine, fresh in zip(got.iter_rows(named=True), want.iter_rows(named=True)):
        if mine == fresh:
            rescored += mine != old.get(mine["path"])
        else:  # not rescored: as it was, and only where its inputs and its folder's voice held
            assert mine == old[mine["path"]]
    # a deleted note's folder-mates hear it gone within the tolerance (its folder is large): nothing to rescore
    assert rescored >= (change is not delete)


def test_a_full_pass_when_a_change_turns_a_centroid_too_far():
    """Random vectors share no direction: one note turns its workspace's centroid past the tolerance."""
    before = synthetic_notes(3, 400)
    after = edit(before)
    memory = RoutingMemory()
    memory.route(before, fake_embed, 0.5, RULES)
    got = memory.route(after, fake_embed, 0.5, RULES)
    assert memory.how.startswith("full: the centroids moved a logit")
    assert got.equals(route_frame(after, fake_embed, 0.5, RULES))


@pytest.mark.parametrize(
    "again, why",
    [
        (lambda m, n: m.route(n, fake_embed, 0.6, RULES), "full: the rules, threshold or model changed"),
        (lambda m, n: m.route(n, fake_embed, 0.5, RoutingRules()), "full: the rules, threshold or model changed"),
        (lambda m, n: m.route(n, fake_embed, 0.5, RULES, context="another model"), "full: the rules, threshold"),
        (lambda m, n: m.route(n.head(300), fake_embed, 0.5, RULES), "full: 0 notes new or changed and "),
    ],
)
def test_what_the_routing_depends_on_changing_routes_the_whole_vault(again, why):
    notes = synthetic_notes(4, 400)
    memory = RoutingMemory(tolerance=EVERYTHING)
    memory.route(notes, fake_embed, 0.5, RULES)
    again(memory, notes)
    assert memory.how.startswith(why)


def test_many_changed_notes_route_the_whole_vault():
    notes = synthetic_notes(5, 400)
    memory = RoutingMemory(tolerance=EVERYTHING)
    memory.route(notes, fake_embed, 0.5, RULES)
    changed = notes.with_columns(pl.col("body") + pl.lit(" tax"))
    assert memory.route(changed, fake_embed, 0.5, RULES).equals(route_frame(changed, fake_embed, 0.5, RULES))
    assert memory.how.startswith("full: ") and "new or changed" in memory.how


def test_one_edit_after_another_stays_within_the_tolerance_of_a_full_pass():
    """Vectors with a shared direction (like a model's): edits are rescored without a full pass, and every
    note's confidence stays within what a logit moved by the tolerance can move it."""
    notes = synthetic_notes(6, 1500)
    memory = RoutingMemory(tolerance=0.05)  # 1,500 notes: one rewritten note turns a centroid by ≈ 0.0005
    memory.route(notes, clustered_embed, 0.5, RULES)
    rng = np.random.default_rng(6)
    valid = notes.filter(pl.col("status") == "ok")["path"].to_list()
    hows = []
    for step in range(12):
        path = valid[int(rng.integers(len(valid)))]
        notes = _replace(notes, path, body=f"diary family holiday cat garden sea moon step {step} " * 2)
        got = memory.route(notes, clustered_embed, 0.5, RULES)
        hows.append(memory.how)
        want = route_frame(notes, clustered_embed, 0.5, RULES)
        gap = (got["confidence"] - want["confidence"]).abs().max()
        assert gap <= math.expm1(memory.tolerance) + 1e-4, (step, memory.how)
        differ = got.filter(got["workspace"].ne_missing(want["workspace"]))["path"].to_list()
        near_the_gate = want.filter(pl.col("path").is_in(differ) & ((pl.col("confidence") - 0.5).abs() < 0.06))
        assert near_the_gate.height == len(differ)
    assert hows.count("remembered") >= 10, hows


def test_workspace_columns_are_those_of_route_frame():
    """The frame a remembered pass gives has route_frame's columns and types (the asset writes it as is)."""
    notes = synthetic_notes(7, 300)
    memory = RoutingMemory(tolerance=EVERYTHING)
    memory.route(notes, fake_embed, 0.5, RULES)
    got = memory.route(edit(notes), fake_embed, 0.5, RULES)
    assert got.schema == route_frame(notes, fake_embed, 0.5, RULES).schema
    assert set(got["workspace"].drop_nulls()) <= set(WORKSPACES)
