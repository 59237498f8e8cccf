"""The ingest of a process that ingests again and again (``lucasrag watch``, ``lucasrag mcp --watch``).

Such a process keeps what a change needs between runs: the asset values, the memos, routing's memory, each
workspace's document fingerprints and its LightRAG index's entity graph. The last two are made by a
workspace's first sync in the process, so the first change after the watcher started paid for them — at
100,000 notes ≈ 1 s of fingerprints and ≈ 1.7 s opening LightRAG (its import and the graph) on top of the
change, and again for the first note moved into each other workspace. :func:`ingest_kept_warm` pays for them
once, after the process's first ingest (the watcher's catch-up, before it waits for changes). It also keeps
the vault's listing, brought up to date from the notes the watcher's change events name.
"""

from __future__ import annotations

from pathlib import Path

from lucasrag.data_folder import exclusive_ingest
from lucasrag.index import index_exists
from lucasrag.settings import Settings
from lucasrag.vault_files import Listing, relisted, vault_file_stats
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.assets.indexes import warm_workspace
from lucasrag_assets.assets.notes import listing_given
from lucasrag_assets.ingest import IngestSummary, run_ingest
from lucasrag_assets.io_manager import stored_value

#: Data folders whose workspaces this process has warmed (a process serves one, tests several).
_WARMED: set[str] = set()
#: Each vault's notes as this process last listed them, with their stat (≈ 85 MB at 100,000 notes).
_LISTINGS: dict[Path, Listing] = {}


def ingest_kept_warm(settings: Settings, changed: frozenset[str] | None = None) -> IngestSummary:
    """``run_ingest``, and after the first in this process for the data folder, :func:`warm_workspaces`.
    ``changed``: the vault-relative paths of the notes the file system reported changed since the previous
    call began (``VaultEvents.take``): the vault's listing kept from that call is brought up to date from them
    (``vault_files.relisted``) instead of listing the vault again; None: list it."""
    vault = settings.vault.expanduser().resolve()  # as the run's settings spell it (LucasragSettings.get)
    kept = _LISTINGS.get(vault)
    listing = vault_file_stats(vault) if changed is None or kept is None else relisted(vault, kept, changed)
    _LISTINGS[vault] = listing
    with listing_given(vault, listing):
        summary = run_ingest(settings)
    if str(settings.data) not in _WARMED:
        warm_workspaces(settings)
    return summary


def warm_workspaces(settings: Settings) -> None:
    """Fingerprint every indexed workspace's documents and open its index, as its next sync would (from the
    last run's stored chunks and routing), under the ingest lock; nothing is written."""
    with exclusive_ingest(settings.data):
        chunks = stored_value(settings.data, ["banded_chunks"])
        routed = stored_value(settings.data, ["routed_documents"])
        for workspace in WORKSPACES:
            if index_exists(settings, workspace):
                warm_workspace(settings, chunks, routed, workspace)
    _WARMED.add(str(settings.data))
