"""``lucasrag migrate --to production|embedded``: rebuild the index on the other profile with this one's vectors."""

from __future__ import annotations

import typer
from rich.table import Table

from lucasrag_cli._console import err, fail, out
from lucasrag_cli._console import settings as _settings


def migrate_command(
    to: str = typer.Option(
        ..., "--to", help="Target profile: production (from embedded) or embedded (from production)."
    ),
) -> None:
    """Rebuild the index on profile TO from the vault, with the other profile's vectors: nothing is re-embedded."""
    from lucasrag.services import ServiceError
    from lucasrag_assets.migrate import migrate
    from lucasrag_cli._progress import RichProgress

    if to not in ("production", "embedded"):
        fail(f"--to {to!r}: expected production or embedded", 2)
    target = _settings(profile=to)
    if not target.vault.is_dir():
        fail(f"vault folder {target.vault} does not exist (set LUCASRAG_VAULT)", 2)
    try:
        with RichProgress(err) as progress:
            result = migrate(target, progress)
    except ServiceError as exc:
        fail(str(exc))
    table = Table(title=f"Migrated {result.source_profile} → {result.target_profile} in {result.ingest.seconds:.1f}s")
    for column in ("workspace", "vectors from source", "documents", "chunks", "texts embedded", "graph texts embedded"):
        table.add_column(column, justify="left" if column == "workspace" else "right")
    for ws, meta in result.ingest.index_metadata.items():
        table.add_row(
            ws,
            str(result.vectors_seeded.get(ws, 0)),
            str(meta.get("documents", 0)),
            str(meta.get("chunks", 0)),
            str(meta.get("texts_embedded", 0)),
            str(meta.get("graph_texts_embedded", 0)),
        )
    out.print(table)
