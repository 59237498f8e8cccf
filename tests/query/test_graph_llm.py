"""LightRAG's LLM extraction against a real llama.cpp chat server (SmolLM2-135M from PyPI)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow

# LightRAG keeps its JSON key-value stores in memory per (workspace, namespace) for the
# whole process, whatever the data folder: this test's "administrative" would share
# rows with the module's. It runs in a process of its own.
_LLM_CHILD = """
import asyncio, json, sys
from dataclasses import replace
from pathlib import Path
import datetime as dt
import lucasrag.llm_client as llm_client
from lucasrag_harness.model_servers.llama_server import ChatServerError, serve_chat_model
from lucasrag.embedding_cache import EmbeddingCache
from lucasrag.index import open_workspace_index
from lucasrag.index import sync_workspace
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord

llm_client.MAX_TOKENS = 128  # the wire, not an essay
base = Settings(vault=Path(sys.argv[1]), data=Path(sys.argv[2]), now=dt.date(2026, 6, 1), graph=True)
text = "Rosa Mendes from payroll called about the relocation allowance. She works at Tessellate in Lisbon."
rec = ChunkRecord("chunk-llm1", "doc-llm", "administrative", "admin/payroll.md", 0, text, "present", "default",
                  "2026-01-01", (), "h")
try:
    with serve_chat_model(threads=1) as url:
        settings = replace(base, llm_url=url, llm_timeout_s=600)
        cache = EmbeddingCache(settings.data / "embeddings.sqlite")
        try:
            report = asyncio.run(sync_workspace(settings, "administrative", [rec], {"doc-llm": text}, cache))
        finally:
            cache.close()
except ChatServerError as exc:
    print(json.dumps({"skip": str(exc)}))
    sys.exit(0)

async def inspect():
    index = await open_workspace_index(settings, "administrative")
    try:
        rag = index._rag
        nodes = await rag.chunk_entity_relation_graph.get_all_nodes()
        rows = await rag.entity_chunks.get_by_ids([n["id"] for n in nodes])
        foreign = sorted({c for r in rows if r for c in r["chunk_ids"]} - {"chunk-llm1"})
        return {"cache_empty": await rag.llm_response_cache.is_empty(), "nodes": len(nodes), "foreign": foreign}
    finally:
        await index.close()

print(json.dumps({"llm_chunks": report.llm_chunks, "llm_seconds": report.llm_seconds,
                  "entities": report.graph_entities, **asyncio.run(inspect())}))
"""


def test_llm_extraction_runs_against_a_real_llama_cpp_chat_server(fresh_vault):
    """The wire path only: SmolLM2-135M answers, LightRAG parses what it can and merges it;
    the structural graph is written either way. Entity quality is not judged."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _LLM_CHILD, str(fresh_vault.vault), str(fresh_vault.data)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if "skip" in result:
        pytest.skip(f"no chat model to serve: {result['skip']}")
    assert result["llm_chunks"] == 1 and result["llm_seconds"] > 0
    assert not result["cache_empty"], "LightRAG cached the model's answer"
    assert result["entities"] >= 3 and result["nodes"] == result["entities"]  # the structural entities at least
    assert result["foreign"] == []
