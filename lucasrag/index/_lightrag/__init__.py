"""The one package that calls into LightRAG.

LightRAG's API moves between minor versions and its modules run to thousands of
lines; everything LucasRAG needs from it goes through the small surface below.

Design choice: LucasRAG chunks, bands and embeds notes itself, then writes the
chunks into each workspace's LightRAG storages directly (``text_chunks``,
``chunks_vdb``, ``full_docs``, ``doc_status``) and flushes once per batch. That
keeps chunk ids 1:1 with our chunk table, needs no LLM, and avoids LightRAG's
per-document pipeline (which rewrites every JSON store once per document).
Retrieval reads LightRAG's chunk vector store and the entity graph's tracking
rows directly (``aquery_data`` only for the naive-mode baseline).

The package is split by concern, every module private: ``_setup`` (storages,
the embedding seam, LightRAG's process-wide state), ``_production`` (PostgreSQL
pools and Neo4j batches), ``_index`` (chunks: write, delete, search),
``_graph_write`` / ``_graph_read`` / ``_graph_llm`` (the entity graph),
``_graph_rows`` (the row formats LightRAG's own merge writes) and ``_contract``
(every LightRAG symbol, patch, record format and variable relied on, each checked
by ``tests/index/test_lightrag_contract.py``). Outside ``lucasrag/index/`` nothing
imports this package: the index layer's API is ``lucasrag.index``.
"""

import os

# LightRAG reads these at import time; a stray value would redirect every
# workspace into one (see docs/design.md, "workspace isolation"). What else it
# reads, and every other assumption about it: _contract.py.
for _var in ("WORKSPACE", "NEO4J_WORKSPACE", "POSTGRES_WORKSPACE", "ENTITY_TYPES"):
    os.environ.pop(_var, None)

from lucasrag.index._lightrag._deferred import defer_eager_imports  # noqa: E402

defer_eager_imports()  # before anything below imports LightRAG (see _deferred)

from lucasrag.index._lightrag._graph_rows import GraphStats  # noqa: E402
from lucasrag.index._lightrag._index import Hit, WorkspaceIndex  # noqa: E402
from lucasrag.index._lightrag._sqlite_file import LIGHTRAG_SQLITE, file_token  # noqa: E402
from lucasrag.index._lightrag._store_timing import time_store_writes  # noqa: E402

__all__ = ["LIGHTRAG_SQLITE", "GraphStats", "Hit", "WorkspaceIndex", "file_token", "time_store_writes"]
