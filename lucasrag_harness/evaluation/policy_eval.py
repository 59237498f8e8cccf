"""Policy evaluation on a generated vault: do recency, care and governance hold?

``run_policy_eval(settings, truth)`` runs every query case of a generated vault's
ground truth (see :mod:`lucasrag_harness.evaluation.vault_generator`) against the
materialised indexes and judges it by kind:

* ``present_fact``: an expected path in the top 5, the archive closed;
* ``archive_year`` / ``archive_cue``: the archive opened, an expected path in the top 5;
* ``charged_withheld``: a deference hint (withheld >= 1) for each subject, and no
  withheld (charged) chunk text anywhere in the result's JSON; when the query opens
  the archive, an expected (archival) note is returned;
* ``charged_bridged``: with the bridge, an expected note returned;
* ``quarantine_never``: no quarantined or invalid note in any result of any query of the run;
* ``workspace_restriction``: every result in the asked-for workspaces;
* ``period_date`` / ``period_month`` / ``period_season`` / ``period_relative``: the archive
  opened, an expected path (a note stating the fact inside the named period) in the top 5,
  and no archival result dated outside the period;
* ``false_alarm_ex`` / ``_history`` / ``_used_to`` / ``_years``: words that look like
  time but are not ("my ex-colleague", "the natural history museum", "I'm used to",
  "five years' warranty"): the archive stays closed and no archival chunk is returned.

Every kind also checks that no ``forbid_paths`` entry is returned. The ingest is
checked against the truth from the note catalogue (status, routing, band, charged).
Ablations re-run the cases on the same indexes with banding, deference or the
temporal preference switched off.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

from lucasrag.catalog import read_catalog
from lucasrag.settings import Settings
from lucasrag.vocabulary import WORKSPACES

TOP = 5
KINDS = (
    "present_fact",
    "archive_year",
    "archive_cue",
    "charged_withheld",
    "charged_bridged",
    "quarantine_never",
    "workspace_restriction",
    "period_date",
    "period_month",
    "period_season",
    "period_relative",
    "false_alarm_ex",
    "false_alarm_history",
    "false_alarm_used_to",
    "false_alarm_years",
)
#: name → (QueryOptions switches, checks not judged: with banding off the archive is open by construction)
ABLATIONS = {
    "banding_off": ({"banding": False}, frozenset({"archive_open", "archive_closed"})),
    "deference_off": ({"deference": False}, frozenset()),
    "temporal_preference_off": ({"temporal_preference": False}, frozenset()),
    "keywords_off": ({"keywords": False}, frozenset()),
}


@dataclass
class CaseOutcome:
    kind: str
    query: str
    passed: bool
    checks: dict[str, bool]
    reasons: list[str]
    paths: list[str]  # result paths, in rank order
    charged_returned: int = 0  # distinct charged notes (by truth) among the results
    ms: float = 0.0


def _fmt(paths: Iterable[str], n: int = 3) -> str:
    paths = list(paths)
    return ", ".join(paths[:n]) + (f" (+{len(paths) - n})" if len(paths) > n else "")


def _leaks(result_dict: dict, texts: Iterable[str]) -> list[str]:
    """Withheld texts found in the result: a whole chunk anywhere, or one of its sentences in a hint."""
    dump = json.dumps(result_dict, ensure_ascii=False)
    hints = json.dumps(result_dict.get("hints", []), ensure_ascii=False)
    found = []
    for text in texts:
        sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.strip()) >= 25]
        if json.dumps(text, ensure_ascii=False)[1:-1] in dump or any(
            json.dumps(s.strip(), ensure_ascii=False)[1:-1] in hints for s in sentences
        ):
            found.append(text[:60])
    return found


def judge(
    case,
    result,
    withheld_texts: Sequence[str] = (),
    charged_paths: frozenset[str] = frozenset(),
    ignore: frozenset[str] = frozenset(),
) -> CaseOutcome:
    """Judge one query result (a ``QueryResult``) against one ``QueryCase`` (checks in ``ignore`` are skipped)."""
    paths = [r.path for r in result.results]
    top, returned = set(paths[:TOP]), set(paths)
    expect, forbid = set(case.expect_paths), set(case.forbid_paths)
    checks: dict[str, bool] = {}
    reasons: list[str] = []

    def check(name: str, ok: bool, why: str) -> None:
        if name in ignore:
            return
        checks[name] = bool(ok)
        if not ok:
            reasons.append(why)

    bad = [p for p in paths if p in forbid]
    check("no_forbidden", not bad, f"forbidden paths returned: {_fmt(dict.fromkeys(bad))}")
    k = case.kind
    if k == "present_fact" or k.startswith("false_alarm"):
        check("archive_closed", not result.archival_open, f"archive opened (signals {list(result.signals)})")
    if k.startswith("false_alarm"):
        old = [r.path for r in result.results if r.band == "archival"]
        check("no_archival", not old, f"archival results: {_fmt(old)}")
    if (
        k in ("archive_year", "archive_cue")
        or k.startswith("period_")
        or (k == "charged_withheld" and case.archival_open)
    ):
        check("archive_open", result.archival_open, "archive stayed closed")
    if k.startswith("period_") and case.period:
        lo, hi = case.period
        outside = [
            f"{r.path} ({r.date})"
            for r in result.results
            if r.band == "archival" and not (r.date and lo <= r.date[:10] <= hi)
        ]
        check("in_period", not outside, f"archival results outside {lo}..{hi}: {_fmt(outside)}")
    if k in ("present_fact", "archive_year", "archive_cue") or k.startswith("period_"):
        check(
            "expected_top5",
            bool(expect & top),
            f"no expected path in top {TOP} (expected {_fmt(case.expect_paths)}; got {_fmt(paths[:TOP], TOP)})",
        )
    if k == "charged_bridged" or (k == "charged_withheld" and case.archival_open and expect):
        check(
            "expected_returned",
            bool(expect & returned),
            f"no expected path returned (expected {_fmt(case.expect_paths)})",
        )
    if k == "charged_withheld":
        for s in case.withheld:
            ok = any(h.kind == "deference" and h.subject == s and h.withheld >= 1 for h in result.hints)
            check(f"hint:{s}", ok, f"no deference hint with withheld >= 1 for {s!r}")
        leaked = _leaks(result.to_dict(), withheld_texts)
        check("no_leak", not leaked, f"withheld text in the result: {_fmt(leaked, 2)}")
    if k == "workspace_restriction":
        outside = sorted({r.workspace for r in result.results} - set(case.workspaces or WORKSPACES))
        check("in_workspaces", not outside, f"results from workspaces {outside} (asked {case.workspaces})")
    return CaseOutcome(
        k, case.query, all(checks.values()), checks, reasons, paths, charged_returned=len(returned & charged_paths)
    )


def apply_never(outcomes: list[CaseOutcome], never: set[str]) -> None:
    """``quarantine_never``: no quarantined or invalid note in any result of any query of the run."""
    seen = [(o.query, p) for o in outcomes for p in dict.fromkeys(o.paths) if p in never]
    for o in outcomes:
        if o.kind == "quarantine_never":
            o.checks["never_in_run"] = not seen
            if seen:
                o.reasons.append(
                    "quarantined/invalid notes returned: " + "; ".join(f"{p} (for {q!r})" for q, p in seen[:5])
                )
            o.passed = all(o.checks.values())


def pass_rates(outcomes: Sequence[CaseOutcome]) -> dict[str, dict]:
    out = {}
    for kind in KINDS:
        mine = [o for o in outcomes if o.kind == kind]
        if mine:
            n = sum(o.passed for o in mine)
            out[kind] = {"cases": len(mine), "passed": n, "rate": round(n / len(mine), 3)}
    return out


def ingest_agreement(truth, catalog) -> dict:
    """Per-note agreement of the note catalogue with the truth."""
    rows = {r["path"]: r for r in catalog.iter_rows(named=True)}
    confusion: dict[str, int] = {}
    mismatches: list[dict] = []
    status_ok = routed_ok = band_ok = both = tp = fp = fn = 0
    indexed = 0
    for path, t in truth.notes.items():
        r = rows.get(path) or {"status": "missing", "workspace": None, "band": None, "charged": []}
        key = f"{t.status}->{r['status']}"
        confusion[key] = confusion.get(key, 0) + 1
        status_ok += r["status"] == t.status
        if t.status != "indexed":
            if r["status"] != t.status:
                mismatches.append({"path": path, "field": "status", "expected": t.status, "got": r["status"]})
            continue
        indexed += 1
        if r["status"] != "indexed" or r["workspace"] != t.workspace:
            got = r["workspace"] if r["status"] == "indexed" else r["status"]
            mismatches.append({"path": path, "field": "workspace", "expected": t.workspace, "got": got})
            if r["status"] != "indexed":
                continue
        else:
            routed_ok += 1
        both += 1
        band_ok += r["band"] == t.band
        if r["band"] != t.band:
            mismatches.append({"path": path, "field": "band", "expected": t.band, "got": r["band"]})
        exp, got = set(t.charged), set(r["charged"] or [])
        tp, fp, fn = tp + len(exp & got), fp + len(got - exp), fn + len(exp - got)
        if exp != got:
            mismatches.append({"path": path, "field": "charged", "expected": sorted(exp), "got": sorted(got)})
    ratio = lambda a, b: round(a / b, 4) if b else None  # noqa: E731
    return {
        "notes": len(truth.notes),
        "status_accuracy": ratio(status_ok, len(truth.notes)),
        "routing_accuracy": ratio(routed_ok, indexed),
        "band_accuracy": ratio(band_ok, both),
        "charged_precision": ratio(tp, tp + fp),
        "charged_recall": ratio(tp, tp + fn),
        "status_confusion": dict(sorted(confusion.items())),
        "mismatches": mismatches,
    }


@dataclass
class PolicyReport:
    vault: str
    notes: int
    cases: list[CaseOutcome]
    ingest: dict
    ablations: dict[str, list[CaseOutcome]] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)

    @property
    def per_kind(self) -> dict[str, dict]:
        return pass_rates(self.cases)

    @property
    def failures(self) -> list[CaseOutcome]:
        return [o for o in self.cases if not o.passed]

    def ablation_summary(self) -> dict[str, dict]:
        """Per ablation: pass rates, cases whose verdict changed, charged notes returned by charged cases."""
        charged = lambda outs: sum(o.charged_returned for o in outs if o.kind.startswith("charged"))  # noqa: E731
        out = {"baseline": {"per_kind": self.per_kind, "changed": [], "charged_notes_returned": charged(self.cases)}}
        for name, outs in self.ablations.items():
            changed = [
                {"kind": b.kind, "query": b.query, "baseline": b.passed, "ablated": a.passed, "reasons": a.reasons}
                for b, a in zip(self.cases, outs)
                if a.passed != b.passed
            ]
            out[name] = {"per_kind": pass_rates(outs), "changed": changed, "charged_notes_returned": charged(outs)}
        return out

    def to_dict(self) -> dict:
        return {
            "vault": self.vault,
            "notes": self.notes,
            "per_kind": self.per_kind,
            "latency_ms": self.latency_ms,
            "ingest": self.ingest,
            "failures": [asdict(o) for o in self.failures],
            "ablations": self.ablation_summary(),
            "cases": [asdict(o) for o in self.cases],
        }

    def to_markdown(self, max_mismatches: int = 20) -> str:
        abl = self.ablation_summary()
        names = list(abl)
        lines = ["| kind | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for kind in KINDS:
            cells = [abl[n]["per_kind"].get(kind) for n in names]
            lines.append(f"| {kind} | " + " | ".join(f"{c['passed']}/{c['cases']}" if c else "–" for c in cells) + " |")
        tot = [sum(c["passed"] for c in abl[n]["per_kind"].values()) for n in names]
        lines.append(f"| **all** ({len(self.cases)}) | " + " | ".join(map(str, tot)) + " |")
        lines.append(
            "| charged notes returned (charged_* cases) | "
            + " | ".join(str(abl[n]["charged_notes_returned"]) for n in names)
            + " |"
        )
        lines.append("\n(banding_off: the archive is open by construction, so only retrieval and care are judged.)")
        g = self.ingest
        lines += [
            "",
            f"Ingest vs truth ({g['notes']} files): status {g['status_accuracy']}, routing "
            f"{g['routing_accuracy']}, band {g['band_accuracy']}, charged precision {g['charged_precision']} / "
            f"recall {g['charged_recall']}; status confusion {g['status_confusion']}.",
        ]
        if self.latency_ms:
            lines.append(
                f"Query latency (baseline): p50 {self.latency_ms['p50']:.0f} ms, p95 {self.latency_ms['p95']:.0f} ms."
            )
        lines += ["", f"Failures ({len(self.failures)}):"] + [
            f"- `{o.kind}` {o.query!r}: " + "; ".join(o.reasons) for o in self.failures
        ] or ["- none"]
        for n in names[1:]:
            lines.append(
                f"\n{n}: {len(abl[n]['changed'])} verdicts changed"
                + "".join(
                    f"\n- `{c['kind']}` {c['query']!r}: {'pass' if c['baseline'] else 'fail'} → "
                    f"{'pass' if c['ablated'] else 'fail'}"
                    for c in abl[n]["changed"]
                )
            )
        mism = g["mismatches"]
        lines.append(f"\nIngest mismatches ({len(mism)}, first {min(len(mism), max_mismatches)}):")
        lines += [
            f"- {m['path']}: {m['field']} expected {m['expected']}, got {m['got']}" for m in mism[:max_mismatches]
        ]
        return "\n".join(lines)


def _withheld_texts(settings: Settings, catalog, paths: set[str]) -> dict[str, list[str]]:
    """path → texts of its charged chunks, read from the chunk stores."""
    from lucasrag.index import index_exists, open_chunk_store

    out: dict[str, list[str]] = {}
    for ws in WORKSPACES:
        if not index_exists(settings, ws):
            continue
        store = open_chunk_store(settings, ws)
        try:
            for r in store.all_records():
                if r.path in paths and r.charged:
                    out.setdefault(r.path, []).append(r.text)
        finally:
            store.close()
    return out


def _percentile(values: Sequence[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, round(q * (len(v) - 1)))] if v else 0.0


def run_policy_eval(
    settings: Settings, truth, *, ablations: bool = True, progress: Callable[[str, int, int], None] | None = None
) -> PolicyReport:
    """Run and judge every query case of ``truth`` on the indexes of ``settings`` (see module doc)."""
    from lucasrag_query import QueryOptions, query

    catalog = read_catalog(settings)
    cases = truth.cases
    forbidden = {p for c in cases if c.kind == "charged_withheld" for p in c.forbid_paths}
    texts = _withheld_texts(settings, catalog, forbidden)
    charged = frozenset(p for p, t in truth.notes.items() if t.charged)
    never = {p for p, t in truth.notes.items() if t.status != "indexed"}
    never |= {r["path"] for r in catalog.iter_rows(named=True) if r["status"] != "indexed"}

    def run(name: str, options, ignore: frozenset[str] = frozenset()) -> list[CaseOutcome]:
        outcomes = []
        for i, case in enumerate(cases):
            t0 = time.perf_counter()
            result = query(
                case.query, workspaces=case.workspaces, bridge=case.bridge, settings=settings, options=options
            )
            ms = (time.perf_counter() - t0) * 1000
            leak_texts = [t for p in case.forbid_paths for t in texts.get(p, ())]
            outcome = judge(case, result, leak_texts, charged, ignore)
            outcome.ms = round(ms, 1)
            outcomes.append(outcome)
            if progress:
                progress(name, i + 1, len(cases))
        apply_never(outcomes, never)
        return outcomes

    query(cases[0].query, settings=settings)  # opens the indexes: not part of any latency
    base = run("baseline", QueryOptions())
    ms = [o.ms for o in base]
    report = PolicyReport(
        truth.vault,
        truth.n_notes,
        base,
        ingest_agreement(truth, catalog),
        latency_ms={"p50": _percentile(ms, 0.5), "p95": _percentile(ms, 0.95)},
    )
    if ablations:
        for name, (switches, ignore) in ABLATIONS.items():
            report.ablations[name] = run(name, QueryOptions(**switches), ignore)
    return report
