"""Everything the adapter assumes about LightRAG (1.5.7), in one place.

LightRAG's API moves between minor versions. Each row below is one assumption; each
is a named case of ``tests/index/test_lightrag_contract.py``, so an upgrade that
breaks one fails in the test that names it instead of somewhere deep in an ingest.
When LightRAG is upgraded: run that test, fix what it names, update this file.

==========================  ==========================================================  ============================
kind                        what                                                        relied on by
==========================  ==========================================================  ============================
private symbol              ``LightRAG._build_global_config()``                         ``_graph_llm.extract_with_llm``
private symbol              ``NetworkXStorage._get_graph()``                            ``_graph_read.graph_counts``
storage registry            ``kg.STORAGES`` / ``STORAGE_IMPLEMENTATIONS`` /              ``_setup.register_own_storages``
                            ``STORAGE_ENV_REQUIREMENTS``, ``kg.factory.get_storage_class``  (``OWN_STORAGES``)
                            importing a registered module by its path
base classes                ``BaseKVStorage`` / ``BaseVectorStorage``: their abstract     ``_sqlite_kv``,
                            methods and dataclass fields; ``NetworkXStorage``: every     ``_sqlite_vectors``,
                            graph write goes through ``upsert_*`` / ``delete_node`` /    ``_sqlite_graph``
                            ``remove_*``, every read through ``_get_graph``;            ``_sqlite_doc_status``
                            ``JsonDocStatusStorage``: its readers and writers use
                            ``self._data`` under ``_storage_lock``, a writer by
                            setting, popping or clearing rows (``OWN_STORAGES``)
copied record format        ``JsonKVStorage`` rows (``_id``, ``create_time``, ...) and  ``_sqlite_kv``,
                            nano-vectordb's file (``data``, base64 ``matrix``), the     ``_sqlite_vectors``,
                            GraphML file, read once from an earlier version's folder     ``_sqlite_graph``
                                                                                        (``test_sqlite_stores.py``)
private symbol              ``Neo4JStorage._driver`` / ``._DATABASE`` /                 ``graph_counts``, batch deletes
                            ``._get_workspace_label()``
private symbol              ``ClientManager.get_config`` / ``._build_vector_signature``  ``_production`` pools
                            / ``PostgreSQLDB(config).initdb() / .check_tables() / .pool``
monkey patch                ``ClientManager.get_client`` / ``release_client``           ``_production`` (pool per
                            (classmethods)                                              loop and server)
monkey patch                ``Neo4JStorage.remove_nodes`` / ``remove_edges``            ``_production`` (UNWIND
                                                                                        batches)
monkey patch                ``PGVectorStorage.initialize``; ``.db`` / ``.table_name`` /  ``_production`` (an HNSW
                            ``.workspace`` / ``.namespace`` after it; ``PostgreSQLDB``   index per workspace)
                            ``.query(multirows=)`` / ``.execute(ignore_if_exists=)``;
                            no vector index made when ``vector_index_type`` is empty
deep-copy                   ``aquery_data`` deep-copies the embedding function's bound  ``_setup._VectorCache``
                            instance (``tests/core/test_lightrag_deepcopy.py``)
keyword API                 ``LightRAG(...)``, ``EmbeddingFunc(...)``, ``Tokenizer``,   ``_index``, ``_graph_llm``
                            ``QueryParam(...)``, ``operate.extract_entities(...)``,
                            ``operate.merge_nodes_and_edges(...)``,
                            ``update_llm_role_config``, storage methods
                            (``SIGNATURES``)
utilities                   ``GRAPH_FIELD_SEP``, ``normalize_entity_name``,             ``_graph_rows``, ``_graph_write``
                            ``compute_mdhash_id``, ``make_relation_vdb_ids``,
                            ``make_relation_chunk_key``, ``merge_source_ids``,
                            ``apply_source_ids_limit``, ``has_chunk_tracking_row``
copied record format        graph node / edge, ``entities_vdb`` row,                    ``_graph_write`` (mirrors
                            ``entity_chunks`` / ``relation_chunks`` /                   ``operate.merge_nodes_and_edges``)
                            ``full_entities`` / ``full_relations`` rows
                            (``RECORD_FORMATS``)
copied record format        ``text_chunks`` / ``chunks_vdb`` (``TextChunkSchema``),     ``_index.write``
                            ``doc_status`` (``DocProcessingStatus``), ``full_docs``
storage class names         ``STORAGE_CLASSES`` per profile                             ``_setup._BACKENDS``
environment                 variables LightRAG reads (``ENVIRONMENT``)                  package ``__init__``,
                                                                                        ``_production``
log messages                texts the quiet filter drops (``LOG_MESSAGES``)             ``_setup._DropExpectedNoise``
deferred import             modules LightRAG imports at load and reads only by          package ``__init__``
                            attribute later (``DEFERRED_IMPORTS``)                      (``_deferred``)
==========================  ==========================================================  ============================

Patch removed after measuring (docs/graph.md, "Mix mode replaced"): the per-instance
``entities_vdb.query`` replacement that made LightRAG's ``mix`` mode look entities up
by name, and with it every reliance on ``aquery_data``'s mix-mode context assembly.
"""

from __future__ import annotations

#: module:attribute.path — names that must exist (private ones included).
SYMBOLS: dict[str, str] = {
    "lightrag.kg.shared_storage:get_namespace_data": "extract_with_llm: the pipeline status",
    "lightrag.kg.shared_storage:get_namespace_lock": "extract_with_llm: the pipeline status lock; _sqlite_doc_status",
    "lightrag:LightRAG._build_global_config": "extract_with_llm: the config LightRAG's own pipeline passes",
    "lightrag.kg.networkx_impl:NetworkXStorage._get_graph": "graph_counts; _sqlite_graph replaces it (every read)",
    "lightrag.kg.neo4j_impl:Neo4JStorage._get_workspace_label": "graph_counts, batched deletes: the workspace label",
    "lightrag.kg.postgres_impl:ClientManager.get_config": "the pool patch: LightRAG's own PostgreSQL config",
    "lightrag.kg.postgres_impl:ClientManager._build_vector_signature": "the pool patch: one pool per vector table",
    "lightrag.kg.postgres_impl:PostgreSQLDB.initdb": "the pool patch",
    "lightrag.kg.postgres_impl:PostgreSQLDB.check_tables": "the pool patch",
    "lightrag.kg.postgres_impl:PostgreSQLDB._create_vector_index": "makes no index when vector_index_type is empty",
    "lightrag.namespace:NameSpace.VECTOR_STORE_CHUNKS": "the workspace index: only chunk vectors are searched",
    "lightrag.namespace:is_namespace": "the workspace index: only chunk vectors are searched",
    "lightrag.kg.nano_vector_db_impl:NanoVectorDBStorage.get_vectors_by_ids": "search: graph chunks nearest the query",
    "lightrag.kg.postgres_impl:PGVectorStorage.get_vectors_by_ids": "search: graph chunks nearest the query",
    "lightrag.kg:STORAGES": "register_own_storages: our storage classes by name",
    "lightrag.kg:STORAGE_IMPLEMENTATIONS": "register_own_storages: the names LightRAG accepts per storage type",
    "lightrag.kg:STORAGE_ENV_REQUIREMENTS": "register_own_storages: our storages need no environment",
    "lightrag.kg.factory:get_storage_class": "LightRAG resolves a storage name through the registry",
    "lightrag.base:BaseVectorStorage._validate_embedding_func": "_sqlite_vectors.__post_init__",
    "lightrag.kg.networkx_impl:NetworkXStorage._gate": "_sqlite_graph: no read while a flush writes",
    "lightrag.utils:validate_workspace": "_sqlite_graph.__post_init__, as NetworkXStorage's",
    "lightrag.utils:GRAPH_FIELD_SEP": "joined source ids, descriptions, file paths",
    "lightrag.utils:normalize_entity_name": "node names as LightRAG's merge writes them",
    "lightrag.utils:compute_mdhash_id": "entities_vdb ids (ent-md5(name))",
    "lightrag.utils:make_relation_vdb_ids": "deleting the relation vectors of an older index",
    "lightrag.utils:make_relation_chunk_key": "relation_chunks keys",
    "lightrag.utils:merge_source_ids": "what _graph_rows._merged_sources must equal (an entity's chunk list)",
    "lightrag.utils:apply_source_ids_limit": "capping source_id as LightRAG caps it",
    "lightrag.utils:has_chunk_tracking_row": "reading entity_chunks / relation_chunks rows",
    "lightrag.utils:EmbeddingFunc": "the embedding seam",
    "lightrag.utils:Tokenizer": "MiniLM's tokenizer for LightRAG's token counts",
    "lightrag:QueryParam": "naive_query (baselines)",
    "lightrag.kg.shared_storage:get_update_flag": "_sqlite_doc_status: the flag LightRAG's doc-status writers set",
    "lightrag.kg.networkx_impl:NetworkXStorage.index_done_callback": "_store_timing (benchmarks)",
}

#: module:callable → keyword parameters the adapter passes (or, for patches, replaces with the same).
SIGNATURES: dict[str, tuple[str, ...]] = {
    "lightrag:LightRAG": (
        "working_dir",
        "workspace",
        "embedding_func",
        "llm_model_func",
        "tokenizer",
        "vector_db_storage_cls_kwargs",
        "kv_storage",
        "vector_storage",
        "graph_storage",
        "doc_status_storage",
    ),
    "lightrag.utils:EmbeddingFunc": ("embedding_dim", "max_token_size", "func", "model_name"),
    "lightrag:QueryParam": ("mode", "chunk_top_k", "top_k", "max_total_tokens", "enable_rerank"),
    "lightrag:LightRAG.update_llm_role_config": ("model_func", "timeout"),
    "lightrag:LightRAG.aquery_data": ("query", "param"),
    "lightrag.operate:extract_entities": (
        "chunks",
        "global_config",
        "pipeline_status",
        "pipeline_status_lock",
        "llm_response_cache",
        "text_chunks_storage",
    ),
    "lightrag.operate:merge_nodes_and_edges": (
        "chunk_results",
        "knowledge_graph_inst",
        "entity_vdb",
        "relationships_vdb",
        "global_config",
        "full_entities_storage",
        "full_relations_storage",
        "doc_id",
        "pipeline_status",
        "pipeline_status_lock",
        "llm_response_cache",
        "entity_chunks_storage",
        "relation_chunks_storage",
        "file_path",
    ),
    "lightrag.base:BaseVectorStorage.query": ("query", "top_k", "query_embedding"),
    "lightrag.kg.postgres_impl:PostgreSQLDB": ("config",),
    "lightrag.kg.postgres_impl:PostgreSQLDB.query": ("sql", "params", "multirows"),
    "lightrag.kg.postgres_impl:PostgreSQLDB.execute": ("sql", "ignore_if_exists"),
    "lightrag.utils:apply_source_ids_limit": (),
}

#: LightRAG dataclass fields the adapter reads off a ``LightRAG`` instance.
LIGHTRAG_FIELDS: tuple[str, ...] = (
    "entity_extract_max_gleaning",
    "max_file_paths",
    "max_source_ids_per_entity",
    "max_source_ids_per_relation",
    "source_ids_limit_method",
)

#: Storages a ``LightRAG`` instance has after ``initialize_storages`` (attribute names).
STORAGE_ATTRIBUTES: tuple[str, ...] = (
    "chunks_vdb",
    "text_chunks",
    "full_docs",
    "doc_status",
    "chunk_entity_relation_graph",
    "entities_vdb",
    "relationships_vdb",
    "entity_chunks",
    "relation_chunks",
    "full_entities",
    "full_relations",
    "llm_response_cache",
    "tokenizer",
)

#: class:method → parameter names; the adapter replaces these methods (originals kept as
#: ``_lucasrag_original_<method>`` once a patch is installed).
PATCHES: dict[str, tuple[str, ...]] = {
    "lightrag.kg.postgres_impl:ClientManager.get_client": ("vector_storage",),
    "lightrag.kg.postgres_impl:ClientManager.release_client": ("db",),
    "lightrag.kg.neo4j_impl:Neo4JStorage.remove_nodes": ("self", "nodes"),
    "lightrag.kg.neo4j_impl:Neo4JStorage.remove_edges": ("self", "edges"),
    "lightrag.kg.postgres_impl:PGVectorStorage.initialize": ("self",),
}

#: LightRAG's storage class names per profile (``_setup._BACKENDS``; the JSON key-value and nano-vectordb
#: ones write the files an earlier version's folder holds, read once by ours).
STORAGE_CLASSES: dict[str, str] = {
    "JsonKVStorage": "lightrag.kg.json_kv_impl",
    "NanoVectorDBStorage": "lightrag.kg.nano_vector_db_impl",
    "NetworkXStorage": "lightrag.kg.networkx_impl",
    "JsonDocStatusStorage": "lightrag.kg.json_doc_status_impl",
    "PGKVStorage": "lightrag.kg.postgres_impl",
    "PGVectorStorage": "lightrag.kg.postgres_impl",
    "Neo4JStorage": "lightrag.kg.neo4j_impl",
    "PGDocStatusStorage": "lightrag.kg.postgres_impl",
}

#: Our storage classes (``_setup._OWN_STORAGES``): name → (LightRAG base class, the dataclass fields
#: LightRAG constructs it with).
OWN_STORAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "SqliteKVStorage": ("lightrag.base:BaseKVStorage", ("namespace", "workspace", "global_config", "embedding_func")),
    "SqliteVectorStorage": (
        "lightrag.base:BaseVectorStorage",
        ("namespace", "workspace", "global_config", "embedding_func", "cosine_better_than_threshold", "meta_fields"),
    ),
    "SqliteGraphStorage": (
        "lightrag.kg.networkx_impl:NetworkXStorage",
        ("namespace", "workspace", "global_config", "embedding_func"),
    ),
    "SqliteDocStatusStorage": (
        "lightrag.kg.json_doc_status_impl:JsonDocStatusStorage",
        ("namespace", "workspace", "global_config", "embedding_func"),
    ),
}

#: The rows ``_graph_write`` writes in the formats of LightRAG's own merge
#: (``operate.merge_nodes_and_edges``): store → the keys LightRAG writes there.
RECORD_FORMATS: dict[str, tuple[str, ...]] = {
    "graph node": ("entity_id", "entity_type", "description", "source_id", "file_path", "created_at", "truncate"),
    "graph edge": ("weight", "description", "keywords", "source_id", "file_path", "created_at", "truncate"),
    "entities_vdb": ("entity_name", "content", "source_id", "file_path"),
    "entity_chunks": ("chunk_ids", "count"),
    "relation_chunks": ("chunk_ids", "count"),
    "full_entities": ("entity_names", "count"),
    "full_relations": ("relation_pairs", "count"),
}

#: ``_index.write``'s rows against LightRAG's own schema types: store → (module:type, keys we write).
CHUNK_FORMATS: dict[str, tuple[str, tuple[str, ...]]] = {
    "text_chunks": ("lightrag.base:TextChunkSchema", ("content", "full_doc_id", "tokens", "chunk_order_index")),
    "doc_status": (
        "lightrag.base:DocProcessingStatus",
        (
            "status",
            "content_summary",
            "content_length",
            "chunks_count",
            "chunks_list",
            "file_path",
            "created_at",
            "updated_at",
        ),
    ),
}

#: Environment variables LightRAG reads: name → the module that reads it.
ENVIRONMENT: dict[str, str] = {
    "WORKSPACE": "lightrag.lightrag",
    "NEO4J_WORKSPACE": "lightrag.kg.neo4j_impl",
    "POSTGRES_WORKSPACE": "lightrag.kg.postgres_impl",
    "ENTITY_TYPES": "lightrag.lightrag",
    "POSTGRES_HOST": "lightrag.kg.postgres_impl",
    "POSTGRES_PORT": "lightrag.kg.postgres_impl",
    "POSTGRES_USER": "lightrag.kg.postgres_impl",
    "POSTGRES_PASSWORD": "lightrag.kg.postgres_impl",
    "POSTGRES_DATABASE": "lightrag.kg.postgres_impl",
    "NEO4J_URI": "lightrag.kg.neo4j_impl",
    "NEO4J_USERNAME": "lightrag.kg.neo4j_impl",
    "NEO4J_PASSWORD": "lightrag.kg.neo4j_impl",
    "NEO4J_DATABASE": "lightrag.kg.neo4j_impl",
}

#: Log texts ``_setup._DropExpectedNoise`` drops: text → the module that logs it.
LOG_MESSAGES: dict[str, str] = {
    "Ensure it is caused by new workspace setup": "lightrag.kg.postgres_impl",
}

#: Modules ``_deferred`` binds to a placeholder before LightRAG loads: module → (the LightRAG module
#: that imports it, the only attributes it reads from it). A new attribute read is still served (it
#: loads the module); the list says what the deferral was measured against.
DEFERRED_IMPORTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pypinyin": ("lightrag.utils", ("lazy_pinyin", "Style")),
}
