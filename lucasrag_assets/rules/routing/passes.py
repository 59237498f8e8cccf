"""The router over a whole vault: every valid note's inputs read once, both passes scored at once.

rules/routing/router.py holds the rules for one note (weights, centroids, logits, the gate); this file applies them
to a frame of notes, float for float what one note at a time gives (tests/rules/test_routing_batch.py), in pieces
that rules/routing/remembered.py reuses to rescore only the notes a change touches. The tunable weights are read
from the router module when used (benchmarks/cold_start_routing.py sets them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.rules.routing import router
from lucasrag_assets.rules.routing.evidence import note_evidence, routing_text
from lucasrag_assets.rules.routing.folder_votes import folder_shares
from lucasrag_assets.rules.routing.router import (
    MIN_MEANINGFUL_WORDS,
    WORKSPACE_PROTOTYPES,
    evidence_logit_matrix,
    gate,
    labelled_centroids,
    score_matrix,
)
from lucasrag_assets.rules.routing.vault_rules import RoutingRules


def _objects(values: Sequence) -> np.ndarray:
    """A one-dimensional object array of ``values`` (tuples stay elements, not rows)."""
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


@dataclass(frozen=True)
class RoutingInputs:
    """What the router reads of each valid note, one entry per note in the frame's order. Numpy arrays, so that
    a subset (:meth:`take`) or a reassembly from two passes (rules/routing/remembered.py) is one indexing."""

    paths: np.ndarray  # object
    declared: np.ndarray  # object: the note's ``workspace:`` key or None
    ruled: np.ndarray  # object: (workspace, reason) of a routing.yaml rule, or None
    known: np.ndarray  # object: a person's decision (the key, else the rule's workspace), or None
    n_words: np.ndarray  # int: meaningful words of its own (0 when content-free)
    empty: np.ndarray  # object: why it is content-free, or None
    lexical: np.ndarray  # float64, one column per workspace
    priors: np.ndarray  # object: the workspace its folder names hint at, or None
    code: np.ndarray  # float64: its code share
    vectors: np.ndarray  # its routing text's embedding, one row per note

    def __len__(self) -> int:
        return len(self.paths)

    def take(self, rows: np.ndarray) -> RoutingInputs:
        return RoutingInputs(**{name: value[rows] for name, value in vars(self).items()})


def routing_inputs(
    valid: pl.DataFrame,
    embed: Callable[[list[str]], np.ndarray],
    rules: RoutingRules,
    evidence: Callable[[pl.DataFrame], pl.DataFrame],
) -> RoutingInputs:
    """:class:`RoutingInputs` of the valid notes ``valid`` (``evidence``: :func:`note_evidence` or a memo of it)."""
    texts = [routing_text(b) for b in valid["body"].to_list()]
    paths = valid["path"].to_list()
    declared = valid["declared_workspace"].to_list()
    vectors = np.asarray(embed(texts))
    own = evidence(valid)
    empty = own["content_free"].to_list()
    if rules:
        tags = [t or [] for t in valid["tags"].to_list()]
        ruled = [None if d else rules.match(p, t) for p, d, t in zip(paths, declared, tags)]
    else:  # no routing.yaml: no rule covers any note
        ruled = [None] * len(paths)
    return RoutingInputs(
        paths=_objects(paths),
        declared=_objects(declared),
        ruled=_objects(ruled),
        known=_objects([d or (r[0] if r else None) for d, r in zip(declared, ruled)]),
        n_words=np.array([0 if e else n for e, n in zip(empty, own["own_words"].to_list())], dtype=np.int64),
        empty=_objects(empty),
        lexical=own.select([f"lexical_{ws}" for ws in WORKSPACES])
        .to_numpy()
        .astype(np.float64)
        .reshape(-1, len(WORKSPACES)),
        priors=_objects(own["prior"].to_list()),
        code=own["code"].to_numpy().astype(np.float64),
        vectors=vectors,
    )


def prototype_vectors(embed: Callable[[list[str]], np.ndarray]) -> dict[str, np.ndarray]:
    return {ws: embed(list(WORKSPACE_PROTOTYPES[ws])) for ws in WORKSPACES}


@dataclass(frozen=True)
class FirstPass:
    """The first pass's outcome per note: its folder vote (a person's decision votes one-hot for its workspace,
    a note with words its first-pass scores), whether it votes, and its workspace if the pass placed it
    confidently (or a person did) — the second pass's exemplars."""

    votes: np.ndarray  # float64, one column per workspace
    voting: np.ndarray  # bool
    confident: np.ndarray  # object: workspace or None


def first_pass(inputs: RoutingInputs, centroids: Mapping[str, np.ndarray]) -> FirstPass:
    first = score_matrix(evidence_logit_matrix(inputs.lexical, inputs.priors, inputs.code, inputs.vectors, centroids))
    best = first.argmax(axis=1).tolist() if len(first) else []
    sure = (first.max(axis=1, initial=-math.inf) >= router.SELF_TRAIN_CONFIDENCE).tolist()
    worded = [n >= MIN_MEANINGFUL_WORDS for n in inputs.n_words.tolist()]
    known = inputs.known.tolist()
    confident = [k or (WORKSPACES[b] if w and s else None) for k, b, w, s in zip(known, best, worded, sure)]
    votes = first.copy()
    for i, k in enumerate(known):
        if k:
            votes[i] = [1.0 if ws == k else 0.0 for ws in WORKSPACES]
    voting = np.array([bool(k) or w for k, w in zip(known, worded)], dtype=bool)
    return FirstPass(votes, voting, _objects(confident))


def second_pass(
    inputs: RoutingInputs, centroids: Mapping[str, np.ndarray], near: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each note's scores with its folder-mates' evidence ``near`` (:func:`folder_shares`), and whether it heard any."""
    heard = (near != 0).any(axis=1)
    logits = evidence_logit_matrix(inputs.lexical, inputs.priors, inputs.code, inputs.vectors, centroids)
    logits = np.where(heard[:, None], logits + router.FOLDER_EVIDENCE_WEIGHT * near, logits)
    return score_matrix(logits), heard


#: The columns :func:`route_frame` adds to the valid notes.
DECISION_COLUMNS = {
    "workspace": pl.String,
    "suggestion": pl.String,
    "confidence": pl.Float64,
    "route_reason": pl.String,
}


def decision_columns(
    inputs: RoutingInputs, scores: np.ndarray, heard: np.ndarray, threshold: float
) -> dict[str, np.ndarray]:
    """Each note's decision (:func:`gate`, as :func:`decide` judges one note; a ``workspace:`` key wins) as
    :data:`DECISION_COLUMNS` values. The best workspace is the first of the highest scores, as ``max`` finds it."""
    best = scores.argmax(axis=1) if len(scores) else np.zeros(0, dtype=np.intp)
    confidences = scores[np.arange(len(scores)), best].tolist()
    names = [WORKSPACES[b] for b in best.tolist()]
    declared, ruled, empty = inputs.declared.tolist(), inputs.ruled.tolist(), inputs.empty.tolist()
    rows = [
        (d, d, 1.0, "workspace set in frontmatter")
        if d
        else gate(
            name,
            confidence,
            n,
            threshold=threshold,
            rule=rule,
            evidence="content and folder" if h else "content",
            content_free=e,
        )
        for d, name, confidence, n, rule, h, e in zip(
            declared, names, confidences, inputs.n_words.tolist(), ruled, heard.tolist(), empty
        )
    ]
    return {
        "workspace": _objects([r[0] for r in rows]),
        "suggestion": _objects([r[1] for r in rows]),
        "confidence": np.array([round(r[2], 4) for r in rows], dtype=np.float64),
        "route_reason": _objects([r[3] for r in rows]),
    }


def with_decisions(valid: pl.DataFrame, columns: Mapping[str, np.ndarray]) -> pl.DataFrame:
    return valid.with_columns(
        pl.Series(name, columns[name].tolist(), dtype=dtype) for name, dtype in DECISION_COLUMNS.items()
    )


def route_frame(
    notes: pl.DataFrame,
    embed: Callable[[list[str]], np.ndarray],
    threshold: float,
    rules: RoutingRules | None = None,
    evidence: Callable[[pl.DataFrame], pl.DataFrame] = note_evidence,
) -> pl.DataFrame:
    """One row per valid note with its decision (workspace null = quarantined).

    Authority: ``workspace:`` frontmatter > a routing.yaml rule > the router. The router
    runs twice: pass 1 on the note alone, with centroids from the prototypes, labelled and
    ruled notes; pass 2 adds the notes pass 1 placed confidently to the centroids and adds
    folder evidence from pass 1's votes. ``evidence`` reads what each note says about itself
    (:func:`note_evidence`, or a caller's memo of it: the two passes read every note's).
    Both passes score every note at once (:func:`evidence_logit_matrix`, :func:`score_matrix`,
    :func:`folder_shares`), float for float what :func:`evidence_logits` and :func:`scores_from_logits`
    give one note at a time; each note is then judged by :func:`decide`. A long-lived process routes
    again with rules/routing/remembered.py, which rescores only what changed.
    """
    valid = notes.filter(pl.col("status") == "ok")
    return with_decisions(valid, full_pass(valid, embed, threshold, rules or RoutingRules(), evidence).decisions)


@dataclass(frozen=True)
class FullPass:
    """Everything one routing of every valid note computed (what rules/routing/remembered.py keeps)."""

    inputs: RoutingInputs
    prototypes: Mapping[str, np.ndarray]
    centroids: tuple[Mapping[str, np.ndarray], Mapping[str, np.ndarray]]  # the first pass's, the second's
    first: FirstPass
    near: np.ndarray  # each note's folder evidence
    heard: np.ndarray
    decisions: Mapping[str, np.ndarray]


def full_pass(
    valid: pl.DataFrame,
    embed: Callable[[list[str]], np.ndarray],
    threshold: float,
    rules: RoutingRules,
    evidence: Callable[[pl.DataFrame], pl.DataFrame],
) -> FullPass:
    """:func:`route_frame`'s two passes over the valid notes ``valid``, with what they computed."""
    return score_all(routing_inputs(valid, embed, rules, evidence), prototype_vectors(embed), threshold)


def score_all(inputs: RoutingInputs, prototypes: Mapping[str, np.ndarray], threshold: float) -> FullPass:
    """Both passes over notes whose inputs were read (:func:`routing_inputs`)."""
    first_centroids = labelled_centroids(prototypes, inputs.known, inputs.vectors)
    first = first_pass(inputs, first_centroids)
    near = folder_shares(inputs.paths.tolist(), first.votes, first.voting)
    second_centroids = labelled_centroids(prototypes, first.confident, inputs.vectors)
    scores, heard = second_pass(inputs, second_centroids, near)
    return FullPass(
        inputs,
        prototypes,
        (first_centroids, second_centroids),
        first,
        near,
        heard,
        decision_columns(inputs, scores, heard, threshold),
    )
