"""The rerank stage measured: cost and ordering of the llama.cpp cross-encoder path against the
embedding-similarity fusion, on LoCoMo questions of one ingested conversation.

No pretrained cross-encoder is installable here: the server runs the test rank model
(``lucasrag_harness.model_servers.reranker_model``: real MiniLM encoder, random rank head), so the
ordering figures say what the path does to the fused order, not what a real reranker would gain.

    python benchmarks/rerank_cost.py --data locomo10.json --out /tmp/lucasrag-embedder-compare/minilm \
        --conversation conv-26 --questions 40
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lucasrag_assets.ingest import run_ingest  # noqa: E402
from lucasrag_harness.evaluation.locomo import SESSION_CATEGORIES, load_locomo  # noqa: E402
from lucasrag_harness.evaluation.locomo_eval import _prepare  # noqa: E402
from lucasrag_harness.evaluation.sessions import SessionScores, evidence_sessions, ranked_sessions  # noqa: E402
from lucasrag_harness.model_servers.llama_server import serve_reranker  # noqa: E402
from lucasrag_harness.model_servers.reranker_model import ensure_rank_gguf  # noqa: E402
from lucasrag_query import query  # noqa: E402
from lucasrag_query.options import QueryOptions  # noqa: E402


def kendall_tau(a: list[str], b: list[str]) -> float:
    """Rank agreement of the items both lists hold (1: same order, -1: reversed)."""
    common = [x for x in a if x in set(b)]
    pos = {x: i for i, x in enumerate(b)}
    pairs = [(i, j) for i in range(len(common)) for j in range(i + 1, len(common))]
    if not pairs:
        return float("nan")
    concordant = sum(1 for i, j in pairs if pos[common[i]] < pos[common[j]])
    return (2 * concordant - len(pairs)) / len(pairs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=Path("../shared/data/locomo/locomo10.json"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/lucasrag-embedder-compare/minilm"))
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument("--questions", type=int, default=40)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=180.0, help="LUCASRAG_RERANKER_TIMEOUT for the run")
    args = ap.parse_args()
    conv = next(c for c in load_locomo(args.data) if c.sample_id == args.conversation)
    settings, _ = _prepare(conv, args.out, print, run_ingest)
    questions = [q for q in conv.questions if q.category in SESSION_CATEGORIES][: args.questions]
    with tempfile.TemporaryDirectory() as tmp, serve_reranker(ensure_rank_gguf(Path(tmp)), threads=args.threads) as url:
        reranked = dataclasses.replace(settings, reranker_url=url, reranker_timeout_s=args.timeout)
        ms = {"fusion": [], "llama.cpp": []}
        scores = {"fusion": SessionScores("fusion"), "llama.cpp": SessionScores("llama.cpp")}
        taus, same_top, pools, fallbacks = [], 0, [], []
        for q in questions:
            gold = set(evidence_sessions(q.evidence))
            order = {}
            for name, use in (("fusion", False), ("llama.cpp", True)):
                t0 = time.perf_counter()
                result = query(q.text, top_k=25, settings=reranked, options=QueryOptions(rerank=use))
                ms[name].append((time.perf_counter() - t0) * 1000)
                if use and result.reranker != "llama.cpp":
                    fallbacks.append(result.reranker_note)
                order[name] = [r.chunk_id for r in result.results]
                scores[name].add(
                    SESSION_CATEGORIES[q.category], gold, ranked_sessions([r.text for r in result.results])
                )
                if use:
                    pools.append(result.timings_ms.get("rerank", float("nan")))
            taus.append(kendall_tau(order["fusion"], order["llama.cpp"]))
            same_top += order["fusion"][:1] == order["llama.cpp"][:1]
    print(f"{conv.sample_id}: {len(questions)} questions; load average {os.getloadavg()}")
    for name in ms:
        t = scores[name].table()
        print(
            f"  {name:<10} p50 {statistics.median(ms[name]):7.1f} ms  p95 {sorted(ms[name])[int(0.95 * (len(ms[name]) - 1))]:7.1f} ms"
            f"  session Hit@1 {t['Hit@1']:.3f}  R@5 {t['R@5']:.3f}  MRR {t['MRR']:.3f}"
        )
    print(
        f"  ordering: same top-1 {same_top}/{len(questions)}, Kendall tau fusion vs cross-encoder "
        f"{statistics.median([t for t in taus if t == t]):.2f} (median); rerank stage p50 "
        f"{statistics.median(pools):.0f} ms; {len(fallbacks)} fell back to fusion ({fallbacks[:1]})"
    )


if __name__ == "__main__":
    main()
