"""The router scores a whole vault at once (``route_frame``); each decision and float must be the one the
one-note-at-a-time rules give (``evidence_logits``, ``scores_from_logits``, ``decide`` and a folder loop).

The reference below is ``route_frame`` as it was before it scored every note at once: a loop over notes.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from routing_vaults import FOLDERS, fake_embed, synthetic_notes

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.rules.routing import router as routing
from lucasrag_assets.rules.routing.evidence import note_evidence
from lucasrag_assets.rules.routing.folder_votes import FOLDER_EVIDENCE_MIN_NOTES, _folder_chain, folder_evidence
from lucasrag_assets.rules.routing.passes import route_frame
from lucasrag_assets.rules.routing.router import (
    MIN_MEANINGFUL_WORDS,
    SELF_TRAIN_CONFIDENCE,
    WORKSPACE_PROTOTYPES,
    RouteDecision,
    decide,
    evidence_logits,
    routing_text,
    scores_from_logits,
)
from lucasrag_assets.rules.routing.vault_rules import RoutingRules, parse_routing_rules
from lucasrag_assets.rules.vault_scan import scan_vault


def build_centroids(
    prototype_vectors: dict[str, np.ndarray], exemplar_vectors: dict[str, list[np.ndarray]]
) -> dict[str, np.ndarray]:
    """The centroid rule written plainly (the reference ``labelled_centroids`` must equal bit for bit): the unit
    mean of a workspace's prototypes and labelled notes."""
    centroids = {}
    for ws in WORKSPACES:
        parts = [np.asarray(prototype_vectors[ws])]
        if len(exemplars := exemplar_vectors.get(ws, ())):
            parts.append(np.asarray(exemplars))
        mean = np.mean(np.concatenate(parts), axis=0)
        centroids[ws] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return centroids


def reference_folder_evidence(paths, distributions):
    """The folder loop, vote after vote."""
    chains = [_folder_chain(p) for p in paths]
    sums, counts, votes = {}, {}, []
    for chain, dist in zip(chains, distributions):
        vote = np.array([dist.get(ws, 0.0) for ws in WORKSPACES]) if dist else None
        votes.append(vote)
        if vote is None:
            continue
        for folder in chain:
            sums[folder] = sums.get(folder, np.zeros(len(WORKSPACES))) + vote
            counts[folder] = counts.get(folder, 0) + 1
    out = []
    for chain, vote in zip(chains, votes):
        share = np.zeros(len(WORKSPACES))
        for folder in reversed(chain):
            others = counts.get(folder, 0) - (vote is not None)
            if others >= FOLDER_EVIDENCE_MIN_NOTES:
                share = (sums[folder] - (vote if vote is not None else 0.0)) / others
                break
        out.append(dict(zip(WORKSPACES, share.tolist())))
    return out


def reference_route_frame(notes, embed, threshold, rules=None):
    """route_frame one note at a time (as it was written before the batch scoring)."""
    rules = rules or RoutingRules()
    valid = notes.filter(pl.col("status") == "ok")
    texts = [routing_text(b) for b in valid["body"]]
    paths = valid["path"].to_list()
    declared = valid["declared_workspace"].to_list()
    tags = [t or [] for t in valid["tags"].to_list()]
    vectors = embed(texts)
    prototypes = {ws: embed(list(WORKSPACE_PROTOTYPES[ws])) for ws in WORKSPACES}
    own = note_evidence(valid)
    empty = own["content_free"].to_list()
    n_words = [0 if e else n for e, n in zip(empty, own["own_words"])]
    lexical = [dict(zip(WORKSPACES, r)) for r in own.select([f"lexical_{ws}" for ws in WORKSPACES]).iter_rows()]
    priors, code = own["prior"].to_list(), own["code"].to_list()
    ruled = [None if d else rules.match(p, t) for p, d, t in zip(paths, declared, tags)]
    known = [d or (r[0] if r else None) for d, r in zip(declared, ruled)]

    def centroids_of(labels):
        exemplars = {ws: [] for ws in WORKSPACES}
        for ws, vector in zip(labels, vectors):
            if ws:
                exemplars[ws].append(vector)
        return build_centroids(prototypes, exemplars)

    centroids = centroids_of(known)
    first = [
        scores_from_logits(evidence_logits(lx, pr, c, v, centroids))
        for lx, pr, c, v in zip(lexical, priors, code, vectors)
    ]
    confident = [
        k
        or (
            max(s, key=s.__getitem__)
            if n >= MIN_MEANINGFUL_WORDS and max(s.values()) >= SELF_TRAIN_CONFIDENCE
            else None
        )
        for k, s, n in zip(known, first, n_words)
    ]
    votes = [{k: 1.0} if k else (s if n >= MIN_MEANINGFUL_WORDS else None) for k, s, n in zip(known, first, n_words)]
    neighbours = reference_folder_evidence(paths, votes)
    centroids = centroids_of(confident)
    decisions = []
    for i, vector in enumerate(vectors):
        if declared[i]:
            decisions.append(RouteDecision(declared[i], declared[i], 1.0, "workspace set in frontmatter"))
            continue
        logits = evidence_logits(lexical[i], priors[i], code[i], vector, centroids)
        near = neighbours[i]
        if any(near.values()):
            logits = {ws: v + routing.FOLDER_EVIDENCE_WEIGHT * near[ws] for ws, v in logits.items()}
        kind = "content and folder" if any(near.values()) else "content"
        decisions.append(
            decide(
                scores_from_logits(logits),
                n_words[i],
                threshold=threshold,
                rule=ruled[i],
                evidence=kind,
                content_free=empty[i],
            )
        )
    return valid.with_columns(
        pl.Series("workspace", [d.workspace for d in decisions], dtype=pl.String),
        pl.Series("suggestion", [d.suggestion for d in decisions], dtype=pl.String),
        pl.Series("confidence", [d.confidence for d in decisions], dtype=pl.Float64),  # unrounded: every bit
        pl.Series("route_reason", [d.reason for d in decisions], dtype=pl.String),
    )


def _same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    want = want.with_columns(pl.Series("confidence", [round(c, 4) for c in want["confidence"]], dtype=pl.Float64))
    assert got.equals(want)


RULES = parse_routing_rules({"folders": {"inbox/clips": "personal"}, "tags": {"recipe": "personal"}})


@pytest.mark.parametrize("seed, n, rules", [(0, 400, None), (1, 400, RULES), (2, 60, None), (3, 3, None), (4, 0, None)])
def test_batch_routing_equals_the_note_by_note_rules(seed, n, rules):
    notes = synthetic_notes(seed, n)
    _same(route_frame(notes, fake_embed, 0.5, rules), reference_route_frame(notes, fake_embed, 0.5, rules))


def test_batch_routing_equals_the_note_by_note_rules_on_the_sample_vault(repo):
    from lucasrag_assets.assets.notes import notes_frame

    notes = notes_frame(scan_vault(repo / "vault", max_bytes=1 << 20))
    _same(route_frame(notes, fake_embed, 0.5), reference_route_frame(notes, fake_embed, 0.5))


def test_every_float_is_the_note_by_note_one():
    """Unrounded: the confidence of every note, bit for bit (the reference's RouteDecision.confidence)."""
    notes = synthetic_notes(5, 300)
    got = route_frame(notes, fake_embed, 0.0)
    want = reference_route_frame(notes, fake_embed, 0.0)
    assert got["route_reason"].to_list() == want["route_reason"].to_list()
    assert got["confidence"].to_list() == [round(c, 4) for c in want["confidence"]]
    # the scores themselves: one note's evidence_logits → scores_from_logits against the matrices
    lexical = np.random.default_rng(6).random((50, len(WORKSPACES)))
    priors = [WORKSPACES[i % 5] if i % 5 < 4 else None for i in range(50)]
    code = np.random.default_rng(7).random(50)
    vectors = fake_embed([f"text {i}" for i in range(50)])
    centroids = {ws: fake_embed([ws])[0] for ws in WORKSPACES}
    matrix = routing.score_matrix(routing.evidence_logit_matrix(lexical, priors, code, vectors, centroids))
    for i in range(50):
        lx = dict(zip(WORKSPACES, lexical[i].tolist()))
        one = scores_from_logits(evidence_logits(lx, priors[i], float(code[i]), vectors[i], centroids))
        assert matrix[i].tolist() == [one[ws] for ws in WORKSPACES]


@pytest.mark.parametrize("seed", range(4))
def test_folder_evidence_equals_the_vote_by_vote_loop(seed):
    rng = np.random.default_rng(seed)
    paths = [f"{FOLDERS[rng.integers(len(FOLDERS))]}/n{i}.md".lstrip("/") for i in range(300)]
    votes = [
        None if rng.random() < 0.2 else ({} if rng.random() < 0.05 else dict(zip(WORKSPACES, rng.dirichlet([1] * 4))))
        for _ in paths
    ]
    assert folder_evidence(paths, votes) == reference_folder_evidence(paths, votes)


@pytest.mark.parametrize("chunk", [1, 7, 4096])
@pytest.mark.parametrize("exemplars", [0, 1, 50, 3000])
def test_labelled_centroids_are_build_centroids_float_for_float(chunk, exemplars):
    """Gathering a workspace's exemplar rows a chunk at a time adds them in build_centroids' order: equal bits."""
    from lucasrag_assets.rules.routing.router import labelled_centroids

    rng = np.random.default_rng(exemplars)
    vectors = rng.standard_normal((exemplars * 2 + 10, 384)).astype(np.float32)
    labels = [WORKSPACES[i % 3] if i % 2 == 0 and i < 2 * exemplars else None for i in range(len(vectors))]
    prototypes = {ws: rng.standard_normal((3, 384)).astype(np.float32) for ws in WORKSPACES}
    want = build_centroids(prototypes, {ws: [v for v, lab in zip(vectors, labels) if lab == ws] for ws in WORKSPACES})
    got = labelled_centroids(prototypes, labels, vectors, chunk=chunk)
    for ws in WORKSPACES:
        assert got[ws].dtype == want[ws].dtype and got[ws].tobytes() == want[ws].tobytes(), ws
