"""The one module that calls into LightRAG.

LightRAG's API moves between minor versions and its modules run to thousands of
lines; everything LucasRAG needs from it goes through the small surface below.

Design choice: LucasRAG chunks, bands and embeds notes itself, then writes the
chunks into each workspace's LightRAG storages directly (``text_chunks``,
``chunks_vdb``, ``full_docs``, ``doc_status``) and flushes once per batch. That
keeps chunk ids 1:1 with our chunk table, needs no LLM, and avoids LightRAG's
per-document pipeline (which rewrites every JSON store once per document).
Retrieval goes through LightRAG's own ``aquery_data``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

from lucasrag.embedding import DIM, get_embedder
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord

# LightRAG reads these at import time; a stray value would redirect every
# workspace into one (see docs/design.md, "workspace isolation").
for _var in ("WORKSPACE", "NEO4J_WORKSPACE", "POSTGRES_WORKSPACE", "ENTITY_TYPES"):
    os.environ.pop(_var, None)
os.environ.setdefault("LIGHTRAG_LOAD_DOTENV", "false")

_STORAGES = {
    "embedded": {
        "kv_storage": "JsonKVStorage",
        "vector_storage": "NanoVectorDBStorage",
        "graph_storage": "NetworkXStorage",
        "doc_status_storage": "JsonDocStatusStorage",
    },
    "production": {
        "kv_storage": "PGKVStorage",
        "vector_storage": "PGVectorStorage",
        "graph_storage": "Neo4JStorage",
        "doc_status_storage": "PGDocStatusStorage",
    },
}


# LightRAG suffixes its PostgreSQL vector tables with the embedding model's name
# and dimension (``lightrag_vdb_chunks_all_minilm_l6_v2_384d``): a different model
# can never mix vectors into the same table.
EMBEDDING_MODEL_NAME = "all-MiniLM-L6-v2"

# Session settings of every pooled PostgreSQL connection. All workspaces share one
# vector table with one HNSW index; a plain HNSW scan filtered by ``workspace``
# can return fewer than LIMIT rows (it filters ef_search candidates after the
# scan). pgvector >= 0.8 keeps scanning until the filter has yielded LIMIT rows.
PG_SERVER_SETTINGS = "hnsw.iterative_scan=relaxed_order&hnsw.ef_search=100"

# ---------------------------------------------------------------------------
# Production profile: PostgreSQL client pools per (event loop, server, database).
#
# LightRAG 1.5.7 keeps ONE process-wide asyncpg pool (``ClientManager``), bound
# to the event loop and the ``POSTGRES_*`` environment of whoever opened it
# first. LucasRAG opens indexes from several loops in one process (the query
# side's background loop, ``asyncio.run`` in each Dagster index step) and, in
# tests, against several databases: one shared pool would be used from a loop it
# does not belong to, or silently point at the wrong database. The two
# ClientManager methods below replace it with a pool per (loop, host, port,
# user, database), reference-counted exactly as LightRAG's own. The target comes
# from the opening task's context (``_pg_target``), not the environment, and the
# ``workspace`` override (``POSTGRES_WORKSPACE`` / ./config.ini) is always cleared.
# ---------------------------------------------------------------------------

_pg_target: contextvars.ContextVar[dict | None] = contextvars.ContextVar("lucasrag_pg_target", default=None)
_pg_clients: dict[tuple, list] = {}  # key → [loop, PostgreSQLDB, references]
_loop_locks: dict[tuple[str, int], tuple[asyncio.AbstractEventLoop, asyncio.Lock]] = {}


def _loop_lock(name: str) -> asyncio.Lock:
    """An asyncio lock of the running loop (created on first use; the loop is kept so its id is never reused)."""
    loop = asyncio.get_running_loop()
    entry = _loop_locks.get((name, id(loop)))
    if entry is None or entry[0] is not loop:
        entry = _loop_locks[(name, id(loop))] = (loop, asyncio.Lock())
    return entry[1]


def _pg_config(dsn: str) -> dict:
    """LightRAG PostgreSQLDB config keys from a DSN (URL or ``key=value`` conninfo)."""
    from psycopg.conninfo import conninfo_to_dict

    params = conninfo_to_dict(dsn)
    config = {
        "host": params.get("host") or params.get("hostaddr") or "127.0.0.1",
        "port": int(params.get("port") or 5432),
        "user": params.get("user") or "postgres",
        # PostgreSQLDB insists on a password; a trust-auth server ignores it
        "password": params.get("password") or "unused",
        "database": params.get("dbname") or "postgres",
        "workspace": None,
        "server_settings": PG_SERVER_SETTINGS,
    }
    if params.get("sslmode"):
        config["ssl_mode"] = params["sslmode"]
    return config


def _install_pg_client_pools() -> None:
    from lightrag.kg import postgres_impl as pg

    manager = pg.ClientManager
    if getattr(manager, "_lucasrag_pools", False):
        return

    async def get_client(cls, vector_storage: str | None = None):
        config = cls.get_config(vector_storage=vector_storage)
        config.update(_pg_target.get() or {})
        config["workspace"] = None  # the storage's own workspace always wins
        signature = cls._build_vector_signature(config, vector_storage)
        loop = asyncio.get_running_loop()
        key = (id(loop), str(config["host"]), str(config["port"]), str(config["user"]), str(config["database"]),
               repr(sorted(signature.items())))
        async with _loop_lock("pg-client"):
            entry = _pg_clients.get(key)
            if entry is None or entry[0] is not loop:
                db = pg.PostgreSQLDB(config)
                await db.initdb()
                await db.check_tables()
                entry = _pg_clients[key] = [loop, db, 0]
            entry[2] += 1
            return entry[1]

    async def release_client(cls, db) -> None:
        if db is None:
            return
        for key, entry in list(_pg_clients.items()):
            if entry[1] is db:
                entry[2] -= 1
                if entry[2] <= 0:
                    del _pg_clients[key]
                    if db.pool is not None:
                        await db.pool.close()
                return
        if db.pool is not None:
            await db.pool.close()

    manager.get_client = classmethod(get_client)
    manager.release_client = classmethod(release_client)
    manager._lucasrag_pools = True


_NEO4J_BATCH = 1000


def _install_neo4j_batch_deletes() -> None:
    """LightRAG 1.5.7's Neo4JStorage.remove_nodes / remove_edges run one transaction per node
    or edge (≈50 ms each here: removing one note's graph cost seconds). Same Cypher, one
    UNWIND per thousand ids; the driver's managed transactions retry transient errors."""
    from lightrag.kg import neo4j_impl as nj

    storage = nj.Neo4JStorage
    if getattr(storage, "_lucasrag_batch_deletes", False):
        return

    async def _write_batches(self, query: str, rows: list) -> None:
        async def run(tx, batch):
            result = await tx.run(query, rows=batch)
            await result.consume()

        async with self._driver.session(database=self._DATABASE) as session:
            for start in range(0, len(rows), _NEO4J_BATCH):
                await session.execute_write(run, rows[start : start + _NEO4J_BATCH])

    async def remove_nodes(self, nodes: list[str]) -> None:
        ids = list(dict.fromkeys(nodes))
        if ids:
            label = self._get_workspace_label()
            await _write_batches(
                self, f"UNWIND $rows AS id MATCH (n:`{label}` {{entity_id: id}}) DETACH DELETE n", ids
            )

    async def remove_edges(self, edges: list[tuple[str, str]]) -> None:
        pairs = [list(p) for p in dict.fromkeys(tuple(sorted((s, t))) for s, t in edges)]
        if pairs:
            label = self._get_workspace_label()
            await _write_batches(
                self,
                f"UNWIND $rows AS p MATCH (a:`{label}` {{entity_id: p[0]}})-[r]-(b:`{label}` {{entity_id: p[1]}}) "
                "DELETE r",
                pairs,
            )

    storage.remove_nodes = remove_nodes
    storage.remove_edges = remove_edges
    storage._lucasrag_batch_deletes = True


def _require_services(settings: Settings) -> None:
    """A clear :class:`~lucasrag.services.ServiceError` (service + setting) when a server is down."""
    from lucasrag.services import require_neo4j, require_postgres

    require_postgres(settings.postgres_dsn)
    require_neo4j(settings.neo4j_uri, auth=(settings.neo4j_user, settings.neo4j_password))


def _configure_production(settings: Settings) -> None:
    """Point LightRAG's PG*/Neo4J storages at the settings' servers (call right before construction)."""
    from lucasrag.services import lightrag_env

    _install_pg_client_pools()
    _install_neo4j_batch_deletes()
    os.environ.update(
        lightrag_env(settings.postgres_dsn, settings.neo4j_uri, neo4j_user=settings.neo4j_user,
                     neo4j_password=settings.neo4j_password)
    )
    for var in ("WORKSPACE", "NEO4J_WORKSPACE", "POSTGRES_WORKSPACE"):
        os.environ.pop(var, None)
    _pg_target.set(_pg_config(settings.postgres_dsn))


class _VectorCache:
    """Vectors we already computed, handed to LightRAG's deferred embedding."""

    def __init__(self) -> None:
        self._by_text: dict[str, np.ndarray] = {}

    def add(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self._by_text.update(zip(texts, vectors))

    def clear(self) -> None:
        self._by_text.clear()

    def discard(self, texts: Sequence[str]) -> None:
        for t in texts:
            self._by_text.pop(t, None)

    def __deepcopy__(self, memo: dict) -> "_VectorCache":
        # LightRAG deep-copies its config (the embedding function's bound
        # instance included) on every query: share the cache, do not copy it.
        return self

    async def embed(self, texts: list[str], **_: object) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._by_text]
        if missing:
            vectors = await asyncio.to_thread(get_embedder().embed, missing)
            self.add(missing, vectors)
        return np.stack([self._by_text[t] for t in texts]) if texts else np.zeros((0, DIM), np.float32)


async def _no_llm(*_args, **_kwargs) -> str:
    raise RuntimeError(
        "LucasRAG indexes without an LLM; LightRAG asked for one (a code path that should not run)"
    )


class _DropExpectedNoise(logging.Filter):
    """LightRAG's PostgreSQL storages warn about every workspace that has no rows yet
    (each first ingest) and log a missing-table error while creating a fresh database."""

    _NOISE = re.compile(r'is empty\. Ensure it is caused by new workspace setup|error:relation "lightrag_\w+" does not exist')

    def filter(self, record: logging.LogRecord) -> bool:
        return not self._NOISE.search(record.getMessage())


_NOISE_FILTER = _DropExpectedNoise()


def _quiet_lightrag() -> None:
    for name in ("lightrag", "nano-vectordb", "nano_vectordb"):
        logging.getLogger(name).setLevel(logging.WARNING)
    lightrag_logger = logging.getLogger("lightrag")
    if _NOISE_FILTER not in lightrag_logger.filters:
        lightrag_logger.addFilter(_NOISE_FILTER)


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    text: str
    graph: bool = False  # a chunk that supports an entity the query named (reached through the graph)


# LightRAG keeps its JSON stores in process-wide dicts keyed by workspace name
# only. Opening "technical" from a second data folder in the same process would
# hand it the first folder's rows (and write them into the second folder's
# files). Before that happens, LightRAG is made to load the new folder afresh;
# instances already open keep their own dicts.
_loaded_from: dict[str, str] = {}


def _load_fresh_if_moved(workspace: str, working_dir) -> None:
    previous = _loaded_from.get(workspace)
    _loaded_from[workspace] = str(working_dir)
    if previous is None or previous == str(working_dir):
        return
    from lightrag.kg import shared_storage

    prefix = f"{workspace}:"
    tables = (
        shared_storage._shared_dicts,
        shared_storage._namespace_data_cache,
        shared_storage._init_flags,
        shared_storage._update_flags,
    )
    for table in tables:
        if table is not None:
            for key in [k for k in list(table.keys()) if k.startswith(prefix)]:
                table.pop(key, None)


class WorkspaceIndex:
    """One workspace's LightRAG instance (open with ``await WorkspaceIndex.open``)."""

    def __init__(self, rag, workspace: str, vectors: _VectorCache) -> None:
        self._rag = rag
        self.workspace = workspace
        self._vectors = vectors

    @classmethod
    async def open(cls, settings: Settings, workspace: str) -> "WorkspaceIndex":
        from lightrag import LightRAG
        from lightrag.utils import EmbeddingFunc, Tokenizer

        _quiet_lightrag()
        vectors = _VectorCache()
        embedder = get_embedder()
        working_dir = settings.index_dir
        working_dir.mkdir(parents=True, exist_ok=True)
        if settings.profile == "embedded":
            _load_fresh_if_moved(workspace, working_dir)
        production = settings.profile == "production"
        if production:
            # Before LightRAG retries a dead server for minutes: name the service and the setting.
            await asyncio.to_thread(_require_services, settings)
        # Production storages read the process environment while they initialise:
        # one open at a time per loop, each with its own settings in place.
        async with _loop_lock("open") if production else contextlib.nullcontext():
            if production:
                _configure_production(settings)
            rag = LightRAG(
                working_dir=str(working_dir),
                workspace=workspace,
                embedding_func=EmbeddingFunc(
                    embedding_dim=DIM, max_token_size=256, func=vectors.embed, model_name=EMBEDDING_MODEL_NAME
                ),
                llm_model_func=_no_llm,
                tokenizer=Tokenizer("all-MiniLM-L6-v2", embedder.tokenizer),
                vector_db_storage_cls_kwargs={"cosine_better_than_threshold": -1.0},
                **_STORAGES[settings.profile],
            )
            try:
                await rag.initialize_storages()
            except BaseException:
                with contextlib.suppress(Exception):
                    await rag.finalize_storages()
                raise
        return cls(rag, workspace, vectors)

    async def close(self) -> None:
        await self._rag.finalize_storages()

    async def write(self, records: Sequence[ChunkRecord], vectors: np.ndarray, full_texts: dict[str, str]) -> None:
        """Insert chunks (with their precomputed vectors) and their documents, then flush."""
        if not records:
            return
        rag = self._rag
        tokenizer = rag.tokenizer
        self._vectors.add([r.text for r in records], vectors)
        chunks = {
            r.chunk_id: {
                "content": r.text,
                "full_doc_id": r.doc_id,
                "tokens": len(tokenizer.encode(r.text)),
                "chunk_order_index": r.chunk_index,
                "file_path": r.path,
            }
            for r in records
        }
        paths = {r.doc_id: r.path for r in records}
        now = datetime.now(timezone.utc).isoformat()
        chunk_ids: dict[str, list[str]] = {}
        for r in records:
            chunk_ids.setdefault(r.doc_id, []).append(r.chunk_id)
        status = {
            doc_id: {
                "status": "processed",
                "content_summary": full_texts[doc_id][:100],
                "content_length": len(full_texts[doc_id]),
                "chunks_count": len(ids),
                "chunks_list": ids,
                "file_path": paths[doc_id],
                "created_at": now,
                "updated_at": now,
            }
            for doc_id, ids in chunk_ids.items()
        }
        await asyncio.gather(
            rag.chunks_vdb.upsert(chunks),
            rag.text_chunks.upsert(chunks),
            rag.full_docs.upsert({d: {"content": full_texts[d], "file_path": paths[d]} for d in chunk_ids}),
            rag.doc_status.upsert(status),
        )

    async def delete(self, doc_ids: Iterable[str], chunk_ids: Iterable[str]) -> None:
        doc_ids, chunk_ids = list(doc_ids), list(chunk_ids)
        if not doc_ids and not chunk_ids:
            return
        rag = self._rag
        await asyncio.gather(
            rag.chunks_vdb.delete(chunk_ids),
            rag.text_chunks.delete(chunk_ids),
            rag.full_docs.delete(doc_ids),
            rag.doc_status.delete(doc_ids),
        )

    async def flush(self) -> None:
        """Persist every pending write (one file write per store on the embedded profile)."""
        rag = self._rag
        stores = (rag.chunks_vdb, rag.text_chunks, rag.full_docs, rag.doc_status, *self._graph_stores())
        await asyncio.gather(*(s.index_done_callback() for s in stores))
        self._vectors.clear()

    async def search(
        self, text: str, top_k: int, *, query_vector: np.ndarray | None = None, keywords: Sequence[str] = (),
        graph: bool = True,
    ) -> list[Hit]:
        """Retrieval only (no generation, no LLM): at most ``top_k`` of our chunks.

        LightRAG's naive vector search; ``mix`` mode (vector chunks merged with the
        chunks of the entities the query names, see ``_graph_plan``) when ``graph`` is
        on and the query names an entity of this workspace's graph.

        ``query_vector``, when given, spares a second embedding of the same query
        (the federated query embeds it once for all workspaces)."""
        from lightrag import QueryParam

        plan = await self._graph_plan(text, keywords, top_k) if graph else None
        if plan is None:
            # Plain vector search straight from LightRAG's chunk vector store:
            # aquery_data would re-tokenize the whole candidate list twice (to
            # fit a context window we never build), which dominated query time.
            rows = await self._rag.chunks_vdb.query(
                text, top_k=top_k, query_embedding=None if query_vector is None else query_vector.tolist()
            )
            return [Hit(r["id"], r.get("content") or "") for r in rows][:top_k]
        if query_vector is not None:
            self._vectors.add([text], query_vector[None, :])
        if plan is not None:
            self._vectors.add(plan.strings, plan.vectors)

        param = QueryParam(
            mode="mix" if plan is not None else "naive",
            chunk_top_k=top_k,
            top_k=plan.entity_top_k if plan is not None else top_k,
            max_total_tokens=10_000_000,  # its default silently trims the candidate list
            enable_rerank=False,
            hl_keywords=plan.hl if plan is not None else list(keywords),
            ll_keywords=plan.ll if plan is not None else list(keywords),
        )
        exact = _EXACT_ENTITIES.set(plan.ll if plan is not None else None)
        if plan is not None:
            self._route_entity_lookup()
        try:
            data = await self._rag.aquery_data(text, param)
        finally:
            _EXACT_ENTITIES.reset(exact)
            if query_vector is not None:  # one vector per query would otherwise pile up
                self._vectors.discard([text])
            if plan is not None:
                self._vectors.discard(plan.strings)
        chunks = (data.get("data") or {}).get("chunks") or []
        # mix mode merges vector, entity and relation chunks round-robin: the same
        # number of candidates as naive mode, each of them once
        hits = {c["chunk_id"]: Hit(c["chunk_id"], c["content"], c["chunk_id"] in plan.reached)
                for c in chunks if c.get("chunk_id")}
        return list(hits.values())[:top_k]

    async def naive_query(self, text: str, top_k: int) -> list[Hit]:
        """LightRAG's own naive-mode retrieval (``aquery_data``), for baselines:
        the path a plain LightRAG user gets, context assembly included."""
        from lightrag import QueryParam

        param = QueryParam(
            mode="naive", chunk_top_k=top_k, top_k=top_k, max_total_tokens=10_000_000, enable_rerank=False
        )
        data = await self._rag.aquery_data(text, param)
        return [Hit(c["chunk_id"], c["content"]) for c in (data.get("data") or {}).get("chunks") or []]

    async def stored_chunks(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """chunk id → text for the ids LightRAG holds (for checks and tools)."""
        rows = await self._rag.text_chunks.get_by_ids(list(chunk_ids))
        return {cid: row["content"] for cid, row in zip(chunk_ids, rows) if row}

    async def stored_vectors(self, chunk_ids: Sequence[str]) -> set[str]:
        """The ids among ``chunk_ids`` that the vector store holds."""
        rows = await self._rag.chunks_vdb.get_by_ids(list(chunk_ids))
        return {cid for cid, row in zip(chunk_ids, rows) if row}

    async def stored_documents(self, doc_ids: Sequence[str]) -> dict[str, str]:
        """doc id → full text for the ids LightRAG holds (``lucasrag migrate`` copies them)."""
        rows = await self._rag.full_docs.get_by_ids(list(doc_ids))
        return {d: row["content"] for d, row in zip(doc_ids, rows) if row}

    # =====================================================================================
    # Entity graph — owned by the graph work (docs/graph.md); nothing above depends on it
    # except flush() (which persists these stores too) and search() (which asks
    # _graph_plan whether the query names an entity of this workspace).
    #
    # What is written mirrors LightRAG's own merge (operate._merge_nodes_then_upsert /
    # _merge_edges_then_upsert), in the same formats, so LightRAG's local/mix retrieval,
    # its deletion helpers and its tools read it unchanged: graph nodes and edges whose
    # ``source_id`` lists OUR chunk ids (joined by GRAPH_FIELD_SEP, capped as LightRAG caps
    # them), entities_vdb / relationships_vdb rows, the uncapped chunk lists in
    # entity_chunks / relation_chunks, and the per-document anchors full_entities /
    # full_relations. Batched over a whole sync and persisted by flush(): no per-document
    # file rewrite. LightRAG's adelete_by_doc_id is not used for removal: it journals and
    # flushes per document and rebuilds surviving entities from its LLM extraction cache,
    # which the structural extractor never fills; delete_graph() applies the same rule
    # (drop the document's chunk ids from every entity/relation it anchors; what has no
    # source left disappears) and recomputes descriptions and weights from the stored
    # chunks (rules/entities.py makes them pure functions of chunk text and path).
    # =====================================================================================

    def _graph_stores(self) -> list:
        rag = self._rag
        return [rag.chunk_entity_relation_graph, rag.entities_vdb, rag.relationships_vdb, rag.entity_chunks,
                rag.relation_chunks, rag.full_entities, rag.full_relations, rag.llm_response_cache]

    async def write_graph(
        self, items: Sequence[tuple[ChunkRecord, object]], embed: Callable[[list[str]], np.ndarray]
    ) -> "GraphStats":
        """Merge the entities/relations each chunk contributes (``ChunkGraph``s from
        ``lucasrag_assets.rules.entities.extract_chunk``) into the graph; vectors of the new
        entity/relation texts come from ``embed`` (the embedding cache). Call after ``write``
        of the same chunks and before ``flush``."""
        from lightrag.utils import merge_source_ids

        rag, graph = self._rag, self._rag.chunk_entity_relation_graph
        stats = GraphStats()
        ents: dict[str, _GraphAcc] = {}
        rels: dict[tuple[str, str], _GraphAcc] = {}
        doc_ents: dict[str, set[str]] = {}
        doc_rels: dict[str, set[tuple[str, str]]] = {}
        for record, chunk_graph in items:
            for e in chunk_graph.entities:
                name = _node_name(e.name)
                if name:
                    ents.setdefault(name, _GraphAcc()).add(record.chunk_id, record.path, e.description, type_=e.type)
                    doc_ents.setdefault(record.doc_id, set()).add(name)
            for r in chunk_graph.relations:
                a, b = sorted((_node_name(r.source), _node_name(r.target)))
                if a and b and a != b:
                    rels.setdefault((a, b), _GraphAcc()).add(
                        record.chunk_id, record.path, r.description, weight=r.weight, keywords=r.keywords
                    )
                    doc_rels.setdefault(record.doc_id, set()).add((a, b))
                    for end in (a, b):  # an endpoint always exists as a node of the same chunk
                        if end not in ents:
                            ents[end] = _GraphAcc()
                        if record.chunk_id not in ents[end].sources:
                            ents[end].add(record.chunk_id, record.path, "", type_=None)
        if not ents:
            return stats

        names = list(ents)
        nodes, tracked = await asyncio.gather(graph.get_nodes_batch(names), rag.entity_chunks.get_by_ids(names))
        node_rows: list[tuple[str, dict]] = []
        entity_vdb: dict[str, dict] = {}
        entity_tracking: dict[str, dict] = {}
        for name, row in zip(names, tracked):
            acc, old = ents[name], nodes.get(name) or {}
            full = merge_source_ids(_tracked_sources(row, old), acc.sources)
            fragments = _merge_fragments(old.get("description"), acc.fragments)
            node = self._node_row(name, _best_type(old.get("entity_type"), acc.type), fragments, full,
                                  _merge_paths(_split(old.get("file_path")), acc.paths, rag.max_file_paths))
            node_rows.append((name, node))
            entity_vdb[_entity_vdb_id(name)] = _entity_vdb_row(name, node)
            entity_tracking[name] = {"chunk_ids": full, "count": len(full)}
        pairs = list(rels)
        edges, rel_tracked = await asyncio.gather(
            graph.get_edges_batch([{"src": a, "tgt": b} for a, b in pairs]),
            rag.relation_chunks.get_by_ids([_relation_key(a, b) for a, b in pairs]),
        )
        edge_rows: list[tuple[str, str, dict]] = []
        relation_vdb: dict[str, dict] = {}
        relation_tracking: dict[str, dict] = {}
        for (a, b), row in zip(pairs, rel_tracked):
            acc = rels[(a, b)]
            old = edges.get((a, b)) or edges.get((b, a)) or {}
            full = merge_source_ids(_tracked_sources(row, old), acc.sources)
            weight = float(old.get("weight") or 0.0) + acc.weight
            keywords = ", ".join(dict.fromkeys(_keywords(old.get("keywords")) + acc.keywords))
            edge = self._edge_row(_merge_fragments(old.get("description"), acc.fragments), full, weight, keywords,
                                  _merge_paths(_split(old.get("file_path")), acc.paths, rag.max_file_paths))
            edge_rows.append((a, b, edge))
            relation_vdb[_relation_vdb_id(a, b)] = _relation_vdb_row(a, b, edge)
            relation_tracking[_relation_key(a, b)] = {"chunk_ids": full, "count": len(full)}

        stats.texts, stats.embed_seconds = self._prepare_vectors(entity_vdb, relation_vdb, embed)
        await graph.upsert_nodes_batch(node_rows)
        if edge_rows:
            await graph.upsert_edges_batch(edge_rows)
        await asyncio.gather(
            rag.entities_vdb.upsert(entity_vdb),
            rag.relationships_vdb.upsert(relation_vdb),
            rag.entity_chunks.upsert(entity_tracking),
            rag.relation_chunks.upsert(relation_tracking),
            self._union_anchors(doc_ents, doc_rels),
        )
        stats.entities_written, stats.relations_written = len(node_rows), len(edge_rows)
        return stats

    async def delete_graph(
        self, doc_ids: Iterable[str], chunk_ids: Iterable[str], embed: Callable[[list[str]], np.ndarray]
    ) -> "GraphStats":
        """Remove the documents' chunk ids from every entity/relation they anchor; an entity
        or relation left without a source disappears (node, edges, vectors, tracking rows).
        Survivors get their source lists, weights and — when one of the chunks that wrote it
        went — their description recomputed. Call BEFORE ``delete`` (it reads the chunks)."""
        from lucasrag_assets.rules.entities import entity_fragment, relation_fragment, relation_weight

        rag, graph = self._rag, self._rag.chunk_entity_relation_graph
        doc_ids, removed = list(doc_ids), set(chunk_ids)
        stats = GraphStats()
        if not doc_ids:
            return stats
        anchors_e, anchors_r = await asyncio.gather(
            rag.full_entities.get_by_ids(doc_ids), rag.full_relations.get_by_ids(doc_ids)
        )
        names = list(dict.fromkeys(n for row in anchors_e if row for n in row.get("entity_names") or []))
        pairs = list(dict.fromkeys(
            tuple(sorted(p)) for row in anchors_r if row for p in row.get("relation_pairs") or [] if len(p) == 2
        ))
        if not names and not pairs:
            await asyncio.gather(rag.full_entities.delete(doc_ids), rag.full_relations.delete(doc_ids))
            return stats
        gone_rows = await rag.text_chunks.get_by_ids(list(removed))
        gone = {cid: row for cid, row in zip(removed, gone_rows) if row}
        gone_paths = {row.get("file_path") for row in gone.values()}

        nodes, tracked = await asyncio.gather(graph.get_nodes_batch(names), rag.entity_chunks.get_by_ids(names))
        edges, rel_tracked = await asyncio.gather(
            graph.get_edges_batch([{"src": a, "tgt": b} for a, b in pairs]),
            rag.relation_chunks.get_by_ids([_relation_key(a, b) for a, b in pairs]),
        )
        ent_plan: dict[str, tuple[dict, list[str], bool]] = {}  # name → (old node, remaining, recompute)
        dead_nodes: list[str] = []
        for name, row in zip(names, tracked):
            old = nodes.get(name)
            if old is None:
                continue
            full = _tracked_sources(row, old)
            remaining = [c for c in full if c not in removed]
            if len(remaining) == len(full):
                continue
            if not remaining:
                dead_nodes.append(name)
            else:
                first = full[:_FRAGMENTS]
                ent_plan[name] = (old, remaining, any(c in removed for c in first))
        rel_plan: dict[tuple[str, str], tuple[dict, list[str], list[str], bool]] = {}
        dead_edges: list[tuple[str, str]] = []
        for (a, b), row in zip(pairs, rel_tracked):
            old = edges.get((a, b)) or edges.get((b, a))
            if old is None:
                continue
            full = _tracked_sources(row, old)
            remaining = [c for c in full if c not in removed]
            if len(remaining) == len(full):
                continue
            if not remaining:
                dead_edges.append((a, b))
            else:
                lost = [c for c in full if c in removed]
                rel_plan[(a, b)] = (old, remaining, lost, any(c in removed for c in full[:_FRAGMENTS]))

        # edges of nodes that go (LightRAG removes them with the node; their rows must go too)
        if dead_nodes:
            incident = await graph.get_nodes_edges_batch(dead_nodes)
            for node_edges in incident.values():
                for a, b in node_edges or []:
                    key = tuple(sorted((a, b)))
                    if key not in dead_edges:
                        dead_edges.append(key)
                    rel_plan.pop(key, None)
        dead_set = set(dead_nodes)
        for key in [k for k in rel_plan if k[0] in dead_set or k[1] in dead_set]:
            rel_plan.pop(key)
            dead_edges.append(key)

        # fragments to recompute need the text of the surviving first sources
        wanted = {c for name, (_, rem, again) in ent_plan.items() if again for c in rem[:_FRAGMENTS]}
        wanted |= {c for key, (_, rem, _, again) in rel_plan.items() if again for c in rem[:_FRAGMENTS]}
        wanted_ids = list(wanted)
        rows = await rag.text_chunks.get_by_ids(wanted_ids) if wanted_ids else []
        texts = {cid: row for cid, row in zip(wanted_ids, rows) if row}

        node_rows, entity_vdb, entity_tracking = [], {}, {}
        for name, (old, remaining, again) in ent_plan.items():
            fragments = _split(old.get("description"))
            if again:
                fragments = list(dict.fromkeys(
                    entity_fragment(name, texts[c]["content"], texts[c].get("file_path", ""))
                    for c in remaining[:_FRAGMENTS] if c in texts
                ))
            paths = [p for p in _split(old.get("file_path")) if p not in gone_paths]
            node = self._node_row(name, old.get("entity_type") or "concept", fragments, remaining, paths)
            node_rows.append((name, node))
            entity_vdb[_entity_vdb_id(name)] = _entity_vdb_row(name, node)
            entity_tracking[name] = {"chunk_ids": remaining, "count": len(remaining)}
        edge_rows, relation_vdb, relation_tracking = [], {}, {}
        for (a, b), (old, remaining, lost, again) in rel_plan.items():
            weight = float(old.get("weight") or 0.0) - sum(
                relation_weight(a, b, gone[c]["content"], gone[c].get("file_path", "")) for c in lost if c in gone
            )
            weight = max(round(weight, 6), float(len(remaining)))
            fragments = _split(old.get("description"))
            if again:
                fragments = list(dict.fromkeys(
                    relation_fragment(a, b, texts[c]["content"], texts[c].get("file_path", ""))
                    for c in remaining[:_FRAGMENTS] if c in texts
                ))
            paths = [p for p in _split(old.get("file_path")) if p not in gone_paths]
            edge = self._edge_row(fragments, remaining, weight, old.get("keywords") or "", paths)
            edge_rows.append((a, b, edge))
            relation_vdb[_relation_vdb_id(a, b)] = _relation_vdb_row(a, b, edge)
            relation_tracking[_relation_key(a, b)] = {"chunk_ids": remaining, "count": len(remaining)}

        stats.texts, stats.embed_seconds = self._prepare_vectors(entity_vdb, relation_vdb, embed)
        from lightrag.utils import make_relation_vdb_ids

        if dead_nodes:
            await graph.remove_nodes(dead_nodes)
        if dead_edges:
            await graph.remove_edges(dead_edges)
        if node_rows:
            await graph.upsert_nodes_batch(node_rows)
        if edge_rows:
            await graph.upsert_edges_batch(edge_rows)
        await asyncio.gather(
            rag.entities_vdb.delete([_entity_vdb_id(n) for n in dead_nodes]),
            rag.relationships_vdb.delete(sorted({i for a, b in dead_edges for i in make_relation_vdb_ids(a, b)})),
            rag.entity_chunks.delete(dead_nodes),
            rag.relation_chunks.delete([_relation_key(a, b) for a, b in dead_edges]),
        )
        await asyncio.gather(
            rag.entities_vdb.upsert(entity_vdb),
            rag.relationships_vdb.upsert(relation_vdb),
            rag.entity_chunks.upsert(entity_tracking),
            rag.relation_chunks.upsert(relation_tracking),
            rag.full_entities.delete(doc_ids),
            rag.full_relations.delete(doc_ids),
        )
        stats.entities_removed, stats.relations_removed = len(dead_nodes), len(dead_edges)
        stats.entities_written, stats.relations_written = len(node_rows), len(edge_rows)
        return stats

    async def graph_counts(self) -> tuple[int, int]:
        """(entities, relations) in this workspace's graph."""
        graph = self._rag.chunk_entity_relation_graph
        inner = getattr(graph, "_get_graph", None)
        if inner is not None:  # NetworkX: count without copying every node
            g = await inner()
            return g.number_of_nodes(), g.number_of_edges()
        if getattr(graph, "_driver", None) is not None:  # Neo4j: count in the database, not in Python
            label = graph._get_workspace_label()
            query = (f"MATCH (n:`{label}`) WITH count(n) AS nodes "
                     f"OPTIONAL MATCH (:`{label}`)-[r]->(:`{label}`) RETURN nodes, count(r) AS edges")
            async with graph._driver.session(database=graph._DATABASE, default_access_mode="READ") as session:
                record = await (await session.run(query)).single()
            return int(record["nodes"]), int(record["edges"])
        return len(await graph.get_all_nodes()), len(await graph.get_all_edges())

    async def graph_entities(self, names: Sequence[str] | None = None) -> list[dict]:
        """Entities (all, or the named ones) with type, description, degree and full chunk ids."""
        from lightrag.utils import GRAPH_FIELD_SEP as SEP

        rag, graph = self._rag, self._rag.chunk_entity_relation_graph
        if names is None:
            rows = await graph.get_all_nodes()
            nodes = {r.get("entity_id") or r.get("id"): r for r in rows}
        else:
            nodes = await graph.get_nodes_batch([_node_name(n) for n in names])
        keys = [k for k in nodes if k]
        tracked, degrees = await asyncio.gather(rag.entity_chunks.get_by_ids(keys), graph.node_degrees_batch(keys))
        out = []
        for key, row in zip(keys, tracked):
            node = nodes[key]
            out.append({
                "name": key,
                "type": node.get("entity_type") or "",
                "description": [d for d in (node.get("description") or "").split(SEP) if d],
                "degree": int(degrees.get(key, 0)),
                "chunk_ids": _tracked_sources(row, node),
            })
        return out

    async def graph_relations(self, name: str) -> list[dict]:
        """The relations of one entity: other end, keywords, weight, description, chunk ids."""
        from lightrag.utils import GRAPH_FIELD_SEP as SEP

        rag, graph = self._rag, self._rag.chunk_entity_relation_graph
        name = _node_name(name)
        pairs = [tuple(p) for p in (await graph.get_node_edges(name) or [])]
        if not pairs:
            return []
        edges, tracked = await asyncio.gather(
            graph.get_edges_batch([{"src": a, "tgt": b} for a, b in pairs]),
            rag.relation_chunks.get_by_ids([_relation_key(a, b) for a, b in pairs]),
        )
        out = []
        for (a, b), row in zip(pairs, tracked):
            edge = edges.get((a, b)) or edges.get((b, a)) or {}
            out.append({
                "source": name,
                "target": b if a == name else a,
                "keywords": edge.get("keywords") or "",
                "weight": float(edge.get("weight") or 0.0),
                "description": [d for d in (edge.get("description") or "").split(SEP) if d],
                "chunk_ids": _tracked_sources(row, edge),
            })
        return sorted(out, key=lambda r: -r["weight"])

    async def _graph_plan(self, text: str, keywords: Sequence[str], top_k: int) -> "_GraphPlan | None":
        """Mix mode when the query names an entity of this workspace's graph (no LLM: the
        structural recogniser on the query plus its content words); None → naive search.

        An entity that more chunks support than the ``top_k`` candidates asked for (a
        conversation partner named in every session, a tag on every journal entry)
        narrows nothing that vector search does not already cover; its chunks would only
        displace better vector candidates. Such hubs are left out."""
        from lucasrag_assets.rules.entities import query_terms

        _quiet_graph_queries()
        terms = query_terms(text)
        candidates = list(dict.fromkeys(n for n in (_node_name(c) for c in (*keywords, *terms.candidates)) if n))
        if not candidates:
            return None
        present = await self._rag.chunk_entity_relation_graph.has_nodes_batch(candidates)
        matched = [c for c in candidates if c in present]
        # longer phrases come first; drop a word already inside a matched phrase
        kept: list[str] = []
        for name in matched:
            low = name.lower()
            if not any(low != k.lower() and f" {low} " in f" {k.lower()} " for k in kept):
                kept.append(name)
        if not kept:
            return None
        sources = {n: _tracked_sources(row, None) for n, row in zip(kept, await self._rag.entity_chunks.get_by_ids(kept))}
        if GRAPH_SKIP_HUBS:
            kept = [n for n in kept if len(sources[n]) <= top_k]
        if not kept:
            return None
        ll = kept[:GRAPH_QUERY_ENTITIES]
        reached = frozenset(c for n in ll for c in sources[n])
        hl = list(terms.words)[:GRAPH_QUERY_WORDS] if GRAPH_USE_RELATIONS else []
        strings = [", ".join(ll)] + ([", ".join(hl)] if hl else [])
        # LightRAG embeds the keyword strings; the low-level one only feeds the entity
        # lookup, which _route_entity_lookup answers by name: no model call for it.
        vectors = np.zeros((len(strings), DIM), np.float32)
        vectors[:, 0] = 1.0  # a unit vector: nothing normalises a zero
        if hl:
            vectors[1:] = await _keyword_vectors(strings[1:])
        # LightRAG finds entities by vector similarity to the keyword string (every
        # workspace keeps cosine_better_than_threshold at -1, so it always returns top_k
        # of them): ask for as many as the query named, which are the nearest.
        return _GraphPlan(ll, hl, strings, vectors, len(ll) + GRAPH_EXTRA_ENTITIES, reached)

    def _route_entity_lookup(self) -> None:
        """Let a graph query name its entities exactly.

        LightRAG's local/mix retrieval finds entities by vector similarity to the
        keyword string; the uncased MiniLM cannot tell the note ``ellie`` from the person
        ``Ellie`` or from the alias ``El``, and a nearest neighbour is not the node the
        query named. While ``search`` runs with a plan (``_EXACT_ENTITIES`` set, per task),
        the entity lookup returns exactly the matched nodes; everything after it —
        degrees, related edges, chunk selection and the merge with vector chunks — is
        LightRAG's own mix mode. Any other caller gets LightRAG's lookup unchanged."""
        vdb = self._rag.entities_vdb
        if getattr(vdb, "_lucasrag_exact", False):
            return
        original = vdb.query

        async def query(query: str, top_k: int, query_embedding=None, **kwargs):
            names = _EXACT_ENTITIES.get()
            if names is None:
                return await original(query, top_k, query_embedding=query_embedding, **kwargs)
            return [{"entity_name": n, "id": _entity_vdb_id(n)} for n in names[:top_k]]

        vdb.query = query
        vdb._lucasrag_exact = True

    def _prepare_vectors(self, entity_vdb: dict, relation_vdb: dict, embed) -> tuple[int, float]:
        """Vectors for the vector-store rows about to be upserted, from the embedding cache."""
        import time

        contents = list(dict.fromkeys([r["content"] for r in entity_vdb.values()]
                                      + [r["content"] for r in relation_vdb.values()]))
        if not contents:
            return 0, 0.0
        t0 = time.perf_counter()
        self._vectors.add(contents, embed(contents))
        return len(contents), time.perf_counter() - t0

    def _node_row(self, name: str, type_: str, fragments: list[str], sources: list[str], paths: list[str]) -> dict:
        import time

        from lightrag.utils import GRAPH_FIELD_SEP as SEP
        from lightrag.utils import apply_source_ids_limit

        rag = self._rag
        kept = apply_source_ids_limit(sources, rag.max_source_ids_per_entity, rag.source_ids_limit_method)
        return {
            "entity_id": name,
            "entity_type": type_ or "concept",
            "description": SEP.join(fragments) or f"Entity {name}",
            "source_id": SEP.join(kept),
            "file_path": SEP.join(paths[: rag.max_file_paths]),
            "created_at": int(time.time()),
            "truncate": "",
        }

    def _edge_row(self, fragments: list[str], sources: list[str], weight: float, keywords: str, paths: list[str]) -> dict:
        import time

        from lightrag.utils import GRAPH_FIELD_SEP as SEP
        from lightrag.utils import apply_source_ids_limit

        rag = self._rag
        kept = apply_source_ids_limit(sources, rag.max_source_ids_per_relation, rag.source_ids_limit_method)
        return {
            "weight": round(float(weight), 6),
            "description": SEP.join(fragments) or "related",
            "keywords": keywords,
            "source_id": SEP.join(kept),
            "file_path": SEP.join(paths[: rag.max_file_paths]),
            "created_at": int(time.time()),
            "truncate": "",
        }

    async def _union_anchors(self, doc_ents: dict[str, set[str]], doc_rels: dict[str, set[tuple[str, str]]]) -> None:
        """Per-document recovery anchors, united with what an LLM merge already wrote."""
        rag = self._rag
        docs = sorted(set(doc_ents) | set(doc_rels))
        if not docs:
            return
        old_e, old_r = await asyncio.gather(rag.full_entities.get_by_ids(docs), rag.full_relations.get_by_ids(docs))
        ent_rows, rel_rows = {}, {}
        for doc, e_row, r_row in zip(docs, old_e, old_r):
            names = sorted(set((e_row or {}).get("entity_names") or []) | doc_ents.get(doc, set()))
            pairs = {tuple(sorted(p)) for p in (r_row or {}).get("relation_pairs") or [] if len(p) == 2}
            pairs = sorted(pairs | doc_rels.get(doc, set()))
            ent_rows[doc] = {"entity_names": names, "count": len(names)}
            rel_rows[doc] = {"relation_pairs": [list(p) for p in pairs], "count": len(pairs)}
        await asyncio.gather(rag.full_entities.upsert(ent_rows), rag.full_relations.upsert(rel_rows))

    # --- LLM extraction (only when LUCASRAG_LLM_URL is set) --------------------------------

    def enable_llm(self, settings: Settings) -> None:
        """Route LightRAG's extraction role to the OpenAI-compatible endpoint of the settings."""
        from lucasrag.llm_client import chat_model_func

        self._rag.update_llm_role_config(
            "extract", model_func=chat_model_func(settings), timeout=int(max(settings.llm_timeout_s, 1) * 3)
        )
        # One extraction pass per chunk: LightRAG's default "gleaning" pass repeats the
        # call with the whole history and doubles the cost on a local model.
        self._rag.entity_extract_max_gleaning = LLM_GLEANING

    async def extract_with_llm(self, records: Sequence[ChunkRecord]) -> "GraphStats":
        """LightRAG's own LLM extraction and merge for these chunks (ids stay ours), per document."""
        from lightrag.kg.shared_storage import get_namespace_data, get_namespace_lock
        from lightrag.operate import extract_entities, merge_nodes_and_edges

        rag = self._rag
        stats = GraphStats()
        if not records:
            return stats
        status = await get_namespace_data("pipeline_status", workspace=rag.workspace)
        lock = get_namespace_lock("pipeline_status", workspace=rag.workspace)
        tokenizer = rag.tokenizer
        by_doc: dict[str, list[ChunkRecord]] = {}
        for r in records:
            by_doc.setdefault(r.doc_id, []).append(r)
        config = rag._build_global_config()
        for doc_id, doc_records in by_doc.items():
            chunks = {
                r.chunk_id: {"content": r.text, "full_doc_id": r.doc_id, "tokens": len(tokenizer.encode(r.text)),
                             "chunk_order_index": r.chunk_index, "file_path": r.path}
                for r in doc_records
            }
            results = await extract_entities(chunks, global_config=config, pipeline_status=status,
                                             pipeline_status_lock=lock, llm_response_cache=rag.llm_response_cache,
                                             text_chunks_storage=rag.text_chunks)
            stats.llm_chunks += len(chunks)
            stats.llm_entities += sum(len(nodes) for nodes, _ in results)
            stats.llm_relations += sum(len(edges) for _, edges in results)
            await merge_nodes_and_edges(
                chunk_results=results, knowledge_graph_inst=rag.chunk_entity_relation_graph,
                entity_vdb=rag.entities_vdb, relationships_vdb=rag.relationships_vdb, global_config=config,
                full_entities_storage=rag.full_entities, full_relations_storage=rag.full_relations, doc_id=doc_id,
                pipeline_status=status, pipeline_status_lock=lock, llm_response_cache=rag.llm_response_cache,
                entity_chunks_storage=rag.entity_chunks, relation_chunks_storage=rag.relation_chunks,
                file_path=doc_records[0].path,
            )
        return stats


# --- entity graph: module-level helpers (see the section above) ---------------------------

#: Description fragments kept per entity/relation (the first sources' sentences).
_FRAGMENTS = 4
#: Query-time knobs of graph retrieval (see docs/graph.md for how they were chosen).
GRAPH_QUERY_ENTITIES = 4
GRAPH_QUERY_WORDS = 8
GRAPH_EXTRA_ENTITIES = 0
#: Leave out entities supported by more chunks than the candidates asked for (see _graph_plan).
GRAPH_SKIP_HUBS = True
GRAPH_USE_RELATIONS = False
#: LightRAG's extra extraction passes per chunk when an LLM is configured.
LLM_GLEANING = 0


@dataclass
class GraphStats:
    entities_written: int = 0
    relations_written: int = 0
    entities_removed: int = 0
    relations_removed: int = 0
    texts: int = 0  # entity/relation texts whose vectors were asked of the embedding cache
    embed_seconds: float = 0.0
    llm_chunks: int = 0
    llm_entities: int = 0
    llm_relations: int = 0


@dataclass
class _GraphPlan:
    ll: list[str]
    hl: list[str]
    strings: list[str]  # the keyword strings LightRAG will embed
    vectors: np.ndarray
    entity_top_k: int
    reached: frozenset[str]  # the chunks supporting the named entities


@dataclass
class _GraphAcc:
    sources: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    fragments: list[str] = field(default_factory=list)
    type: str | None = None
    weight: float = 0.0
    keywords: list[str] = field(default_factory=list)

    def add(self, chunk_id: str, path: str, fragment: str, *, type_: str | None = None, weight: float = 0.0,
            keywords: str = "") -> None:
        if chunk_id not in self.sources:
            self.sources.append(chunk_id)
        if path and path not in self.paths:
            self.paths.append(path)
        if fragment and fragment not in self.fragments:
            self.fragments.append(fragment)
        if type_:
            self.type = _best_type(self.type, type_)
        self.weight += weight
        for k in (keywords or "").split(","):
            if k.strip() and k.strip() not in self.keywords:
                self.keywords.append(k.strip())


def _node_name(name: str) -> str:
    from lightrag.utils import GRAPH_FIELD_SEP, normalize_entity_name

    try:
        name = normalize_entity_name(name)
    except Exception:  # noqa: BLE001 — a name LightRAG cannot normalise is skipped
        return ""
    return "" if not name or GRAPH_FIELD_SEP in name else name


def _split(value: object) -> list[str]:
    from lightrag.utils import GRAPH_FIELD_SEP

    return [v for v in str(value or "").split(GRAPH_FIELD_SEP) if v.strip() and v.strip() != "UNKNOWN"]


def _keywords(value: object) -> list[str]:
    from lightrag.utils import GRAPH_FIELD_SEP

    return [k.strip() for k in str(value or "").replace(GRAPH_FIELD_SEP, ",").split(",") if k.strip()]


def _tracked_sources(row: dict | None, graph_row: dict | None) -> list[str]:
    """The full chunk list: the tracking row when present, else the (capped) graph source_id."""
    from lightrag.utils import has_chunk_tracking_row

    if has_chunk_tracking_row(row):
        return [c for c in row.get("chunk_ids") or [] if c]
    return _split((graph_row or {}).get("source_id"))


def _merge_fragments(old_description: object, new: list[str]) -> list[str]:
    old = _split(old_description)
    if len(old) >= _FRAGMENTS:
        return old
    return list(dict.fromkeys(old + new))[:_FRAGMENTS]


def _merge_paths(old: list[str], new: list[str], cap: int) -> list[str]:
    return list(dict.fromkeys(p for p in old + new if p))[:cap]


def _best_type(old: object, new: object) -> str:
    from lucasrag_assets.rules.entities import TYPE_RANK

    candidates = [str(t).strip().lower() for t in (old, new) if t and str(t).strip() and str(t) != "UNKNOWN"]
    if not candidates:
        return "concept"
    return max(candidates, key=lambda t: TYPE_RANK.get(t, 0))


def _entity_vdb_id(name: str) -> str:
    from lightrag.utils import compute_mdhash_id

    return compute_mdhash_id(name, prefix="ent-")


def _relation_vdb_id(a: str, b: str) -> str:
    from lightrag.utils import make_relation_vdb_ids

    return make_relation_vdb_ids(a, b)[0]


def _relation_key(a: str, b: str) -> str:
    from lightrag.utils import make_relation_chunk_key

    return make_relation_chunk_key(a, b)


#: Characters of an entity's/relation's vector text. LightRAG embeds the whole
#: description; the structural graph embeds the name(s) and the first sentence only:
#: a name is what a query matches, and short texts embed 3-4x faster (docs/graph.md).
VECTOR_TEXT_CHARS = 160


def _vector_text(head: str, description: str) -> str:
    first = _split(description)[:1]
    text = head + ("\n" + first[0] if first else "")
    return text if len(text) <= VECTOR_TEXT_CHARS else text[: VECTOR_TEXT_CHARS - 1].rstrip() + "…"


def _entity_vdb_row(name: str, node: dict) -> dict:
    return {"entity_name": name, "entity_type": node["entity_type"], "content": _vector_text(name, node["description"]),
            "source_id": node["source_id"], "file_path": node["file_path"]}


def _relation_vdb_row(a: str, b: str, edge: dict) -> dict:
    a, b = sorted((a, b))
    return {"src_id": a, "tgt_id": b, "source_id": edge["source_id"],
            "content": _vector_text(f"{edge['keywords']}\t{a}\n{b}", edge["description"]), "keywords": edge["keywords"],
            "description": edge["description"], "weight": edge["weight"], "file_path": edge["file_path"]}


class _DropKeywordWarnings(logging.Filter):
    """Graph queries pass only low-level keywords on purpose; LightRAG warns about the other kind."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not ("level_keywords is empty" in message or "Forced low_level_keywords" in message)


_KEYWORD_FILTER = _DropKeywordWarnings()


def _quiet_graph_queries() -> None:
    lightrag_logger = logging.getLogger("lightrag")
    if _KEYWORD_FILTER not in lightrag_logger.filters:
        lightrag_logger.addFilter(_KEYWORD_FILTER)


#: The entity names a running graph search asked for (see WorkspaceIndex._route_entity_lookup).
_EXACT_ENTITIES: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("lucasrag_exact_entities",
                                                                                   default=None)

_KEYWORD_VECTORS: dict[str, np.ndarray] = {}


async def _keyword_vectors(strings: list[str]) -> np.ndarray:
    """Query keyword strings → vectors, shared by the four workspaces of one query."""
    missing = [s for s in dict.fromkeys(strings) if s not in _KEYWORD_VECTORS]
    if missing:
        vectors = await asyncio.to_thread(get_embedder().embed, missing)
        if len(_KEYWORD_VECTORS) > 1024:
            _KEYWORD_VECTORS.clear()
        _KEYWORD_VECTORS.update(zip(missing, vectors))
    return np.stack([_KEYWORD_VECTORS[s] for s in strings])
