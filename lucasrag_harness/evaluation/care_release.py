"""Choose the detector's release cuts on the tuning half: ``python -m lucasrag_harness.evaluation.care_release``.

A mention is released as neutral when its probability of charged is below the cut. The cut is the largest
that releases at most :data:`MAX_CHARGED_RELEASED` of the charged passages of *every* tuning batch (charged
passages that reference resolution already lets through count against it). One cut for the lexical evidence
alone, one with the vector evidence. The test half (held-out batch 4) is never read. ``--write`` stores both
in ``lucasrag_assets/rules/care/weights.json`` (``release``), with the figures they were chosen from.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from importlib import resources

import numpy as np

from lucasrag_assets.rules.care.evaluation import assess, batch_of
from lucasrag_assets.rules.care.model import WEIGHTS_FILE, shipped_model
from lucasrag_harness.evaluation.care_corpus import generate_corpus

MAX_CHARGED_RELEASED = 0.01
CANDIDATE_CUTS = np.round(np.arange(0.0, 0.5, 0.0025), 4)


def choose_cut(rows) -> tuple[float, dict]:
    """The largest candidate cut under :data:`MAX_CHARGED_RELEASED` in every batch, and its figures."""
    batches = batch_of()
    charged: dict[str, list[float | None]] = defaultdict(list)
    neutral: list[float | None] = []
    for p, _, score, _ in rows:
        if p.label == "charged":
            charged[batches.get(p.family, "batches 1-5")].append(score)
        else:
            neutral.append(score)

    def released(scores, cut):
        return sum(s is None or s < cut for s in scores) / len(scores)

    best = 0.0
    for cut in CANDIDATE_CUTS:
        if all(released(scores, cut) <= MAX_CHARGED_RELEASED for scores in charged.values()):
            best = float(cut)
    figures = {
        "charged_released_by_batch": {b: round(released(s, best), 4) for b, s in sorted(charged.items())},
        "neutral_released": round(released(neutral, best), 4),
    }
    return best, figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--write", action="store_true", help="store the cuts in the shipped weights.json")
    args = parser.parse_args()
    from lucasrag.embedding import get_embedder

    tune = [p for p in generate_corpus(args.seed) if p.half == "tune"]
    report = {}
    for name, embed in (("vector", get_embedder().embed_spans), ("lexical", None)):
        cut, figures = choose_cut(assess(tune, embed)[0])
        report[name] = {"release_below": cut, **figures}
    print(json.dumps(report, indent=2))
    if args.write:
        ref = resources.files("lucasrag_assets.rules.care") / WEIGHTS_FILE
        raw = json.loads(ref.read_text(encoding="utf-8"))
        raw["release"] = {"lexical": report["lexical"]["release_below"], "vector": report["vector"]["release_below"]}
        raw["release_chosen_with"] = {
            "command": f"python -m lucasrag_harness.evaluation.care_release --seed {args.seed} --write",
            "rule": f"largest cut releasing at most {MAX_CHARGED_RELEASED:.0%} of charged passages in every "
            "tuning batch; the test half unread",
            **report,
        }
        with open(str(ref), "w", encoding="utf-8") as f:
            f.write(json.dumps(raw, separators=(",", ":")) + "\n")
        shipped_model.cache_clear()


if __name__ == "__main__":
    main()
