"""The index layer: what LucasRAG stores per workspace, and the only door to it.

Everything outside ``lucasrag/index/`` imports from here; LightRAG stays private
behind it (``lucasrag/index/_lightrag/``, whose assumptions about LightRAG are listed
in ``_lightrag/_contract.py`` and checked by ``tests/index/test_lightrag_contract.py``).

Opening a workspace (the store kinds follow ``Settings.profile``, one table in
``stores.py``):

- ``open_workspace(settings, ws)`` → ``WorkspaceStores`` (``.index`` and ``.chunks``;
  ``await stores.close()``)
- ``open_workspace_index(settings, ws)`` → ``WorkspaceIndex``: chunk search
  (``search`` → ``Hit``), LightRAG's own naive query for baselines, the entity graph
  (``graph_counts``, ``graph_entities``, ``graph_relations``) and the stored rows
- ``open_chunk_store(settings, ws)`` → a ``ChunkStore`` (metadata, vectors, keywords)
- ``index_exists(settings, ws)``, ``index_stamp(settings, ws)``
- ``IndexDamaged``: a workspace whose files do not read (the message names the file and
  ``lucasrag ingest --rebuild WS``); ``drop_workspace(settings, ws)`` forgets one workspace
- ``IndexBusy`` (an ``IndexDamaged``): a workspace whose chunk store another program keeps locked (nothing damaged)

Writing a workspace: ``sync_workspace(...)`` → ``SyncReport`` (incremental by document);
``in_line_report(settings, ws, rows_digest)`` → the ``SyncReport`` of a sync with nothing to do, or ``None``;
``read_graph_counts(settings, ws)`` reads the graph counts its last run recorded;
``time_store_writes(record)`` times each embedded LightRAG store's flush (benchmarks only).
"""

from lucasrag.index._lightrag import GraphStats, Hit, WorkspaceIndex, time_store_writes
from lucasrag.index.graph_counts import read_graph_counts
from lucasrag.index.protocol import ChunkStore
from lucasrag.index.stores import (
    IndexBusy,
    IndexDamaged,
    WorkspaceStores,
    drop_workspace,
    index_exists,
    index_stamp,
    open_chunk_store,
    open_workspace,
    open_workspace_index,
)
from lucasrag.index.sync import SyncReport, in_line_report, sync_workspace

__all__ = [
    "ChunkStore",
    "GraphStats",
    "Hit",
    "IndexBusy",
    "IndexDamaged",
    "SyncReport",
    "WorkspaceIndex",
    "WorkspaceStores",
    "drop_workspace",
    "in_line_report",
    "index_exists",
    "index_stamp",
    "open_chunk_store",
    "open_workspace",
    "open_workspace_index",
    "read_graph_counts",
    "sync_workspace",
    "time_store_writes",
]
