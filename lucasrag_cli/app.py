"""The ``lucasrag`` command line. Dagster is imported only by the commands that ingest."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from lucasrag.settings import Settings
from lucasrag_cli._console import err, fail, out
from lucasrag_cli._console import settings as _env_settings

app = typer.Typer(
    help="LucasRAG: a personal vault as four LightRAG workspaces, with recency, care and governance.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
quarantine_app = typer.Typer(help="Notes the router would not place, awaiting a person.", no_args_is_help=True)
app.add_typer(quarantine_app, name="quarantine")
reranker_app = typer.Typer(help="A local llama.cpp reranker server.", no_args_is_help=True)
app.add_typer(reranker_app, name="reranker")
eval_app = typer.Typer(help="Evaluations: retrieval quality and policy behaviour.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")


def _settings(vault: Path | None = None) -> Settings:
    return _env_settings(**({"vault": vault.resolve()} if vault else {}))


@app.command()
def ingest(vault: Path | None = typer.Option(None, help="Vault root (default: LUCASRAG_VAULT or ./vault).")) -> None:
    """Materialise the whole asset graph for the vault, in process, and print a summary."""
    from lucasrag_cli._progress import RichProgress

    settings = _settings(vault)
    if not settings.vault.is_dir():
        fail(f"vault folder {settings.vault} does not exist (set LUCASRAG_VAULT or pass --vault)", 2)
    from lucasrag.services import ServiceError
    from lucasrag_assets.ingest import run_ingest

    try:
        with RichProgress(err) as progress:
            summary = run_ingest(settings, progress)
    except ServiceError as exc:  # production profile: a server is down or not configured
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
    out.print(f"[yellow]quarantined: {len(summary.quarantined)}[/]")
    for path, suggestion, reason in summary.quarantined:
        out.print(f"  {path} — {reason} (suggestion: {suggestion})", highlight=False)
    out.print(f"[red]invalid: {len(summary.invalid)}[/]")
    for path, reason in summary.invalid:
        out.print(f"  {path} — {reason}", highlight=False)


@app.command()
def query(
    text: str = typer.Argument(..., help="The question."),
    workspace: list[str] = typer.Option([], "--workspace", "-w", help="Restrict to a workspace (repeatable)."),
    bridge: list[str] = typer.Option(
        [], "--bridge", "-b", help="Deliberately include a deferred subject (repeatable)."
    ),
    top_k: int | None = typer.Option(None, "--top-k", help="How many results (default 25)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Answer a query from the indexes (archive, deference and rerank policies applied)."""
    from lucasrag_query import IndexMissing, QueryError
    from lucasrag_query import query as run_query

    settings = _settings()
    try:
        result = run_query(text, workspaces=workspace or None, bridge=bridge, top_k=top_k, settings=settings)
    except QueryError as exc:
        fail(str(exc), 2)
    except IndexMissing as exc:
        fail(str(exc), 1)
    except RuntimeError as exc:  # production profile: ServiceError names the server and its setting
        from lucasrag.services import ServiceError

        if not isinstance(exc, ServiceError):
            raise
        fail(str(exc), 1)
    if as_json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return
    from lucasrag_cli._render import render_query

    render_query(out, result)


@app.command()
def notes(as_json: bool = typer.Option(False, "--json", help="Print rows as JSON.")) -> None:
    """One row per vault file: status, workspace, confidence, band, date, charged, reason."""
    from lucasrag.catalog import CatalogMissing, read_catalog

    try:
        frame = read_catalog(_settings())
    except CatalogMissing as exc:
        fail(str(exc))
    rows = frame.to_dicts()
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    from lucasrag_cli._render import render_rows

    for row in rows:  # the table shows each care pair's outcome; --json has the evidence
        care = row.get("care") or []
        row["care"] = sorted({f"{a['subject']}: {a['outcome']}" for a in care if a["outcome"] != "neutral"})
    render_rows(out, "Notes", rows)


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


@quarantine_app.command("approve")
def quarantine_approve(
    path: str = typer.Argument(..., help="Vault-relative path of the note."),
    workspace: str = typer.Option(..., "--workspace", "-w", help="The workspace to index it in."),
) -> None:
    """Approve a note into a workspace (recorded in its frontmatter; the body is untouched)."""
    from lucasrag_assets.rules.approval import record_approval

    settings = _settings()
    try:
        record_approval(settings.vault, path, workspace)
    except (ValueError, FileNotFoundError) as exc:
        fail(str(exc), 2)
    out.print(f"approved {path} → {workspace}; run `lucasrag ingest` (or let the vault sensor) to index it")


@reranker_app.command("serve")
def reranker_serve(
    model: Path = typer.Option(..., "--model", help="A GGUF reranker (e.g. bge-reranker-v2-m3)."),
    host: str = typer.Option("127.0.0.1", help="Bind address."),
    port: int = typer.Option(8181, help="Port."),
) -> None:
    """Serve a GGUF cross-encoder with llama.cpp's /v1/rerank until Ctrl-C."""
    from lucasrag_harness.model_servers.llama_server import RerankerServerError, serve

    try:
        serve(model, host, port)
    except RerankerServerError as exc:
        fail(str(exc))


# The evaluation modules import their heavy parts inside the command functions.
from lucasrag_cli.locomo import locomo_command  # noqa: E402
from lucasrag_cli.policy import policy_command  # noqa: E402

eval_app.command("locomo")(locomo_command)
eval_app.command("policy")(policy_command)

# The production profile: local PostgreSQL/Neo4j, and copying an index between profiles.
from lucasrag_cli.services import migrate_command, services_app  # noqa: E402

app.add_typer(services_app, name="services")
app.command("migrate")(migrate_command)

# Care review: inferred charged subjects, confirmed or dismissed by a person.
from lucasrag_cli.care import care_app, care_eval_command  # noqa: E402

app.add_typer(care_app, name="care")
eval_app.command("care")(care_eval_command)

# The entity graph of a workspace.
from lucasrag_cli.graph import graph_command  # noqa: E402

app.command("graph")(graph_command)

if __name__ == "__main__":  # pragma: no cover
    app()
