"""Confidence-gated routing of a note to one of the four workspaces.

A note's ``workspace:`` frontmatter wins outright (confidence 1.0). Otherwise
three pieces of evidence are combined into one logit per workspace and a
softmax turns them into a confidence:

* semantic: cosine similarity of the note's embedding to each workspace
  centroid (built from the prototype descriptions below plus every note the
  person labelled with ``workspace:`` — the vault teaches the router);
* lexical: the share of the note's cue-word hits that belong to a workspace
  (the tables below, inspectable and easy to extend);
* folder: a weak prior when a folder name is a known synonym of a workspace.

Below the threshold, or when the note has too few meaningful words to judge,
the note is quarantined with its reason and best suggestion.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import numpy as np
import polars as pl

from lucasrag.vocabulary import WORKSPACES

#: Short descriptions embedded as each workspace's anchor points.
WORKSPACE_PROTOTYPES: Mapping[str, tuple[str, ...]] = {
    "technical": (
        "software engineering notes: code, debugging, servers, databases, deployment, programming languages",
        "how to configure Kubernetes, Postgres, Linux, networking, APIs, performance tuning and bugs",
    ),
    "creative": (
        "a poem, verse, stanzas, imagery and metaphor",
        "a short story draft with characters, scenes, dialogue and plot ideas for fiction writing",
    ),
    "personal": (
        "a diary entry about my day, family, friends, feelings, home, holidays and my cat",
        "personal journal: memories, relationships, moving house, health and everyday life",
    ),
    "administrative": (
        "paperwork: tax return, insurance policy, bank account, invoices, pension and contracts",
        "admin tasks: lease renewal, bills, forms, deadlines, reference numbers and payments",
    ),
}

#: Cue words per workspace (lower case, matched as whole words).
LEXICAL_CUES: Mapping[str, frozenset[str]] = {
    "technical": frozenset(
        "code bug debug debugging server servers database postgres sql kubernetes k8s docker deploy deployment "
        "api python rust golang java linux kernel latency cpu memory cache query index cluster config yaml "
        "git commit branch compile compiler test tests pipeline ci terraform nginx http tls ssh script "
        "function refactor library framework backend frontend algorithm".split()
    ),
    "creative": frozenset(
        "poem poems poetry verse stanza stanzas rhyme metaphor imagery story stories draft chapter character "
        "characters plot scene dialogue novel fiction narrator protagonist haiku sonnet lyric lyrics "
        "prose muse ink moon sea".split()
    ),
    "personal": frozenset(
        "diary today tonight mum mom dad brother sister family friend friends feel felt happy sad tired "
        "home flat cat dog birthday holiday weekend dinner walk love girlfriend boyfriend partner memories "
        "grandad grandma wedding visited moved".split()
    ),
    "administrative": frozenset(
        "tax taxes invoice invoices insurance policy premium bank account statement pension lease rent "
        "landlord contract bill bills payment payments deadline form forms renewal receipt receipts claim "
        "reference hmrc iban mortgage council registration licence license passport visa".split()
    ),
}

#: Folder names that hint at a workspace (a prior, never the truth).
FOLDER_PRIORS: Mapping[str, str] = {
    **dict.fromkeys(("tech", "technical", "code", "dev", "engineering", "work-notes"), "technical"),
    **dict.fromkeys(("writing", "poems", "poetry", "stories", "creative", "fiction"), "creative"),
    **dict.fromkeys(("journal", "diary", "personal", "life", "daily"), "personal"),
    **dict.fromkeys(("admin", "administrative", "finance", "paperwork", "bills", "tax"), "administrative"),
}

#: Logit weights, fitted by maximum likelihood on labelled vaults; see docs/routing.md.
SEMANTIC_WEIGHT = 16.0
LEXICAL_WEIGHT = 2.0
FOLDER_WEIGHT = 2.0
#: The logit of a fifth, "none of these" outcome. A note with weak evidence for
#: every workspace lets this take the probability mass, so its confidence drops
#: instead of being forced onto the least-bad workspace.
REJECT_LOGIT = 4.0
MIN_MEANINGFUL_WORDS = 5

_STOPWORDS = frozenset(
    "the a an and or but if then so of to in on at by for with from as is are was were be been it its this that "
    "these those i me my we our you your he she they them his her their re about into up out do did done not no "
    "yes just what when where which who how all any some can could would should will shall may might must".split()
)
_WORD = re.compile(r"[a-zA-Z][a-zA-Z'\-]+")


@dataclass(frozen=True)
class RouteDecision:
    workspace: str | None  # None: quarantined
    suggestion: str  # best guess, also for quarantined notes
    confidence: float
    reason: str
    scores: dict[str, float] = field(default_factory=dict)


def meaningful_words(text: str) -> list[str]:
    """Lower-cased words of three letters or more that are not stop words."""
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if len(w) >= 3 and w not in _STOPWORDS]


def build_centroids(
    prototype_vectors: Mapping[str, np.ndarray], exemplar_vectors: Mapping[str, Sequence[np.ndarray]]
) -> dict[str, np.ndarray]:
    """Unit centroid per workspace from its prototypes and the person's labelled notes."""
    centroids = {}
    for ws in WORKSPACES:
        rows = [*prototype_vectors[ws], *exemplar_vectors.get(ws, ())]
        mean = np.mean(np.stack(rows), axis=0)
        centroids[ws] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return centroids


def _lexical_shares(words: Sequence[str]) -> dict[str, float]:
    hits = {ws: sum(w in LEXICAL_CUES[ws] for w in words) for ws in WORKSPACES}
    total = sum(hits.values())
    return {ws: (hits[ws] / total if total else 0.0) for ws in WORKSPACES}


def _folder_prior(folders: Sequence[str]) -> str | None:
    for name in reversed(folders):  # the innermost folder speaks loudest
        ws = FOLDER_PRIORS.get(name.lower())
        if ws:
            return ws
    return None


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
    """Decide a note's workspace; ``declared`` is its ``workspace:`` frontmatter, if any.
    ``title`` counts for the lexical cues (a person's title is a strong hint)."""
    if declared:
        return RouteDecision(declared, declared, 1.0, "workspace set in frontmatter", {declared: 1.0})
    words = meaningful_words(text)
    lexical = _lexical_shares(meaningful_words(title) + words)
    prior = _folder_prior(folders)
    logits = {
        ws: SEMANTIC_WEIGHT * float(note_vector @ centroids[ws])
        + LEXICAL_WEIGHT * lexical[ws]
        + (FOLDER_WEIGHT if ws == prior else 0.0)
        for ws in WORKSPACES
    }
    top = max(*logits.values(), REJECT_LOGIT)
    exp = {ws: math.exp(v - top) for ws, v in logits.items()}
    total = sum(exp.values()) + math.exp(REJECT_LOGIT - top)
    scores = {ws: exp[ws] / total for ws in WORKSPACES}
    best = max(scores, key=scores.__getitem__)
    confidence = scores[best]
    if len(words) < MIN_MEANINGFUL_WORDS:
        reason = f"too little content to route ({len(words)} meaningful words, need {MIN_MEANINGFUL_WORDS})"
        return RouteDecision(None, best, confidence, reason, scores)
    if confidence < threshold:
        reason = f"low confidence: best guess {best} at {confidence:.2f} < threshold {threshold:.2f}"
        return RouteDecision(None, best, confidence, reason, scores)
    return RouteDecision(best, best, confidence, f"content routed to {best} at {confidence:.2f}", scores)


ROUTING_TEXT_CHARS = 2000  # the head of a note says what it is about; the tail adds cost, not signal


def routing_text(body: str) -> str:
    return body.strip()[:ROUTING_TEXT_CHARS]


def route_frame(notes: pl.DataFrame, embed: Callable[[list[str]], np.ndarray], threshold: float) -> pl.DataFrame:
    """One row per valid note with its decision (workspace null = quarantined)."""
    valid = notes.filter(pl.col("status") == "ok")
    texts = [routing_text(b) for b in valid["body"]]
    vectors = embed(texts)
    prototypes = {ws: embed(list(WORKSPACE_PROTOTYPES[ws])) for ws in WORKSPACES}
    exemplars: dict[str, list] = {ws: [] for ws in WORKSPACES}
    for declared, vector in zip(valid["declared_workspace"], vectors):
        if declared:
            exemplars[declared].append(vector)
    centroids = build_centroids(prototypes, exemplars)
    decisions = [
        route(
            text, PurePosixPath(path).parts[:-1], vector, centroids, threshold=threshold, declared=declared, title=title
        )
        for text, path, vector, declared, title in zip(
            texts, valid["path"], vectors, valid["declared_workspace"], valid["title"]
        )
    ]
    return valid.with_columns(
        pl.Series("workspace", [d.workspace for d in decisions], dtype=pl.String),
        pl.Series("suggestion", [d.suggestion for d in decisions], dtype=pl.String),
        pl.Series("confidence", [round(d.confidence, 4) for d in decisions], dtype=pl.Float64),
        pl.Series("route_reason", [d.reason for d in decisions], dtype=pl.String),
    )
