"""Routing again in a long-lived process: the notes a change touches are rescored, not the whole vault.

The router learns from the whole vault (rules/routing/passes.py): each workspace's centroid is the mean of its
exemplars, and each note hears its folder-mates' first-pass votes. So one edited note moves every note's
scores — by little: among a workspace's 25,000 exemplars, one note moves its centroid by about 1/25,000. A
process that routes again and again (``lucasrag watch``, ``mcp --watch``, the sensor's in-process run) keeps
what its last pass computed (:class:`RoutingMemory`) and on the next run

* routes the new notes and those whose inputs changed (path, title, body, tags, kinds, links, source,
  ``workspace:`` key) against the centroids of its last full pass;
* follows where the centroids are now (each workspace's sum of exemplars, updated note by note) and routes the
  whole vault afresh once that would move any note's logit by half the tolerance (one product of every note's
  vector with the centroids' turn);
* works out every note's folder evidence from the first-pass votes, and rescores a note whose folder evidence
  moved far enough to move a logit by half the tolerance since the note was scored.

So every remembered score is the one a full pass would give now within :data:`ROUTING_TOLERANCE` in each
logit: a decision can differ from a full pass's only for a note that close to the threshold or to a tie. Nothing
remembered (a fresh process without lucasrag_assets/routing_memory.py's file), a change of the rules, the
threshold or the evidence rules' source, or a change of more than :data:`MOST_CHANGED` of the notes routes the
whole vault. Plain functions and numpy, no Dagster and no files.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.rules.routing import router
from lucasrag_assets.rules.routing.evidence import note_evidence
from lucasrag_assets.rules.routing.folder_votes import folder_shares
from lucasrag_assets.rules.routing.passes import (
    FirstPass,
    FullPass,
    RoutingInputs,
    decision_columns,
    first_pass,
    full_pass,
    routing_inputs,
    score_all,
    second_pass,
    with_decisions,
)
from lucasrag_assets.rules.routing.vault_rules import RoutingRules

#: How far (in logits) a remembered score may be from a full pass's: half for the centroids' drift, half for a
#: note's folder evidence. A logit moved by 0.01 moves a confidence by at most 0.005.
ROUTING_TOLERANCE = 0.01
#: A change of more notes than this share routes the whole vault (rescoring them one by one costs as much).
MOST_CHANGED = 0.05
#: What a note's routing reads of it: a change of any of these routes it again.
ROUTING_INPUTS = ("path", "title", "body", "tags", "kinds", "links", "source", "declared_workspace")


def input_hashes(valid: pl.DataFrame) -> np.ndarray:
    """One 64-bit hash per note of what its routing reads (:data:`ROUTING_INPUTS`); compared within a process only."""
    return valid.select([c for c in ROUTING_INPUTS if c in valid.columns]).hash_rows().to_numpy()


def pass_context(threshold: float, rules: RoutingRules | None, context: Hashable = ()) -> tuple:
    """What a pass depends on besides the notes (:meth:`RoutingMemory.route`'s arguments): a memory made with
    another is not used."""
    return (threshold, rules or RoutingRules(), context)


def exemplar_sums(
    prototypes: Mapping[str, np.ndarray], labels: np.ndarray, vectors: np.ndarray
) -> dict[str, np.ndarray]:
    """Each workspace's sum of prototype and exemplar vectors (float64): its centroid's direction. One product
    of the labels' one-hot matrix with the vectors (no copy of each workspace's rows)."""
    onehot = np.stack([labels == ws for ws in WORKSPACES]).astype(vectors.dtype)
    exemplars = (onehot @ vectors).astype(np.float64) if len(vectors) else np.zeros((len(WORKSPACES), 0))
    return {
        ws: np.asarray(prototypes[ws], dtype=np.float64).sum(axis=0) + exemplars[j] for j, ws in enumerate(WORKSPACES)
    }


def logit_drift(vectors: np.ndarray, sums: Mapping[str, np.ndarray], centroids: Mapping[str, np.ndarray]) -> float:
    """How far any note's semantic logit would move if the centroids a pass used were replaced by where the
    workspaces' sums point now: the largest ``SEMANTIC_WEIGHT × |v · (now − used)|`` over notes and workspaces."""
    if not len(vectors):
        return 0.0
    turn = np.stack(
        [sums[ws] / max(float(np.linalg.norm(sums[ws])), 1e-12) - centroids[ws] for ws in WORKSPACES]
    ).astype(vectors.dtype)
    return router.SEMANTIC_WEIGHT * float(np.abs(vectors @ turn.T).max())


@dataclass(frozen=True)
class Remembered:
    """What the last pass computed, one entry per valid note in its frame's order
    (lucasrag_assets/routing_memory.py keeps it in a file for the next process)."""

    context: Hashable
    hashes: np.ndarray  # :func:`input_hashes`
    prototypes: Mapping[str, np.ndarray]
    # the last full pass's centroids (first pass, second pass): every remembered score was made with them
    centroids: tuple[Mapping[str, np.ndarray], Mapping[str, np.ndarray]]
    inputs: RoutingInputs
    first: FirstPass
    sums: tuple[dict[str, np.ndarray], dict[str, np.ndarray]]  # where each pass's centroids are now
    near: np.ndarray  # the folder evidence each note was last scored with
    heard: np.ndarray
    decisions: Mapping[str, np.ndarray]

    def rows_of(self, paths: list[str]) -> np.ndarray:
        """Each of ``paths``' row here, -1 for a path not remembered."""
        row_of = {path: i for i, path in enumerate(self.inputs.paths.tolist())}
        return np.fromiter((row_of.get(p, -1) for p in paths), dtype=np.intp, count=len(paths))


def _remember(context: Hashable, hashes: np.ndarray, done: FullPass) -> Remembered:
    labels = (done.inputs.known, done.first.confident)
    return Remembered(
        context=context,
        hashes=hashes,
        prototypes=done.prototypes,
        centroids=done.centroids,
        inputs=done.inputs,
        first=done.first,
        sums=tuple(exemplar_sums(done.prototypes, lab, done.inputs.vectors) for lab in labels),
        near=done.near,
        heard=done.heard,
        decisions=done.decisions,
    )


def _pick(old: np.ndarray, old_rows: np.ndarray, fresh: np.ndarray | None = None, fresh_at=()) -> np.ndarray:
    """One array in the new notes' order: row i is ``old[old_rows[i]]``, or ``fresh[j]`` where ``fresh_at[j] == i``
    (rows with ``old_rows[i] < 0`` and no fresh value hold a placeholder for the caller to fill)."""
    out = old[np.maximum(old_rows, 0)]
    if fresh is not None and len(fresh_at):
        out[fresh_at] = fresh
    return out


def _moved(
    sums: dict[str, np.ndarray],
    gone: np.ndarray,
    came: np.ndarray,
    labels_before,
    labels_now,
    vectors_before,
    vectors_now,
) -> dict[str, np.ndarray]:
    """``sums`` with the ``gone`` rows' vectors taken from their workspaces and the ``came`` rows' added."""
    sums = {ws: total.copy() for ws, total in sums.items()}
    for i in gone.tolist():
        if labels_before[i]:
            sums[labels_before[i]] -= vectors_before[i]
    for j in came.tolist():
        if labels_now[j]:
            sums[labels_now[j]] += vectors_now[j]
    return sums


class RoutingMemory:
    """Routes a vault again and again, rescoring what changed (the module's docstring). One per data folder."""

    def __init__(
        self,
        tolerance: float = ROUTING_TOLERANCE,
        most_changed: float = MOST_CHANGED,
        last: Remembered | None = None,
    ) -> None:
        self.tolerance = tolerance
        self.most_changed = most_changed
        #: What the last pass computed: ``last`` starts from another process's (a file's) when given.
        self.last = last
        #: How the last :meth:`route` went: ``"full: <why>"`` or ``"remembered"``, how many notes it scored, and
        #: (remembered) how many notes' inputs it read afresh (a full pass reads every note's, through ``evidence``).
        self.how = ""
        self.rescored = 0
        self.read_afresh: int | None = None
        #: Whether the last :meth:`route` remembers anything new (a full pass, or notes new, changed or gone), and
        #: how many notes it remembered before are no longer among the notes (deleted, renamed, made private).
        self.changed = False
        self.forgotten = 0

    def route(
        self,
        notes: pl.DataFrame,
        embed: Callable[[list[str]], np.ndarray],
        threshold: float,
        rules: RoutingRules | None = None,
        evidence: Callable[[pl.DataFrame], pl.DataFrame] = note_evidence,
        context: Hashable = (),
    ) -> pl.DataFrame:
        """:func:`~lucasrag_assets.rules.routing.passes.route_frame` of ``notes``, within the tolerance.
        ``evidence`` reads every note's evidence on a full pass (a memo of :func:`note_evidence`); ``context``
        names whatever else the routing depends on (the evidence rules' source, the model)."""
        rules = rules or RoutingRules()
        valid = notes.filter(pl.col("status") == "ok")
        context = pass_context(threshold, rules, context)
        hashes = input_hashes(valid)
        self.forgotten = 0
        why, inputs = self._why_full(context, valid), None
        if why is None:
            remembered = self._again(valid, hashes, embed, threshold, rules)
            if isinstance(remembered, Remembered):
                self.changed = remembered is not self.last
                self.last, self.how = remembered, "remembered"
                return with_decisions(valid, remembered.decisions)
            why, inputs = remembered
        if inputs is None:
            done, self.read_afresh = full_pass(valid, embed, threshold, rules, evidence), None
        else:  # every note scored again, from the inputs already read (the changed notes' just now: read_afresh)
            done = score_all(inputs, self.last.prototypes, threshold)
        self.last, self.how, self.rescored = _remember(context, hashes, done), f"full: {why}", valid.height
        self.changed = True
        return with_decisions(valid, done.decisions)

    def _why_full(self, context: Hashable, valid: pl.DataFrame) -> str | None:
        if self.last is None:
            return "nothing remembered"
        if self.last.context != context:
            return "the rules, threshold or model changed"
        if not valid.height:
            return "no valid notes"
        return None

    def _again(self, valid, hashes, embed, threshold, rules) -> Remembered | tuple[str, RoutingInputs | None]:
        """The rescoring of what changed; or why every note must be scored again, with every note's inputs when
        they were assembled (they need not be read again)."""
        last, tolerance = self.last, self.tolerance
        paths = valid["path"].to_list()
        old_rows = last.rows_of(paths)
        kept = old_rows >= 0
        self.forgotten = len(last.hashes) - int(kept.sum())
        kept[kept] = last.hashes[old_rows[kept]] == hashes[kept]
        fresh_at = np.flatnonzero(~kept)
        old_rows = np.where(kept, old_rows, -1)
        gone = np.ones(len(last.hashes), dtype=bool)
        gone[old_rows[kept]] = False
        gone = np.flatnonzero(gone)  # the last pass's rows deleted or changed
        if not len(fresh_at) and not len(gone) and np.array_equal(old_rows, np.arange(len(paths))):
            self.rescored, self.read_afresh = 0, 0  # the same notes in the same order: nothing to redo
            return last
        if len(fresh_at) + len(gone) > self.most_changed * 2 * len(paths):
            return f"{len(fresh_at)} notes new or changed and {len(gone)} gone or changed of {len(paths)}", None

        fresh = routing_inputs(valid[fresh_at.tolist()], embed, rules, note_evidence)
        self.read_afresh = len(fresh_at)
        first_centroids, second_centroids = last.centroids
        fresh_first = first_pass(fresh, first_centroids)
        sums = tuple(
            _moved(total, gone, np.arange(len(fresh)), before, now, last.inputs.vectors, fresh.vectors)
            for total, before, now in zip(
                last.sums, (last.inputs.known, last.first.confident), (fresh.known, fresh_first.confident)
            )
        )
        inputs = RoutingInputs(
            **{name: _pick(old, old_rows, getattr(fresh, name), fresh_at) for name, old in vars(last.inputs).items()}
        )
        drift = max(
            logit_drift(inputs.vectors, sums[0], first_centroids),
            logit_drift(inputs.vectors, sums[1], second_centroids),
        )
        if drift > tolerance / 2:
            return f"the centroids moved a logit by {drift:.2g} since the last full pass", inputs
        first = FirstPass(
            **{
                name: _pick(old, old_rows, getattr(fresh_first, name), fresh_at)
                for name, old in vars(last.first).items()
            }
        )
        near = folder_shares(inputs.paths.tolist(), first.votes, first.voting)
        scored_near = _pick(last.near, old_rows, near[fresh_at], fresh_at)
        scored_heard = _pick(last.heard, old_rows)
        heard = (near != 0).any(axis=1)
        moved = router.FOLDER_EVIDENCE_WEIGHT * np.abs(near - scored_near).max(axis=1, initial=0.0) > tolerance / 2
        redo = np.flatnonzero(~kept | (heard != scored_heard) | moved)
        some = inputs.take(redo)
        scores, _ = second_pass(some, second_centroids, near[redo])
        redone = decision_columns(some, scores, heard[redo], threshold)
        decisions = {name: _pick(old, old_rows) for name, old in last.decisions.items()}
        for name, column in decisions.items():  # every fresh row is among the rescored
            column[redo] = redone[name]
        scored_near[redo] = near[redo]
        scored_heard[redo] = heard[redo]
        self.rescored = len(redo)
        return replace(
            last,
            hashes=hashes,
            inputs=inputs,
            first=first,
            sums=sums,
            near=scored_near,
            heard=scored_heard,
            decisions=decisions,
        )
