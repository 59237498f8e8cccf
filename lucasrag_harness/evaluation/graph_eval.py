"""Retrieval with and without the entity graph, side by side (docs/graph.md).

Two datasets:

* ``sample``: the sample vault plus a few notes whose answers name an entity
  only structurally (frontmatter people, an alias, a tag, a wikilink), and
  hand-made questions naming that entity; scored as "is the expected note among
  the first k" for one workspace's candidates (``WorkspaceIndex.search``) and for
  the whole ``query()`` (with the default candidate count and with 5, which
  is what a workspace much larger than the sample's ~20 chunks looks like).
* ``locomo``: the first N LoCoMo conversations (the harness of
  ``lucasrag_harness.evaluation.locomo_eval``), evidence recall@k of the personal
  workspace's candidates and of ``query()``.

Each index is built once with the graph on; "without the graph" is the
same index searched in naive mode (``QueryOptions(graph=False)``), so both
columns see exactly the same chunks.

    python -m lucasrag_harness.commands.graph_eval sample --out /tmp/graph_eval
    python -m lucasrag_harness.commands.graph_eval locomo --out /tmp/graph_eval --conversations 3 --questions 60
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from lucasrag.settings import Settings
from lucasrag_harness.evaluation.locomo_eval import Ingest

REPO = Path(__file__).resolve().parents[2]

#: Notes added to a copy of the sample vault: each names its entity only through structure.
EVAL_NOTES: dict[str, str] = {
    "admin/2026-02-10 payroll call.md": (
        "---\ndate: 2026-02-10\nworkspace: administrative\nattendees: [Rosa]\ntags: [payroll]\n---\n"
        "Went through the fourteen-instalment salary schedule and when the relocation allowance arrives.\n"
        "The second instalment lands with the March payslip; the allowance comes separately in April.\n"
    ),
    "personal/people/ellie.md": (
        "---\ndate: 2025-12-01\nworkspace: personal\nband: present\naliases: [El]\n---\n"
        "Paramedic in Bristol, mostly night shifts. Two kids, Jack and Poppy. Birthday on the third of March;\n"
        "she likes the gin from the distillery near the harbour.\n"
    ),
    "journal/2026-03-02.md": (
        "---\ndate: 2026-03-02\nworkspace: personal\n---\n"
        "Long call with [[ellie|my sister]] about the wedding: it is in the Douro valley in September and I am "
        "doing a reading. Need to book flights before the prices jump.\n"
    ),
    "writing/poems/tram 28.md": (
        "---\ndate: 2026-01-18\nworkspace: creative\ntags: [poem, lisbon]\n---\n"
        "Yellow box of a tram / grinding up the hill past the cathedral, / tiles sweating in the rain, / "
        "and the river, silver, at the end of every street.\n"
    ),
    "personal/recipes/starter.md": (
        "---\ndate: 2026-02-02\nworkspace: personal\ntags: [sourdough, baking]\n---\n"
        "Feed it 50 g rye and 50 g water every morning; it doubles in six hours at 24 degrees.\n"
        "Keep the jar away from the window and discard half before each feed.\n"
    ),
    "tech/2026-02-01 on-call handover.md": (
        "---\ndate: 2026-02-01\nworkspace: technical\nwith: [Inês]\ntags: [oncall]\n---\n"
        "Pager rotation moves to Thursdays. The consumer lag alert is noisy: silence it during deploys.\n"
        "Runbook for rotating the deploy credentials is still a draft.\n"
    ),
}


@dataclass(frozen=True)
class EntityQuestion:
    text: str
    workspace: str
    expected: str  # vault path of the note that answers it
    via: str  # how the graph links the name to the note


QUESTIONS: tuple[EntityQuestion, ...] = (
    EntityQuestion(
        "What did Rosa go through with me?",
        "administrative",
        "admin/2026-02-10 payroll call.md",
        "frontmatter attendees",
    ),
    EntityQuestion("What does El do for a living?", "personal", "personal/people/ellie.md", "frontmatter alias"),
    EntityQuestion("What's new with ellie?", "personal", "journal/2026-03-02.md", "wikilink [[ellie|my sister]]"),
    EntityQuestion("Poems about Lisbon", "creative", "writing/poems/tram 28.md", "tag #lisbon"),
    EntityQuestion("How do I look after the sourdough?", "personal", "personal/recipes/starter.md", "tag #sourdough"),
    EntityQuestion(
        "What did Inês hand over to me?", "technical", "tech/2026-02-01 on-call handover.md", "frontmatter with"
    ),
    # controls: the words are in the answer, the graph should not hurt
    EntityQuestion("Who is Dona Fátima?", "personal", "journal/2024-02-20 arrived in lisbon.md", "text (control)"),
    EntityQuestion("What runs on the homelab?", "technical", "tech/homelab.md", "text + tag (control)"),
    EntityQuestion(
        "Who is the captain, Rosa?", "creative", "writing/characters - the lighthouse keeper.md", "text (control)"
    ),
)

WS_KS = (1, 3, 5)
QUERY_KS = (3, 5, 10)


def _p50(values: list[float]) -> float:
    return float(np.percentile(values, 50)) if values else float("nan")


def build_sample(out: Path, ingest: Ingest, log=print) -> Settings:
    """Copy the sample vault plus ``EVAL_NOTES`` under ``out`` and ingest it (reused if present)."""

    vault, data = out / "sample" / "vault", out / "sample" / "data"
    if vault.exists():
        shutil.rmtree(vault)
    shutil.copytree(REPO / "vault", vault, symlinks=True)
    for rel, text in EVAL_NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    settings = Settings.from_env(vault=vault.resolve(), data=data.resolve(), now=Settings.from_env().now, graph=True)
    t0 = time.perf_counter()
    summary = ingest(settings)
    log(
        f"sample vault ingested in {time.perf_counter() - t0:.1f}s; graph: "
        + ", ".join(
            f"{ws} {m.get('graph_entities', 0)}/{m.get('graph_relations', 0)}"
            for ws, m in summary.index_metadata.items()
        )
    )
    return settings


def evaluate_sample(settings: Settings) -> dict:
    from lucasrag.index import open_chunk_store, open_workspace_index
    from lucasrag_query import _loop, query
    from lucasrag_query.options import QueryOptions

    rows = []
    latency = {"search": {True: [], False: []}, "query": {True: [], False: []}}

    async def ws_search(q: EntityQuestion, graph: bool):
        index = await open_workspace_index(settings, q.workspace)
        store = open_chunk_store(settings, q.workspace)
        try:
            t0 = time.perf_counter()
            hits = await index.search(q.text, max(WS_KS), graph=graph)
            ms = (time.perf_counter() - t0) * 1000
            records = store.get([h.chunk_id for h in hits])
            return [records[h.chunk_id].path for h in hits if h.chunk_id in records], ms
        finally:
            store.close()
            await index.close()

    few = replace(settings, candidates_per_workspace=5)
    for q in QUESTIONS:
        row: dict = {"question": q.text, "workspace": q.workspace, "expected": q.expected, "via": q.via}
        for graph in (False, True):
            tag = "graph" if graph else "naive"
            paths, ms = _loop.run(ws_search(q, graph))
            latency["search"][graph].append(ms)
            row[f"search_rank_{tag}"] = paths.index(q.expected) + 1 if q.expected in paths else None
            for label, s in (("query", settings), ("query_c5", few)):
                t0 = time.perf_counter()
                result = query(q.text, top_k=max(QUERY_KS), settings=s, options=QueryOptions(graph=graph), chunks=True)
                if label == "query":
                    latency["query"][graph].append((time.perf_counter() - t0) * 1000)
                found = [r.path for r in result.results]
                row[f"{label}_rank_{tag}"] = found.index(q.expected) + 1 if q.expected in found else None
        rows.append(row)

    def hit_rate(key: str, k: int, ids=None) -> float:
        chosen = [r for i, r in enumerate(rows) if ids is None or i in ids]
        return float(np.mean([1.0 if r[key] is not None and r[key] <= k else 0.0 for r in chosen]))

    entity_ids = {i for i, q in enumerate(QUESTIONS) if "control" not in q.via}
    control_ids = set(range(len(QUESTIONS))) - entity_ids
    summary = {}
    for name, ids in (("entity questions", entity_ids), ("controls", control_ids)):
        for tag in ("naive", "graph"):
            summary[f"{name} / {tag}"] = {
                **{f"search@{k}": hit_rate(f"search_rank_{tag}", k, ids) for k in WS_KS},
                **{f"query@{k}": hit_rate(f"query_rank_{tag}", k, ids) for k in QUERY_KS},
                **{f"query(c=5)@{k}": hit_rate(f"query_c5_rank_{tag}", k, ids) for k in QUERY_KS},
            }
    return {
        "questions": rows,
        "summary": summary,
        "latency_p50_ms": {
            "search naive": _p50(latency["search"][False]),
            "search graph": _p50(latency["search"][True]),
            "query naive": _p50(latency["query"][False]),
            "query graph": _p50(latency["query"][True]),
        },
    }


def locomo_conversation(
    data_path: Path, out: Path, index: int, questions: int | None, ingest: Ingest, log=print
) -> dict:
    """One conversation: per-question recalls of four systems (runs in its own process, see below)."""
    from lucasrag.embedding import get_embedder
    from lucasrag.index import open_chunk_store, open_workspace_index
    from lucasrag_harness.evaluation.locomo import CATEGORIES, load_locomo
    from lucasrag_harness.evaluation.locomo_eval import _prepare
    from lucasrag_harness.evaluation.recall import KS, recall_at
    from lucasrag_query import _loop, query
    from lucasrag_query.options import QueryOptions

    logging.getLogger("alembic").setLevel(logging.WARNING)
    conv = load_locomo(data_path)[index]
    settings, prepared = _prepare(conv, out, log, ingest, graph=True)
    facts = {k: v for k, v in prepared["facts"].items() if k != "chunk_words"}
    rows = []
    store = open_chunk_store(settings, "personal")
    ws = _loop.run(open_workspace_index(settings, "personal"))
    try:
        facts["graph"] = _loop.run(ws.graph_counts())
        for q in conv.questions[:questions] if questions else conv.questions:
            vector = get_embedder(settings.embedding_model).embed_query([q.text])[0]
            for graph in (False, True):
                tag = "graph" if graph else "naive"
                t0 = time.perf_counter()
                result = query(q.text, top_k=max(KS), settings=settings, options=QueryOptions(graph=graph), chunks=True)
                ms = (time.perf_counter() - t0) * 1000
                texts = [r.text for r in result.results]
                rows.append(
                    {
                        "system": f"query {tag}",
                        "category": CATEGORIES[q.category],
                        "ms": ms,
                        **{f"R@{k}": recall_at(q.evidence, texts, k) for k in KS},
                    }
                )
                t0 = time.perf_counter()
                hits = _loop.run(ws.search(q.text, settings.candidates_per_workspace, query_vector=vector, graph=graph))
                ms = (time.perf_counter() - t0) * 1000
                records = store.get([h.chunk_id for h in hits])
                texts = [records[h.chunk_id].text for h in hits if h.chunk_id in records]
                rows.append(
                    {
                        "system": f"candidates {tag}",
                        "category": CATEGORIES[q.category],
                        "ms": ms,
                        **{f"R@{k}": recall_at(q.evidence, texts, k) for k in KS},
                    }
                )
        log(f"{conv.sample_id}: {len(rows) // 4} questions")
    finally:
        _loop.run(ws.close())
        store.close()
    return {"facts": facts, "rows": rows}


def evaluate_locomo(
    data_path: Path, out: Path, conversations: int, questions: int | None, one_conversation: list[str], log=print
) -> dict:
    """Evidence recall of the personal workspace's candidates and of query(), graph off vs on.

    Each conversation runs in a fresh process: LightRAG keeps its JSON key-value stores
    in memory per (workspace, namespace) for the whole process, whatever the working
    directory, so two data folders with a "personal" workspace opened in one process
    share (and write back) each other's rows. ``one_conversation``: the command that runs
    :func:`locomo_conversation` (``python -m lucasrag_harness.commands.graph_eval locomo-one``), given the same
    arguments as below."""
    import subprocess
    import tempfile

    from lucasrag_harness.evaluation.recall import KS

    per_conv = []
    for i in range(conversations):
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
            target = Path(tmp.name)
        cmd = [
            *one_conversation,
            "--data",
            str(data_path),
            "--out",
            str(out),
            "--index",
            str(i),
            "--json",
            str(target),
        ]
        if questions:
            cmd += ["--questions", str(questions)]
        subprocess.run(cmd, check=True)
        per_conv.append(json.loads(target.read_text()))
        target.unlink()
        log(f"conversation {i + 1}/{conversations} done")
    rows = [r for c in per_conv for r in c["rows"]]
    systems = []
    for name in ("query naive", "query graph", "candidates naive", "candidates graph"):
        mine = [r for r in rows if r["system"] == name]
        ms = [r["ms"] for r in mine]
        systems.append(
            {
                "system": name,
                "recall": {
                    "all": {"n": len(mine), **{f"R@{k}": float(np.mean([r[f"R@{k}"] for r in mine])) for k in KS}}
                },
                "latency_p50_ms": _p50(ms),
                "latency_p95_ms": float(np.percentile(ms, 95)) if ms else float("nan"),
            }
        )
    return {"conversations": [c["facts"] for c in per_conv], "systems": systems}


def markdown_sample(report: dict) -> str:
    lines = [
        "| questions / retrieval | " + " | ".join(next(iter(report["summary"].values())).keys()) + " |",
        "|---|" + "---|" * len(next(iter(report["summary"].values()))),
    ]
    for name, row in report["summary"].items():
        lines.append(f"| {name} | " + " | ".join(f"{v:.2f}" for v in row.values()) + " |")
    lines += [
        "",
        "| question | workspace | answer reached via | search rank naive → graph | "
        "query rank naive → graph | query (5 candidates) naive → graph |",
        "|---|---|---|---|---|---|",
    ]

    def pair(r: dict, key: str) -> str:
        a, b = r[f"{key}_rank_naive"], r[f"{key}_rank_graph"]
        return f"{a or '–'} → {b or '–'}"

    for r in report["questions"]:
        lines.append(
            f"| {r['question']} | {r['workspace']} | {r['via']} | {pair(r, 'search')} | {pair(r, 'query')} | "
            f"{pair(r, 'query_c5')} |"
        )
    lat = report["latency_p50_ms"]
    lines += ["", "p50 latency (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in lat.items())]
    return "\n".join(lines)


def markdown_locomo(report: dict) -> str:
    systems = report["systems"]
    ks = [k for k in systems[0]["recall"]["all"] if k.startswith("R@")]
    lines = ["| system | n | " + " | ".join(ks) + " | p50 ms | p95 ms |", "|---|---|" + "---|" * (len(ks) + 2)]
    for s in systems:
        row = s["recall"]["all"]
        lines.append(
            f"| {s['system']} | {int(row['n'])} | "
            + " | ".join(f"{row[k]:.3f}" for k in ks)
            + f" | {s['latency_p50_ms']:.0f} | {s['latency_p95_ms']:.0f} |"
        )
    return "\n".join(lines)
