"""The care classifier: a logistic model over ``features`` shipped as a versioned JSON file.

``weights.json`` is written by ``python -m lucasrag_harness.care_training.training``
(it records that command, its version and the corpus split it was fitted on).
With a chunk vector from the embedding model the weights were trained on, the
vector model (``vectors``) stacks on the lexical one and its own thresholds apply.
Two cuts are read from the probability of charged:

* ``release`` (``release_below``, one per evidence: lexical alone or with vectors): below it a mention is
  confidently neutral and the detector releases it. Chosen on the tuning half so that at most 1 % of the
  charged passages of every tuning batch fall below it (``lucasrag_harness.care_training.release_cut``).
* ``uncertain`` (and ``charged``): at or above it the detector *infers* the mention charged. Under the default
  policy that only changes the evidence; it decides for a ``charged-only`` subject and for a reference written
  before a subject's ``since:`` date (``detector``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from .features import HASH_DIM, N_FEATURES
from .vectors import VectorModel, raise_by_focus, sigmoid

WEIGHTS_FILE = "weights.json"


class CareModelError(ValueError):
    """The weights file is missing or does not fit the feature layout; retrain it."""


@dataclass(frozen=True)
class Exemplar:
    """A labelled example the classifier can point to as the one a chunk resembles."""

    label: str  # "charged" | "neutral"
    name: str  # corpus family (e.g. "anniversary/diary") or a vault path
    vector: np.ndarray


@dataclass(frozen=True)
class CareModel:
    version: str
    weights: np.ndarray
    bias: float
    charged_at: float
    uncertain_at: float
    exemplars: tuple[Exemplar, ...] = ()
    vector: VectorModel | None = None  # evidence from the chunk's embedding (see ``vectors``)
    #: How far the focus lines' score raises the context's when higher (``vectors.raise_by_focus``).
    focus_weight: float = 0.0
    #: Below this probability of charged a mention is released as neutral: lexical evidence alone, and
    #: with vector evidence (0.0: the detector releases nothing).
    release_below: float = 0.0
    vector_release_below: float = 0.0
    #: With vector evidence, the lexical model alone must also be below this (a cut on two scores releases more
    #: neutral mentions than either alone at the same leak bound; ``release_cut``).
    vector_lexical_release_below: float = 0.0

    def probability(self, vec: np.ndarray) -> float:
        return sigmoid(float(vec @ self.weights) + self.bias)

    def focused_probability(self, vec: np.ndarray, focus_vec: np.ndarray) -> float:
        """The lexical score of a pair from its context's features and its focus lines' (``mentions``)."""
        z = float(vec @ self.weights) + self.bias
        return sigmoid(raise_by_focus(z, float(focus_vec @ self.weights) + self.bias, self.focus_weight))

    def outcome(self, p: float) -> str:
        return "charged" if p >= self.charged_at else "uncertain" if p >= self.uncertain_at else "neutral"

    def releases(self, p: float, p_lexical: float, with_vectors: bool) -> bool:
        """Whether a mention with probability of charged ``p`` (``p_lexical``: the lexical model alone) is
        confidently neutral: below the release cut of its evidence."""
        if with_vectors:
            return p < self.vector_release_below and p_lexical < self.vector_lexical_release_below
        return p < self.release_below

    def release_rule(self, with_vectors: bool) -> str:
        if with_vectors:
            return (
                f"score below {self.vector_release_below} and lexical score below {self.vector_lexical_release_below}"
            )
        return f"score below {self.release_below}"

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "hash_dim": HASH_DIM,
            "n_features": N_FEATURES,
            "bias": round(self.bias, 6),
            "thresholds": {"charged": self.charged_at, "uncertain": self.uncertain_at},
            "focus_weight": self.focus_weight,
            "release": {
                "lexical": self.release_below,
                "vector": self.vector_release_below,
                "vector_lexical": self.vector_lexical_release_below,
            },
            "weights": [round(float(w), 5) for w in self.weights],
            "exemplars": [
                {
                    "label": e.label,
                    "name": e.name,
                    "buckets": [[int(i), round(float(e.vector[i]), 4)] for i in np.flatnonzero(e.vector)],
                }
                for e in self.exemplars
            ],
            **({"vector": self.vector.to_json()} if self.vector else {}),
        }

    @classmethod
    def from_json(cls, raw: dict) -> CareModel:
        if raw.get("n_features") != N_FEATURES or len(raw.get("weights", ())) != N_FEATURES:
            raise CareModelError(
                f"care weights {raw.get('version')!r} have {raw.get('n_features')} features, the detector "
                f"computes {N_FEATURES}: retrain with `python -m lucasrag_harness.care_training.training`"
            )
        exemplars = []
        for e in raw.get("exemplars", ()):
            v = np.zeros(N_FEATURES, dtype=np.float32)
            for i, x in e["buckets"]:
                v[i] = x
            exemplars.append(Exemplar(e["label"], e["name"], v))
        t = raw["thresholds"]
        return cls(
            raw["version"],
            np.asarray(raw["weights"], dtype=np.float32),
            float(raw["bias"]),
            float(t["charged"]),
            float(t["uncertain"]),
            tuple(exemplars),
            VectorModel.from_json(raw["vector"]) if raw.get("vector") else None,
            float(raw.get("focus_weight", 0.0)),
            float(raw.get("release", {}).get("lexical", 0.0)),
            float(raw.get("release", {}).get("vector", 0.0)),
            float(raw.get("release", {}).get("vector_lexical", 0.0)),
        )

    def save(self, path: Path, **provenance) -> None:
        path.write_text(json.dumps({**provenance, **self.to_json()}, separators=(",", ":")) + "\n", encoding="utf-8")


@lru_cache(maxsize=1)
def shipped_model() -> CareModel:
    """The model in the package (``lucasrag_assets/rules/care/weights.json``)."""
    ref = resources.files(__package__) / WEIGHTS_FILE
    if not ref.is_file():
        raise CareModelError(
            f"no {WEIGHTS_FILE} in {__package__}: run `python -m lucasrag_harness.care_training.training`"
        )
    return CareModel.from_json(json.loads(ref.read_text(encoding="utf-8")))
