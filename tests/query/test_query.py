"""The read side on the ingested sample vault: the behaviours the design card names.

The tests that ask for ``profile_ingested`` run on both profiles (embedded, and production:
PostgreSQL + Neo4j, marked ``production``); see tests/profile_fixtures.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lucasrag_query import IndexMissing, QueryError, query

pytestmark = pytest.mark.slow


def pytest_generate_tests(metafunc):
    if "fact" in metafunc.fixturenames:
        import yaml

        # parametrisation happens before fixtures exist: the truth file is read here, by its path
        truth_file = Path(__file__).parents[1] / "fixtures" / "sample_vault_truth.yaml"
        facts = yaml.safe_load(truth_file.read_text())["facts"]
        metafunc.parametrize("fact", facts, ids=[f["query"] for f in facts])


def test_sample_vault_facts(ingested, fact):
    result = query(fact["query"], workspaces=fact.get("workspaces"), bridge=fact.get("bridge") or (), settings=ingested)
    paths = [r.path for r in result.results]
    assert result.archival_open == fact["archival_open"]
    if fact.get("expect_paths"):
        top = paths[:5]
        assert set(top) & set(fact["expect_paths"]), f"none of {fact['expect_paths']} in top 5 {top}"
    assert not set(paths) & set(fact.get("forbid_paths") or []), paths
    if fact.get("expect_text"):
        assert any(fact["expect_text"].lower() in r.text.lower() for r in result.results[:5])
    withheld = {h.subject for h in result.hints if h.kind == "deference"}
    assert set(fact.get("withheld") or []) <= withheld


def test_present_question_prefers_present_notes(profile_ingested):
    result = query("where do I live?", settings=profile_ingested)
    assert not result.archival_open
    assert all(r.band == "present" for r in result.results)
    assert "lisbon" in result.results[0].text.lower() or "lisbon" in result.results[1].text.lower()


def test_year_opens_the_archive(profile_ingested):
    result = query("where did I live in 2013?", settings=profile_ingested)
    assert result.archival_open and "2013" in result.signals
    assert result.results[0].band == "archival"
    assert any("Hyde Park Road" in r.text for r in result.results[:3])


def test_closed_archive_announces_archival_matches_without_text(profile_ingested):
    result = query("where did I live in Leeds?", settings=profile_ingested)
    archive = [h for h in result.hints if h.kind == "archive"]
    assert archive and archive[0].subject is None and archive[0].withheld > 0


def test_charged_subject_withheld_then_bridged(profile_ingested):
    closed = query("how is grandad?", settings=profile_ingested)
    hint = next(h for h in closed.hints if h.subject == "Grandad Tom")
    assert hint.withheld >= 1 and "bridge" in hint.message.lower()
    assert not any("Grandad Tom" in r.text and "miss" in r.text.lower() for r in closed.results)
    bridged = query("how is grandad?", bridge=["grandad"], settings=profile_ingested)  # an alias bridges too
    assert any(r.path == "journal/2025-11-02.md" for r in bridged.results)
    assert not any(h.subject == "Grandad Tom" for h in bridged.hints)


def test_withheld_text_never_appears_anywhere(profile_ingested):
    from lucasrag.index import open_chunk_store
    from lucasrag.vocabulary import WORKSPACES

    charged = []
    for ws in WORKSPACES:
        store = open_chunk_store(profile_ingested, ws)
        charged += [r for r in store.all_records() if r.charged and r.band == "present"]
        store.close()
    assert charged
    probes = ["how is grandad?", "Maya", "what happened with Maya?", "funeral", "who do I miss?", "grief", "Lisbon"]
    for text in probes:
        dumped = json.dumps(query(text, settings=profile_ingested).to_dict())
        for record in charged:
            sentence = record.text.strip()[:60]
            assert sentence not in dumped, (text, record.path)


def test_workspace_restriction(profile_ingested):
    result = query("grandad's pocket watch", workspaces=["administrative"], settings=profile_ingested)
    assert result.results and {r.workspace for r in result.results} == {"administrative"}


def test_result_json_shape(profile_ingested):
    data = query("what is my cat called?", top_k=3, settings=profile_ingested).to_dict()
    assert set(data) >= {"query", "results", "hints", "temporal", "reranker"}
    assert data["reranker"] == "embedding-similarity"
    assert len(data["results"]) == 3 and [r["rank"] for r in data["results"]] == [1, 2, 3]
    assert set(data["results"][0]) == {"rank", "chunk_id", "workspace", "path", "band", "date", "score", "text"}
    # §3.9's keys, with the per-signal decisions beside them
    assert set(data["temporal"]) == {"archival_open", "signals", "archive", "details"}
    assert data["temporal"] == {"archival_open": False, "signals": [], "archive": "closed", "details": []}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"text": "  "}, QueryError),
        ({"text": "x", "workspaces": ["kitchen"]}, QueryError),
        ({"text": "x", "top_k": 0}, QueryError),
    ],
    ids=["empty", "unknown-workspace", "zero-top-k"],
)
def test_bad_queries_are_rejected(ingested, kwargs, error):
    with pytest.raises(error):
        query(settings=ingested, **kwargs)


def test_missing_index_is_a_clear_error(tmp_path, settings_for):
    with pytest.raises(IndexMissing, match="lucasrag ingest"):
        query("anything", settings=settings_for(tmp_path / "vault", tmp_path / "nothing"))


def test_keyword_match_puts_exact_names_first(profile_ingested):
    """A street name embeds like any other phrase; BM25 in the fusion finds the notes that say it."""
    result = query("Rua das Flores", settings=profile_ingested)
    assert all("Rua das Flores" in r.text for r in result.results[:2]), [r.path for r in result.results[:3]]
    assert result.reranker == "embedding-similarity" and "keyword match (BM25)" in result.reranker_note
