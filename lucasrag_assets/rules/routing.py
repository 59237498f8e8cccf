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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

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

#: Logit weights; see docs/routing.md for how they were chosen and calibrated.
SEMANTIC_WEIGHT = 25.0
LEXICAL_WEIGHT = 3.0
FOLDER_WEIGHT = 1.0
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
) -> RouteDecision:
    """Decide a note's workspace; ``declared`` is its ``workspace:`` frontmatter, if any."""
    if declared:
        return RouteDecision(declared, declared, 1.0, "workspace set in frontmatter", {declared: 1.0})
    words = meaningful_words(text)
    lexical = _lexical_shares(words)
    prior = _folder_prior(folders)
    logits = {
        ws: SEMANTIC_WEIGHT * float(note_vector @ centroids[ws])
        + LEXICAL_WEIGHT * lexical[ws]
        + (FOLDER_WEIGHT if ws == prior else 0.0)
        for ws in WORKSPACES
    }
    top = max(logits.values())
    exp = {ws: math.exp(v - top) for ws, v in logits.items()}
    total = sum(exp.values())
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
