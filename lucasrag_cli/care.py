"""``lucasrag care list|confirm|dismiss``: a person reviews what the care detector inferred (§3.11)."""

from __future__ import annotations

import json

import typer

from lucasrag_cli._console import fail, out, settings

care_app = typer.Typer(
    help="Care review: inferred charged/uncertain subjects, awaiting a person.", no_args_is_help=True
)


@care_app.command("list")
def care_list(
    as_json: bool = typer.Option(False, "--json", help="Print rows as JSON."),
    pending: bool = typer.Option(False, "--pending", help="Only uncertain pairs (withheld until reviewed)."),
) -> None:
    """Inferred (note, subject) pairs that are withheld, with their evidence; uncertain ones are pending."""
    from lucasrag.catalog import CatalogMissing, read_catalog
    from lucasrag_assets.rules.care.decisions import load_dismissals
    from lucasrag_assets.rules.care.review import review_rows

    s = settings()
    try:
        frame = read_catalog(s)
    except CatalogMissing as exc:
        fail(str(exc))
    if "care" not in frame.columns:
        fail("the note catalogue predates care review: run `lucasrag ingest` again")
    pairs = ((row["path"], a) for row in frame.select("path", "care").to_dicts() for a in row["care"] or [])
    rows = review_rows(pairs, pending_only=pending)
    dismissed = load_dismissals(s.vault)
    for row in rows:  # decided since the last ingest: say so rather than list it as pending
        row["decision"] = "dismissed" if row["subject"] in dismissed.get(row["path"], ()) else None
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    from lucasrag_cli._render import render_rows

    render_rows(out, "Care review", rows)


def _decide(path: str, subject: str, confirm: bool) -> None:
    from lucasrag.deference import DeferenceConfigError, load_deference
    from lucasrag_assets.rules.care import decisions

    s = settings()
    try:
        subjects = load_deference(s.vault)
        record = decisions.confirm if confirm else decisions.dismiss
        name = record(s.vault, path, subject, subjects)
    except (ValueError, FileNotFoundError, DeferenceConfigError) as exc:
        fail(str(exc), 2)
    where = "its frontmatter charged:" if confirm else f".lucasrag/{decisions.DECISIONS_FILE}"
    verb = "confirmed" if confirm else "dismissed"
    out.print(f"{verb} {name} for {path} (recorded in {where}); run `lucasrag ingest` to apply it", highlight=False)


@care_app.command("confirm")
def care_confirm(
    path: str = typer.Argument(..., help="Vault-relative path of the note."),
    subject: str = typer.Argument(..., help="The deference subject (name or alias)."),
) -> None:
    """The note is charged for SUBJECT: recorded in its frontmatter `charged:` (body untouched)."""
    _decide(path, subject, True)


@care_app.command("dismiss")
def care_dismiss(
    path: str = typer.Argument(..., help="Vault-relative path of the note."),
    subject: str = typer.Argument(..., help="The deference subject (name or alias)."),
) -> None:
    """The note is not charged for SUBJECT: recorded in <vault>/.lucasrag/care_decisions.yaml."""
    _decide(path, subject, False)


def care_eval_command(
    seed: int = typer.Option(11, "--seed", help="Corpus seed (the weights were fitted on seed 11's tune half)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    cost: bool = typer.Option(True, "--cost/--no-cost", help="Also time the detector against the embedder."),
) -> None:
    """The care detector on the generated corpus: recall, false positives, uncertain share, leaks (both halves)."""
    from lucasrag_assets.rules.care.evaluation import evaluate_care

    report = evaluate_care(seed, cost=cost)
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    from rich.table import Table

    figures = (
        "charged_passages",
        "neutral_passages",
        "families",
        "recall",
        "charged_share",
        "false_positive_rate",
        "uncertain_share",
        "query_cases",
        "leaks",
        "over_withheld",
    )
    table = Table(
        title=f"Care evaluation ({report['model']}, seed {seed}, vector evidence {report['vector_evidence']}; "
        "tune fitted the weights, test did not)"
    )
    for column in ("figure", "tune", "test"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    for f in figures:
        table.add_row(f, str(report["tune"][f]), str(report["test"][f]))
    for f in ("recall", "false_positive_rate", "uncertain_share"):
        table.add_row(f"lexical only: {f}", *(str(report[h]["lexical_only"][f]) for h in ("tune", "test")))
        table.add_row(f"chunk view: {f}", *(str(report[h]["chunk_view"][f]) for h in ("tune", "test")))
    for register in sorted({*report["tune"]["recall_by_register"], *report["test"]["recall_by_register"]}):
        table.add_row(
            f"recall: {register}", *(str(report[h]["recall_by_register"].get(register, "-")) for h in ("tune", "test"))
        )
    out.print(table)
    if "cost" in report:
        c = report["cost"]
        out.print(
            f"detector {c['detector_ms_per_chunk']} ms/chunk vs embedding {c['embedding_ms_per_chunk']} ms/chunk "
            f"({100 * c['detector_vs_embedding']:.1f}% of the embedding time alone)",
            highlight=False,
        )
