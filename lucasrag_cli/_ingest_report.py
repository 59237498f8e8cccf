"""The ingest summary's problem report: reasons grouped with counts and a few examples
(``--verbose``: every file), and the warning when most of the vault is not searchable."""

from __future__ import annotations

from rich.console import Console

from lucasrag.vault_health import likely_fix, unsearchable_warning

_STYLE = {"quarantined": "yellow", "invalid": "red", "skipped": "dim"}


def print_problems(console: Console, summary, *, verbose: bool = False) -> None:
    """Grouped problems of an ``IngestSummary``; one line per file only with ``verbose``."""
    health = summary.health
    if health is None:
        return
    every = {
        "quarantined": {p: f"{r} (suggestion: {s})" for p, s, r in summary.quarantined},
        "invalid": dict(summary.invalid),
        "skipped": dict(summary.skipped),
    }
    for status in ("quarantined", "invalid", "skipped"):
        groups = [g for g in health.groups if g.status == status]
        style = _STYLE[status]
        console.print(f"[{style}]{status}: {health.counts.get(status, 0)}[/]")
        for group in groups:
            fix = "" if status == "skipped" else f" — fix: {likely_fix(group)}"
            # a group of one is shown with its own reason, numbers included ("file is 2.1 MiB, over …")
            reason = every[status].get(group.examples[0], group.reason) if group.count == 1 else group.reason
            console.print(f"  {group.count} × {reason}{fix}", highlight=False)
            if verbose:
                continue
            more = f", … {group.count - len(group.examples)} more" if group.count > len(group.examples) else ""
            console.print(f"      e.g. {', '.join(group.examples)}{more}", highlight=False)
        if verbose:
            for path, reason in sorted(every[status].items()):
                console.print(f"  {path} — {reason}", highlight=False)
    if private := health.counts.get("private", 0):
        console.print(
            f"[dim]private: {private}[/] (never read past their frontmatter, nothing kept: `lucasrag notes --status private`)"
        )
    if summary.warnings:
        console.print(f"[yellow]warnings: {len(summary.warnings)}[/] (notes kept, e.g. undated)")
        shown = summary.warnings if verbose else summary.warnings[:3]
        for path, warning in shown:
            console.print(f"  {path} — {warning}", highlight=False)
        if len(shown) < len(summary.warnings):
            console.print(f"  … {len(summary.warnings) - len(shown)} more (--verbose)", highlight=False)
    if (warning := unsearchable_warning(health)) is not None:
        console.print(f"[bold red]warning:[/] {warning}", highlight=False)
