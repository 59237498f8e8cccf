"""How the care detector's weights are made: training pairs from the care corpus, out-of-fold and
author-held-out folds, the logistic fit, the combined score, the release cuts.

The product ships only what these produce (``lucasrag_assets/rules/care/weights.json``) and the inference
that reads it (``lucasrag_assets.rules.care``); ingest never runs anything here.

    python -m lucasrag_harness.care_training.training      # retrain weights.json
    python -m lucasrag_harness.care_training.release_cut --write   # choose the release cuts on the tuning half
"""
