"""Re-ingest after a change: changed notes are replaced, deleted notes removed, unchanged ones cost nothing
(on both profiles: embedded, and production with PostgreSQL + Neo4j, marked ``production``)."""

from __future__ import annotations

import asyncio

import pytest

from lucasrag.index import open_chunk_store, open_workspace_index
from lucasrag_assets.ingest import run_ingest

pytestmark = pytest.mark.slow

CHANGED = "tech/postgres-vacuum-notes.md"
DELETED = "tech/nginx-cheatsheet.md"
NEW_LINE = "\n\nUpdate: switched autovacuum_naptime to 15s after the zebra-migration incident.\n"


def _records(settings, workspace):
    store = open_chunk_store(settings, workspace)
    try:
        return {r.chunk_id: r for r in store.all_records()}
    finally:
        store.close()


def _in_lightrag(settings, workspace, ids):
    async def check():
        index = await open_workspace_index(settings, workspace)
        try:
            return await index.stored_chunks(ids), await index.stored_vectors(ids)
        finally:
            await index.close()

    return asyncio.run(check())


def test_changed_deleted_and_unchanged_notes(profile_fresh_vault):
    """On both profiles (tests/profile_fixtures.py); the production one starts from a warm embedding cache."""
    settings = profile_fresh_vault
    cold_cache = not (settings.data / "embeddings.sqlite").exists()
    first = run_ingest(settings)
    if cold_cache:
        assert first.index_metadata["technical"]["texts_embedded"] > 0
    before = _records(settings, "technical")
    old_changed = {cid for cid, r in before.items() if r.path == CHANGED}
    old_deleted = {cid for cid, r in before.items() if r.path == DELETED}
    assert old_changed and old_deleted

    untouched = {p: p.read_bytes() for p in settings.vault.rglob("*") if p.is_file()}
    with (settings.vault / CHANGED).open("a", encoding="utf-8") as fh:
        fh.write(NEW_LINE)
    (settings.vault / DELETED).unlink()

    second = run_ingest(settings)
    tech = second.index_metadata["technical"]
    assert (tech["documents_added"], tech["documents_removed"]) == (1, 1)
    assert tech["documents_unchanged"] == first.index_metadata["technical"]["documents"] - 2
    for ws in ("creative", "personal", "administrative"):
        meta = second.index_metadata[ws]
        assert meta["documents_added"] == meta["documents_removed"] == meta["texts_embedded"] == 0

    after = _records(settings, "technical")
    assert not any(r.path == DELETED for r in after.values())
    new_changed = {cid for cid, r in after.items() if r.path == CHANGED}
    assert any("zebra-migration" in after[c].text for c in new_changed)
    texts, vectors = _in_lightrag(settings, "technical", sorted(old_deleted | old_changed | new_changed))
    gone = (old_deleted | old_changed) - new_changed
    assert not gone & set(texts) and not gone & vectors
    assert new_changed <= set(texts) and new_changed <= vectors

    third = run_ingest(settings)
    for ws, meta in third.index_metadata.items():
        assert meta["texts_embedded"] == 0 and meta["documents_added"] == 0 and meta["documents_removed"] == 0, ws
    # Ingest never writes into the vault.
    for path, data in untouched.items():
        if path.exists() and path.relative_to(settings.vault).as_posix() not in (CHANGED, DELETED):
            assert path.read_bytes() == data
