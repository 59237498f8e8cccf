"""The entity graph on the production profile (Neo4j graph, PostgreSQL vectors): the checks of
tests/test_graph.py run on the sample vault ingested with the graph on, then an incremental
delete that must leave Neo4j exact. Neo4j is cleared first (one database for the session)."""

from __future__ import annotations

import shutil

import pytest
import test_graph as graph_checks

from lucasrag.vocabulary import WORKSPACES

pytestmark = [pytest.mark.slow, pytest.mark.production]


def _ingest(settings, dagster_home):
    from lucasrag_assets.ingest import run_ingest

    mp = pytest.MonkeyPatch()
    mp.setenv("DAGSTER_HOME", str(dagster_home))
    mp.delenv("LUCASRAG_DAGSTER_PG_URL", raising=False)
    try:
        return run_ingest(settings)
    finally:
        mp.undo()


@pytest.fixture(scope="module")
def production_graph(ingested, tmp_path_factory, neo4j_server, production_settings, copy_vault, clean_neo4j):
    """The sample vault plus the payroll call on a fresh database, graph on, vectors from the session cache."""
    root = tmp_path_factory.mktemp("graph-production")
    vault = copy_vault(root / "vault")
    (vault / graph_checks.PAYROLL).write_text(graph_checks.PAYROLL_NOTE)
    (root / "data").mkdir()
    shutil.copy2(ingested.data / "embeddings.sqlite", root / "data" / "embeddings.sqlite")
    settings = production_settings(vault, root / "data", graph=True)
    clean_neo4j(neo4j_server)
    return settings, _ingest(settings, root / "dagster")


def test_ingest_writes_a_graph_per_workspace_in_neo4j(production_graph):
    settings, summary = production_graph
    for ws in WORKSPACES:
        meta = summary.index_metadata[ws]
        assert meta["graph_entities"] > 0 and meta["graph_relations"] > 0, ws
        # counted in Neo4j (Cypher count), checked against every node and edge read back
        assert (meta["graph_entities"], meta["graph_relations"]) == graph_checks.check_graph_invariants(settings, ws)


def test_same_name_in_two_workspaces_is_two_unrelated_nodes(production_graph):
    graph_checks.test_same_name_in_two_workspaces_is_two_unrelated_nodes(production_graph)


def test_a_query_naming_an_entity_reaches_its_chunks_through_the_graph(production_graph):
    graph_checks.test_a_query_naming_an_entity_reaches_its_chunks_through_the_graph(production_graph)


def test_a_workspace_restricted_query_never_reaches_another_workspace(production_graph):
    graph_checks.test_a_workspace_restricted_query_never_reaches_another_workspace(production_graph)


def test_deleting_a_note_removes_what_only_it_supported(production_graph, tmp_path):
    """Runs last: it changes the module's vault."""
    settings, _ = production_graph
    before = {ws: graph_checks.check_graph_invariants(settings, ws) for ws in WORKSPACES}
    (settings.vault / graph_checks.PAYROLL).unlink()  # the colleague's only note
    summary = _ingest(settings, tmp_path / "dagster")
    assert graph_checks._entity(settings, "administrative", "Rosa") is None
    assert graph_checks._entity(settings, "administrative", "#payroll") is None
    assert graph_checks._entity(settings, "creative", "Rosa") is not None  # the character is untouched
    assert summary.index_metadata["administrative"]["graph_entities_removed"] > 0
    for ws in WORKSPACES:
        counts = graph_checks.check_graph_invariants(settings, ws)
        assert counts == (summary.index_metadata[ws]["graph_entities"], summary.index_metadata[ws]["graph_relations"])
        if ws != "administrative":
            assert counts == before[ws], ws
