"""The leave-one-author-out check of the care classifier: chosen on batches 1-5 (one author), scored
on held-out batch 1 (another author's writing)."""

from __future__ import annotations

import numpy as np

from lucasrag_assets.rules.care.combined_score import (
    combined,
    lexical_combined,
    oof_figures,
    outcomes_at,
    weights_report,
)
from lucasrag_assets.rules.care.evaluation import query_level
from lucasrag_assets.rules.care.out_of_fold import add_margins, choose, fit_and_score
from lucasrag_assets.rules.care.pairs import HELDOUT_AUTHOR, Pairs


def leave_one_author_out(pairs: Pairs, vectors: bool, margins, focus_weights) -> dict | None:
    """Fit on batches 1-5 (one author), weights and cuts from their out-of-fold scores, and score held-out
    batch 1 (another author): the estimate of how the detector does on writing by someone else."""
    held = pairs.authors == HELDOUT_AUTHOR
    if not held.any() or held.all():
        return None
    chosen = choose(pairs, ~held, vectors, margins, focus_weights)
    scored = np.flatnonzero(held & pairs.real)
    parts = fit_and_score(pairs, ~held, held & pairs.real, vectors)
    y = pairs.y[scored]
    registers = np.array([pairs.passages[i].register for i in scored])
    lexical = lexical_combined(parts, chosen["lexical_focus_weight"])
    report = {
        "trained_on": "batches 1-5 (tune, one author), weights and cuts from their out-of-fold scores",
        "scored": f"held-out batch 1 (another author): {int(y.sum())} charged, {int((1 - y).sum())} neutral",
        "lexical_only": oof_figures(lexical, y, chosen["lexical_cuts"]),
    }
    final = lexical
    if vectors:
        mean, std = chosen["margin"]
        add_margins(parts, scored, margins, mean, std, 1)
        final = combined(parts, chosen["weights"])
        report |= {
            "weights": weights_report(chosen["weights"]),
            "thresholds": dict(zip(("uncertain", "charged"), chosen["cuts"])),
            "oof_on_batches_1_5": chosen["oof"],
            **oof_figures(final, y, chosen["cuts"], registers),
        }
    outcomes = outcomes_at(final, chosen["cuts"] if vectors else chosen["lexical_cuts"])
    names = ("neutral", "uncertain", "charged")
    report |= query_level([(pairs.passages[i], names[o], None) for i, o in zip(scored, outcomes)])
    return report
