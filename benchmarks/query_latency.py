"""Query latency: flat LightRAG baseline vs the federated query (a benchmark, not a test).

    python benchmarks/query_latency.py                       # the sample vault
    python benchmarks/query_latency.py --generated 10000     # a generated vault (ingest takes a while)

Side by side, p50/p95 over the same queries:
  flat      one LightRAG index holding every chunk, LightRAG's naive query, 30 chunks (the
            baseline), and the bare vector-store search under it
  fallback  the federated query (4 workspaces × 30, policy, embedding-similarity rank)
  llama.cpp the federated query reranked by a llama.cpp server (the test GGUF; its
            scores mean nothing, its cost is real), with the rerank stage timed alone
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lucasrag.embedding_cache import EmbeddingCache  # noqa: E402
from lucasrag.index import open_chunk_store, open_workspace_index, sync_workspace  # noqa: E402
from lucasrag.settings import Settings  # noqa: E402
from lucasrag.vocabulary import WORKSPACES  # noqa: E402
from lucasrag_assets.ingest import run_ingest  # noqa: E402
from lucasrag_query import query  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import QUERIES, pct  # noqa: E402


def build_flat(settings: Settings) -> None:
    """One index ("flat") holding the chunks of all four workspaces, same vectors."""
    records, texts = [], {}
    for ws in WORKSPACES:
        store = open_chunk_store(settings, ws)
        for r in store.all_records():
            records.append(replace(r, workspace="flat"))
            texts[r.doc_id] = texts.get(r.doc_id, "") + r.text
        store.close()
    cache = EmbeddingCache(settings.data / "embeddings.sqlite")
    asyncio.run(sync_workspace(settings, "flat", records, texts, cache))
    cache.close()


def time_flat(settings: Settings, rounds: int, *, lightrag_naive: bool) -> list[float]:
    async def run() -> list[float]:
        index = await open_workspace_index(settings, "flat")
        times = []
        for _ in range(rounds):
            for q in QUERIES:
                t0 = time.perf_counter()
                if lightrag_naive:
                    await index.naive_query(q, 30)
                else:
                    await index.search(q, 30, graph=False)
                times.append((time.perf_counter() - t0) * 1000)
        await index.close()
        return times

    return asyncio.run(run())


def time_federated(settings: Settings, rounds: int) -> tuple[list[float], list[float], str]:
    totals, rerank, ranker = [], [], ""
    for _ in range(rounds):
        for q in QUERIES:
            t0 = time.perf_counter()
            result = query(q, settings=settings)
            totals.append((time.perf_counter() - t0) * 1000)
            rerank.append(result.timings_ms.get("rerank", 0.0))
            ranker = result.reranker
    return totals, rerank, ranker


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--generated", type=int, default=0, help="use a generated vault of this many notes")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-llama", action="store_true", help="skip the llama.cpp column")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the data folder here")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp())
    root = args.keep or tmp
    vault = root / "vault"
    if args.generated:
        from lucasrag_harness.evaluation.vault_generator import generate_vault

        if not vault.exists():
            generate_vault(vault, args.generated, seed=7)
    elif not vault.exists():
        shutil.copytree(REPO / "vault", vault)
    settings = Settings(vault=vault, data=root / "data", now=dt.date(2026, 6, 1))
    t0 = time.perf_counter()
    run_ingest(settings)
    print(f"ingest: {time.perf_counter() - t0:.1f}s")
    build_flat(settings)
    chunks = sum(open_chunk_store(settings, ws).counts()[1] for ws in WORKSPACES)

    query("warm-up", settings=settings)  # load the model and open the indexes once
    rows = [
        ("flat LightRAG naive query (baseline)", time_flat(settings, args.rounds, lightrag_naive=True), None),
        ("flat vector-store search only", time_flat(settings, args.rounds, lightrag_naive=False), None),
    ]
    fed, _, _ = time_federated(settings, args.rounds)
    rows.append(("federated, embedding fallback", fed, None))
    if not args.no_llama:
        from lucasrag_harness.model_servers.llama_server import serve_reranker
        from lucasrag_harness.model_servers.reranker_model import ensure_rank_gguf

        model = ensure_rank_gguf(REPO / ".lucasrag_data" / "test-models")
        with serve_reranker(model) as url:
            llama_settings = replace(settings, reranker_url=url, reranker_timeout_s=120)
            totals, rerank_ms, ranker = time_federated(llama_settings, 1)
        rows.append((f"federated, {ranker} rerank", totals, rerank_ms))

    print(
        f"\nvault: {'generated ' + str(args.generated) if args.generated else 'sample'} notes, {chunks} chunks, "
        f"{len(QUERIES)} queries × rounds"
    )
    print("| system | p50 ms | p95 ms | rerank stage p50 ms |")
    print("|---|---|---|---|")
    for name, times, rerank in rows:
        extra = f"{statistics.median(rerank):.0f}" if rerank else "–"
        print(f"| {name} | {pct(times, 0.5):.1f} | {pct(times, 0.95):.1f} | {extra} |")
    base = pct(rows[0][1], 0.5)
    print(f"\nfederated (fallback) p50 / flat LightRAG naive p50 = {pct(rows[2][1], 0.5) / base:.2f} (target ≤ 1.5)")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
