"""Human-readable tables for the CLI (``--json`` prints the raw shapes instead)."""

from __future__ import annotations

import textwrap

from rich.console import Console
from rich.table import Table


def render_rows(console: Console, title: str, rows: list[dict]) -> None:
    if not rows:
        console.print(f"{title}: none")
        return
    table = Table(title=f"{title} ({len(rows)})")
    for column in rows[0]:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("" if v is None else ", ".join(v) if isinstance(v, list) else str(v) for v in row.values()))
    console.print(table)


def render_query(console: Console, result) -> None:
    temporal = "archive open" if result.archival_open else "archive closed"
    signals = f" (signals: {', '.join(result.signals)})" if result.signals else ""
    console.print(f"[bold]{result.query}[/] — {temporal}{signals}; ranked by {result.reranker}", highlight=False)
    table = Table(show_lines=False)
    for column in ("#", "score", "workspace", "band", "date", "path", "text"):
        table.add_column(column, overflow="fold")
    for r in result.results:
        snippet = textwrap.shorten(" ".join(r.text.split()), 110)
        table.add_row(str(r.rank), f"{r.score:.3f}", r.workspace, r.band, r.date or "", r.path, snippet)
    console.print(table)
    for hint in result.hints:
        console.print(f"[yellow]hint:[/] {hint.message}", highlight=False)
    for warning in result.warnings:
        console.print(f"[red]warning:[/] {warning}", highlight=False)
    if result.reranker_note:
        console.print(f"[dim]{result.reranker_note}[/]", highlight=False)
