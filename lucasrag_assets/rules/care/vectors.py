"""Vector evidence: a logistic model over contextual span vectors, stacked on the lexical model.

The vector of a (chunk, subject) pair comes from ONE forward pass of the
embedding model over exactly the text the index embeds for the chunk: the
model's token outputs are mean-pooled over the tokens of the sentences about
the subject (``mentions.SubjectContext.spans``) and normalised. The same pass
gives the chunk's passage vector, which goes into the shared ``EmbeddingCache``,
so the index step finds it there: the detector adds no embedding call
(``Embedder.embed_spans``, ``EmbeddingCache.embed_spans``; counted by
``benchmarks/care_cost.py``). Each token has read the whole chunk, so a span
vector carries the context a sentence embedded alone would lose, and it does not
depend on phrasing: an understatement, a kept object or a poem lands near other
grief with no affect word. The chunk's passage vector stands in, and the
evidence says so (``vector_view``), when the sentences lie past the model's
window (``max_tokens``; the rest of a long text is truncated away) and when the
cache held the chunk's passage vector already (routing embedded the same text,
as for a short note whose one chunk is its routing text): a second pass over
it would be an extra call. The combined score is

    sigmoid(lexical_weight * logit(p_lexical) + vector · w + b)

plus, from ``care-lr-4``, prototype evidence: the similarity of the span
vector and of the chunk's passage vector to short descriptions of charged and
neutral situations (``prototypes``, embedded at training time and shipped as
vectors), as ``prototype_weights · standardised margins``. It is cut at its own
two thresholds (chosen like the lexical ones, out of fold on the tuning data). The weights are only valid for the embedding model they
were trained on (``embedding_model`` in ``weights.json``); a vector from
another model (or of another dimension) is not used, and the detector falls back
to the lexical evidence with a warning (see ``vector_warning``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .prototypes import MARGIN, prototype_features

#: ``(chunk text, one list of (start, end) character spans per subject)`` → the chunk's passage vector
#: and one span vector per subject (None: past the model's window). ``EmbeddingCache.embed_spans``.
SpanEmbed = Callable[[str, Sequence[Sequence[tuple[int, int]]]], tuple[np.ndarray, list[np.ndarray | None]]]


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return float(np.log(p / (1 - p)))


def sigmoid(z: float) -> float:
    return float(1.0 / (1.0 + np.exp(-max(min(z, 30.0), -30.0))))


def raise_by_focus(z_context: float, z_focus: float, weight: float) -> float:
    """The pair's logit: its context's, raised by ``weight`` times how far its focus lines' is higher (1: the
    higher of the two; 0: the context alone). A grief aside in a list of chores scores higher alone than
    the list does; a neutral mention is neutral either way."""
    return z_context + weight * max(0.0, z_focus - z_context)


def _pack(v: np.ndarray) -> str:
    return base64.b64encode(np.asarray(v, dtype="<f2").tobytes()).decode("ascii")


def _unpack(s: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(s), dtype="<f2").astype(np.float32)


@dataclass(frozen=True)
class Centroid:
    """The mean chunk vector of one corpus family: what "the labelled example it resembles" points to."""

    label: str  # charged | neutral
    name: str  # "family (register)"
    vector: np.ndarray  # unit length


@dataclass(frozen=True)
class Prototypes:
    """Charged and neutral situation descriptions as unit vectors (``prototypes``), and how their
    similarity margins enter the combined score: ``weights[0]`` for the span view, ``weights[1]`` for the
    chunk's passage vector, each margin standardised by the tuning data's mean and deviation."""

    charged_names: tuple[str, ...]
    charged: np.ndarray  # (n, dim) unit rows
    neutral: np.ndarray  # (m, dim) unit rows
    weights: tuple[float, float]
    mean: float
    std: float

    def margin(self, vector: np.ndarray) -> float:
        return float(prototype_features(vector, self.charged, self.neutral) @ MARGIN)

    def term(self, span: np.ndarray, chunk: np.ndarray) -> float:
        margins = (self.margin(span), self.margin(chunk))
        return sum(w * (m - self.mean) / self.std for w, m in zip(self.weights, margins))

    def nearest(self, vector: np.ndarray) -> tuple[str, float]:
        sims = self.charged @ vector
        best = int(np.argmax(sims))
        return self.charged_names[best], float(sims[best])

    def to_json(self) -> dict:
        return {
            "weights": list(self.weights),
            "margin_mean": round(self.mean, 6),
            "margin_std": round(self.std, 6),
            "charged_float16_base64": [
                {"text": t, "vector": _pack(v)} for t, v in zip(self.charged_names, self.charged)
            ],
            "neutral_float16_base64": [_pack(v) for v in self.neutral],
        }

    @classmethod
    def from_json(cls, raw: dict) -> Prototypes:
        charged = raw["charged_float16_base64"]
        return cls(
            tuple(c["text"] for c in charged),
            np.stack([_unpack(c["vector"]) for c in charged]),
            np.stack([_unpack(v) for v in raw["neutral_float16_base64"]]),
            tuple(float(w) for w in raw["weights"]),
            float(raw["margin_mean"]),
            float(raw["margin_std"]),
        )


@dataclass(frozen=True)
class VectorModel:
    embedding_model: str  # the model the chunk vectors must come from
    dim: int
    weights: np.ndarray
    bias: float
    lexical_weight: float
    charged_at: float
    uncertain_at: float
    centroids: tuple[Centroid, ...] = ()
    span_weight: float = 1.0  # of the span model's logit in the combined score
    prototypes: Prototypes | None = None
    focus_weight: float = 0.0  # how far the focus lines' combined logit raises the context's

    def usable(self, vector: np.ndarray | None) -> bool:
        return vector is not None and vector.shape == (self.dim,)

    def vector_probability(self, vector: np.ndarray) -> float:
        return sigmoid(float(vector @ self.weights) + self.bias)

    def logit(self, p_lexical: float, vector: np.ndarray, chunk_vector: np.ndarray | None = None) -> float:
        """The combined logit of one view of a pair: its lexical probability, its span vector and the
        chunk's passage vector (``vector`` stands in when None)."""
        z = self.lexical_weight * logit(p_lexical) + self.span_weight * (float(vector @ self.weights) + self.bias)
        if self.prototypes is not None:
            z += self.prototypes.term(vector, vector if chunk_vector is None else chunk_vector)
        return z

    def probability(
        self,
        p_lexical: float,
        vector: np.ndarray,
        chunk_vector: np.ndarray | None = None,
        focus: tuple[float, np.ndarray] | None = None,
    ) -> float:
        """The combined score of a pair; ``focus`` = (lexical probability, span vector) of its focus lines
        raises it by ``focus_weight`` where higher."""
        z = self.logit(p_lexical, vector, chunk_vector)
        if focus is not None and self.focus_weight:
            z = raise_by_focus(z, self.logit(focus[0], focus[1], chunk_vector), self.focus_weight)
        return sigmoid(z)

    def outcome(self, p: float) -> str:
        return "charged" if p >= self.charged_at else "uncertain" if p >= self.uncertain_at else "neutral"

    def nearest(self, vector: np.ndarray) -> tuple[Centroid | None, float]:
        if not self.centroids:
            return None, -1.0
        sims = [float(vector @ c.vector) for c in self.centroids]
        best = int(np.argmax(sims))
        return self.centroids[best], sims[best]

    def to_json(self) -> dict:
        return {
            "embedding_model": self.embedding_model,
            "dim": self.dim,
            "bias": round(self.bias, 6),
            "lexical_weight": self.lexical_weight,
            "span_weight": self.span_weight,
            "focus_weight": self.focus_weight,
            **({"prototypes": self.prototypes.to_json()} if self.prototypes else {}),
            "thresholds": {"charged": self.charged_at, "uncertain": self.uncertain_at},
            "weights": [round(float(w), 5) for w in self.weights],
            "centroids_float16_base64": [
                {"label": c.label, "name": c.name, "vector": _pack(c.vector)} for c in self.centroids
            ],
        }

    @classmethod
    def from_json(cls, raw: dict) -> VectorModel:
        t = raw["thresholds"]
        return cls(
            raw["embedding_model"],
            int(raw["dim"]),
            np.asarray(raw["weights"], dtype=np.float32),
            float(raw["bias"]),
            float(raw["lexical_weight"]),
            float(t["charged"]),
            float(t["uncertain"]),
            tuple(Centroid(c["label"], c["name"], _unpack(c["vector"])) for c in raw["centroids_float16_base64"]),
            float(raw.get("span_weight", 1.0)),
            Prototypes.from_json(raw["prototypes"]) if raw.get("prototypes") else None,
            float(raw.get("focus_weight", 0.0)),
        )


def vector_warning(model: VectorModel | None, configured_model: str | None) -> str | None:
    """Why the vector evidence is off for this ingest, or None when it is on."""
    if model is None:
        return "the care weights carry no vector model: lexical evidence only"
    if configured_model is None:
        return "no embedder was given to the care detector: lexical evidence only"
    if configured_model != model.embedding_model:
        return (
            f"care vector weights were trained on {model.embedding_model!r}, the configured embedding model is "
            f"{configured_model!r}: lexical evidence only (retrain with `python -m lucasrag_harness.care_training.training`)"
        )
    return None


def embedding_model_id(embedder) -> str:
    """The own name of the model an embedder runs (e.g. ``all-MiniLM-L6-v2``: what ``embedding_model`` in
    ``weights.json`` is compared with), not the setting's short id."""
    name = getattr(getattr(embedder, "model", None), "name", None)
    if isinstance(name, str) and name:
        return name
    return embedder.tokenizer.model_name
