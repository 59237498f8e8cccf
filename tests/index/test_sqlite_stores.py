"""The embedded profile's LightRAG storages in ``lightrag.sqlite`` (``_sqlite_kv``, ``_sqlite_vectors``):
exact cosine ranking with ties broken by id (LightRAG's ``query`` and the federated query's ranking agree),
writes readable before the flush and written by row at it, a second process's reader following a flush by
the rows it wrote, and an earlier version's JSON files copied in once."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sqlite3

import numpy as np
import pytest

from lucasrag.blas import _blas_libraries
from lucasrag.embedding import DIM
from lucasrag.index import open_workspace_index
from lucasrag.index._lightrag import _sqlite_vectors
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _records(ids, tag: str) -> list[ChunkRecord]:
    return [
        ChunkRecord(f"c{i}", f"d{i}", "personal", f"n{i}.md", 0, f"{tag} {i}", "present", "date", None) for i in ids
    ]


def _settings(tmp_path) -> Settings:
    return Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=dt.date(2026, 6, 1))


async def _ranked(vdb, vector: np.ndarray, k: int) -> list[tuple[str, str]]:
    """(id, text) of the store's own ranking, as the federated query reads it (``rank``, then ``contents``)."""
    return await vdb.contents([i for i, _ in vdb.rank(vector, k)])


async def _query_rows(index, vector: np.ndarray, k: int) -> list[tuple[str, str]]:
    rows = await index._rag.chunks_vdb.query("", top_k=k, query_embedding=vector.tolist())
    return [(r["id"], r["content"]) for r in rows]


def _expected(vectors: dict[str, np.ndarray], texts: dict[str, str], q: np.ndarray, k: int) -> list[tuple[str, str]]:
    """Cosine by brute force, best first, ties by id."""
    q = q / np.linalg.norm(q)
    scored = sorted((-float(np.float32(v @ q)), i) for i, v in vectors.items())
    return [(i, texts[i]) for _, i in scored[:k]]


def test_ranking_is_exact_ties_by_id_the_same_through_lightrag_and_follows_writes(tmp_path):
    rng = np.random.default_rng(11)
    vectors = _unit(rng, 40)
    vectors[20:30] = vectors[10]  # ten exact copies of one vector: equal scores, their ids decide the order
    questions = [*_unit(rng, 5), vectors[10], vectors[3]]

    async def run() -> None:
        index = await open_workspace_index(_settings(tmp_path), "personal")
        vdb = index._rag.chunks_vdb
        try:
            records = _records(range(40), "first")
            await index.write(records, vectors, {r.doc_id: r.text for r in records})
            await index.flush()
            have = {f"c{i}": vectors[i] for i in range(40)}
            texts = {r.chunk_id: r.text for r in records}
            for q in questions:
                for k in (1, 5, 15, 40, 100):
                    want = _expected(have, texts, q, k)
                    assert await _ranked(vdb, q, k) == want
                    assert await _query_rows(index, q, k) == want
            copies = [i for i, _ in await _ranked(vdb, vectors[10], 11)]
            assert copies == sorted(copies)  # equal scores: by id, wherever the rows sit in memory
            # a rewrite of every row and a delete: the matrix follows the index's own flushes
            changed = _unit(rng, 40)
            records = _records(range(40), "second")
            await index.write(records, changed, {r.doc_id: r.text for r in records})
            await index.delete(["d3"], ["c3"])
            await index.flush()
            have = {f"c{i}": changed[i] for i in range(40) if i != 3}
            texts = {r.chunk_id: r.text for r in records}
            for q in (*questions, changed[7], changed[3]):
                assert await _ranked(vdb, q, 12) == _expected(have, texts, q, 12)
            assert (await _ranked(vdb, changed[7], 1))[0] == ("c7", "second 7")
            assert "c3" not in dict(await _ranked(vdb, changed[3], 40))
        finally:
            await index.close()

    asyncio.run(run())


def test_writes_are_read_before_the_flush_and_another_reader_sees_only_flushed_rows(tmp_path):
    settings = _settings(tmp_path)
    rng = np.random.default_rng(5)
    vectors = _unit(rng, 6)

    async def run() -> None:
        writer = await open_workspace_index(settings, "personal")
        reader = await open_workspace_index(settings, "personal")
        try:
            records = _records(range(4), "one")
            await writer.write(records, vectors[:4], {r.doc_id: r.text for r in records})
            # read-your-writes before the flush; the other reader (another connection) sees nothing yet
            assert await writer.stored_chunks(["c0", "c1"]) == {"c0": "one 0", "c1": "one 1"}
            assert await writer.stored_vectors(["c0", "c9"]) == {"c0"}
            assert await reader.stored_chunks(["c0"]) == {}
            assert await writer._rag.text_chunks.filter_keys({"c0", "c9"}) == {"c9"}
            assert not await writer._rag.text_chunks.is_empty()
            assert await reader._rag.text_chunks.is_empty()
            assert await _ranked(writer._rag.chunks_vdb, vectors[0], 1) == []  # query: flushed rows only
            await writer.flush()
            assert await reader.stored_chunks(["c0", "c3"]) == {"c0": "one 0", "c3": "one 3"}
            assert (await _ranked(reader._rag.chunks_vdb, vectors[2], 1)) == [("c2", "one 2")]
            # the reader has its matrix now; the writer's next flush reaches it by the rows it wrote
            more = _records([4, 5], "two")
            await writer.write(more, vectors[4:], {r.doc_id: r.text for r in more})
            await writer.delete(["d0"], ["c0"])
            await writer.flush()
            ranked = dict(await _ranked(reader._rag.chunks_vdb, vectors[5], 10))
            assert set(ranked) == {"c1", "c2", "c3", "c4", "c5"} and ranked["c5"] == "two 5"
            assert await reader.stored_chunks(["c0"]) == {}
            got = await reader._rag.chunks_vdb.get_vectors_by_ids(["c4", "c0"])
            assert set(got) == {"c4"} and np.allclose(got["c4"], vectors[4], atol=1e-6)
        finally:
            await writer.close()
            await reader.close()

    asyncio.run(run())


def test_a_reader_behind_the_delete_log_loads_the_matrix_afresh(tmp_path, monkeypatch):
    monkeypatch.setattr(_sqlite_vectors, "KEPT_DELETES", 2)
    settings = _settings(tmp_path)
    vectors = _unit(np.random.default_rng(3), 8)

    async def run() -> None:
        writer = await open_workspace_index(settings, "personal")
        reader = await open_workspace_index(settings, "personal")
        try:
            records = _records(range(8), "n")
            await writer.write(records, vectors, {r.doc_id: r.text for r in records})
            await writer.flush()
            assert len(await _ranked(reader._rag.chunks_vdb, vectors[0], 8)) == 8
            for i in range(5):  # five flushes, each deleting one row: the log keeps the last two
                await writer.delete([f"d{i}"], [f"c{i}"])
                await writer.flush()
            assert sorted(dict(await _ranked(reader._rag.chunks_vdb, vectors[7], 8))) == ["c5", "c6", "c7"]
        finally:
            await writer.close()
            await reader.close()

    asyncio.run(run())


def test_an_earlier_versions_json_files_are_copied_in_once_and_removed(tmp_path):
    """An index written with LightRAG's own JSON key-value and nano-vectordb storages (every LucasRAG
    before lightrag.sqlite) opens with its rows, ranks as before, and its JSON files are gone."""
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc, Tokenizer

    from lucasrag.embedding import get_embedder
    from lucasrag.index._lightrag._setup import _no_llm, _VectorCache

    settings = _settings(tmp_path)
    folder = settings.index_dir / "personal"
    vectors = _unit(np.random.default_rng(9), 5)
    cache = _VectorCache(settings.embedding_model)
    cache.add([f"old {i}" for i in range(5)], vectors)

    async def write_old_format() -> None:
        rag = LightRAG(
            working_dir=str(settings.index_dir),
            workspace="personal",
            embedding_func=EmbeddingFunc(embedding_dim=DIM, max_token_size=256, func=cache.embed, model_name="m"),
            llm_model_func=_no_llm,
            tokenizer=Tokenizer("all-MiniLM-L6-v2", get_embedder().tokenizer),
            vector_db_storage_cls_kwargs={"cosine_better_than_threshold": -1.0},
            kv_storage="JsonKVStorage",
            vector_storage="NanoVectorDBStorage",
        )
        await rag.initialize_storages()
        rows = {f"c{i}": {"content": f"old {i}", "full_doc_id": f"d{i}", "file_path": f"n{i}.md"} for i in range(5)}
        await rag.chunks_vdb.upsert(rows)
        await rag.text_chunks.upsert({k: dict(v) for k, v in rows.items()})
        await rag.chunks_vdb.index_done_callback()
        await rag.text_chunks.index_done_callback()
        await rag.finalize_storages()

    async def open_new() -> tuple:
        index = await open_workspace_index(settings, "personal")
        try:
            return (
                await index.stored_chunks(["c0", "c4"]),
                await _ranked(index._rag.chunks_vdb, vectors[2], 2),
            )
        finally:
            await index.close()

    asyncio.run(write_old_format())
    assert (folder / "vdb_chunks.json").is_file() and (folder / "kv_store_text_chunks.json").is_file()
    stored, ranked = asyncio.run(open_new())
    assert stored == {"c0": "old 0", "c4": "old 4"}
    assert ranked[0] == ("c2", "old 2")
    assert not (folder / "vdb_chunks.json").exists() and not (folder / "kv_store_text_chunks.json").exists()
    with sqlite3.connect(folder / "lightrag.sqlite") as db:
        imported = dict(db.execute("SELECT namespace, source FROM imported"))
    assert imported["vectors:chunks"] == "vdb_chunks.json" and imported["kv:text_chunks"] == "kv_store_text_chunks.json"
    assert asyncio.run(open_new())[0] == stored  # a second open copies nothing again


def test_a_damaged_json_file_of_an_earlier_version_is_an_error_naming_it(tmp_path):
    settings = _settings(tmp_path)
    folder = settings.index_dir / "personal"
    folder.mkdir(parents=True)
    (folder / "kv_store_full_docs.json").write_text('{"d1": {"content": ')
    with pytest.raises(json.JSONDecodeError):
        asyncio.run(open_workspace_index(settings, "personal"))
    assert (folder / "kv_store_full_docs.json").is_file()  # kept: nothing was copied


def test_a_relations_vectors_go_with_either_entity(tmp_path):
    """``delete_entity_relation`` (LightRAG's admin flows) removes every relation vector naming the entity as
    source or target, flushed or waiting for the flush, and no other."""

    async def run() -> None:
        index = await open_workspace_index(_settings(tmp_path), "personal")
        rel = index._rag.relationships_vdb
        try:
            rows = {
                "r1": {"src_id": "Ana", "tgt_id": "Lisbon", "content": "Ana lives in Lisbon"},
                "r2": {"src_id": "Bo", "tgt_id": "Ana", "content": "Bo knows Ana"},
                "r3": {"src_id": "Bo", "tgt_id": "Cy", "content": "Bo knows Cy"},
            }
            index._vectors.add([r["content"] for r in rows.values()], _unit(np.random.default_rng(2), 3))
            await rel.upsert({"r1": rows["r1"], "r3": rows["r3"]})
            await rel.index_done_callback()
            await rel.upsert({"r2": rows["r2"]})  # waiting for the flush
            await rel.delete_entity_relation("Ana")
            await rel.index_done_callback()
            assert [r is not None for r in await rel.get_by_ids(["r1", "r2", "r3"])] == [False, False, True]
        finally:
            await index.close()

    asyncio.run(run())


def _graph_state(graph) -> tuple:
    return (
        sorted((n, sorted(a.items())) for n, a in graph.nodes(data=True)),
        sorted((*sorted((u, v)), sorted(a.items())) for u, v, a in graph.edges(data=True)),
    )


def test_the_graph_is_written_by_row_and_another_reader_follows_each_flush(tmp_path):
    """A node's new attributes reach the reader, a removed node takes its edges with it, and a reader
    opened before the writes ends with the writer's graph; so does a fresh open."""
    settings = _settings(tmp_path)

    async def run() -> None:
        writer = await open_workspace_index(settings, "personal")
        reader = await open_workspace_index(settings, "personal")
        try:
            w, r = writer._rag.chunk_entity_relation_graph, reader._rag.chunk_entity_relation_graph
            assert await r.get_node("Ana") is None  # the reader has its graph (empty) before any write
            await w.upsert_nodes_batch(
                [("Ana", {"entity_type": "person", "note": "x"}), ("Lisbon", {"entity_type": "place"})]
            )
            await w.upsert_edge("Lisbon", "Ana", {"weight": 1.0, "description": "lives in"})
            await w.upsert_edge("Ana", "Bo", {"weight": 2.0})  # Bo comes with its edge
            await w.index_done_callback()
            assert (await r.get_node("Ana"))["note"] == "x" and await r.has_edge("Ana", "Lisbon")
            assert await r.node_degree("Ana") == 2
            await w.upsert_node("Ana", {"entity_type": "friend"})  # networkx merges: "note" stays
            await w.remove_nodes(["Bo"])
            await w.upsert_edge("Ana", "Cy", {"weight": 3.0})
            await w.remove_edges([("Ana", "Cy")])
            await w.index_done_callback()
            assert await r.get_node("Ana") == await w.get_node("Ana") == {"entity_type": "friend", "note": "x"}
            assert not await r.has_node("Bo") and not await r.has_edge("Ana", "Bo") and await r.has_node("Cy")
            assert _graph_state(await r._get_graph()) == _graph_state(await w._get_graph())
            again = await open_workspace_index(settings, "personal")
            try:
                assert _graph_state(await again._rag.chunk_entity_relation_graph._get_graph()) == _graph_state(
                    await w._get_graph()
                )
            finally:
                await again.close()
        finally:
            await writer.close()
            await reader.close()

    asyncio.run(run())


def test_an_earlier_versions_graphml_is_copied_in_once_and_removed(tmp_path):
    import networkx as nx

    settings = _settings(tmp_path)
    folder = settings.index_dir / "personal"
    folder.mkdir(parents=True)
    old = nx.Graph()
    old.add_node("Ana", entity_type="person", source_id="c1")
    old.add_node("Lisbon", entity_type="place", source_id="c1")
    old.add_edge("Ana", "Lisbon", weight=1.5, description="lives in")
    nx.write_graphml(old, folder / "graph_chunk_entity_relation.graphml")

    async def read() -> tuple:
        index = await open_workspace_index(settings, "personal")
        try:
            return _graph_state(await index._rag.chunk_entity_relation_graph._get_graph())
        finally:
            await index.close()

    assert asyncio.run(read()) == _graph_state(old)
    assert not (folder / "graph_chunk_entity_relation.graphml").exists()
    assert asyncio.run(read()) == _graph_state(old)


def test_a_file_of_another_layout_is_reported_not_read(tmp_path):
    """A lightrag.sqlite written by another version of its layout is an error naming the file and both
    layouts (the ingest then reports the workspace damaged, with the rebuild that heals it)."""
    from lucasrag.index import IndexDamaged
    from lucasrag.index.stores import damage_reported

    settings = _settings(tmp_path)
    folder = settings.index_dir / "personal"
    folder.mkdir(parents=True)
    with sqlite3.connect(folder / "lightrag.sqlite") as db:
        db.execute("CREATE TABLE kv (namespace TEXT, id TEXT, value TEXT)")
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(IndexDamaged, match=r"layout 99, this LucasRAG reads layout 2.*--rebuild personal"):
        with damage_reported(settings, "personal"):
            asyncio.run(open_workspace_index(settings, "personal"))


def _as_layout_1(path) -> None:
    """Rewrite a layout-2 file as layout 1 wrote it: ``kv`` and ``vectors`` WITHOUT ROWID, the same rows."""
    with sqlite3.connect(path) as db:
        for table, key in (("kv", "namespace, id"), ("vectors", "namespace, id")):
            sql = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
            db.execute(f"ALTER TABLE {table} RENAME TO {table}_v2")
            db.execute(sql.replace(f"PRIMARY KEY ({key})\n)", f"PRIMARY KEY ({key})\n) WITHOUT ROWID"))
            db.execute(f"INSERT INTO {table} SELECT * FROM {table}_v2")
            db.execute(f"DROP TABLE {table}_v2")
        db.execute("CREATE INDEX IF NOT EXISTS vectors_by_seq ON vectors (namespace, seq)")
        db.execute("PRAGMA user_version = 1")


def test_a_layout_1_file_is_upgraded_in_place_with_every_row(tmp_path):
    """Layout 1 kept chunk texts and vectors WITHOUT ROWID (about one row a page); the first open upgrades it
    to rowid tables in one transaction: every key and every ranking the same, the file's identity kept."""
    from lucasrag.index._lightrag._sqlite_file import SCHEMA_VERSION, file_token, stored_keys

    settings = _settings(tmp_path)
    folder = settings.index_dir / "personal"
    rng = np.random.default_rng(3)
    vectors = _unit(rng, 30)
    records = _records(range(30), "kept")

    async def build() -> None:
        index = await open_workspace_index(settings, "personal")
        try:
            await index.write(records, vectors, {r.doc_id: r.text for r in records})
            await index.flush()
        finally:
            await index.close()

    async def ranked() -> list:
        index = await open_workspace_index(settings, "personal")
        try:
            return [await _ranked(index._rag.chunks_vdb, q, 7) for q in vectors[:5]]
        finally:
            await index.close()

    asyncio.run(build())
    keys, token, before = stored_keys(folder), file_token(folder), asyncio.run(ranked())
    _as_layout_1(folder / "lightrag.sqlite")
    with sqlite3.connect(folder / "lightrag.sqlite") as db:
        assert "WITHOUT ROWID" in db.execute("SELECT sql FROM sqlite_master WHERE name = 'kv'").fetchone()[0]
    assert asyncio.run(ranked()) == before
    with sqlite3.connect(folder / "lightrag.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        tables = [sql for (sql,) in db.execute("SELECT sql FROM sqlite_master WHERE name IN ('kv', 'vectors')")]
        assert len(tables) == 2 and not any("WITHOUT ROWID" in sql for sql in tables)
    assert stored_keys(folder) == keys and file_token(folder) == token


def test_ranking_runs_on_one_blas_thread_and_the_process_keeps_its_count(tmp_path):
    """The product runs on one BLAS thread (``lucasrag.blas.one_blas_thread``: on a busy machine OpenBLAS's
    hand-off costs more than the product) and the process keeps its own thread count."""
    rng = np.random.default_rng(11)
    vectors = _unit(rng, 2001)
    process_threads = [lib.get_num_threads() for lib in _blas_libraries()]

    async def run() -> None:
        index = await open_workspace_index(_settings(tmp_path), "personal")
        try:
            records = _records(range(2001), "row")
            await index.write(records, vectors, {r.doc_id: r.text for r in records})
            await index.flush()
            texts = {r.chunk_id: r.text for r in records}
            have = {f"c{i}": vectors[i] for i in range(2001)}
            for q in _unit(rng, 4):
                assert await _ranked(index._rag.chunks_vdb, q, 11) == _expected(have, texts, q, 11)
            assert [lib.get_num_threads() for lib in _blas_libraries()] == process_threads
        finally:
            await index.close()

    asyncio.run(run())


def test_a_ranking_aside_equals_the_ranking_and_its_matrix_is_never_changed_under_it(tmp_path):
    """``rank_aside`` (the product in a worker thread) gives ``rank``'s rows and scores bit for bit; a flush read
    afterwards goes to a copy, so a ranking still running on the matrix it took reads rows nobody changes."""
    rng = np.random.default_rng(5)
    vectors = _unit(rng, 600)

    async def run() -> None:
        index = await open_workspace_index(_settings(tmp_path), "personal")
        try:
            vdb = index._rag.chunks_vdb
            records = _records(range(500), "row")
            await index.write(records, vectors[:500], {r.doc_id: r.text for r in records})
            await index.flush()
            for q in _unit(rng, 3):
                assert await vdb.rank_aside(q, 17) == vdb.rank(q, 17)
            taken = vdb._up_to_date()
            ids, rows = list(taken.ids), taken.rows[: len(taken.ids)].copy()
            more = _records(range(500, 600), "row")
            await index.write(more, vectors[500:], {r.doc_id: r.text for r in more})
            await index.delete([records[0].doc_id], [records[0].chunk_id])
            await index.flush()
            assert vdb._up_to_date() is not taken and len(vdb._up_to_date().ids) == 599
            assert taken.ids == ids and np.array_equal(taken.rows[: len(ids)], rows)
        finally:
            await index.close()

    asyncio.run(run())
