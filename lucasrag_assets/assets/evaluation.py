"""evaluation: the policy evaluation on the materialised indexes, when the vault is a generated one.

A vault written by ``lucasrag_harness.evaluation.vault_generator`` has its ground truth
next to it (``<vault>.truth.json``). Then this asset runs every query case
against the indexes and records pass rates per kind (and a plot) as metadata;
for any other vault it records ``skipped`` and why. It is not part of the
``ingest`` job (it adds a few hundred queries); the ``evaluate`` job runs it.
"""

import base64
import datetime as dt
import io
import json

from dagster import AssetExecutionContext, AssetKey, MaterializeResult, MetadataValue, asset

from lucasrag.vocabulary import WORKSPACES
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
