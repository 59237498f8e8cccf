"""Two data folders in one process never share a workspace's rows (LightRAG's own embedded stores keep
theirs in process-wide dicts keyed by the workspace's name; ours keep each folder's in its own file)."""

import asyncio

import numpy as np

from lucasrag.embedding import get_embedder
from lucasrag.index import open_workspace_index
from lucasrag.index._lightrag._sqlite_file import stored_keys
from lucasrag.vocabulary import ChunkRecord


def _write(settings, chunk_id, text):
    async def go():
        index = await open_workspace_index(settings, "technical")
        record = ChunkRecord(
            chunk_id, "doc-" + chunk_id, "technical", f"{chunk_id}.md", 0, text, "present", "default", None
        )
        await index.write([record], get_embedder().embed([text]), {record.doc_id: text})
        await index.flush()
        await index.close()

    asyncio.run(go())


def test_second_data_folder_does_not_inherit_the_first(tmp_path, settings_for):
    first = settings_for(tmp_path / "v", tmp_path / "a")
    second = settings_for(tmp_path / "v", tmp_path / "b")
    _write(first, "chunk-a", "Postgres vacuum tuning")
    _write(second, "chunk-b", "Rust lifetimes")
    assert stored_keys(second.index_dir / "technical")["kv:text_chunks"] == ["chunk-b"]
    assert stored_keys(first.index_dir / "technical")["kv:text_chunks"] == ["chunk-a"]
    assert stored_keys(second.index_dir / "technical")["vectors:chunks"] == ["chunk-b"]
    assert stored_keys(second.index_dir / "technical")["kv:doc_status"] == ["doc-chunk-b"]
    assert np.isfinite(get_embedder().embed(["x"])).all()
