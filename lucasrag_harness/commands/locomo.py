"""``lucasrag eval locomo``: evidence recall@k on LoCoMo for LucasRAG and baselines."""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

REPO_ROOT = Path(__file__).resolve().parents[2]  # the repository (lucasrag_harness/commands/ → root)
DEFAULT_DATA = "../shared/data/locomo/locomo10.json"
DEFAULT_OUT = ".lucasrag_data/eval/locomo"
_CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain")


def _path(value: Path | None, default: str) -> Path:
    """A given path is taken as is (relative to the working folder); the default is the repository's."""
    return value.expanduser().resolve() if value else (REPO_ROOT / default).resolve()


def _f(x: float, digits: int = 3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _rows(report: dict):
    for s in report["systems"]:
        yield s, s["recall"]["all"]


_SESSION_METRICS = ("Hit@1", "R@3", "R@5", "R@10", "MRR", "NDCG@5")
_ADVERSARIAL = {"with_adversarial": "categories 1–5", "without_adversarial": "categories 1–4"}


def _session_sections(report: dict) -> list[dict]:
    return [report[key] for key in ("sessions", "pooled") if report.get(key)]


def render_sessions(console: Console, report: dict) -> None:
    for section in _session_sections(report):
        for half, systems in section["halves"].items():
            ids = ", ".join(report["sample_ids"][half])
            for key, label in _ADVERSARIAL.items():
                table = Table(
                    title=f"Session level, {section['protocol']}, {half} half ({ids}), "
                    f"{label} (n = {systems[0][key]['n']})"
                )
                for column in ("system", *_SESSION_METRICS):
                    table.add_column(column, justify="left" if column == "system" else "right")
                for s in systems:
                    table.add_row(s["system"], *(_f(s[key][m]) for m in _SESSION_METRICS))
                console.print(table)


def render(console: Console, report: dict) -> None:
    n = report["systems"][0]["recall"]["all"]["n"]
    table = Table(
        title=f"LoCoMo evidence recall, categories 1–4 (n = {n} questions, {report['conversations']} conversations)"
    )
    for column in ("system", "R@5", "R@10", "R@25", "turns@25", "words@25", "p50 ms", "p95 ms"):
        table.add_column(column, justify="left" if column == "system" else "right")
    for s, a in _rows(report):
        table.add_row(
            s["system"],
            _f(a["R@5"]),
            _f(a["R@10"]),
            _f(a["R@25"]),
            f"{s['mean_turns_at_25']:.0f}",
            f"{s['mean_words_at_25']:.0f}",
            _f(s["latency_p50_ms"], 1),
            _f(s["latency_p95_ms"], 1),
        )
    console.print(table)
    by_cat = Table(title="By category: R@5 / R@10 / R@25")
    by_cat.add_column("system")
    columns = [c for c in (*_CATEGORIES, "date cue") if c in report["systems"][0]["recall"]]
    for c in columns:
        by_cat.add_column(f"{c} (n={report['systems'][0]['recall'][c]['n']})", justify="right")
    for s in report["systems"]:
        by_cat.add_row(
            s["system"], *(" / ".join(_f(s["recall"][c][f"R@{k}"], 2) for k in (5, 10, 25)) for c in columns)
        )
    console.print(by_cat)
    render_sessions(console, report)
    ev, ch = report["evidence"], report["chunks"]
    console.print(
        f"chunks: {ch['total']} (LUCASRAG_CHUNK_TOKENS={report['chunk_tokens']}), {ch['mean_words']:.1f} words "
        f"and {ch['mean_turns']:.1f} turns each on average; archival: {ch['archival']}\n"
        f"evidence: {ev['ids_total']} ids, {ev['ids_split']} split, {ev['ids_repaired']} repaired, "
        f"{ev['ids_skipped']} skipped as unparseable, {ev['ids_unknown']} naming no turn; "
        f"{ev['questions_without_evidence']} scored-category questions without usable evidence "
        f"(skipped: {', '.join(map(repr, ev['skipped_examples'])) or 'none'})",
        highlight=False,
    )
    if report.get("reranker_note"):
        console.print(f"[yellow]{report['reranker_note']}[/]")
    console.print(f"total {report['seconds']:.0f}s", highlight=False)


def locomo_command(
    data: Path | None = typer.Option(
        None, "--data", help=f"locomo10.json (default: {DEFAULT_DATA} from the repository root)."
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        help=f"Vaults and indexes, one folder per conversation (default: {DEFAULT_OUT}); reused on a re-run.",
    ),
    conversations: int | None = typer.Option(None, "--conversations", min=1, help="Only the first N conversations."),
    questions_per_conversation: int | None = typer.Option(
        None, "--questions-per-conversation", min=1, help="Only the first M scored questions of each conversation."
    ),
    json_path: Path | None = typer.Option(None, "--json", help="Also write the full results as JSON to this file."),
    date_cue_only: bool = typer.Option(
        False, "--date-cue-only", help="Only the questions whose text names a date (the date-cue slice)."
    ),
    half: str = typer.Option(
        "all",
        "--half",
        help="tune (conversations 1–5), report (6–10) or all; --conversations then keeps the first N of each half.",
    ),
    protocol: str = typer.Option(
        "per-conversation",
        "--protocol",
        help="per-conversation (one vault each: chunk- and session-level tables), pooled (the chosen "
        "conversations in one vault, out/pooled: session level) or both.",
    ),
    ablations: bool = typer.Option(
        True,
        "--ablations/--no-ablations",
        help="Also run query() with banding, deference, temporal preference, "
        "entity graph and keyword match off, one at a time (per-conversation protocol).",
    ),
) -> None:
    """Evidence recall@5/10/25 on LoCoMo (LucasRAG query(), its ablations, a flat LightRAG index and BM25),
    and the anchors' session-level protocol (Hit@1, R@3/5/10, MRR, NDCG@5) per tuning/report half."""
    from lucasrag.settings import SettingsError
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_harness.evaluation.locomo import load_locomo
    from lucasrag_harness.evaluation.locomo_eval import run_locomo, select_conversations
    from lucasrag_harness.evaluation.locomo_pooled import run_pooled

    console = Console(width=None if sys.stdout.isatty() else 200)
    err = Console(stderr=True)
    data_path = _path(data, DEFAULT_DATA)
    if half not in ("tune", "report", "all"):
        err.print(f"[bold red]error:[/] --half {half!r}: expected tune, report or all", highlight=False)
        raise typer.Exit(2)
    if protocol not in ("per-conversation", "pooled", "both"):
        err.print(
            f"[bold red]error:[/] --protocol {protocol!r}: expected per-conversation, pooled or both", highlight=False
        )
        raise typer.Exit(2)
    if not data_path.is_file():
        err.print(f"[bold red]error:[/] LoCoMo file {data_path} not found (pass --data)", highlight=False)
        raise typer.Exit(2)

    def log(line: str) -> None:
        err.print(line, highlight=False)

    started = time.perf_counter()
    try:
        chosen = select_conversations(load_locomo(data_path), half, conversations)
        report = {
            "sample_ids": {h: [c.sample_id for n, c in chosen if n == h] for h in dict.fromkeys(h for h, _ in chosen)}
        }
        if protocol != "pooled":
            report = run_locomo(
                data_path,
                _path(out, DEFAULT_OUT),
                ingest=run_ingest,
                conversations=conversations,
                questions_per_conversation=questions_per_conversation,
                log=log,
                date_cue_only=date_cue_only,
                half=half,
                ablations=ablations,
            )
        if protocol != "per-conversation":
            report["pooled"] = run_pooled(
                chosen,
                _path(out, DEFAULT_OUT),
                ingest=run_ingest,
                questions_per_conversation=questions_per_conversation,
                log=log,
            )
    except SettingsError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    report["seconds_all_protocols"] = round(time.perf_counter() - started, 1)
    if "systems" in report:
        render(console, report)
    else:
        render_sessions(console, report)
    if json_path:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        console.print(f"wrote {json_path}", highlight=False)
