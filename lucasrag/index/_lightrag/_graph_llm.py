"""LightRAG's own LLM extraction, when an OpenAI-compatible endpoint is configured (a
mixin of ``WorkspaceIndex``)."""

from __future__ import annotations

from collections.abc import Sequence

from lucasrag.index._lightrag._graph_rows import GraphStats
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord

#: LightRAG's extra extraction passes per chunk when an LLM is configured.
LLM_GLEANING = 0


class LlmExtraction:
    """LLM extraction of ``WorkspaceIndex`` (uses ``self._rag``)."""

    def enable_llm(self, settings: Settings) -> None:
        """Route LightRAG's extraction role to the OpenAI-compatible endpoint of the settings."""
        from lucasrag.llm_client import chat_model_func

        self._rag.update_llm_role_config(
            "extract", model_func=chat_model_func(settings), timeout=int(max(settings.llm_timeout_s, 1) * 3)
        )
        # One extraction pass per chunk: LightRAG's default "gleaning" pass repeats the
        # call with the whole history and doubles the cost on a local model.
        self._rag.entity_extract_max_gleaning = LLM_GLEANING

    async def extract_with_llm(self, records: Sequence[ChunkRecord]) -> GraphStats:
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
                r.chunk_id: {
                    "content": r.text,
                    "full_doc_id": r.doc_id,
                    "tokens": len(tokenizer.encode(r.text)),
                    "chunk_order_index": r.chunk_index,
                    "file_path": r.path,
                }
                for r in doc_records
            }
            results = await extract_entities(
                chunks,
                global_config=config,
                pipeline_status=status,
                pipeline_status_lock=lock,
                llm_response_cache=rag.llm_response_cache,
                text_chunks_storage=rag.text_chunks,
            )
            stats.llm_chunks += len(chunks)
            stats.llm_entities += sum(len(nodes) for nodes, _ in results)
            stats.llm_relations += sum(len(edges) for _, edges in results)
            await merge_nodes_and_edges(
                chunk_results=results,
                knowledge_graph_inst=rag.chunk_entity_relation_graph,
                entity_vdb=rag.entities_vdb,
                relationships_vdb=rag.relationships_vdb,
                global_config=config,
                full_entities_storage=rag.full_entities,
                full_relations_storage=rag.full_relations,
                doc_id=doc_id,
                pipeline_status=status,
                pipeline_status_lock=lock,
                llm_response_cache=rag.llm_response_cache,
                entity_chunks_storage=rag.entity_chunks,
                relation_chunks_storage=rag.relation_chunks,
                file_path=doc_records[0].path,
            )
        return stats
