"""Choose the detector's release cuts on the tuning half: ``python -m lucasrag_harness.care_training.release_cut``.

A mention is released as neutral when its probability of charged is below the cut (with vector evidence: the
combined probability below one cut *and* the lexical model's below another — two scores that disagree on a
charged passage hold it back, so the pair of cuts releases more neutral mentions than either cut alone at the
same bound). The cuts are those that release the most neutral tuning mentions while releasing at most
:data:`MAX_CHARGED_RELEASED` of the charged passages of *every* tuning batch (charged passages that reference
resolution already lets through count against it). The test half (held-out batch 4) is never read.
``--write`` stores them in ``lucasrag_assets/rules/care/weights.json`` (``release``), with their figures.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from importlib import resources

import numpy as np

from lucasrag_assets.rules.care.model import WEIGHTS_FILE, shipped_model
from lucasrag_harness.evaluation.care_corpus import generate_corpus
from lucasrag_harness.evaluation.care_eval import assessments, batch_of

MAX_CHARGED_RELEASED = 0.01
CUTS = np.round(np.arange(0.0, 0.3, 0.005), 4)


def _scores(passages, embed) -> list[tuple[str, str, float | None, float | None]]:
    """(batch, label, probability, lexical probability) per passage; None: resolution released it (nothing refers
    to the subject, or every mention is someone else or a word — scored, but not by the release cut)."""
    batches = batch_of()
    out = []
    for p, a in zip(passages, assessments(passages, embed)):
        scored = a is not None and a.source != "resolution"
        out.append(
            (batches.get(p.family, "batches 1-5"), p.label, *((a.score, a.lexical_score) if scored else (None, None)))
        )
    return out


def choose_cuts(scores, two: bool) -> tuple[tuple[float, float], dict]:
    """The cuts (combined, lexical) releasing the most neutral mentions under the bound in every batch."""
    charged: dict[str, list] = defaultdict(list)
    neutral = []
    for batch, label, p, lexical in scores:
        (charged[batch] if label == "charged" else neutral).append((p, lexical))

    def released(items, cut, lexical_cut):
        return sum(p is None or (p < cut and (not two or lx < lexical_cut)) for p, lx in items) / len(items)

    best, best_share = (0.0, 0.0), -1.0
    for cut in CUTS:
        for lexical_cut in CUTS if two else (1.0,):
            if all(released(items, cut, lexical_cut) <= MAX_CHARGED_RELEASED for items in charged.values()):
                share = released(neutral, cut, lexical_cut)
                if share > best_share:
                    best, best_share = (float(cut), float(lexical_cut)), share
    figures = {
        "charged_released_by_batch": {b: round(released(i, *best), 4) for b, i in sorted(charged.items())},
        "neutral_released": round(best_share, 4),
    }
    return best, figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--write", action="store_true", help="store the cuts in the shipped weights.json")
    args = parser.parse_args()
    from lucasrag.embedding import get_embedder

    tune = [p for p in generate_corpus(args.seed) if p.half == "tune"]
    (vector, vector_lexical), vector_figures = choose_cuts(_scores(tune, get_embedder().embed_spans), two=True)
    (lexical, _), lexical_figures = choose_cuts(_scores(tune, None), two=False)
    release = {"lexical": lexical, "vector": vector, "vector_lexical": vector_lexical}
    report = {"release": release, "with_vectors": vector_figures, "lexical_only": lexical_figures}
    print(json.dumps(report, indent=2))
    if args.write:
        ref = resources.files("lucasrag_assets.rules.care") / WEIGHTS_FILE
        raw = json.loads(ref.read_text(encoding="utf-8"))
        raw["release"] = release
        raw["release_chosen_with"] = {
            "command": f"python -m lucasrag_harness.care_training.release_cut --seed {args.seed} --write",
            "rule": f"most neutral tuning mentions released while releasing at most {MAX_CHARGED_RELEASED:.0%} "
            "of the charged passages of every tuning batch; the test half unread",
            **report,
        }
        with open(str(ref), "w", encoding="utf-8") as f:
            f.write(json.dumps(raw, separators=(",", ":")) + "\n")
        shipped_model.cache_clear()


if __name__ == "__main__":
    main()
