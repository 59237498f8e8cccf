"""The training rows of the care classifier: every (passage, subject) pair of the tuning data, and of its
register rewrites (``augment``), as arrays: lexical features and span vectors of the pair's context and
of its focus lines (``mentions.SubjectContext``), its passage vector, label, family and author."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from lucasrag_assets.rules.care.detector import vectorise
from lucasrag_assets.rules.care.mentions import resolve
from lucasrag_assets.rules.care.vectors import SpanEmbed
from lucasrag_harness.care_training.augment import rewrite
from lucasrag_harness.evaluation.care_corpus import HELDOUT, HELDOUT2, HELDOUT3, PERSONAS, WRITERS_BATCHES, Passage

#: Batches 1-5, the first author's writing: always trained on, never left out.
FIRST_AUTHOR = "batches 1-5"
#: The batches written apart from batches 1-5, each by other writers: the leave-one-batch-out check leaves
#: each out in turn (trained on everything else, scored on it).
WRITER_BATCHES = {
    "held-out batch 1": frozenset(f.name for f in HELDOUT[0] + HELDOUT[1]),
    "held-out batch 2": frozenset(f.name for f in HELDOUT2[0] + HELDOUT2[1]),
    "writers batches": frozenset(f.name for charged, neutral in WRITERS_BATCHES for f in charged + neutral),
    "held-out batch 3": frozenset(f.name for f in HELDOUT3[0] + HELDOUT3[1]),
}


@dataclass
class Pairs:
    """Every (passage, subject) pair of the tuning data and of its rewrites (``augment``), as arrays."""

    passages: list[Passage]  # the passage each row comes from
    x: np.ndarray  # lexical features of the context
    x_focus: np.ndarray  # of the focus lines
    y: np.ndarray
    families: np.ndarray
    authors: np.ndarray
    real: np.ndarray  # False: a rewrite (fitted on, never scored)
    span: np.ndarray | None = None  # span vector of the context (the passage vector past the window)
    span_focus: np.ndarray | None = None
    chunk: np.ndarray | None = None  # the passage vector


def author_of(p: Passage) -> str:
    """The batch of writers a passage's family comes from (``WRITER_BATCHES``, else ``FIRST_AUTHOR``)."""
    return next((batch for batch, names in WRITER_BATCHES.items() if p.family in names), FIRST_AUTHOR)


def _pair(text: str, p: Passage, embed: SpanEmbed | None):
    subject = next(x.subject for x in PERSONAS if x.subject.name == p.subject)
    context = resolve(text, subject)
    if context is None or not context.mentions:
        return None, None
    x, _ = vectorise(text, subject, context)
    xf, _ = vectorise(text, subject, context, focus=True)
    if embed is None:
        return (x, xf, None, None, None), context
    pooled, (span, focus) = embed(text, [context.spans, context.focus_spans])
    span = pooled if span is None else span
    return (x, xf, span, span if focus is None else focus, pooled), context


def build_pairs(tune: list[Passage], embed: SpanEmbed | None, *, rewrites: bool, seed: int) -> Pairs:
    """The pairs of ``tune`` and, with ``rewrites``, two rewrites of each (one of lowercase/bullets, one of
    among-chores/thread; not of a namesake's passage, whose surname lowercasing would drop)."""
    rows: list[tuple[Passage, bool, tuple]] = []
    for i, p in enumerate(tune):
        got, context = _pair(p.text, p, embed)
        if got is None:
            continue
        rows.append((p, True, got))
        if not rewrites or context.others:
            continue
        rng = random.Random(f"{seed}:{i}")
        for kind in (rng.choice(("lowercase", "bullets")), rng.choice(("among_chores", "thread"))):
            extra, _ = _pair(rewrite(p.text, kind, rng, list(context.sentences)), p, embed)
            if extra is not None:
                rows.append((p, False, extra))
    col = lambda k: np.stack([r[2][k] for r in rows]).astype(np.float64)  # noqa: E731
    return Pairs(
        [p for p, _, _ in rows],
        col(0),
        col(1),
        np.array([1.0 if p.label == "charged" else 0.0 for p, _, _ in rows]),
        np.array([p.family for p, _, _ in rows]),
        np.array([author_of(p) for p, _, _ in rows]),
        np.array([real for _, real, _ in rows]),
        *((col(2), col(3), col(4)) if embed is not None else ()),
    )
