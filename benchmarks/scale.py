"""Scale on generated vaults: ingest time by step, index size, memory, query latency (a benchmark, not a test).

    python benchmarks/scale.py --notes 1000 10000        # run these sizes, then print the table and plot
    python benchmarks/scale.py --report                  # table and plot from the results recorded so far
    python benchmarks/scale.py --notes 1000 10000 --requery   # query latency again, on the indexes already built
    python benchmarks/scale.py --notes 100000 --resume   # a stopped size's ingest goes on from its data folder

Each size runs in its own process (so peak RSS and embedding counters are per
size) on a fresh data folder: a generated vault (``lucasrag_harness.evaluation.vault_generator``,
seed 7) is ingested once; the ingest time is split by Dagster step and by the
seconds spent computing embeddings (and that rate set against the raw model's on a sample of the texts
the run embedded, timed in the same process after the queries: ``EmbeddedSample``); the index size is what ``LUCASRAG_DATA/indexes``
holds on disk. Then ~50 of the vault's generated query cases are asked through
the federated ``query()`` (no reranker configured: embedding-similarity fallback; hit@5: a note that answers
the question, as the generator's truth lists every one, among the first five)
and, as a baseline, as one LightRAG naive search over a single flat index of all
chunks (top 30). Results accumulate in ``--results`` (JSON, one entry per size),
so a long size can run later (e.g. in the background) and join the same table;
the plot goes to ``docs/figures/scale.png`` (needs the ``bench`` extra: matplotlib).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import flat_baseline, pct  # noqa: E402

NOW = "2026-06-01"
DEFAULT_WORK = REPO / ".lucasrag_data" / "bench" / "scale"
DEFAULT_PLOT = REPO / "docs" / "figures" / "scale.png"


def _mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6 if path.exists() else 0.0


def _query_latency(settings, truth, work: Path, n: int, n_queries: int) -> dict:
    """Federated ``query()`` and the flat LightRAG baseline over the vault's first query cases."""
    from lucasrag_query import query

    cases = list({c.query: c for c in truth.cases}.values())[:n_queries]
    t0 = time.perf_counter()
    query(cases[0].query, settings=settings)
    row = {"first_query_ms": (time.perf_counter() - t0) * 1000}  # opens the four indexes
    ms, by_kind = [], {}
    for c in cases:
        t0 = time.perf_counter()
        result = query(c.query, workspaces=c.workspaces, bridge=c.bridge, settings=settings)
        ms.append((time.perf_counter() - t0) * 1000)
        if c.expect_paths:  # every note that answers the question (the generator's truth)
            tally = by_kind.setdefault(c.kind, [0, 0])
            tally[0] += any(r.path in c.expect_paths for r in result.results[:5])
            tally[1] += 1
    row.update(queries=len(cases), query_p50_ms=pct(ms, 0.5), query_p95_ms=pct(ms, 0.95), hit5_by_kind=by_kind)
    flat_data = work / f"flat-n{n}-s7"
    shutil.rmtree(flat_data, ignore_errors=True)
    row.update(flat_baseline(settings, replace(settings, data=flat_data), [c.query for c in cases]))
    row["flat_index_mb"] = _mb(flat_data / "indexes")
    row["query_when"] = time.strftime("%Y-%m-%d %H:%M")
    return row


def requery_one(n: int, work: Path, n_queries: int, graph: bool = True) -> dict:
    """Query latency only, on the index an earlier run of this size left (after a query-path change)."""
    import datetime as dt

    from lucasrag.settings import Settings
    from lucasrag_harness.evaluation.vault_generator import GroundTruth, truth_path

    vault, data = work / f"vault-n{n}-s7", work / f"data-n{n}-s7"
    if not (data / "indexes").is_dir():
        sys.exit(f"no index for {n} notes under {data}: run without --requery first")
    os.environ["DAGSTER_HOME"] = str(data / "dagster")
    settings = Settings(vault=vault, data=data, now=dt.date.fromisoformat(NOW), graph=graph)
    return _query_latency(settings, GroundTruth.load(truth_path(vault)), work, n, n_queries)


class EmbeddedSample:
    """A uniform sample (reservoir) of the texts the run's embedder computed, as the model read them
    (prefix included), so the raw model can be timed on the same kind of texts in the same run: the ingest's
    rate (texts / seconds inside the embedder's calls) against the best rate of a fresh embedder of the same
    model embedding the sample in one call (sorted by length, batches of 8, 32 or 64: what
    ``embedding_throughput.py`` calls raw)."""

    def __init__(self, embedder, size: int = 1000, seed: int = 7) -> None:
        import random

        self.embedder, self.size, self.seen, self.texts = embedder, size, 0, []
        self._random = random.Random(seed)
        self._embed_texts, self._token_outputs = embedder._embed_texts, embedder.token_outputs
        prefix = embedder.model.passage_prefix

        def embed_texts(texts):
            self._keep(texts)
            return self._embed_texts(texts)

        def token_outputs(text):  # one text per pass (the care detector's span vectors)
            self._keep([prefix + text])
            return self._token_outputs(text)

        embedder._embed_texts, embedder.token_outputs = embed_texts, token_outputs  # on this instance only

    def _keep(self, texts) -> None:
        for text in texts:
            self.seen += 1
            if len(self.texts) < self.size:
                self.texts.append(text)
            elif (slot := self._random.randrange(self.seen)) < self.size:
                self.texts[slot] = text

    def stop(self) -> None:
        del self.embedder._embed_texts, self.embedder.token_outputs  # the class's methods again

    def raw_rate(self, texts: int, seconds: float, repeats: int = 2) -> dict:
        """The run's embedding rate (``texts`` in ``seconds``), the raw rate on the sample and their ratio."""
        from lucasrag.embedding import Embedder

        if not self.texts or not seconds:
            return {}
        raw = {}
        for batch in (8, 32, 64):
            fresh = Embedder(self.embedder.model, batch=batch)
            fresh._embed_texts(self.texts[:8])  # warm the session
            for _ in range(repeats):
                t0 = time.perf_counter()
                fresh._embed_texts(self.texts)
                raw[batch] = max(raw.get(batch, 0.0), len(self.texts) / (time.perf_counter() - t0))
        best = max(raw, key=raw.get)
        run_rate = texts / seconds
        return {
            "embed_rate": run_rate,
            "raw_rate": raw[best],
            "raw_batch": best,
            "raw_sample": len(self.texts),
            "embed_share_of_raw": run_rate / raw[best],
        }


def run_one(n: int, work: Path, n_queries: int, graph: bool = True, resume: bool = False) -> dict:
    import datetime as dt

    from lucasrag.embedding import get_embedder
    from lucasrag.settings import Settings
    from lucasrag_assets.ingest import run_ingest
    from lucasrag_harness.evaluation.vault_generator import GroundTruth, generate_vault, truth_path

    vault, data = work / f"vault-n{n}-s7", work / f"data-n{n}-s7"
    t0 = time.perf_counter()
    truth = (
        GroundTruth.load(truth_path(vault)) if truth_path(vault).is_file() else generate_vault(vault, n, overwrite=True)
    )
    generate_s = time.perf_counter() - t0
    resumed = resume and data.is_dir()
    if not resumed:
        shutil.rmtree(data, ignore_errors=True)
    os.environ["DAGSTER_HOME"] = str(data / "dagster")
    # no reranker: the fallback ranking
    settings = Settings(vault=vault, data=data, now=dt.date.fromisoformat(NOW), graph=graph)
    embedder = get_embedder()
    stats = embedder.stats
    sample = EmbeddedSample(embedder)
    e0, n0 = stats.seconds, stats.texts
    summary = run_ingest(settings)
    sample.stop()
    row = {
        "notes": n,
        "graph": graph,
        "generate_s": generate_s,
        "ingest_s": summary.seconds,
        "embed_s": stats.seconds - e0,
        "texts_embedded": stats.texts - n0,
        "steps": summary.step_seconds,
        "chunks": sum(m.get("chunks", 0) for m in summary.index_metadata.values()),
        "index_mb": _mb(data / "indexes"),
        "data_mb": _mb(data),
    }
    if resumed:  # what an earlier, stopped run computed is not in this run's times: its recall counts, they do not
        row["resumed"] = True
    row.update(_query_latency(settings, truth, work, n, n_queries))
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row["when"] = time.strftime("%Y-%m-%d %H:%M")
    # last: the raw model's batches of long texts take more memory than the ingest (≈ 4 GB at batch 64)
    row.update(sample.raw_rate(row["texts_embedded"], row["embed_s"]))
    return row


def _share_of_raw(row: dict) -> str:
    if "raw_rate" not in row:  # recorded before the run timed the raw model
        return "—"
    return f"{row['embed_rate']:.1f} / {row['raw_rate']:.1f} ({row['embed_share_of_raw']:.0%})"


def _hit5(row: dict) -> str:
    if "hit5_by_kind" not in row:  # recorded before the run judged the answers
        return "—"
    hits, cases = (sum(v[i] for v in row["hit5_by_kind"].values()) for i in (0, 1))
    return f"{hits}/{cases}"


def table(rows: list[dict]) -> str:
    out = [
        "| notes | graph | chunks | ingest s | embedding s (texts) | texts/s: run / raw (share) | other s | index MB | peak RSS MB | "
        "federated p50 / p95 ms | flat LightRAG p50 / p95 ms | hit@5 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        graph = "on" if r.get("graph", True) else "off"
        if r.get("resumed"):  # the times of the run's last part only
            ingest = embedding = share = other = "resumed"
        else:
            ingest, embedding = f"{r['ingest_s']:.0f}", f"{r['embed_s']:.0f} ({r['texts_embedded']})"
            share, other = _share_of_raw(r), f"{r['ingest_s'] - r['embed_s']:.0f}"
        out.append(
            f"| {r['notes']} | {graph} | {r['chunks']} | {ingest} | {embedding} | {share} | {other} |"
            f" {r['index_mb']:.1f} | {r['peak_rss_mb']:.0f} | "
            f"{r['query_p50_ms']:.0f} / {r['query_p95_ms']:.0f} | {r['flat_p50_ms']:.0f} / {r['flat_p95_ms']:.0f} | "
            f"{_hit5(r)} |"
        )
    steps = sorted({s for r in rows for s in r["steps"]}, key=lambda s: -max(r["steps"].get(s, 0) for r in rows))
    out += [
        "",
        "| Dagster step (s) | " + " | ".join(f"{r['notes']} notes" for r in rows) + " |",
        "|---|" + "---|" * len(rows),
    ]
    out += [f"| {s} | " + " | ".join(f"{r['steps'].get(s, 0):.1f}" for r in rows) + " |" for s in steps]
    kinds = sorted({k for r in rows for k in r.get("hit5_by_kind", {})})
    if kinds:
        out += ["", "| hit@5 by question kind | " + " | ".join(f"{r['notes']} notes" for r in rows) + " |"]
        out += ["|---|" + "---|" * len(rows)]
        for k in kinds:
            cells = ["{}/{}".format(*r["hit5_by_kind"][k]) if k in r.get("hit5_by_kind", {}) else "—" for r in rows]
            out.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = [r["notes"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8), dpi=100)
    a.plot(n, [r["ingest_s"] for r in rows], "o-", label="ingest (all steps)")
    a.plot(n, [r["embed_s"] for r in rows], "s--", label="of which embedding")
    a.set(
        xscale="log",
        yscale="log" if len(rows) > 1 else "linear",
        xlabel="notes",
        ylabel="seconds",
        title="Fresh ingest",
    )
    if len(rows) == 1:
        a.set_ylim(bottom=0)
    b.plot(n, [r["query_p50_ms"] for r in rows], "o-", label="federated query() p50")
    b.plot(n, [r["query_p95_ms"] for r in rows], "o:", label="federated query() p95")
    b.plot(n, [r["flat_p50_ms"] for r in rows], "s-", label="flat LightRAG naive p50")
    b.plot(n, [r["flat_p95_ms"] for r in rows], "s:", label="flat LightRAG naive p95")
    b.set(xscale="log", xlabel="notes", ylabel="ms", title="Query latency (no reranker)")
    for ax in (a, b):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, nargs="*", default=[1000, 10000], help="sizes to run (default 1000 10000)")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--work", type=Path, default=DEFAULT_WORK, help="vaults, data folders and results.json")
    ap.add_argument("--plot", type=Path, default=DEFAULT_PLOT)
    ap.add_argument("--report", action="store_true", help="run nothing: table and plot from recorded results")
    ap.add_argument(
        "--requery",
        action="store_true",
        help="re-measure query latency only, on the indexes an earlier run left (keeps the ingest figures)",
    )
    ap.add_argument("--no-graph", action="store_true", help="LUCASRAG_GRAPH=0: chunks only, no entity graph")
    ap.add_argument(
        "--resume",
        action="store_true",
        help="keep a stopped run's data folder and ingest on from it (its embedding cache holds every vector it "
        "computed); the size's ingest and embedding times are then marked as not measured",
    )
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # child process: run one size, print JSON
    args = ap.parse_args()
    work = args.work.resolve()
    if args.one:
        if args.requery:
            row = requery_one(args.one, work, args.queries, graph=not args.no_graph)
        else:
            row = run_one(args.one, work, args.queries, graph=not args.no_graph, resume=args.resume)
        print("RESULT " + json.dumps(row), flush=True)
        return
    results_file = work / "results.json"
    results = json.loads(results_file.read_text()) if results_file.is_file() else {}
    for n in [] if args.report else args.notes:
        work.mkdir(parents=True, exist_ok=True)
        print(f"running {n} notes ...", file=sys.stderr, flush=True)
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--one",
                str(n),
                "--work",
                str(work),
                "--queries",
                str(args.queries),
                *(["--requery"] if args.requery else []),
                *(["--no-graph"] if args.no_graph else []),
                *(["--resume"] if args.resume else []),
            ],
            stdout=subprocess.PIPE,
            text=True,
            check=True,
        )
        row = json.loads(next(line for line in proc.stdout.splitlines() if line.startswith("RESULT "))[7:])
        results = json.loads(results_file.read_text()) if results_file.is_file() else {}  # another run may have added
        results[str(n)] = {**results.get(str(n), {}), **row} if args.requery else row
        results_file.write_text(json.dumps(results, indent=1))
    rows = sorted(results.values(), key=lambda r: r["notes"])
    if not rows:
        sys.exit("no results recorded yet")
    print(table(rows))
    try:
        plot(rows, args.plot)
        print(f"\nplot: {args.plot}", file=sys.stderr)
    except ImportError:
        print("\nno plot: matplotlib is missing (pip install -e '.[bench]')", file=sys.stderr)


if __name__ == "__main__":
    main()
