"""``lucasrag eval care``: the care detector on the generated care corpus."""

from __future__ import annotations

import json

import typer

from lucasrag_cli._console import out


def care_eval_command(
    seed: int = typer.Option(11, "--seed", help="Corpus seed (the release cuts were chosen on seed 11's tune half)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    cost: bool = typer.Option(True, "--cost/--no-cost", help="Also time the detector against the embedder."),
    test: bool = typer.Option(True, "--test/--no-test", help="Score the test half too (never while choosing)."),
) -> None:
    """Withheld until released on the generated corpus: leaks, references found, neutral released, review."""
    from lucasrag_harness.evaluation.care_eval import evaluate_care

    report = evaluate_care(seed, cost=cost, halves=("tune", "test") if test else ("tune",))
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    from rich.table import Table

    figures = (
        "charged_passages",
        "neutral_passages",
        "charged_released",
        "references_found",
        "neutral_released",
        "collisions_released",
        "pending",
        "review_decisions",
        "query_cases",
        "leaks",
        "over_withheld",
    )
    for evidence in ("with_vectors", "lexical_only"):
        part = report[evidence]
        table = Table(
            title=f"Care ({report['model']}, seed {seed}, {evidence.replace('_', ' ')}, release below "
            f"{report['release_below']['vector' if evidence == 'with_vectors' else 'lexical']})"
        )
        table.add_column("figure")
        for column in part:
            table.add_column(column, justify="right")
        for f in figures:
            table.add_row(f, *(str(part[c][f]) for c in part))
        out.print(table)
    if "cost" in report:
        c = report["cost"]
        out.print(
            f"detector {c['detector_ms_per_chunk']} ms/chunk vs embedding {c['embedding_ms_per_chunk']} ms/chunk "
            f"({100 * c['detector_vs_embedding']:.1f}% of the embedding time alone)",
            highlight=False,
        )
