"""The evaluation code location: the policy and care evaluations as Dagster assets, apart from the product.

``evaluation``: a vault written by ``lucasrag_harness.evaluation.vault_generator`` has its ground truth next
to it (``<vault>.truth.json``); the asset runs every query case against the product's materialised indexes
and records pass rates per kind (and a plot) as metadata; for any other vault it records ``skipped`` and why.
``care_evaluation``: the care detector on the generated care corpus (what ``lucasrag eval care`` prints).

The product's code location (``lucasrag_assets.definitions``) does not load this module: ``dagster dev`` on
the product shows the product. ``bash scripts/dagster-ui --evaluation`` loads both locations
(``workspace.evaluation.yaml``); the indexes this reads are the product's assets, named here by key.
"""

import base64
import datetime as dt
import io
import json

from dagster import (
    AssetExecutionContext,
    AssetKey,
    AssetSelection,
    Definitions,
    MaterializeResult,
    MetadataValue,
    asset,
    define_asset_job,
)

from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.io_manager import data_folder_io_manager
from lucasrag_assets.resources import LucasragSettings


def pass_rate_png(report) -> bytes | None:
    """Grouped bars: pass rate per case kind, baseline and each ablation (None without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    runs = report.ablation_summary()
    kinds = list(runs["baseline"]["per_kind"])
    fig, ax = plt.subplots(figsize=(9, 3.6), dpi=100)
    width = 0.8 / len(runs)
    for i, (name, run) in enumerate(runs.items()):
        rates = [run["per_kind"].get(k, {}).get("rate", 0) for k in kinds]
        ax.bar([x + i * width for x in range(len(kinds))], rates, width, label=name)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(kinds))], [k.replace("_", "\n") for k in kinds], fontsize=8)
    ax.set_ylim(0, 1.25)
    ax.set_ylabel("pass rate")
    ax.set_title(f"Policy evaluation: {report.notes} generated notes")
    ax.legend(fontsize=7, ncol=4, loc="upper center")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


@asset(
    group_name="evaluation",
    deps=[AssetKey(f"{ws}_index") for ws in WORKSPACES] + [AssetKey("note_catalog")],
    description="Policy evaluation (recency, care, quarantine, workspaces) on a generated vault's query cases; "
    "skipped for vaults without <vault>.truth.json.",
)
def evaluation(context: AssetExecutionContext, lucasrag: LucasragSettings) -> MaterializeResult:
    from lucasrag_harness.evaluation.policy_eval import run_policy_eval
    from lucasrag_harness.evaluation.vault_generator import GroundTruth, truth_path

    settings = lucasrag.get()
    tpath = truth_path(settings.vault)
    if not tpath.is_file():
        reason = f"no generated ground truth at {tpath}: only generated vaults can be judged"
        context.log.info(f"evaluation skipped: {reason}")
        return MaterializeResult(metadata={"status": "skipped", "reason": reason})
    truth = GroundTruth.load(tpath)
    if truth.now != settings.now.isoformat():
        context.log.warning(
            f"LUCASRAG_NOW is {settings.now}, the truth was generated for {truth.now}: "
            "bands (and so archive cases) will disagree"
        )
    report = run_policy_eval(settings, truth)
    folder = settings.data / "eval"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "policy_report.json").write_text(json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
    per_kind = report.per_kind
    passed = sum(v["passed"] for v in per_kind.values())
    metadata = {
        "status": "evaluated",
        "cases": len(report.cases),
        "pass_rate": round(passed / max(1, len(report.cases)), 3),
        **{f"pass_rate_{k}": v["rate"] for k, v in per_kind.items()},
        **{
            k: report.ingest[k]
            for k in ("status_accuracy", "routing_accuracy", "band_accuracy", "charged_precision", "charged_recall")
        },
        "query_p50_ms": report.latency_ms["p50"],
        "report": MetadataValue.md(report.to_markdown()),
        "report_path": MetadataValue.path(str(folder / "policy_report.json")),
        "evaluated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    png = pass_rate_png(report)
    if png is None:
        metadata["plot"] = "matplotlib not installed (pip install -e '.[bench]')"
    else:
        (folder / "policy_pass_rates.png").write_bytes(png)
        metadata["plot"] = MetadataValue.md(f"![pass rates](data:image/png;base64,{base64.b64encode(png).decode()})")
    return MaterializeResult(metadata=metadata)


@asset(
    group_name="evaluation",
    description="Care on the generated care corpus: charged passages released, references found, neutral "
    "mentions released, query-level leaks, tune and test halves (what `lucasrag eval care` prints).",
)
def care_evaluation(context: AssetExecutionContext) -> MaterializeResult:
    from lucasrag_harness.evaluation.care_eval import evaluate_care

    report = evaluate_care(cost=False)
    figures = ("charged_released", "references_found", "neutral_released", "collisions_released", "leaks")
    return MaterializeResult(
        metadata={
            "model": report["model"],
            "vector_evidence": report["vector_evidence"],
            **{f"{half}_{f}": report["with_vectors"][half][f] for half in ("tune", "test") for f in figures},
            "report": MetadataValue.json(report),
        }
    )


evaluate_job = define_asset_job(
    "evaluate",
    selection=AssetSelection.assets("evaluation", "care_evaluation"),
    description="Judge the materialised indexes against a generated vault's ground truth (skipped otherwise), "
    "and the care detector against the care corpus.",
)

defs = Definitions(
    assets=[evaluation, care_evaluation],
    jobs=[evaluate_job],
    resources={"lucasrag": LucasragSettings.from_env(), "io_manager": data_folder_io_manager},
)
