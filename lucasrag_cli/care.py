"""``lucasrag care list|confirm|dismiss``: a person reviews what the care detector inferred (§3.11)."""

from __future__ import annotations

import json

import typer

from lucasrag_cli._console import fail, out, settings

care_app = typer.Typer(
    help="Care review: passages that refer to a deference subject are withheld until released; decide them here.",
    no_args_is_help=True,
)

_NEUTRAL_ABOVE = typer.Option(None, "--neutral-above", help="Only pairs the detector scores at least this neutral.")
_NEUTRAL_BELOW = typer.Option(None, "--neutral-below", help="Only pairs the detector scores less neutral than this.")


def _catalog() -> tuple[list[tuple[str, dict]], dict[str, str | None]]:
    """Every (path, care assessment) of the note catalogue, and each note's date."""
    from lucasrag.catalog import CatalogMissing, read_catalog

    try:
        frame = read_catalog(settings())
    except CatalogMissing as exc:
        fail(str(exc))
    if "care" not in frame.columns or "why" not in frame.schema["care"].inner.to_schema():
        fail("the note catalogue predates this care review: run `lucasrag ingest` again")
    rows = frame.select("path", "date", "care").to_dicts()
    return [(r["path"], a) for r in rows for a in r["care"] or []], {r["path"]: r["date"] for r in rows}


@care_app.command("list")
def care_list(
    as_json: bool = typer.Option(False, "--json", help="Print rows as JSON."),
    every: bool = typer.Option(False, "--all", help="Every (note, subject) pair: released and decided ones too."),
    subject: str = typer.Option(None, "--subject", help="Only this subject (name or alias)."),
) -> None:
    """Pending (note, subject) pairs: withheld until you decide. Grouped by subject, most likely neutral first."""
    from lucasrag.deference import load_deference
    from lucasrag_assets.rules.care.decisions import recorded_dismissals
    from lucasrag_assets.rules.care.review import namesakes_released, review_rows, since_suggestions
    from lucasrag_assets.rules.charged import canonical_name

    s = settings()
    subjects = load_deference(s.vault)
    pairs, dates = _catalog()
    rows = review_rows(pairs, every=every)
    dated = {x.name for x in subjects if x.since}
    suggestions = {k: v for k, v in since_suggestions(pairs, dates).items() if k not in dated}
    if subject:
        wanted = canonical_name(subject, subjects).casefold()
        rows = [r for r in rows if r["subject"].casefold() == wanted]
    dismissed = recorded_dismissals(s.vault)
    for row in rows:  # decided (possibly since the last ingest): by whom and when, rather than pending
        entry = dismissed.get((row["path"], row["subject"]))
        row["decision"] = "dismissed" if entry else "confirmed" if row["source"] == "declared" else None
        row["decided"] = {"on": entry.get("decided"), "by": entry.get("by")} if entry else None
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    namesakes = namesakes_released(pairs)
    if subject:
        namesakes = {k: v for k, v in namesakes.items() if k.casefold() == wanted}
    if not rows:
        out.print("nothing awaits review" if not every else "no note refers to a deference subject", highlight=False)
        _print_namesakes(namesakes)
        return
    current = None
    for r in rows:
        if r["subject"] != current:
            current = r["subject"]
            count = sum(x["subject"] == current for x in rows)
            out.print(f"\n[bold]{current}[/bold] — {count} note{'s' if count != 1 else ''}")
            if tip := suggestions.get(current):
                out.print(
                    f"  suggestion: `since: {tip['since']}` for {current} in deference.yaml would release up to "
                    f"{tip['releases']} pending note(s) written before it, unless they read as charged "
                    f"({tip['first_charged']} is the earliest note read or marked as charged)",
                    highlight=False,
                    markup=False,
                )
        neutral = "   -  " if r["neutral"] is None else f"{r['neutral']:.3f}"
        when = f", {r['decided']['on']} by {r['decided']['by']}" if r["decided"] and r["decided"]["on"] else ""
        state = f"{r['outcome']} ({r['source']}{when})" if every else ("decided" if r["decision"] else "pending")
        out.print(f"  {neutral}  {r['path']}  [{state}]", highlight=False, markup=False)
        if r.get("sentence"):
            out.print(f"         “{r['sentence'][:160]}”", highlight=False, markup=False)
        out.print(f"         {r['why']}", highlight=False, markup=False)
    _print_namesakes(namesakes)
    out.print(
        "\nneutral: how sure the detector is that the mention is neutral (1 = sure). Decide a run at once: "
        "`lucasrag care dismiss --neutral-above 0.9 --dry-run`, `--folder F`, `--tag T`, or one PATH SUBJECT.",
        highlight=False,
    )


def _print_namesakes(namesakes: dict[str, list[tuple[str, int]]]) -> None:
    """The full names released as another person: one may be the subject by a surname it was never given."""
    if not namesakes:
        return
    out.print("\nreleased as someone else of the same name (if one is the subject, add the full name to its aliases):")
    for subject, names in namesakes.items():
        listed = ", ".join(f"{n} ({k} note{'s' if k != 1 else ''})" for n, k in names)
        out.print(f"  {subject}: {listed}", highlight=False, markup=False)


def _canonical(name: str) -> str:
    from lucasrag.deference import load_deference
    from lucasrag_assets.rules.charged import canonical_name

    return canonical_name(name, load_deference(settings().vault))


def _decide(
    confirm: bool,
    path: str | None,
    subject: str | None,
    only: str | None,
    folder: str | None,
    tag: str | None,
    neutral_above: float | None,
    neutral_below: float | None,
    dry_run: bool,
) -> None:
    from lucasrag.deference import DeferenceConfigError, load_deference
    from lucasrag_assets.rules.care import decisions

    s = settings()
    try:
        subjects = load_deference(s.vault)
        items = decisions.decided_items(
            s.vault,
            lambda: _catalog()[0],
            subjects,
            path=path,
            subject=subject,
            batch_subject=only,
            folder=folder,
            tag=tag,
            neutral_above=neutral_above,
            neutral_below=neutral_below,
        )
        verb = "confirm" if confirm else "dismiss"
        if dry_run or not items:
            for p, name in items:
                out.print(f"would {verb} {name} for {p}", highlight=False, markup=False)
            out.print(f"{len(items)} pending pair{'s' if len(items) != 1 else ''} selected; nothing recorded")
            return
        names = decisions.record(s.vault, items, verb, subjects, by="cli")
    except (ValueError, FileNotFoundError, DeferenceConfigError) as exc:
        fail(str(exc), 2)
    where = "their frontmatter charged:" if confirm else f".lucasrag/{decisions.DECISIONS_FILE}"
    for (p, _), name in zip(items, names):
        out.print(f"{verb}ed {name} for {p}", highlight=False, markup=False)
    out.print(f"{len(items)} decision(s) recorded in {where}; run `lucasrag ingest` to apply them", highlight=False)


def _decision_command(confirm: bool):
    def command(
        path: str = typer.Argument(None, help="Vault-relative path of the note (with SUBJECT: one decision)."),
        subject: str = typer.Argument(None, help="The deference subject (name or alias)."),
        only: str = typer.Option(None, "--subject", help="A batch of this subject's pending pairs only."),
        folder: str = typer.Option(None, "--folder", help="Every pending pair of the notes under this folder."),
        tag: str = typer.Option(None, "--tag", help="Every pending pair of the notes with this tag."),
        neutral_above: float = _NEUTRAL_ABOVE,
        neutral_below: float = _NEUTRAL_BELOW,
        dry_run: bool = typer.Option(False, "--dry-run", help="List what would be decided; record nothing."),
    ) -> None:
        if subject and only and _canonical(subject) != _canonical(only):
            fail(f"SUBJECT {subject!r} and --subject {only!r} name different subjects", 2)
        _decide(confirm, path, subject, only, folder, tag, neutral_above, neutral_below, dry_run)

    return command


care_app.command(
    "confirm",
    help="Keep withheld: recorded in each note's frontmatter `charged:` (body untouched). "
    "PATH SUBJECT, or a batch of pending pairs: --folder, --tag, --subject, --neutral-above/--neutral-below.",
)(_decision_command(True))
care_app.command(
    "dismiss",
    help="Release: recorded in <vault>/.lucasrag/care_decisions.yaml (no note touched). "
    "PATH SUBJECT, or a batch of pending pairs: --folder, --tag, --subject, --neutral-above/--neutral-below.",
)(_decision_command(False))
