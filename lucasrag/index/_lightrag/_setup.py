"""Opening LightRAG: storages per profile, the embedding seam, the quiet logger and the
process-wide state LightRAG keeps per workspace name."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lucasrag.embedding import DIM, get_embedder
from lucasrag.embedding_models import embedding_model


@dataclass(frozen=True)
class _Backend:
    """LightRAG's storages for one profile of ``lucasrag.settings.PROFILES``."""

    storages: dict[str, str]
    #: PostgreSQL + Neo4j: checked before opening, configured right before construction
    servers: bool
    #: the vector store ranks every row exactly (ties by id), so a smaller k's rows are a prefix of a
    #: larger one's (``_sqlite_vectors``); an approximate index (pgvector's HNSW) promises no such thing
    prefix_ranked: bool


_BACKENDS = {
    "embedded": _Backend(
        {
            "kv_storage": "SqliteKVStorage",  # ours, updated by row (_sqlite_file)
            "vector_storage": "SqliteVectorStorage",
            "graph_storage": "SqliteGraphStorage",
            "doc_status_storage": "SqliteDocStatusStorage",  # LightRAG's readers on rows kept by row (ours)
        },
        servers=False,
        prefix_ranked=True,
    ),
    "production": _Backend(
        {
            "kv_storage": "PGKVStorage",
            "vector_storage": "PGVectorStorage",
            "graph_storage": "Neo4JStorage",
            "doc_status_storage": "PGDocStatusStorage",
        },
        servers=True,
        prefix_ranked=False,
    ),
}


#: Our storage classes for LightRAG: name → (LightRAG's storage type, module).
_OWN_STORAGES = {
    "SqliteKVStorage": ("KV_STORAGE", "lucasrag.index._lightrag._sqlite_kv"),
    "SqliteVectorStorage": ("VECTOR_STORAGE", "lucasrag.index._lightrag._sqlite_vectors"),
    "SqliteGraphStorage": ("GRAPH_STORAGE", "lucasrag.index._lightrag._sqlite_graph"),
    "SqliteDocStatusStorage": ("DOC_STATUS_STORAGE", "lucasrag.index._lightrag._sqlite_doc_status"),
}


def register_own_storages() -> None:
    """Name our storage classes in LightRAG's registries, so ``LightRAG(kv_storage="SqliteKVStorage")``
    finds them as it finds its own (LightRAG imports a registered module by its path)."""
    from lightrag import kg

    for name, (kind, module) in _OWN_STORAGES.items():
        kg.STORAGES[name] = module
        kg.STORAGE_ENV_REQUIREMENTS.setdefault(name, [])
        implementations = kg.STORAGE_IMPLEMENTATIONS[kind]["implementations"]
        if name not in implementations:
            implementations.append(name)


def embedding_model_name(model_id: str) -> str:
    """LightRAG's ``model_name`` for a ``LUCASRAG_EMBEDDING_MODEL`` id. LightRAG suffixes its PostgreSQL
    vector tables with it and the dimension (``lightrag_vdb_chunks_all_minilm_l6_v2_384d``): a
    different model can never mix vectors into the same table."""
    return embedding_model(model_id).name


class _VectorCache:
    """Vectors we already computed, handed to LightRAG's deferred embedding (all by one model)."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._by_text: dict[str, np.ndarray] = {}

    def add(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self._by_text.update(zip(texts, vectors))

    def clear(self) -> None:
        self._by_text.clear()

    def __deepcopy__(self, memo: dict) -> _VectorCache:
        # LightRAG deep-copies its config (the embedding function's bound
        # instance included) on every query: share the cache, do not copy it.
        return self

    async def embed(self, texts: list[str], **_: object) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._by_text]
        if missing:
            vectors = await asyncio.to_thread(get_embedder(self.model).embed, missing)
            self.add(missing, vectors)
        return np.stack([self._by_text[t] for t in texts]) if texts else np.zeros((0, DIM), np.float32)

    async def embed_query(self, text: str) -> np.ndarray:
        """A query's vector (with the model's query prefix; never cached: a query is not a passage)."""
        return (await asyncio.to_thread(get_embedder(self.model).embed_query, [text]))[0]


async def _no_llm(*_args, **_kwargs) -> str:
    raise RuntimeError("LucasRAG indexes without an LLM; LightRAG asked for one (a code path that should not run)")


class _DropExpectedNoise(logging.Filter):
    """LightRAG's PostgreSQL storages warn about every workspace that has no rows yet
    (each first ingest) and log a missing-table error while creating a fresh database."""

    _NOISE = re.compile(
        r'is empty\. Ensure it is caused by new workspace setup|error:relation "lightrag_\w+" does not exist'
    )

    def filter(self, record: logging.LogRecord) -> bool:
        return not self._NOISE.search(record.getMessage())


_NOISE_FILTER = _DropExpectedNoise()


def _quiet_lightrag() -> None:
    for name in ("lightrag", "nano-vectordb", "nano_vectordb"):
        logging.getLogger(name).setLevel(logging.WARNING)
    lightrag_logger = logging.getLogger("lightrag")
    if _NOISE_FILTER not in lightrag_logger.filters:
        lightrag_logger.addFilter(_NOISE_FILTER)


def _backend(profile: str) -> _Backend:
    from lucasrag.settings import PROFILES, SettingsError

    try:
        return _BACKENDS[profile]
    except KeyError:
        raise SettingsError(f"LUCASRAG_PROFILE={profile!r} is not one of {', '.join(PROFILES)}") from None
