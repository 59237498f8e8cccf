"""The entity graph on the sample vault: written on ingest, kept right by incremental
ingests, used by retrieval, isolated per workspace (LLM extraction: test_graph_llm.py).

The tests that ask for ``graph_index`` run on both profiles: embedded (NetworkX files) and
production (the graph in Neo4j, vectors in PostgreSQL; marked ``production``). The session has one
Neo4j database: the production fixture clears it, and the one test that changes the production
vault comes last in this file (pytest keeps file order for function-scoped parameters)."""

from __future__ import annotations

import asyncio
import json
import shutil
from dataclasses import replace

import pytest

from lucasrag.index import open_chunk_store, open_workspace_index
from lucasrag.vocabulary import WORKSPACES

pytestmark = pytest.mark.slow

# A colleague called Rosa (administrative: named only in the frontmatter) and the
# character Rosa of the lighthouse story (creative, vault/writing/characters ...).
PAYROLL = "admin/2026-02-10 payroll call.md"
PAYROLL_NOTE = """---
date: 2026-02-10
workspace: administrative
attendees: [Rosa]
tags: [payroll]
---
Went through the fourteen-instalment salary schedule and when the relocation allowance arrives.
The second instalment lands with the March payslip; the allowance comes separately in April.
"""
CHARACTERS = "writing/characters - the lighthouse keeper.md"


def _run(coro):
    return asyncio.run(coro)


async def _with_index(settings, workspace, fn):
    index = await open_workspace_index(settings, workspace)
    try:
        return await fn(index)
    finally:
        await index.close()


def _entity(settings, workspace, name):
    async def get(index):
        found = await index.graph_entities([name])
        return found[0] if found else None

    return _run(_with_index(settings, workspace, get))


def _paths(settings, workspace, chunk_ids) -> set[str]:
    store = open_chunk_store(settings, workspace)
    try:
        return {r.path for r in store.get(list(chunk_ids)).values()}
    finally:
        store.close()


def _chunk_ids(settings, workspace, path=None) -> set[str]:
    store = open_chunk_store(settings, workspace)
    try:
        return {r.chunk_id for r in store.all_records() if path is None or r.path == path}
    finally:
        store.close()


def check_graph_invariants(settings, workspace) -> tuple[int, int]:
    """Every entity/relation names only chunks the workspace holds, has a tracking row
    and a vector row; nothing is left without a source. Returns (entities, relations)."""
    from lightrag.utils import GRAPH_FIELD_SEP, compute_mdhash_id, make_relation_chunk_key, make_relation_vdb_ids

    held = _chunk_ids(settings, workspace)

    async def check(index):
        rag = index._rag
        graph = rag.chunk_entity_relation_graph
        nodes = await graph.get_all_nodes()
        # Neo4j lists an undirected relation once from each end: one per pair of entities
        edges = list({frozenset((e["source"], e["target"])): e for e in await graph.get_all_edges()}.values())
        names = [n["id"] for n in nodes]
        tracked = await rag.entity_chunks.get_by_ids(names)
        vectors = await rag.entities_vdb.get_by_ids([compute_mdhash_id(n, prefix="ent-") for n in names])
        for node, row, vec in zip(nodes, tracked, vectors):
            assert row and row["chunk_ids"], f"{workspace}: {node['id']} has no tracked source"
            assert set(row["chunk_ids"]) <= held, f"{workspace}: {node['id']} names a chunk that is gone"
            assert set(node["source_id"].split(GRAPH_FIELD_SEP)) <= held
            assert vec is not None, f"{workspace}: {node['id']} has no vector row"
        keys = [make_relation_chunk_key(e["source"], e["target"]) for e in edges]
        rel_tracked = await rag.relation_chunks.get_by_ids(keys)
        rel_vectors = await rag.relationships_vdb.get_by_ids(
            [make_relation_vdb_ids(e["source"], e["target"])[0] for e in edges]
        )
        for edge, row, vec in zip(edges, rel_tracked, rel_vectors):
            assert row and row["chunk_ids"] and set(row["chunk_ids"]) <= held, f"{workspace}: edge {edge}"
            assert float(edge["weight"]) >= len(row["chunk_ids"])
            assert vec is None, "relation vectors are not written (nothing LucasRAG runs reads them)"
        return len(nodes), len(edges)

    return _run(_with_index(settings, workspace, check))


@pytest.fixture(scope="module")
def graph_vault(tmp_path_factory, ingested, copy_vault, settings_for, ingest_at):
    """The sample vault plus the payroll call, ingested once with the graph on,
    starting from the session ingest's embedding cache (only the payroll call is new)."""
    root = tmp_path_factory.mktemp("graph")
    vault = copy_vault(root / "vault")
    (vault / PAYROLL).write_text(PAYROLL_NOTE)
    settings = settings_for(vault, root / "data", graph=True)
    settings.data.mkdir(parents=True)
    shutil.copy2(ingested.data / "embeddings.sqlite", settings.data / "embeddings.sqlite")
    summary = ingest_at(settings, root / "dagster")
    return settings, summary


@pytest.fixture(scope="module")
def production_graph(tmp_path_factory, ingested, copy_vault, production_settings, neo4j_server, clean_neo4j, ingest_at):
    """The same vault on the production profile (a fresh database, Neo4j cleared), graph on,
    vectors from the session ingest's cache."""
    root = tmp_path_factory.mktemp("graph-production")
    vault = copy_vault(root / "vault")
    (vault / PAYROLL).write_text(PAYROLL_NOTE)
    (root / "data").mkdir()
    shutil.copy2(ingested.data / "embeddings.sqlite", root / "data" / "embeddings.sqlite")
    settings = production_settings(vault, root / "data", graph=True)
    clean_neo4j(neo4j_server)
    return settings, ingest_at(settings, root / "dagster")


@pytest.fixture
def graph_index(profile, request):
    """``(settings, summary)`` of the graph vault on each profile (``profile``: tests/profile_fixtures.py)."""
    return request.getfixturevalue("graph_vault" if profile == "embedded" else "production_graph")


def test_ingest_writes_a_graph_per_workspace_and_records_its_size(graph_index):
    settings, summary = graph_index
    for ws in WORKSPACES:
        meta = summary.index_metadata[ws]
        assert meta["graph_entities"] > 0 and meta["graph_relations"] > 0, ws
        assert (meta["graph_entities"], meta["graph_relations"]) == check_graph_invariants(settings, ws)
    # the session ingest's cache holds the sample vault's texts: only the payroll call's are new
    assert summary.index_metadata["administrative"]["graph_texts_embedded"] > 0


def test_graph_source_ids_are_our_chunk_ids(graph_index):
    settings, _ = graph_index
    tessellate = _entity(settings, "technical", "Tessellate")
    assert tessellate is not None and tessellate["type"] == "organization"
    assert "tech/tessellate-onboarding.md" in _paths(settings, "technical", tessellate["chunk_ids"])
    tag = _entity(settings, "technical", "#tessellate")
    assert tag["type"] == "tag"
    assert tag["chunk_ids"] and set(tag["chunk_ids"]) == _chunk_ids(
        settings, "technical", "tech/tessellate-onboarding.md"
    )
    link = _entity(settings, "creative", "characters - the lighthouse keeper")
    assert _paths(settings, "creative", link["chunk_ids"]) == {CHARACTERS, "writing/lighthouse story draft.md"}


@pytest.mark.parametrize("graph", [True, False])
def test_over_fetch_rounds_sliced_from_one_ranking_find_what_separate_searches_find(graph_index, graph):
    """The federated query's rounds share one vector ranking (``ranking``, ``rank_ahead``):
    each round must get exactly the hits a search of its own would give, graph merge included."""
    settings, _ = graph_index
    questions = ("What did Rosa go through with me?", "the lighthouse keeper", "payroll and relocation allowance")

    async def both(index):
        pairs = []
        for text in questions:
            ranking: dict = {}
            for k in (2, 5, 3, 12, 40):  # growing, then smaller than what is ranked, then past it
                shared = await index.search(text, k, graph=graph, ranking=ranking, rank_ahead=8)
                alone = await index.search(text, k, graph=graph)
                pairs.append(([(h.chunk_id, h.graph) for h in shared], [(h.chunk_id, h.graph) for h in alone]))
        return pairs

    for ws in WORKSPACES:
        for shared, alone in _run(_with_index(settings, ws, both)):
            assert shared == alone, ws


def test_same_name_in_two_workspaces_is_two_unrelated_nodes(graph_index):
    settings, _ = graph_index
    colleague = _entity(settings, "administrative", "Rosa")
    character = _entity(settings, "creative", "Rosa")
    assert colleague is not None and character is not None
    assert colleague["type"] == "person"
    assert _paths(settings, "administrative", colleague["chunk_ids"]) == {PAYROLL}
    assert _paths(settings, "creative", character["chunk_ids"]) == {CHARACTERS}
    assert not set(colleague["chunk_ids"]) & set(character["chunk_ids"])
    assert colleague["description"] != character["description"]

    async def others(index):
        return {r["target"] for r in await index.graph_relations("Rosa")}

    assert "Ana" in _run(_with_index(settings, "creative", others))
    assert _run(_with_index(settings, "administrative", others)) == {"2026-02-10 payroll call"}


def test_a_query_naming_an_entity_reaches_its_chunks_through_the_graph(graph_index):
    settings, _ = graph_index
    payroll = _chunk_ids(settings, "administrative", PAYROLL)

    async def search(index):
        return (
            [h.chunk_id for h in await index.search("What did Rosa go through with me?", 3, graph=True)],
            [h.chunk_id for h in await index.search("What did Rosa go through with me?", 3, graph=False)],
        )

    with_graph, without = _run(_with_index(settings, "administrative", search))
    assert payroll & set(with_graph), "the payroll call names Rosa only in its frontmatter: the graph reaches it"
    assert len(with_graph) == len(without) == 3  # the same number of candidates either way
    assert set(with_graph) <= _chunk_ids(settings, "administrative")


def test_chunks_reached_through_a_named_entity_rank_high(graph_index):
    """The payroll call names Rosa only in its frontmatter: embedding similarity and BM25
    rank it low; graph reach in the fused ranking brings it up."""
    from lucasrag_query import QueryOptions, query

    settings, _ = graph_index
    text = "What did Rosa go through with me?"
    with_graph = query(text, workspaces=["administrative"], settings=settings)
    without = query(text, workspaces=["administrative"], settings=settings, options=QueryOptions(graph=False))
    ranks = [[r.path for r in result.results].index(PAYROLL) + 1 for result in (with_graph, without)]
    assert ranks[0] < ranks[1], ranks
    assert "entity-graph reach" in with_graph.reranker_note


def test_a_workspace_restricted_query_never_reaches_another_workspace(graph_index):
    from lucasrag_query import query

    settings, _ = graph_index
    creative = _chunk_ids(settings, "creative")
    result = query("Rosa", workspaces=["administrative"], settings=settings)
    assert result.results and {r.workspace for r in result.results} == {"administrative"}
    assert not {r.chunk_id for r in result.results} & creative
    assert _chunk_ids(settings, "administrative", PAYROLL) & {r.chunk_id for r in result.results}
    result = query("Rosa", workspaces=["creative"], settings=settings)
    assert {r.workspace for r in result.results} == {"creative"}
    assert CHARACTERS in {r.path for r in result.results}
    assert PAYROLL not in {r.path for r in result.results}


def test_graph_command_shows_entities_relations_and_supporting_notes(graph_vault, monkeypatch):
    from typer.testing import CliRunner

    from lucasrag_cli import app

    settings, _ = graph_vault
    monkeypatch.setenv("LUCASRAG_VAULT", str(settings.vault))
    monkeypatch.setenv("LUCASRAG_DATA", str(settings.data))
    runner = CliRunner()
    result = runner.invoke(app, ["graph", "administrative", "--entity", "Rosa", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["entity"]["type"] == "person"
    assert [n["path"] for n in report["entity"]["notes"]] == [PAYROLL]
    assert report["entity_relations"][0]["other"] == "2026-02-10 payroll call"
    listing = runner.invoke(app, ["graph", "creative", "--json"])
    assert listing.exit_code == 0
    assert "Ana" in {e["name"] for e in json.loads(listing.output)["top"]}
    missing = runner.invoke(app, ["graph", "creative", "--entity", "Nobody At All"])
    assert missing.exit_code == 1 and "no entity named" in missing.output
    assert runner.invoke(app, ["graph", "nowhere"]).exit_code == 2


def test_charged_text_is_withheld_from_the_graph_command(graph_vault, monkeypatch):
    from typer.testing import CliRunner

    from lucasrag_cli import app

    settings, _ = graph_vault
    monkeypatch.setenv("LUCASRAG_VAULT", str(settings.vault))
    monkeypatch.setenv("LUCASRAG_DATA", str(settings.data))
    # "Tiger Inn" appears only in the note about Grandad's funeral (charged: Grandad Tom)
    result = CliRunner().invoke(app, ["graph", "personal", "--entity", "Tiger Inn", "--json"])
    report = json.loads(result.output)["entity"]
    assert isinstance(report["description"], str) and "withheld" in report["description"]
    assert "Grandad Tom" in report["notes"][0]["deferred"]
    bridged = CliRunner().invoke(app, ["graph", "personal", "--entity", "Tiger Inn", "--json", "--bridge", "grandad"])
    assert any("Tiger Inn" in d for d in json.loads(bridged.output)["entity"]["description"])


@pytest.mark.parametrize("name", ["Rosa", "#payroll"])
def test_entities_of_the_payroll_call_are_reachable_by_name(graph_index, name):
    settings, _ = graph_index
    entity = _entity(settings, "administrative", name)
    assert entity and _paths(settings, "administrative", entity["chunk_ids"]) == {PAYROLL}


FERRY = "personal/2026-01-06 ferry.md"
FERRY_NOTE = """---
date: 2026-01-06
workspace: personal
---
Took the ferry from Lisbon to Cacilhas for lunch; grilled fish by the water.

Walked back along the river in the dark, Lisbon lit up across the Tagus.
"""


def test_incremental_ingest_keeps_the_graph_exact(graph_vault, fresh_vault, monkeypatch, tmp_path):
    """Deleted and edited notes leave the graph; unchanged ones cost no embedding.

    Only notes this module added are edited or deleted: LightRAG shares its in-memory
    key-value rows between data folders of one process (see test_graph_llm.py), and
    the session's sample-vault index must keep its own."""
    from lucasrag_assets.ingest import run_ingest

    source, _ = graph_vault
    settings = replace(fresh_vault, graph=True)
    shutil.rmtree(settings.vault)
    shutil.copytree(source.vault, settings.vault)
    shutil.copytree(source.data, settings.data)  # the warm index and embedding cache
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))

    unchanged = run_ingest(settings)
    for ws in WORKSPACES:
        assert unchanged.index_metadata[ws]["graph_texts_embedded"] == 0
        assert unchanged.index_metadata[ws]["graph_entities"] > 0
    lisbon_before = _entity(settings, "personal", "Lisbon")
    (settings.vault / FERRY).write_text(FERRY_NOTE)
    added = run_ingest(settings)
    assert added.index_metadata["personal"]["documents_added"] == 1
    lisbon_added = _entity(settings, "personal", "Lisbon")
    assert set(lisbon_added["chunk_ids"]) > set(lisbon_before["chunk_ids"])
    assert _entity(settings, "personal", "Cacilhas") is not None

    (settings.vault / PAYROLL).unlink()  # the colleague's only note
    # the ferry note loses its first paragraph: Cacilhas goes, Lisbon stays on the second
    (settings.vault / FERRY).write_text(
        FERRY_NOTE.replace("Took the ferry from Lisbon to Cacilhas for lunch; grilled fish by the water.\n\n", "")
    )
    summary = run_ingest(settings)

    assert _entity(settings, "administrative", "Rosa") is None
    assert _entity(settings, "administrative", "#payroll") is None
    assert _entity(settings, "creative", "Rosa") is not None  # the character is untouched
    assert _entity(settings, "personal", "Cacilhas") is None
    lisbon = _entity(settings, "personal", "Lisbon")
    assert (
        set(lisbon_before["chunk_ids"])
        < set(lisbon["chunk_ids"])
        < set(lisbon_added["chunk_ids"]) | set(_chunk_ids(settings, "personal", FERRY))
    )
    assert _paths(settings, "personal", lisbon["chunk_ids"]) >= {FERRY}
    assert summary.index_metadata["administrative"]["graph_entities_removed"] > 0
    assert summary.index_metadata["personal"]["graph_entities_removed"] > 0
    for ws in WORKSPACES:
        counts = check_graph_invariants(settings, ws)
        assert counts == (summary.index_metadata[ws]["graph_entities"], summary.index_metadata[ws]["graph_relations"])


def test_graph_off_writes_no_graph_and_searches_by_vector(fresh_vault, monkeypatch, tmp_path):
    from dataclasses import replace

    from lucasrag.embedding_cache import EmbeddingCache
    from lucasrag.index import sync_workspace
    from lucasrag.vocabulary import ChunkRecord

    settings = replace(fresh_vault, graph=False)
    rec = ChunkRecord(
        "chunk-x1",
        "doc-x",
        "creative",
        "writing/x.md",
        0,
        "Rosa steered the boat past the reef.",
        "present",
        "default",
        "2026-01-01",
        (),
        "h",
    )
    cache = EmbeddingCache(settings.data / "embeddings.sqlite")
    try:
        report = _run(sync_workspace(settings, "creative", [rec], {"doc-x": rec.text}, cache))
    finally:
        cache.close()
    assert (report.graph_entities, report.graph_relations, report.graph_texts_embedded) == (0, 0, 0)

    async def search(index):
        return [(h.chunk_id, h.graph) for h in await index.search("Rosa", 5)]

    assert _run(_with_index(settings, "creative", search)) == [("chunk-x1", False)]


@pytest.mark.production
def test_deleting_a_note_on_production_removes_what_only_it_supported(production_graph, tmp_path, ingest_at):
    """Neo4j left exact by an incremental delete. Runs last: it changes the module's production vault."""
    settings, _ = production_graph
    before = {ws: check_graph_invariants(settings, ws) for ws in WORKSPACES}
    (settings.vault / PAYROLL).unlink()  # the colleague's only note
    summary = ingest_at(settings, tmp_path / "dagster")
    assert _entity(settings, "administrative", "Rosa") is None
    assert _entity(settings, "administrative", "#payroll") is None
    assert _entity(settings, "creative", "Rosa") is not None  # the character is untouched
    assert summary.index_metadata["administrative"]["graph_entities_removed"] > 0
    for ws in WORKSPACES:
        counts = check_graph_invariants(settings, ws)
        assert counts == (summary.index_metadata[ws]["graph_entities"], summary.index_metadata[ws]["graph_relations"])
        if ws != "administrative":
            assert counts == before[ws], ws
