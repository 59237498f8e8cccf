"""``lucasrag mcp`` and ``lucasrag watch``: serving assistants, and keeping the indexes fresh without Dagster."""

from __future__ import annotations

import sys

import typer

from lucasrag.settings import Settings
from lucasrag_cli._console import fail, settings

#: The options ``mcp --watch`` and ``watch`` share.
_DEBOUNCE = typer.Option(2.0, "--debounce", help="Seconds the vault must stay unchanged before re-ingest.")
_POLL = typer.Option(
    False, "--poll", help="Check the vault every second instead of waiting for the file system's change events."
)


def _settings(watch: bool = False) -> Settings:
    """Errors go to stderr (``fail``): over stdio, stdout belongs to the protocol."""
    found = settings()
    if watch and not found.vault.is_dir():
        fail(f"vault folder {found.vault} does not exist (set LUCASRAG_VAULT)", 2)
    return found


def mcp_command(
    http: bool = typer.Option(False, "--http", help="Streamable HTTP on 127.0.0.1 (bearer token) instead of stdio."),
    port: int = typer.Option(8765, "--port", help="HTTP port."),
    watch: bool = typer.Option(False, "--watch", help="Re-ingest when the vault changes (debounced)."),
    debounce: float = _DEBOUNCE,
    poll: bool = _POLL,
) -> None:
    """Serve the indexes to assistants over the Model Context Protocol (read-only tools: search, read_note, status)."""
    from lucasrag_query.mcp import serve

    found = _settings(watch)
    if not watch:
        serve(found, http=http, port=port)
        return
    from lucasrag.vault_watch import IngestProcess
    from lucasrag_assets.long_lived import ingest_kept_warm

    # In a child process: this one answers queries, and LightRAG's storage locks are per process.
    with IngestProcess(ingest_kept_warm) as reingest:
        serve(found, http=http, port=port, reingest=reingest, debounce_s=debounce, events=not poll)


def watch_command(
    debounce: float = _DEBOUNCE,
    poll: bool = _POLL,
) -> None:
    """Re-ingest whenever the vault changes (the vault sensor's fingerprint, checked on the file system's change
    events, debounced) until Ctrl-C."""
    from lucasrag.vault_watch import VaultWatcher
    from lucasrag_assets.long_lived import ingest_kept_warm

    watcher = VaultWatcher(
        _settings(watch=True),
        ingest_kept_warm,
        debounce_s=debounce,
        log=lambda m: print(m, file=sys.stderr),
        events=not poll,
    )
    try:
        watcher.run()
    except KeyboardInterrupt:
        pass
