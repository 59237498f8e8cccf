"""The ``lucasrag`` command line. Dagster is imported only by the commands that ingest."""

from __future__ import annotations

import json
from pathlib import Path

import typer
import typer.core
from rich.table import Table

from lucasrag.settings import Settings
from lucasrag_cli._collector import tune_for_a_command
from lucasrag_cli._console import err, fail, out
from lucasrag_cli._console import settings as _env_settings

# typer 0.29 prints a type beside every option: `<bool>` beside a flag, which takes no value, is noise.
_type_column = typer.core.TyperOption.display_type_rich
typer.core.TyperOption.display_type_rich = lambda self, ctx: (
    None if self.is_flag and not self.count else _type_column(self, ctx)
)

app = typer.Typer(
    help="LucasRAG: a personal vault as four LightRAG workspaces, with recency, care and governance.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
quarantine_app = typer.Typer(help="Notes the router would not place, awaiting a person.", no_args_is_help=True)
app.add_typer(quarantine_app, name="quarantine")


@app.callback()
def _every_command() -> None:
    tune_for_a_command()  # the collector every command runs with: lucasrag_cli/_collector.py


def _settings(vault: Path | None = None) -> Settings:
    return _env_settings(**({"vault": vault.resolve()} if vault else {}))


@app.command()
def ingest(
    vault: Path | None = typer.Option(None, help="Vault root (default: LUCASRAG_VAULT or ./vault)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List every quarantined, invalid and skipped file."),
    rebuild: list[str] = typer.Option(
        [],
        "--rebuild",
        metavar="WORKSPACE",
        help="Forget this workspace's index first and build it again (repeatable).",
    ),
) -> None:
    """Materialise the whole asset graph for the vault, in process, and print a summary."""
    from lucasrag_cli._progress import RichProgress

    settings = _settings(vault)
    if settings.vault.exists() and not settings.vault.is_dir():
        fail(f"vault {settings.vault} is a file, not a folder: pass the folder that holds your notes", 2)
    if not settings.vault.is_dir():
        fail(f"vault folder {settings.vault} does not exist (set LUCASRAG_VAULT or pass --vault)", 2)
    from lucasrag.index import IndexDamaged
    from lucasrag.services import ServiceError
    from lucasrag.vocabulary import check_workspace
    from lucasrag_assets.ingest import IngestFailed, run_ingest

    try:
        rebuild = [check_workspace(ws) for ws in rebuild]
    except ValueError as exc:
        fail(str(exc), 2)
    try:
        with RichProgress(err) as progress:
            summary = run_ingest(settings, progress, rebuild=rebuild)
    # a server is down or not configured; a workspace's files are damaged; steps failed (each named, the rest ran)
    except (ServiceError, IndexDamaged, IngestFailed) as exc:
        fail(str(exc))
    table = Table(title=f"Ingested {settings.vault} in {summary.seconds:.1f}s")
    for column in ("workspace", "notes", "chunks", "added", "removed", "unchanged", "embedded"):
        table.add_column(column, justify="left" if column == "workspace" else "right")
    for ws, meta in summary.index_metadata.items():
        table.add_row(
            ws,
            str(summary.per_workspace.get(ws, 0)),
            str(meta.get("chunks", 0)),
            str(meta.get("documents_added", 0)),
            str(meta.get("documents_removed", 0)),
            str(meta.get("documents_unchanged", 0)),
            str(meta.get("texts_embedded", 0)),
        )
    out.print(table)
    from lucasrag_cli._ingest_report import print_problems

    print_problems(out, summary, verbose=verbose)
    print_changes(out, summary.changes, first=summary.first, new=summary.new_notes)


@app.command()
def query(
    text: str = typer.Argument(..., help="The question."),
    workspace: list[str] = typer.Option([], "--workspace", "-w", help="Restrict to a workspace (repeatable)."),
    bridge: list[str] = typer.Option(
        [], "--bridge", "-b", help="Deliberately include a deferred subject (repeatable)."
    ),
    top_k: int | None = typer.Option(None, "--top-k", help="How many results (default 25)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    full: bool = typer.Option(False, "--full", help="Print whole passages (default: about 480 characters each)."),
    archive: bool = typer.Option(
        False, "--archive", help="Open the whole archive although the question names no period."
    ),
    after: str | None = typer.Option(
        None, "--after", help="Only notes dated on or after this ISO date or period ('2019', 'April 2024')."
    ),
    before: str | None = typer.Option(
        None, "--before", help="Only notes dated on or before this ISO date or period ('2019', 'April 2024')."
    ),
    folders: list[str] = typer.Option(
        [], "--folders", "--folder", help="Only notes under this vault-relative folder (repeatable)."
    ),
    tags: list[str] = typer.Option([], "--tags", "--tag", help="Only notes with this tag (repeatable)."),
    chunks: bool = typer.Option(False, "--chunks", help="List every passage in its own place (default: one per note)."),
) -> None:
    """Answer a query from the indexes (archive, deference and rerank policies applied)."""
    from lucasrag_query import IndexMissing, QueryError
    from lucasrag_query import query as run_query

    settings = _settings()
    try:
        result = run_query(
            text,
            workspaces=workspace or None,
            bridge=bridge,
            top_k=top_k,
            settings=settings,
            archive=archive,
            after=after,
            before=before,
            folders=folders or None,
            tags=tags or None,
            chunks=chunks,
        )
    except QueryError as exc:
        fail(str(exc), 2)
    except IndexMissing as exc:
        fail(str(exc), 1)
    except RuntimeError as exc:  # ServiceError names the server and its setting; IndexDamaged the file and the fix
        from lucasrag.index import IndexDamaged
        from lucasrag.services import ServiceError

        if not isinstance(exc, (ServiceError, IndexDamaged)):
            raise
        fail(str(exc), 1)
    if as_json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return
    from lucasrag_cli._render import render_query

    render_query(out, result, full=full)


@quarantine_app.command("list")
def quarantine_list(as_json: bool = typer.Option(False, "--json", help="Print rows as JSON.")) -> None:
    """Quarantined notes with their best suggestion and reason."""
    import polars as pl

    from lucasrag.catalog import CatalogMissing, read_catalog

    try:
        frame = read_catalog(_settings())
    except CatalogMissing as exc:
        fail(str(exc))
    settings = _settings()
    rows = (
        frame.filter(pl.col("status") == "quarantined")
        .select("path", "suggestion", "confidence", "date", "reason")
        .to_dicts()
    )
    for row in rows:  # approved since the last ingest: say so rather than list it as pending
        row["approved_workspace"] = _approved_workspace(settings, row["path"])
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    from lucasrag_cli._render import render_rows

    render_rows(out, "Quarantine", rows)


def _approved_workspace(settings: Settings, path: str) -> str | None:
    from lucasrag_assets.rules.vault_scan import parse_note

    note_path = settings.vault / path
    if not note_path.is_file():
        return None
    return parse_note(settings.vault, note_path, max_bytes=settings.max_note_bytes).workspace


@app.command()
def recent(
    days: int = typer.Option(7, "--days", help="How many days back, today included."),
    workspace: list[str] = typer.Option([], "--workspace", "-w", help="Restrict to a workspace (repeatable)."),
    bridge: list[str] = typer.Option(
        [], "--bridge", "-b", help="Deliberately include a deferred subject (repeatable)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Notes written or changed in the last N days (their own date or updated: property), newest first."""
    from lucasrag_query.recent import RecentError
    from lucasrag_query.recent import recent as recent_notes

    try:
        result = recent_notes(days, workspaces=workspace or None, bridge=bridge, settings=_settings())
    except RecentError as exc:
        fail(str(exc), 2)
    if as_json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return
    table = Table(title=f"Written or changed since {result.since} ({result.days} days)")
    for column in ("changed", "path", "workspace"):
        table.add_column(column)
    for note in result.notes:
        table.add_row(note.changed, note.path, note.workspace)
    out.print(table)
    for hint in result.hints:
        out.print(f"hint: {hint.message}", highlight=False)


# Governance: notes [--changed], quarantine approve [--folder], route PATH / route suggest (route.py).
from lucasrag_cli.route import notes_command, print_changes, quarantine_approve_command, route_app  # noqa: E402

app.command("notes")(notes_command)
quarantine_app.command("approve")(quarantine_approve_command)
app.add_typer(route_app, name="route")

# Copying an index between the embedded and the production profile.
from lucasrag_cli.migrate import migrate_command  # noqa: E402

app.command("migrate")(migrate_command)

# Care review: inferred charged subjects, confirmed or dismissed by a person.
from lucasrag_cli.care import care_app  # noqa: E402

app.add_typer(care_app, name="care")

# The entity graph of a workspace.
from lucasrag_cli.graph import graph_command  # noqa: E402

app.command("graph")(graph_command)

# Private notes: which they are, and proof that they left no trace.
from lucasrag_cli.private import app as private_app  # noqa: E402

app.add_typer(private_app, name="private")

# Assistants over MCP, and re-ingest on change without Dagster (mcp.py).
from lucasrag_cli.mcp import mcp_command, watch_command  # noqa: E402

app.command("mcp")(mcp_command)
app.command("watch")(watch_command)

# Plugins add commands (the lab's eval, services and reranker: lucasrag[harness]), as simonw/llm's do.
from lucasrag_cli.plugins import load_plugins  # noqa: E402

load_plugins(app)

if __name__ == "__main__":  # pragma: no cover
    app()
