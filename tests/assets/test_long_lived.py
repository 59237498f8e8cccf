"""A process that ingests again and again (``lucasrag watch``, ``mcp --watch``) warms every workspace after its
first ingest: the documents' fingerprints and the LightRAG graph its next sync would otherwise make first."""

from __future__ import annotations

from lucasrag.index import index_exists, open_chunk_store
from lucasrag.index._lightrag import _sqlite_graph
from lucasrag.index.sync import graph_mode
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets import long_lived
from lucasrag_assets.assets import indexes
from lucasrag_assets.ingest import run_ingest
from lucasrag_assets.io_manager import stored_value


def _files(settings) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in sorted(settings.index_dir.rglob("*")) if p.is_file()}


#: One note in each workspace, each declaring it.
NOTES = {
    "journal/2026-05-01 tram.md": "---\ndate: 2026-05-01\nworkspace: personal\n---\nRode tram 28 to Graça with Ellie.\n",
    "tech/vacuum.md": "---\nworkspace: technical\n---\n# Postgres vacuum\n\nautovacuum_naptime is 15s on the NAS.\n",
    "admin/lease.md": "---\nworkspace: administrative\n---\n# Lease\n\nThe Lisbon lease renews in January.\n",
    "writing/haiku.md": "---\nworkspace: creative\n---\nrain on the tram tracks\nthe city hums\n",
}


def test_a_long_lived_writer_warms_every_workspace_once_after_its_first_ingest(
    tmp_path, monkeypatch, notes_vault, settings_for
):
    settings = settings_for(notes_vault(tmp_path / "vault", NOTES), tmp_path / "data")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.setattr(long_lived, "_WARMED", set())
    run_ingest(settings)
    indexed = [ws for ws in WORKSPACES if index_exists(settings, ws)]
    assert indexed == list(WORKSPACES)
    # as a new process whose catch-up found nothing to do: no fingerprint and no graph kept yet
    indexes._FINGERPRINTS.clear()
    _sqlite_graph._KEPT.clear()
    before = _files(settings)

    long_lived.warm_workspaces(settings)

    assert _files(settings) == before  # nothing written
    for ws in indexed:
        kept = indexes._FINGERPRINTS.get((str(settings.data), ws))
        store = open_chunk_store(settings, ws)
        try:  # what the next sync compares with what is indexed: equal, since nothing changed
            assert {doc: fp for doc, (_, _, fp) in kept.items()} == store.doc_fingerprints()
        finally:
            store.close()
    if graph_mode(settings):
        graphs = {folder for folder, _ in _sqlite_graph._KEPT}
        assert graphs == {str(settings.workspace_dir(ws).resolve()) for ws in indexed}

    warmed = []

    def counted(s) -> None:  # warm_workspaces' bookkeeping, without its work
        warmed.append(s)
        long_lived._WARMED.add(str(s.data))

    monkeypatch.setattr(long_lived, "warm_workspaces", counted)
    monkeypatch.setattr(long_lived, "_WARMED", set())
    for _ in range(2):
        long_lived.ingest_kept_warm(settings)
    assert warmed == [settings]  # once per data folder and process


def test_a_long_lived_writer_lists_the_vault_once_then_follows_the_notes_it_is_told_changed(
    tmp_path, monkeypatch, notes_vault, settings_for
):
    """``ingest_kept_warm(settings, changed)`` brings its last listing up to date from ``changed`` instead of
    listing the vault (vault_notes stats only those notes): what it ingests, and the fingerprint it reports, are
    a fresh listing's; a note written without being named is left to the next full listing."""
    from lucasrag import vault_files
    from lucasrag.vault_files import vault_fingerprint
    from lucasrag_assets.assets import notes

    vault = notes_vault(tmp_path / "vault", NOTES)
    settings = settings_for(vault, tmp_path / "data")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.setattr(long_lived, "_LISTINGS", {})
    monkeypatch.setattr(long_lived, "warm_workspaces", lambda s: None)
    listings = []
    for module in (long_lived, notes):  # every full listing, wherever it is made
        real = module.vault_file_stats
        monkeypatch.setattr(module, "vault_file_stats", lambda root, real=real: listings.append(root) or real(root))
    assert vault_files.vault_file_stats is not long_lived.vault_file_stats

    first = long_lived.ingest_kept_warm(settings)
    assert len(listings) == 1 and first.vault_fingerprint == vault_fingerprint(vault)

    (vault / "tech/vacuum.md").write_text("---\nworkspace: technical\n---\n# Postgres vacuum\n\nnaptime 30s.\n")
    (vault / "tech/new.md").write_text("---\nworkspace: technical\n---\n# Backups\n\nrestic every night.\n")
    (vault / "writing/haiku.md").unlink()
    told = long_lived.ingest_kept_warm(settings, frozenset({"tech/vacuum.md", "tech/new.md", "writing/haiku.md"}))
    assert len(listings) == 1  # not listed again
    assert told.vault_fingerprint == vault_fingerprint(vault)
    parsed = _parsed(settings)
    assert "naptime 30s" in parsed["tech/vacuum.md"] and "restic" in parsed["tech/new.md"]
    assert "writing/haiku.md" not in parsed

    (vault / "tech/unnamed.md").write_text("---\nworkspace: technical\n---\nwritten behind the events' back\n")
    untold = long_lived.ingest_kept_warm(settings, frozenset())
    assert untold.vault_fingerprint != vault_fingerprint(vault)  # what the watcher's safety check compares
    assert "tech/unnamed.md" not in _parsed(settings)
    listed = long_lived.ingest_kept_warm(settings, None)
    assert len(listings) == 2 and listed.vault_fingerprint == vault_fingerprint(vault)
    assert "tech/unnamed.md" in _parsed(settings)


def _parsed(settings) -> dict[str, str]:
    """The last run's notes: path → body."""
    frame = stored_value(settings.data, ["vault_notes"])
    return dict(zip(frame["path"], frame["body"], strict=True))
