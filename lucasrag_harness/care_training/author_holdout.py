"""The leave-one-batch-out check of the care classifier: each batch of writers written apart from
batches 1-5 (``pairs.WRITER_BATCHES``) left out in turn, the weights and cuts chosen on the rest's
out-of-fold scores, and the left-out batch scored once by that choice: how the detector does on
writing by someone it was not fitted on."""

from __future__ import annotations

import numpy as np

from lucasrag_harness.care_training.combined_score import (
    combined,
    lexical_combined,
    oof_figures,
    outcome_figures,
    outcomes_at,
    weights_report,
)
from lucasrag_harness.care_training.out_of_fold import add_margins, choose, fit_and_score
from lucasrag_harness.care_training.pairs import FIRST_AUTHOR, Pairs
from lucasrag_harness.evaluation.care_eval import query_level

OUTCOMES = ("neutral", "uncertain", "charged")


def leave_one_batch_out(pairs: Pairs, vectors: bool, margins, focus_weights) -> dict | None:
    """One report per left-out batch, and the figures of every left-out batch's pairs together (each
    scored by the model that did not see its batch)."""
    batches = sorted(set(pairs.authors[pairs.real]) - {FIRST_AUTHOR})
    if not batches:
        return None
    report, pooled_scores, pooled_y, pooled_rows = {}, [], [], []
    for batch in batches:
        one, final, cuts, scored = _leave_out(pairs, pairs.authors == batch, vectors, margins, focus_weights)
        report[batch] = one
        pooled_scores.append(outcomes_at(final, cuts))
        pooled_y.append(pairs.y[scored])
        pooled_rows.extend(scored)
    outcomes, y = np.concatenate(pooled_scores), np.concatenate(pooled_y)
    report["every_left_out_batch"] = {
        **outcome_figures(outcomes, y),
        **query_level([(pairs.passages[i], OUTCOMES[o], None) for i, o in zip(pooled_rows, outcomes)]),
    }
    return report


def _leave_out(pairs: Pairs, held: np.ndarray, vectors: bool, margins, focus_weights):
    chosen = choose(pairs, ~held, vectors, margins, focus_weights)
    scored = np.flatnonzero(held & pairs.real)
    parts = fit_and_score(pairs, ~held, held & pairs.real, vectors)
    y = pairs.y[scored]
    registers = np.array([pairs.passages[i].register for i in scored])
    lexical = lexical_combined(parts, chosen["lexical_focus_weight"])
    report = {
        "trained_on": "every other tune batch, weights and cuts from their out-of-fold scores",
        "scored": f"{int(y.sum())} charged, {int((1 - y).sum())} neutral pairs",
        "lexical_only": oof_figures(lexical, y, chosen["lexical_cuts"]),
    }
    final, cuts = lexical, chosen["lexical_cuts"]
    if vectors:
        mean, std = chosen["margin"]
        add_margins(parts, scored, margins, mean, std, 1)
        final, cuts = combined(parts, chosen["weights"]), chosen["cuts"]
        report |= {
            "weights": weights_report(chosen["weights"]),
            "thresholds": dict(zip(("uncertain", "charged"), cuts)),
            "oof_on_the_rest": {k: chosen["oof"][k] for k in ("recall", "false_positive_rate", "uncertain_share")},
            **oof_figures(final, y, cuts, registers),
        }
    outcomes = outcomes_at(final, cuts)
    report |= query_level([(pairs.passages[i], OUTCOMES[o], None) for i, o in zip(scored, outcomes)])
    return report, final, cuts, scored
