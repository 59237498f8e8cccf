"""On PostgreSQL each workspace's keywords have a GIN index of their own (a partial index), and a keyword search
of one workspace is planned on it, after psycopg has started preparing the statement too: with one index over
every workspace's rows, a search found every workspace's matches and intersected them with a bitmap of the
workspace's rows. A database of an earlier version loses the index over every workspace at its first open. A
large workspace's common terms rank the matches without selecting them (lucasrag.lexical.distinctive_terms)."""

from __future__ import annotations

import psycopg
import pytest

from lucasrag import lexical
from lucasrag.index import pg_tables
from lucasrag.index.chunk_store_pg import CHUNKS_TABLE, KEYWORD_SEARCH, MISSING_TERMS, PostgresChunkStore
from lucasrag.vocabulary import WORKSPACES

pytestmark = pytest.mark.production


def _gin_indexes(db) -> dict[str, str]:
    rows = db.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexdef ILIKE %s",
        (CHUNKS_TABLE, "%using gin%"),
    ).fetchall()
    return dict(rows)


def _fill(settings, unit_vectors, present_chunks) -> None:
    texts = {
        # many rows without the words: the planner then prefers the keyword index to reading the workspace's rows
        "personal": ["the harbour walk at dawn", "a walk to the bakery", "bread and harbour fog"]
        + [f"nothing here {i}" for i in range(400)],
        "technical": ["harbour config for the router", "router firmware notes"],
    }
    for workspace, chunk_texts in texts.items():
        store = PostgresChunkStore(settings, workspace)
        try:
            store.add_chunks(present_chunks(workspace, chunk_texts), unit_vectors(len(chunk_texts)))
        finally:
            store.close()


def test_each_workspace_has_its_own_keyword_index_and_a_search_uses_it(fresh_pg_settings, unit_vectors, present_chunks):
    settings = fresh_pg_settings
    _fill(settings, unit_vectors, present_chunks)
    store = PostgresChunkStore(settings, "personal")
    try:
        indexes = _gin_indexes(store._db)
        assert set(indexes) == {f"{CHUNKS_TABLE}_terms_{ws}" for ws in WORKSPACES}, indexes
        for ws in WORKSPACES:
            assert f"WHERE (workspace = '{ws}'::text)" in indexes[f"{CHUNKS_TABLE}_terms_{ws}"]

        # past psycopg's prepare threshold (5 runs) the statement is planned with its values still
        for _ in range(8):
            found = store.keyword_search(["harbour", "walk"], 10)
            assert found[0] == "personal-c0"  # both words
            assert set(found) == {"personal-c0", "personal-c1", "personal-c2"}  # the technical match is not its
        store._db.execute(f"ANALYZE {CHUNKS_TABLE}")
        plan = "\n".join(
            r[0]
            for r in store._db.execute(
                "EXPLAIN " + KEYWORD_SEARCH, ("harbour | walk", "harbour | walk", "personal", 10)
            )
        )
        assert f"Bitmap Index Scan on {CHUNKS_TABLE}_terms_personal" in plan, plan
        assert store._db.execute("SHOW plan_cache_mode").fetchone()[0] == "force_custom_plan"
    finally:
        store.close()


def test_an_earlier_databases_index_over_every_workspace_goes_at_the_first_open(
    fresh_pg_settings, unit_vectors, present_chunks
):
    settings = fresh_pg_settings
    _fill(settings, unit_vectors, present_chunks)
    with psycopg.connect(settings.postgres_dsn, autocommit=True) as db:
        for ws in WORKSPACES:
            db.execute(f"DROP INDEX {CHUNKS_TABLE}_terms_{ws}")
        db.execute(f"CREATE INDEX {CHUNKS_TABLE}_terms ON {CHUNKS_TABLE} USING gin (terms)")
        assert set(_gin_indexes(db)) == {f"{CHUNKS_TABLE}_terms"}

    pg_tables._ready.discard(settings.postgres_dsn)  # as a new process would: the schema is made once per process
    store = PostgresChunkStore(settings, "technical")
    try:
        assert set(_gin_indexes(store._db)) == {f"{CHUNKS_TABLE}_terms_{ws}" for ws in WORKSPACES}
        assert set(store.keyword_search(["router"], 5)) == {"technical-c0", "technical-c1"}
    finally:
        store.close()


def test_a_common_term_ranks_the_matches_but_does_not_select_them(
    fresh_pg_settings, unit_vectors, present_chunks, monkeypatch
):
    texts = ["harbour walk", "harbour", "walk in the rain", "walk to work", "walk home"] + [
        f"nothing here {i}" for i in range(15)
    ]
    store = PostgresChunkStore(fresh_pg_settings, "personal")
    try:
        store.add_chunks(present_chunks("personal", texts), unit_vectors(len(texts)))
        everything = store.keyword_search(["harbour", "walk"], 10)
        assert everything[0] == "personal-c0" and len(everything) == 5  # a small workspace: every match
        # "walk" in 4 of 20 chunks: common once the share and floor are below it
        monkeypatch.setattr(lexical, "COMMON_TERM_SHARE", 0.15)
        monkeypatch.setattr(lexical, "COMMON_TERM_MIN", 3)
        assert store.keyword_search(["harbour", "walk"], 10) == ["personal-c0", "personal-c1"]  # ranked by both
        assert store.keyword_search(["walk"], 10) == everything[:1] + ["personal-c2", "personal-c3", "personal-c4"]
    finally:
        store.close()


def test_rows_without_keywords_are_found_through_an_index_of_their_own(fresh_pg_settings, unit_vectors, present_chunks):
    """Every opening of a store looks for rows written before the keyword index: not by reading every row."""
    _fill(fresh_pg_settings, unit_vectors, present_chunks)
    store = PostgresChunkStore(fresh_pg_settings, "personal")
    try:
        with store._db.transaction():
            store._db.execute("SET LOCAL enable_seqscan = off")  # a table this small is read whole otherwise
            plan = "\n".join(r[0] for r in store._db.execute("EXPLAIN " + MISSING_TERMS, ("personal",)))
        assert f"{CHUNKS_TABLE}_terms_missing" in plan, plan
    finally:
        store.close()
