"""The policy evaluation: judging logic on hand-made results, and one end-to-end run on a small generated vault."""

from __future__ import annotations

import polars as pl
import pytest

from lucasrag_harness.evaluation.policy_eval import (
    KINDS,
    CaseOutcome,
    PolicyReport,
    apply_never,
    ingest_agreement,
    judge,
    pass_rates,
)
from lucasrag_harness.evaluation.vault_generator import GroundTruth, NoteTruth, QueryCase
from lucasrag_query.policy import Hint
from lucasrag_query.result import QueryResult, ResultItem


def _result(paths, *, archival_open=False, hints=(), texts=None, workspaces=None, query="q") -> QueryResult:
    items = [
        ResultItem(
            i + 1,
            f"c{i}",
            (workspaces or {}).get(p, "personal"),
            p,
            "present",
            None,
            0.5,
            (texts or {}).get(p, f"text of {p}"),
        )
        for i, p in enumerate(paths)
    ]
    return QueryResult(query, items, list(hints), archival_open, (), "embedding-similarity")


def _hint(subject, n=2):
    return Hint(subject, "deference", n, f"{n} passages about {subject} matched but were withheld out of care.")


def test_present_fact_needs_expected_in_top5_no_forbidden_and_closed_archive():
    case = QueryCase("present_fact", "where do I live?", ["a.md", "facts.md"], ["old.md"])
    assert judge(case, _result(["x1", "x2", "x3", "x4", "facts.md", "x5"])).passed
    late = judge(case, _result(["x1", "x2", "x3", "x4", "x5", "a.md"]))
    assert not late.passed and late.checks == {"no_forbidden": True, "archive_closed": True, "expected_top5": False}
    forbidden = judge(case, _result(["a.md"] + [f"x{i}" for i in range(20)] + ["old.md"]))
    assert not forbidden.passed and "old.md" in forbidden.reasons[0]
    assert not judge(case, _result(["a.md"], archival_open=True)).checks["archive_closed"]
    # the banding ablation opens the archive by construction: only retrieval is judged
    assert judge(case, _result(["a.md"], archival_open=True), ignore=frozenset({"archive_closed"})).passed


@pytest.mark.parametrize("kind", ["archive_year", "archive_cue"])
def test_archive_cases_need_an_open_archive_and_expected_in_top5(kind):
    case = QueryCase(kind, "where did I live in 2013?", ["2013.md"], [], archival_open=True)
    assert judge(case, _result(["2013.md"], archival_open=True)).passed
    assert judge(case, _result(["2013.md"])).checks["archive_open"] is False
    assert judge(case, _result(["x"] * 5 + ["2013.md"], archival_open=True)).checks["expected_top5"] is False


def test_charged_withheld_needs_the_hint_and_no_leak():
    case = QueryCase("charged_withheld", "how is grandad?", [], ["grief.md"], withheld=["Grandad Tom"])
    secret = "Grandad's funeral was today. \"I can't believe he's gone,\" Mum said — ça va?\nI cried."
    ok = judge(case, _result(["neutral.md"], hints=[_hint("Grandad Tom")]), [secret])
    assert ok.passed and ok.checks["no_leak"] and ok.checks["hint:Grandad Tom"]
    assert not judge(case, _result(["neutral.md"]), [secret]).checks["hint:Grandad Tom"]
    assert not judge(case, _result(["neutral.md"], hints=[_hint("Grandad Tom", 0)]), [secret]).passed
    # the withheld text under another path (quotes, newline, non-ASCII survive JSON escaping)
    leaked = judge(case, _result(["copy.md"], hints=[_hint("Grandad Tom")], texts={"copy.md": "x " + secret}), [secret])
    assert not leaked.checks["no_leak"] and leaked.checks["no_forbidden"]
    # one sentence of it in a hint message
    hint = Hint("Grandad Tom", "deference", 1, "withheld: Grandad's funeral was today.")
    assert not judge(case, _result([], hints=[hint]), [secret]).checks["no_leak"]
    # the forbidden note itself
    assert not judge(case, _result(["grief.md"], hints=[_hint("Grandad Tom")]), [secret]).checks["no_forbidden"]


def test_charged_withheld_with_open_archive_expects_the_archival_notes():
    case = QueryCase(
        "charged_withheld",
        "what happened to grandad in 2012?",
        ["2012-funeral.md"],
        ["present-grief.md"],
        archival_open=True,
    )
    assert judge(case, _result(["x", "2012-funeral.md"], archival_open=True)).passed
    out = judge(case, _result(["x"], archival_open=True))
    assert not out.passed and out.checks["expected_returned"] is False


def test_charged_bridged_expects_a_note_anywhere_and_counts_charged_notes():
    case = QueryCase("charged_bridged", "how do I feel about Maya now?", ["m1.md", "m2.md"], [], bridge=["Maya"])
    out = judge(
        case, _result([f"x{i}" for i in range(10)] + ["m2.md", "m1.md"]), charged_paths=frozenset({"m1.md", "m2.md"})
    )
    assert out.passed and out.charged_returned == 2
    assert not judge(case, _result(["x"])).passed


def test_workspace_restriction():
    case = QueryCase("workspace_restriction", "what about Lisbon?", ["a.md"], ["b.md"], workspaces=["administrative"])
    ws = {"a.md": "administrative", "c.md": "personal"}
    assert judge(case, _result(["a.md"], workspaces=ws)).passed
    out = judge(case, _result(["a.md", "c.md"], workspaces=ws))
    assert not out.passed and "personal" in out.reasons[0]


def test_quarantine_never_fails_when_any_query_of_the_run_returns_a_held_note():
    never_case = QueryCase("quarantine_never", "ideas??", [], ["inbox/ideas.md"])
    other = QueryCase("present_fact", "where do I live?", ["a.md"], [])
    outcomes = [judge(never_case, _result(["a.md"])), judge(other, _result(["a.md"]))]
    apply_never(outcomes, {"inbox/ideas.md"})
    assert outcomes[0].passed
    outcomes = [judge(never_case, _result(["a.md"])), judge(other, _result(["a.md", "inbox/ideas.md"]))]
    apply_never(outcomes, {"inbox/ideas.md"})
    assert not outcomes[0].passed and "inbox/ideas.md" in outcomes[0].reasons[0]
    assert outcomes[1].passed  # the leak is charged to quarantine_never, the other case is judged on its own terms


def _truth(notes: dict[str, NoteTruth]) -> GroundTruth:
    return GroundTruth("v", 7, len(notes), "2026-06-01", "2023-06-01", [], {}, notes, [])


def test_ingest_agreement_rates():
    truth = _truth(
        {
            "a.md": NoteTruth("indexed", "personal", "present", None, ["Maya"]),
            "b.md": NoteTruth("indexed", "technical", "archival", None),
            "c.md": NoteTruth("indexed", "creative", "present", None),
            "d.md": NoteTruth("quarantined", None, None, None),
            "e.md": NoteTruth("invalid", None, None, None),
        }
    )
    catalog = pl.DataFrame(
        {
            "path": ["a.md", "b.md", "c.md", "d.md", "e.md"],
            "status": ["indexed", "indexed", "quarantined", "quarantined", "invalid"],
            "workspace": ["personal", "technical", None, None, None],
            "band": ["present", "present", None, None, None],
            "charged": [["Maya", "Grandad Tom"], [], [], [], []],
        }
    )
    g = ingest_agreement(truth, catalog)
    assert g["status_accuracy"] == 0.8 and g["routing_accuracy"] == round(2 / 3, 4)
    assert g["band_accuracy"] == 0.5 and g["charged_precision"] == 0.5 and g["charged_recall"] == 1.0
    assert g["status_confusion"]["indexed->quarantined"] == 1
    assert {(m["path"], m["field"]) for m in g["mismatches"]} == {
        ("b.md", "band"),
        ("a.md", "charged"),
        ("c.md", "workspace"),
    }


def test_report_rates_ablation_changes_and_markdown():
    def o(kind, passed, charged=0):
        return CaseOutcome(kind, f"{kind}?", passed, {"x": passed}, [] if passed else ["why"], [], charged)

    base = [o("present_fact", True), o("present_fact", False), o("charged_withheld", True, 0)]
    ablated = [o("present_fact", True), o("present_fact", True), o("charged_withheld", False, 3)]
    assert pass_rates(base)["present_fact"] == {"cases": 2, "passed": 1, "rate": 0.5}
    report = PolicyReport(
        "v",
        10,
        base,
        ingest_agreement(_truth({}), pl.DataFrame({"path": []})),
        {"deference_off": ablated},
        {"p50": 10.0, "p95": 20.0},
    )
    summary = report.ablation_summary()
    assert len(summary["deference_off"]["changed"]) == 2
    assert (
        summary["baseline"]["charged_notes_returned"] == 0 and summary["deference_off"]["charged_notes_returned"] == 3
    )
    md = report.to_markdown()
    assert "| present_fact | 1/2 | 2/2 |" in md and "`present_fact` 'present_fact?': why" in md
    assert set(report.to_dict()) >= {"per_kind", "failures", "ablations", "ingest", "cases"}


def test_evaluation_asset_skips_a_vault_without_truth(tmp_path):
    from dagster import materialize

    from lucasrag_assets.resources import LucasragSettings
    from lucasrag_harness.evaluation.dagster_location import evaluation

    (tmp_path / "vault").mkdir()
    result = materialize(
        [evaluation],
        resources={
            "lucasrag": LucasragSettings(vault=str(tmp_path / "vault"), data=str(tmp_path / "data"), now="2026-06-01")
        },
    )
    [event] = result.get_asset_materialization_events()
    metadata = event.step_materialization_data.materialization.metadata
    assert metadata["status"].value == "skipped" and "vault.truth.json" in metadata["reason"].value


def test_the_evaluation_is_a_code_location_of_its_own():
    """The product's location shows the product; the evaluation location's assets read its indexes."""
    from lucasrag_assets.definitions import defs as product
    from lucasrag_harness.evaluation.dagster_location import defs as lab

    keys = {k.to_user_string() for k in product.resolve_all_asset_keys()}
    ingest = {k.to_user_string() for k in product.resolve_job_def("ingest").asset_layer.selected_asset_keys}
    evaluate = {k.to_user_string() for k in lab.resolve_job_def("evaluate").asset_layer.selected_asset_keys}
    evaluations = {"evaluation", "care_evaluation"}  # the policy and the care evaluation
    assert not evaluations & keys and "note_catalog" in ingest and evaluate == evaluations
    assert not {j.name for j in product.resolve_all_job_defs()} & {"evaluate"}
    upstream = {k.to_user_string() for k in lab.resolve_assets_def("evaluation").dependency_keys}
    assert upstream <= keys and "note_catalog" in upstream


@pytest.mark.slow
def test_policy_eval_end_to_end_on_a_generated_vault(tmp_path, settings_for):
    """Ingest a small generated vault and judge it: every kind evaluated, the care invariants hold."""
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_harness.evaluation.policy_eval import run_policy_eval
    from lucasrag_harness.evaluation.vault_generator import generate_vault

    truth = generate_vault(tmp_path / "vault", 60, seed=7)
    settings = settings_for(tmp_path / "vault", tmp_path / "data")
    run_ingest(settings)
    report = run_policy_eval(settings, truth)
    assert set(report.per_kind) == set(KINDS)
    for outcome in report.cases:
        assert outcome.checks.get("no_leak", True), outcome.reasons  # withheld text never in a result
        if outcome.kind in ("quarantine_never", "workspace_restriction"):
            assert outcome.passed, (outcome.query, outcome.reasons)
        if outcome.kind == "charged_withheld" and any(k.startswith("hint:") for k in outcome.checks):
            # unbridged: a hint per subject, and no charged note returned
            assert outcome.passed, (outcome.query, outcome.reasons)
    assert report.ingest["status_accuracy"] >= 0.9
    assert set(report.ablations) == {"banding_off", "deference_off", "temporal_preference_off", "keywords_off"}
    # care switched off: the charged notes that were withheld come back
    summary = report.ablation_summary()
    assert summary["deference_off"]["charged_notes_returned"] > summary["baseline"]["charged_notes_returned"]
