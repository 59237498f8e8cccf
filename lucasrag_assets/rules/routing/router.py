"""Confidence-gated routing of a note to one of the four workspaces.

A note's ``workspace:`` frontmatter wins outright (confidence 1.0). Otherwise
four pieces of evidence are combined into one logit per workspace and a
softmax turns them into a confidence:

* semantic: cosine similarity of the note's embedding to each workspace
  centroid (built from the prototype descriptions below plus every note the
  person labelled with ``workspace:`` — the vault teaches the router);
* lexical: the share of the note's cue-word hits that belong to a workspace
  (``LEXICAL_CUES`` in rules/routing/evidence.py, inspectable and easy to extend);
* folder: a weak prior when a folder name (or the note's ``type:``/``categories:``) is a known
  synonym of a workspace;
* code: a note written mostly as code is technical.

What a note says about itself (its own words, cue-word shares, code share, tags, folder names) is read
by rules/routing/evidence.py (``note_evidence``); this file weighs it and decides.

Below the threshold, or when the note has too few meaningful words to judge,
the note is quarantined with its reason and best suggestion.

A vault nobody has labelled (docs/routing.md, "Cold start") is routed in two
passes: the notes the first pass places confidently join their workspace's
centroid (self-training on the vault's own vocabulary), and in the second pass
each note also hears its folder-mates (folder evidence: a folder's notes mostly
share a workspace). A person's folder or tag rules (``.lucasrag/routing.yaml``,
rules/routing/vault_rules.py) sit between frontmatter and the router.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from lucasrag.vocabulary import WORKSPACES

# Re-exported (F401): EVIDENCE_SCHEMA, LEXICAL_CUES and ROUTING_TEXT_CHARS were defined here before note_evidence moved.
from lucasrag_assets.rules.routing.evidence import (  # noqa: F401
    EVIDENCE_SCHEMA,
    LEXICAL_CUES,
    ROUTING_TEXT_CHARS,
    code_share,
    folder_prior,
    lexical_shares,
    meaningful_words,
    note_evidence,
    routing_text,
)

# Re-exported (F401): the folder evidence was defined here before it moved.
from lucasrag_assets.rules.routing.folder_votes import FOLDER_EVIDENCE_MIN_NOTES, folder_evidence, folder_shares  # noqa: F401

#: Short descriptions embedded as each workspace's anchor points. Written the way people write
#: their own notes (snippets, meeting notes, reading notes, to-do lists), not like the sample vault.
WORKSPACE_PROTOTYPES: Mapping[str, tuple[str, ...]] = {
    "technical": (
        "software engineering notes: code, debugging, servers, databases, deployment, programming languages",
        "how to configure Kubernetes, Postgres, Linux, networking, APIs, performance tuning and bugs",
        "a command-line snippet or code example: git, bash, npm, python and docker commands and what they do",
        "work project notes: data pipelines, system architecture, tickets and engineering team meetings",
    ),
    "creative": (
        "a poem, verse, stanzas, imagery and metaphor",
        "a short story draft with characters, scenes, dialogue and plot ideas for fiction writing",
    ),
    "personal": (
        "a diary entry about my day, family, friends, feelings, home, holidays and my cat",
        "personal journal: memories, relationships, moving house, health and everyday life",
        "notes on a book I read or a film, show, album, game or place I enjoyed, with my rating and quotes",
        "self-improvement and life lessons: habits, mindfulness, motivation, career reflections and goals",
    ),
    "administrative": (
        "paperwork: tax return, insurance policy, bank account, invoices, pension and contracts",
        "admin tasks: lease renewal, bills, forms, deadlines, reference numbers and payments",
    ),
}

#: Logit weights, fitted by maximum likelihood on labelled vaults; see docs/routing.md.
SEMANTIC_WEIGHT = 16.0
LEXICAL_WEIGHT = 2.0
FOLDER_WEIGHT = 2.0
#: A note written mostly as code (fenced blocks, inline code) is technical whatever its words:
#: logit bonus × the share of the note's characters inside code.
CODE_WEIGHT = 2.0
#: The logit of a fifth, "none of these" outcome. A note with weak evidence for
#: every workspace lets this take the probability mass, so its confidence drops
#: instead of being forced onto the least-bad workspace.
REJECT_LOGIT = 4.0
MIN_MEANINGFUL_WORDS = 5
#: Cold start. Self-training: a note the first pass routes at this confidence or more
#: joins its workspace's centroid for the second pass.
SELF_TRAIN_CONFIDENCE = 0.6
#: Folder evidence (rules/routing/folder_votes.py): logit bonus × the share of a note's folder-mates (leave-one-out,
#: each counted by its first-pass distribution) that point to a workspace.
FOLDER_EVIDENCE_WEIGHT = 4.0


@dataclass(frozen=True)
class RouteDecision:
    workspace: str | None  # None: quarantined
    suggestion: str  # best guess, also for quarantined notes
    confidence: float
    reason: str
    scores: dict[str, float] = field(default_factory=dict)


def content_logits(
    words: Sequence[str],
    folders: Sequence[str],
    note_vector: np.ndarray,
    centroids: Mapping[str, np.ndarray],
    code: float = 0.0,
    kinds: Sequence[str] = (),
) -> dict[str, float]:
    """One logit per workspace from the note alone: semantic + lexical + folder-name prior + code.
    ``words`` are the meaningful words of title, tags, kinds and text (a person's title is a strong hint);
    ``code`` is the note's code share (``code_share``); ``kinds``: what its type/categories properties
    call it, read like the innermost folder (a person's ``categories: [[Recipes]]`` is a filing decision)."""
    return evidence_logits(lexical_shares(words), folder_prior([*folders, *kinds]), code, note_vector, centroids)


def evidence_logits(
    lexical: Mapping[str, float],
    prior: str | None,
    code: float,
    note_vector: np.ndarray,
    centroids: Mapping[str, np.ndarray],
) -> dict[str, float]:
    """:func:`content_logits` from the note's own evidence already read (:func:`note_evidence`)."""
    return {
        ws: SEMANTIC_WEIGHT * float(note_vector @ centroids[ws])
        + LEXICAL_WEIGHT * lexical[ws]
        + (FOLDER_WEIGHT if ws == prior else 0.0)
        + (CODE_WEIGHT * code if ws == "technical" else 0.0)
        for ws in WORKSPACES
    }


def scores_from_logits(logits: Mapping[str, float]) -> dict[str, float]:
    """Softmax over the workspaces and the reject outcome; the workspace scores (they sum to < 1)."""
    top = max(*logits.values(), REJECT_LOGIT)
    exp = {ws: math.exp(v - top) for ws, v in logits.items()}
    total = sum(exp.values()) + math.exp(REJECT_LOGIT - top)
    return {ws: exp[ws] / total for ws in WORKSPACES}


def evidence_logit_matrix(
    lexical: np.ndarray, priors: Sequence[str | None], code: np.ndarray, vectors: np.ndarray, centroids
) -> np.ndarray:
    """:func:`evidence_logits` of many notes at once: row i, column j is note i's logit for ``WORKSPACES[j]``,
    float for float the same. Each cosine is the same one-row product as ``note_vector @ centroid`` (a batch
    of 1×d by d×1 products: one matrix-vector product sums in another order and changes last bits), and
    the terms are added in the same order. ``lexical``: one column per workspace; ``code``: code shares."""
    out = np.empty((len(priors), len(WORKSPACES)))
    if not len(priors):
        return out
    vectors = np.ascontiguousarray(vectors)
    for j, ws in enumerate(WORKSPACES):
        cosine = np.matmul(vectors[:, None, :], centroids[ws][:, None])[:, 0, 0].astype(np.float64)
        column = SEMANTIC_WEIGHT * cosine + LEXICAL_WEIGHT * lexical[:, j]
        column = column + np.array([FOLDER_WEIGHT if ws == prior else 0.0 for prior in priors])
        out[:, j] = column + (CODE_WEIGHT * code if ws == "technical" else 0.0)
    return out


def score_matrix(logits: np.ndarray) -> np.ndarray:
    """:func:`scores_from_logits` of each row, float for float the same (``math.exp``, and Python's ``sum``
    of a row, as the scalar version adds them)."""
    top = np.maximum(logits.max(axis=1, initial=-math.inf), REJECT_LOGIT)
    exp = np.fromiter(map(math.exp, (logits - top[:, None]).ravel()), float, logits.size).reshape(logits.shape)
    reject = np.fromiter(map(math.exp, REJECT_LOGIT - top), float, len(top))
    total = np.fromiter(map(sum, exp.tolist()), float, len(exp)) + reject
    return exp / total[:, None]


def decide(
    scores: Mapping[str, float],
    n_words: int,
    *,
    threshold: float,
    rule: tuple[str, str] | None = None,
    evidence: str = "content",
    content_free: str | None = None,
) -> RouteDecision:
    """The gate: too little content (or ``content_free``: why the note holds nothing a person
    wrote, e.g. a clipped error page) → quarantine; a person's rule → its workspace;
    else the best workspace if its confidence reaches the threshold."""
    best = max(scores, key=scores.__getitem__)
    workspace, suggestion, confidence, reason = gate(
        best, scores[best], n_words, threshold=threshold, rule=rule, evidence=evidence, content_free=content_free
    )
    ruled = rule and not _too_little(n_words, content_free)  # a person's rule placed it: its scores say so
    return RouteDecision(workspace, suggestion, confidence, reason, {rule[0]: 1.0} if ruled else dict(scores))


def _too_little(n_words: int, content_free: str | None) -> bool:
    return bool(content_free) or n_words < MIN_MEANINGFUL_WORDS


def gate(
    best: str,
    confidence: float,
    n_words: int,
    *,
    threshold: float,
    rule: tuple[str, str] | None = None,
    evidence: str = "content",
    content_free: str | None = None,
) -> tuple[str | None, str, float, str]:
    """:func:`decide` from the best workspace and its score already found: (workspace or None, suggestion,
    confidence, reason). A whole vault's notes go through it one after another (rules/routing/passes.py)."""
    if _too_little(n_words, content_free):
        reason = (
            f"content-free: {content_free}"
            if content_free
            else f"too little content to route ({n_words} meaningful word{'' if n_words == 1 else 's'} of its own, "
            f"need {MIN_MEANINGFUL_WORDS})"
        )
        if rule:
            reason += f"; {rule[1]} would send it to {rule[0]}"
        return None, rule[0] if rule else best, confidence, reason
    if rule:
        return rule[0], rule[0], 1.0, rule[1]
    if confidence < threshold:
        return (
            None,
            best,
            confidence,
            f"low confidence: best guess {best} at {confidence:.2f} < threshold {threshold:.2f}",
        )
    return best, best, confidence, f"{evidence} routed to {best} at {confidence:.2f}"


def route(
    text: str,
    folders: Sequence[str],
    note_vector: np.ndarray,
    centroids: Mapping[str, np.ndarray],
    *,
    threshold: float,
    declared: str | None = None,
    title: str = "",
) -> RouteDecision:
    """Decide one note on its own evidence; ``declared`` is its ``workspace:`` frontmatter, if any."""
    if declared:
        return RouteDecision(declared, declared, 1.0, "workspace set in frontmatter", {declared: 1.0})
    words = meaningful_words(text)
    logits = content_logits(meaningful_words(title) + words, folders, note_vector, centroids, code_share(text))
    return decide(scores_from_logits(logits), len(words), threshold=threshold)


#: Exemplar rows gathered at a time by :func:`labelled_centroids`.
GATHERED_ROWS = 4096


def labelled_centroids(
    prototypes: Mapping[str, np.ndarray], labels: Sequence[str | None], vectors: np.ndarray, chunk: int = GATHERED_ROWS
) -> dict[str, np.ndarray]:
    """Unit centroid per workspace: the mean of its prototypes and of the rows of ``vectors`` labelled with it (a
    person's labelled notes, or the first pass's confident ones), in order. The rows are added one after another
    as ``np.mean`` adds a matrix's rows — the sum so far, then ``chunk`` gathered rows — instead of a copy of
    every exemplar and a second one to join the prototypes (at 100,000 notes ≈ 300 MB of fresh pages a pass)."""
    labels = np.asarray(labels, dtype=object)
    centroids = {}
    for ws in WORKSPACES:
        rows = np.flatnonzero(labels == ws)
        total = np.add.reduce(np.concatenate([prototypes[ws], vectors[rows[:chunk]]]), axis=0)
        for start in range(chunk, len(rows), chunk):
            total = np.add.reduce(np.concatenate([total[None], vectors[rows[start : start + chunk]]]), axis=0)
        mean = np.true_divide(total, np.intp(len(prototypes[ws]) + len(rows)), out=total, casting="unsafe")
        centroids[ws] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return centroids
