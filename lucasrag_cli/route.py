"""Governance commands: `quarantine approve` (one note or a folder), `route PATH --workspace W`,
`route suggest`, `notes [--changed]`, and the "changed since the last ingest" part of the ingest
summary. Registered from lucasrag_cli/app.py; the write side is imported inside the commands."""

from __future__ import annotations

import json

import click
import typer
from rich.console import Console
from typer.core import TyperGroup

from lucasrag_cli._console import err, fail, out
from lucasrag_cli._console import settings as _settings


def _decision_errors():
    from lucasrag.catalog import CatalogMissing

    return CatalogMissing, (ValueError, FileNotFoundError)


class _PathOrCommand(TyperGroup):
    """`lucasrag route PATH ...` is `lucasrag route move PATH ...`; `lucasrag route suggest` stays a command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["move", *args]
        return super().parse_args(ctx, args)


route_app = typer.Typer(
    cls=_PathOrCommand,
    help="Move a note to a workspace explicitly (`lucasrag route PATH --workspace W`), or propose folder rules.",
    no_args_is_help=True,
)


@route_app.command("move")
def route_move(
    path: str = typer.Argument(..., help="Vault-relative path of the note."),
    workspace: str = typer.Option(..., "--workspace", "-w", help="The workspace it belongs in."),
) -> None:
    """Move a note (already routed, or quarantined) to WORKSPACE: recorded as `workspace:` in its frontmatter."""
    from lucasrag_assets.routing_decisions import move_note

    catalog_missing, refused = _decision_errors()
    settings = _settings()
    try:
        message = move_note(settings, path, workspace)
    except catalog_missing as exc:
        fail(str(exc))
    except refused as exc:
        fail(str(exc), 2)
    out.print(message, highlight=False)


@route_app.command("suggest")
def route_suggest(
    write: bool = typer.Option(False, "--write", help="Write the proposal to <vault>/.lucasrag/routing.yaml."),
    min_notes: int = typer.Option(3, help="Propose a folder rule only for folders with at least this many notes."),
    min_share: float = typer.Option(0.8, help="… whose notes agree at least this much."),
) -> None:
    """Propose folder → workspace rules from the last ingest (notes of a folder mostly share a workspace)."""
    from lucasrag.catalog import CatalogMissing, read_catalog
    from lucasrag_assets.rules.routing.vault_rules import (
        RoutingRulesError,
        load_routing_rules,
        routing_rules_path,
        rules_yaml,
        suggest_folder_rules,
    )

    settings = _settings()
    try:
        rows = read_catalog(settings).to_dicts()
        rules = load_routing_rules(settings.vault)
    except (CatalogMissing, RoutingRulesError) as exc:
        fail(str(exc))
    pairs = [(r["path"], r["workspace"] or r["suggestion"]) for r in rows if r["status"] != "invalid"]
    suggestions = suggest_folder_rules(pairs, rules, min_notes=min_notes, min_share=min_share)
    text = rules_yaml(rules, suggestions)
    if not write:
        out.print(text, highlight=False, markup=False, end="")
        out.print(
            f"# {len(suggestions)} new folder rule(s); `lucasrag route suggest --write` saves them", highlight=False
        )
        return
    target = routing_rules_path(settings.vault)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    out.print(
        f"wrote {len(suggestions)} new folder rule(s) to {target}; run `lucasrag ingest` to apply", highlight=False
    )


def quarantine_approve_command(
    path: str | None = typer.Argument(None, help="Vault-relative path of a quarantined note."),
    workspace: str = typer.Option(..., "--workspace", "-w", help="The workspace to index it in."),
    folder: str | None = typer.Option(None, "--folder", help="Approve every note quarantined under this folder."),
    tag: str | None = typer.Option(None, "--tag", help="Approve every quarantined note with this tag (or tag/…)."),
    like: str | None = typer.Option(
        None, "--like", help="Approve every quarantined note like this one (any note: its text is the example)."
    ),
    suggested: bool = typer.Option(
        False, "--suggested", help="Only the notes whose best guess was this workspace (alone: all of them)."
    ),
    similarity: float = typer.Option(
        0.4, "--similarity", min=-1.0, max=1.0, help="With --like: the cosine at or above which a note is alike."
    ),
    excluding: list[str] = typer.Option(
        [], "--except", help="Leave this note out of the batch (repeatable): after a dry run, what you disagree with."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Only list the notes that would be approved."),
) -> None:
    """Approve a quarantined note, or many at once (--folder, --tag, --like, --suggested; all given must
    hold), into a workspace: recorded in each note's frontmatter."""
    from lucasrag_assets.routing_decisions import approve_many, approve_quarantined

    many = folder is not None or tag is not None or like is not None or suggested
    if (path is None) == (not many):
        fail("give a note PATH or --folder DIR / --tag TAG / --like PATH / --suggested for many (one of the two)", 2)
    catalog_missing, refused = _decision_errors()
    settings = _settings()
    try:
        if path is not None:
            if dry_run:
                fail("--dry-run is for --folder, --tag, --like and --suggested: one PATH is one decision", 2)
            out.print(approve_quarantined(settings, path, workspace), highlight=False)
            approved = [path]
        else:
            batch = approve_many(
                settings,
                workspace,
                folder=folder,
                tag=tag,
                like=like,
                min_similarity=similarity,
                suggested=suggested,
                excluding=excluding,
                dry_run=dry_run,
            )
            verb = "would approve" if dry_run else "approved"
            for rel in batch.approved:
                alike = f" (similarity {batch.similarity[rel]:.2f})" if rel in batch.similarity else ""
                out.print(f"{verb} {rel} → {workspace}{alike}", highlight=False)
            for line in batch.skipped:
                err.print(f"[yellow]skipped[/] {line}", highlight=False)
            approved = batch.approved
    except catalog_missing as exc:
        fail(str(exc))
    except refused as exc:
        fail(str(exc), 2)
    if path is None and dry_run:
        out.print(f"{len(approved)} would be approved; run again without --dry-run to record it", highlight=False)
        return
    out.print(f"{len(approved)} approved; run `lucasrag ingest` (or let the vault sensor) to index", highlight=False)


def notes_command(
    as_json: bool = typer.Option(False, "--json", help="Print rows as JSON."),
    changed: bool = typer.Option(
        False, "--changed", help="Only what the last ingest changed: status, workspace or band, with the reason."
    ),
    status: str | None = typer.Option(
        None, "--status", help="Only the files with this status: indexed, quarantined, invalid, skipped, private."
    ),
) -> None:
    """One row per vault file: status, workspace, confidence, band, date, charged, reason."""
    from lucasrag.catalog import CatalogMissing, read_catalog, read_changes

    statuses = ("indexed", "quarantined", "invalid", "skipped", "private")
    if status is not None and status not in statuses:
        fail(f"unknown status {status!r}: expected one of {', '.join(statuses)}", 2)
    settings = _settings()
    try:
        frame = read_changes(settings) if changed else read_catalog(settings)
    except CatalogMissing as exc:
        fail(str(exc))
    if status is not None:
        import polars as pl

        frame = frame.filter(pl.col("status") == status) if not changed else frame.filter(pl.col("new") == status)
    rows = frame.to_dicts()
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    from lucasrag_cli._render import render_rows

    for row in rows:  # the table shows each care pair's outcome; --json has the evidence
        if "care" in row:
            care = row["care"] or []
            row["care"] = sorted({f"{a['subject']}: {a['outcome']}" for a in care if a["outcome"] != "neutral"})
    render_rows(out, "Changed at the last ingest" if changed else "Notes", rows)


def print_changes(console: Console, changes: list[dict], limit: int = 20, *, first: bool = False, new: int = 0) -> None:
    """The ingest summary's list of notes whose status, workspace or band changed (nothing on a first
    ingest: nothing could have), and how many notes are new since the last one."""
    if first:
        return
    added = f"; new notes: {new}" if new else ""
    console.print(f"[cyan]changed since the last ingest: {len(changes)}{added}[/]")
    for row in changes[:limit]:
        console.print(
            f"  {row['path']} — {row['field']}: {row['old']} → {row['new']} ({row['reason']})", highlight=False
        )
    if len(changes) > limit:
        console.print(f"  … {len(changes) - limit} more: `lucasrag notes --changed`", highlight=False)
