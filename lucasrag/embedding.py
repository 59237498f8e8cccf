"""Offline sentence embeddings on onnxruntime: the models of :mod:`lucasrag.embedding_models`.

``minilm`` (all-MiniLM-L6-v2, int8; default) installs with a plain ``pip install``; ``bge-small``
(bge-small-en-v1.5, int8) and ``e5-small`` (e5-small-v2, int8) come from Maven Central jars that
``scripts/setup`` fetches. Nothing is fetched from a model hub. Vectors are pooled as each model was
trained (mean or CLS) and L2-normalised, so a dot product is the cosine similarity. Passages and queries
differ only by the model's prefixes: passages carry ``passage_prefix`` (:meth:`Embedder.embed`,
:meth:`Embedder.embed_spans`, :meth:`Embedder.token_outputs`; "" for MiniLM and bge), queries
``query_prefix`` (:meth:`Embedder.embed_query`).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lucasrag.embedding_models import (
    DEFAULT_MODEL,
    MINILM_TOKENIZER,
    EmbeddingModel,
    EmbeddingModelMissing,
    embedding_model,
)

__all__ = ["DIM", "Embedder", "EmbeddingModelMissing", "EmbeddingStats", "TOKENIZER", "get_embedder"]

DIM = 384  # every model
#: The chunker's tokenizer (word pieces are the same BERT uncased vocabulary in every model).
TOKENIZER = MINILM_TOKENIZER


@dataclass
class EmbeddingStats:
    """How much embedding work was done in this process (benchmarks read it)."""

    texts: int = 0
    seconds: float = 0.0


class TokenizerAdapter:
    """LightRAG's ``Tokenizer`` protocol over the word-piece tokenizer.

    LightRAG's default is tiktoken, which downloads its vocabulary on first use.
    """

    def __init__(self, tokenizer, model_name: str = "all-MiniLM-L6-v2") -> None:
        self._tok = tokenizer
        self.model_name = model_name

    def __deepcopy__(self, memo: dict) -> TokenizerAdapter:
        # LightRAG deep-copies its whole config (tokenizer included) on every
        # query; copying a HF tokenizer costs ~0.1 s. It is stateless here: share it.
        return self

    def encode(self, content: str) -> list[int]:
        return self._tok.encode(content, add_special_tokens=False).ids

    def decode(self, tokens: list[int]) -> str:
        return self._tok.decode(tokens)


class Embedder:
    """One model's sentence embeddings on onnxruntime (CPU)."""

    def __init__(
        self,
        model: str | EmbeddingModel = DEFAULT_MODEL,
        *,
        threads: int = 2,
        batch: int | None = None,
        spin: bool = False,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.model = embedding_model(model) if isinstance(model, str) else model
        model_path, tokenizer_path = self.model.files()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # Worker threads sleep between runs instead of spinning: on a shared machine a spinning pool
        # burns the cores other processes (and this one's next batch) need.
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        self._session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(self.model.max_tokens)
        self._tokenizer.no_padding()  # batches are padded to their own longest text (see embed)
        # The packaged tokenizer.json carries a 128-token truncation; counting
        # tokens for chunking must see the whole text.
        self._plain_tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._plain_tokenizer.no_truncation()
        self._plain_tokenizer.no_padding()
        self._pad_id = self._tokenizer.token_to_id("[PAD]") or 0
        self.batch = batch or self.model.batch  # texts per run (sorted by token count, so little padding)
        self._lock = threading.Lock()  # one onnx run at a time: its threads already use the cores
        self.stats = EmbeddingStats()

    @property
    def model_id(self) -> str:
        return self.model.id

    @property
    def tokenizer(self) -> TokenizerAdapter:
        return TokenizerAdapter(self._plain_tokenizer, self.model.name)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of passages (each after the model's passage prefix), one row per text, in input order."""
        prefix = self.model.passage_prefix
        return self._embed_texts([prefix + t for t in texts] if prefix else texts)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of queries: the model's query prefix (bge's retrieval instruction), then the text."""
        return self._embed_texts([self.model.query_prefix + t for t in texts])

    def _embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        started = time.perf_counter()
        encoded = self._tokenizer.encode_batch(list(texts))
        # Sorted by token count, each batch pads to nearly its own length: padding is wasted work.
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        out = np.empty((len(texts), DIM), dtype=np.float32)
        with self._lock:
            for start in range(0, len(order), self.batch):
                idx = order[start : start + self.batch]
                out[idx] = self._run([encoded[i].ids for i in idx])
        self.stats.texts += len(texts)
        self.stats.seconds += time.perf_counter() - started
        return out

    def embed_spans(
        self, text: str, span_sets: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[np.ndarray, list[np.ndarray | None]]:
        """One forward pass over ``text``: its passage vector (what :meth:`embed` gives for it) and, per set
        of character spans (sentences), a contextual span vector: the model's token outputs mean-pooled
        within each span and normalised, then averaged over the spans and normalised (each span weighs
        alike, as when sentences are embedded one by one, but every token has read the whole text). A set
        with a span past the model's window (``max_tokens``; the rest is truncated away) gets None."""
        tokens, offsets = self.token_outputs(text)
        real = offsets[:, 1] > offsets[:, 0]  # [CLS]/[SEP] have empty offsets
        window_end = int(offsets[real, 1].max()) if real.any() else 0
        out: list[np.ndarray | None] = []
        for spans in span_sets:
            if not spans or max(end for _, end in spans) > window_end:
                out.append(None)
                continue
            per_span = []
            for start, end in spans:
                inside = real & (offsets[:, 0] >= start) & (offsets[:, 1] <= end)
                if inside.any():
                    per_span.append(_unit(tokens[inside].mean(axis=0)))
            out.append(_unit(np.mean(per_span, axis=0)).astype(np.float32) if per_span else None)
        return self._pool(tokens[None], np.ones((1, len(tokens)), dtype=np.int64))[0], out

    def token_outputs(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """One forward pass over ``text`` (after the model's passage prefix, as :meth:`embed` reads it): the
        model's output per word piece (rows) and each piece's character offsets in ``text`` (``[CLS]``,
        ``[SEP]`` and the prefix's pieces have empty ones)."""
        started = time.perf_counter()
        prefix = len(self.model.passage_prefix)
        encoded = self._tokenizer.encode(self.model.passage_prefix + text)
        with self._lock:
            hidden, _ = self._forward([encoded.ids])
        self.stats.texts += 1
        self.stats.seconds += time.perf_counter() - started
        offsets = np.asarray(encoded.offsets, dtype=np.int64).reshape(-1, 2)
        if prefix:
            in_text = offsets[:, 1] > prefix  # a piece ending inside the prefix names no character of the text
            offsets = np.where(in_text[:, None], offsets - prefix, 0)
        return hidden[0], offsets

    def _padded(self, token_ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The batch as one matrix of token ids padded to its longest text, and the attention mask."""
        width = max(len(ids) for ids in token_ids)
        ids = np.full((len(token_ids), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(token_ids), width), dtype=np.int64)
        for row, seq in enumerate(token_ids):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        return ids, mask

    def _forward(self, token_ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        ids, mask = self._padded(token_ids)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        return self._session.run(None, feed)[0], mask

    def _run(self, token_ids: list[list[int]]) -> np.ndarray:
        return self._pool(*self._forward(token_ids))

    def _pool(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.model.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


def get_embedder(model: str = DEFAULT_MODEL) -> Embedder:
    """The process-wide embedder of ``model`` (a ``LUCASRAG_EMBEDDING_MODEL`` id; loading costs ~0.5 s)."""
    # The cache sits behind the default so that get_embedder() and get_embedder("minilm") share one session.
    return _embedder(model)


@functools.cache
def _embedder(model: str) -> Embedder:
    return Embedder(model)
