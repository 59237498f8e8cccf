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


# --- A one-note change redoes one note and gives what a clean build gives ---------------------------------

#: The assets whose rows must not depend on what the memos held: routing verdicts, chunk rows with their
#: band and care verdicts, the catalogue. (The index steps only store these rows.)
PER_NOTE_ASSETS = ("routed_documents", "quarantine", "banded_chunks", "note_catalog")
LABELLED = "journal/2026-05-01 allotment.md"
CHARGED = "journal/2024-05-12.md"


def _append(path, text):
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)


def _retag(path):
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("tags: [lease, lisbon, housing]", "tags: [lease, lisbon, housing, kubernetes]"))


def _label(vault):
    (vault / LABELLED).write_text(
        "---\nworkspace: technical\n---\n# Allotment\n\nPlanted the broad beans, fixed the shed door and "
        "watered the tomatoes before the rain; the compost bin needs turning next weekend.\n",
        encoding="utf-8",
    )


def _defer(vault):
    _append(vault / ".lucasrag/deference.yaml", "  - name: Lisbon\n    aliases: [lisboa]\n")


def _dismiss(vault):
    """A person's care decision: the note is released for Grandad Tom (its key's dismissals, and an example
    of a neutral reference to him for every other note)."""
    (vault / ".lucasrag/care_decisions.yaml").write_text(
        "dismissed:\n- path: journal/2025-11-02.md\n  subject: Grandad Tom\n", encoding="utf-8"
    )


def _charge(vault):
    path = vault / CHARGED
    text = path.read_text(encoding="utf-8")
    body = text.split("---\n", 2)[2] if text.startswith("---\n") else text
    path.write_text("---\ncharged: [Maya]\n---\n" + body + "\nMaya called; we talked about it for an hour.\n")


#: change kind → (what it does to the vault, notes chunked afresh: "one" note or "all" of them)
CHANGE_KINDS = {
    "edit body": (lambda v: _append(v / CHANGED, NEW_LINE), "one"),
    "edit frontmatter tags": (lambda v: _retag(v / "admin/lease/2024-01-28 lisbon lease.md"), "one"),
    "add a labelled note (routing's self-training)": (_label, None),
    "edit the deference list": (_defer, "all"),
    "mark a note charged (a person's decision for that note only)": (_charge, "one"),
    "dismiss a care subject for one note (it teaches the release step)": (_dismiss, "notes naming the subject"),
    "delete a note": (lambda v: (v / DELETED).unlink(), 0),
}


def _materialise(settings):
    """The per-note assets (not the index steps), as the ingest job materialises them."""
    from dagster import materialize

    from lucasrag_assets.assets.catalog import note_catalog
    from lucasrag_assets.assets.chunks import banded_chunks
    from lucasrag_assets.assets.notes import vault_notes
    from lucasrag_assets.assets.routing import route_notes
    from lucasrag_assets.io_manager import data_folder_io_manager
    from lucasrag_assets.resources import LucasragSettings

    result = materialize(
        [vault_notes, route_notes, banded_chunks, note_catalog],
        resources={"lucasrag": LucasragSettings.from_settings(settings), "io_manager": data_folder_io_manager},
    )
    assert result.success
    return {
        key.to_user_string(): m.metadata
        for key, m in (
            (e.asset_key, e.step_materialization_data.materialization)
            for e in result.get_asset_materialization_events()
        )
    }


def _values(settings):
    import polars as pl

    from lucasrag_assets.io_manager import asset_value_path

    return {name: pl.read_parquet(asset_value_path(settings.data, [name])) for name in PER_NOTE_ASSETS}


@pytest.fixture(scope="module")
def memo_warm(tmp_path_factory, copy_vault, settings_for):
    """The sample vault with its per-note assets materialised once (every memo written)."""
    root = tmp_path_factory.mktemp("memo-warm")
    settings = settings_for(copy_vault(root / "vault"), root / "data")
    _materialise(settings)
    return settings


@pytest.mark.parametrize("kind", list(CHANGE_KINDS))
def test_incremental_run_equals_a_clean_build(kind, memo_warm, tmp_path, settings_for):
    """After each kind of change, a run that reuses the memos gives the same routing verdicts, chunk rows
    (band, care) and catalogue as a build of the changed vault from an empty data folder."""
    import shutil

    change, afresh = CHANGE_KINDS[kind]
    vault, data = tmp_path / "vault", tmp_path / "data"
    shutil.copytree(memo_warm.vault, vault, symlinks=True)  # copy2: mtimes kept, the scan memo holds
    shutil.copytree(memo_warm.data, data, symlinks=True)
    incremental = settings_for(vault, data)
    change(vault)
    metadata = _materialise(incremental)

    clean = settings_for(tmp_path / "clean-vault", tmp_path / "clean-data")
    shutil.copytree(vault, clean.vault, symlinks=True)
    _materialise(clean)
    got, want = _values(incremental), _values(clean)
    for name in PER_NOTE_ASSETS:
        assert got[name].equals(want[name]), f"{kind}: {name} differs from a clean build"
    # the chunk texts kept for the next run: the changed notes' added to the last run's, the others' dropped
    from lucasrag_assets.memo import load_memo

    kept, built = (load_memo(s, "chunk_texts").sort("key") for s in (incremental, clean))
    assert kept.equals(built), f"{kind}: the chunk texts kept differ from a clean build's"

    chunked = metadata["banded_chunks"]["notes_chunked_afresh"].value
    routed = want["routed_documents"].height
    if afresh == "one":
        assert chunked == 1 and metadata["routed_documents"]["evidence_read_afresh"].value == 1
    elif afresh == "all":
        assert chunked == routed
    elif afresh == "notes naming the subject":  # what a release teaches reaches those notes, and only those
        import polars as pl

        fields = [pl.col("title").fill_null(""), "path", pl.col("aliases").list.join(" ").fill_null("")]
        fields += [pl.col("tags").list.join(" ").fill_null(""), pl.col("properties").fill_null(""), "body"]
        naming = want["routed_documents"].filter(pl.concat_str(fields).str.contains("(?i)grandad|grandpa tom"))
        assert 1 < chunked == naming.height < routed
        assert metadata["routed_documents"]["evidence_read_afresh"].value == 0
    elif afresh == "one note's chunks":  # its routing evidence did not change
        assert chunked == 1 and metadata["routed_documents"]["evidence_read_afresh"].value == 0
    elif afresh == 0:
        assert chunked == 0


def test_the_next_run_remembers_the_routing_in_the_same_process_and_in_a_fresh_one(
    memo_warm, tmp_path, settings_for, monkeypatch
):
    """A writer's next run routes only what changed (rules/routing/remembered.py): nothing changed, nothing
    rescored, and the same values as the run before — in a long-lived process (its own memory) and in a fresh
    one (the file the last run wrote, lucasrag_assets/routing_memory.py)."""
    import shutil

    from lucasrag.file_memo import KeptByIdentity
    from lucasrag_assets import routing_memory

    vault, data = tmp_path / "vault", tmp_path / "data"
    shutil.copytree(memo_warm.vault, vault, symlinks=True)
    shutil.copytree(memo_warm.data, data, symlinks=True)
    routing_memory.memory_path(data).unlink()  # as if no run had written one
    settings = settings_for(vault, data)
    first = _materialise(settings)["routed_documents"]
    assert first["routing_pass"].value == "full: nothing remembered"
    assert routing_memory.memory_path(data).is_file()
    before = _values(settings)

    def remembered(metadata):
        return (metadata["routing_pass"].value, metadata["rescored"].value, metadata["evidence_read_afresh"].value)

    stamp = routing_memory.memory_path(data).stat().st_mtime_ns
    assert remembered(_materialise(settings)["routed_documents"]) == ("remembered", 0, 0)
    assert routing_memory.memory_path(data).stat().st_mtime_ns == stamp  # nothing new to write
    monkeypatch.setattr(routing_memory, "_kept", KeptByIdentity(limit=2))  # a fresh process: only the file
    assert remembered(_materialise(settings)["routed_documents"]) == ("remembered", 0, 0)
    after = _values(settings)
    assert all(after[name].equals(before[name]) for name in PER_NOTE_ASSETS)

    # a note edited: a fresh process reads that note's inputs only, and gives a clean build's values
    monkeypatch.setattr(routing_memory, "_kept", KeptByIdentity(limit=2))
    _append(vault / CHANGED, NEW_LINE)
    edited = _materialise(settings)["routed_documents"]
    assert edited["evidence_read_afresh"].value == 1 and edited["routing_pass"].value != "full: nothing remembered"
    clean = settings_for(tmp_path / "clean-vault", tmp_path / "clean-data")
    shutil.copytree(vault, clean.vault, symlinks=True)
    _materialise(clean)
    assert _values(settings)["routed_documents"].equals(_values(clean)["routed_documents"])
