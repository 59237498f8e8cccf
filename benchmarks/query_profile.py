"""Where a federated ``query()`` spends its time, beside one flat LightRAG search (a benchmark, not a test).

    python benchmarks/query_profile.py --work /tmp/speed-scale --notes 10000          # spans + ratio
    python benchmarks/query_profile.py --work /tmp/speed-scale --notes 1000 --cprofile 25

Reads the vault and data folder that ``benchmarks/scale.py --work DIR`` left
(``vault-n<N>-s7``, ``data-n<N>-s7``) and the flat index of all chunks it built
(``flat-n<N>-s7``; built here from the embedding cache when missing). Each of the
vault's first ``--queries`` generated questions is asked, in turn, of the federated
``query()`` and of the flat index (LightRAG's chunk vector store, top 30, the
question embedded each time), so both columns see the same machine load; the
load average is printed with the figures. The flat search is timed twice per
question: as LightRAG runs it (BLAS on the process's threads) and with BLAS on
one thread around it (threadpoolctl), the setting the federated query's vector
products use; a ratio is given against each. Each timed call starts ``--gap``
seconds after the last one ended: after a product on several threads, OpenBLAS's
idle workers spin (yielding) for a while, and on a busy two-core machine that
slows whatever runs next by a third or more, so back-to-back calls would charge
one column's threads to the next column.

Spans: the query path's stages are wrapped with perf_counter timers for the
timed rounds (the product code is unchanged); each span's total is divided by
the number of queries. Spans nest (``rank`` holds ``BM25 pool`` and ``pool
vectors``); ``other`` is what no span covers (the event loop, candidate objects).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import inspect
import io
import logging
import os
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import add_scale_build_arguments, all_chunks, pct, scale_build  # noqa: E402
from threadpoolctl import ThreadpoolController  # noqa: E402

spans: dict[str, float] = defaultdict(float)  # sync stages: wall seconds (they never interleave)
_on = False


def _timed(name: str, fn):
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def wrapper(*a, **k):
            t0 = time.perf_counter()
            try:
                return await fn(*a, **k)
            finally:
                if _on:
                    spans[name] += time.perf_counter() - t0

    else:

        @functools.wraps(fn)
        def wrapper(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                if _on:
                    spans[name] += time.perf_counter() - t0

    return wrapper


#: Coroutines of the query loop: cProfile's cumulative time counts them only while they run
#: (the four workspaces' searches interleave, so wall-clock spans would overlap).
ASYNC_SPANS = {
    "open_workspaces": ("_indexes.py", "open check (index stamps)"),
    "_fetch": ("_query.py", "fan-out per workspace (search, keywords, rows, policy)"),
    "search": ("_index.py", "  LightRAG search (vector + entity reach)"),
    "_graph_reach": ("_graph_read.py", "    entity reach"),
    "query": ("nano_vector_db_impl.py", "    nano-vectordb query"),
    "rank": ("_nano_rank.py", "    vector ranking (nano-vectordb's, over its float64 copy)"),
}


def instrument() -> None:
    """Wrap the query path's stages (module attributes, looked up at call time)."""
    import lucasrag.embedding as embedding
    import lucasrag.index.chunk_store as chunk_store
    import lucasrag.index.protocol  # noqa: F401
    import lucasrag_query._query as q
    import lucasrag_query._ranking as ranking
    import lucasrag_query.policy as policy
    from lucasrag import entities

    targets = [
        (entities, "query_terms", "entity recogniser on the question (per workspace)"),
        (policy.Candidate, "from_record", "candidate objects"),
        (q, "_vault_config", "vault config (deference, cues)"),
        (q, "detect_temporal", "temporal detection"),
        (embedding.Embedder, "embed", "embed question"),
        (q, "query_terms", "query terms"),
        (q, "eligible_count", "band counts (eligible)"),
        (chunk_store.SqliteChunkStore, "nearest_dated", "dated nearest (period)"),
        (chunk_store.SqliteChunkStore, "keyword_search", "keyword search (in memory; FTS5 the first time)"),
        (chunk_store.SqliteChunkStore, "get", "chunk rows (cached; SQLite the first time)"),
        (q, "fuse_rankings", "candidate fusion (RRF)"),
        (q, "apply_policy", "policy"),
        (q, "rank_pool", "rank (fallback fusion)"),
        (ranking, "_keyword_scores", "  BM25 over the pool"),
        (chunk_store.SqliteChunkStore, "term_stats", "    term stats (keyword index)"),
        (chunk_store.SqliteChunkStore, "vectors", "  pool vectors (SQLite)"),
        (ranking.lexical, "fused_scores", "  fused scores"),
        (ranking, "_signals", "  per-signal ranks"),
        (q, "why_surfaced", "result: why block"),
        (q, "matched_words", "result: matched words"),
        (q, "vault_hints", "vault hint (health.json)"),
    ]
    for owner, attr, name in targets:
        if hasattr(owner, attr):
            setattr(owner, attr, _timed(name, getattr(owner, attr)))


def flat_index_ready(settings, flat_data: Path) -> None:
    """The flat index of every chunk (scale.py's baseline), built from the embedding cache when missing."""
    from dataclasses import replace

    from lucasrag.embedding_cache import EmbeddingCache
    from lucasrag.index import sync_workspace

    if (flat_data / "indexes" / "flat").is_dir():
        return
    records, full_texts = all_chunks(settings)
    cache = EmbeddingCache(settings.data / "embeddings.sqlite")
    flat = replace(settings, data=flat_data)
    asyncio.run(sync_workspace(flat, "flat", records, full_texts, cache))
    cache.close()


def main() -> None:
    global _on
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scale_build_arguments(ap)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cprofile", type=int, default=0, help="also print the top N functions by own time")
    ap.add_argument("--gap", type=float, default=0.2, help="seconds between timed calls (see above)")
    ap.add_argument("--no-profile", action="store_true", help="the side-by-side timing only")
    args = ap.parse_args()

    settings, cases = scale_build(args.work, args.notes, graph=False)
    cases = cases[: args.queries]
    flat_data = args.work / f"flat-n{args.notes}-s7"
    flat_index_ready(settings, flat_data)

    from dataclasses import replace

    from lucasrag.index import open_workspace_index
    from lucasrag_query import _loop, query

    logging.getLogger("lightrag").setLevel(logging.ERROR)
    flat = _loop.run(open_workspace_index(replace(settings, data=flat_data), "flat"))

    def federated(c):
        return query(c.query, workspaces=c.workspaces, bridge=c.bridge, settings=settings)

    def baseline(c):
        return _loop.run(flat.search(c.query, 30, graph=False))

    # found once: threadpool_limits() looks for the loaded libraries on every call, which costs
    # milliseconds in this process (more than the product it limits)
    blas = ThreadpoolController().select(user_api="blas")

    async def flat_one_thread(c):  # in the query loop's thread, like the federated side's own limit
        with blas.limit(limits=1):
            return await flat.search(c.query, 30, graph=False)

    def baseline_one_thread(c):
        return _loop.run(flat_one_thread(c))

    federated(cases[0]), baseline(cases[0]), baseline_one_thread(cases[0])  # open the indexes, warm the caches
    fed_ms, flat_ms, flat1_ms = [], [], []
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for c in cases:
            for fn, times in ((baseline, flat_ms), (baseline_one_thread, flat1_ms), (federated, fed_ms)):
                time.sleep(args.gap)
                t0 = time.perf_counter()
                fn(c)
                times.append((time.perf_counter() - t0) * 1000)
    load_after = os.getloadavg()
    print(f"notes {args.notes}, {len(cases)} queries x {args.rounds} rounds, interleaved, {args.gap} s apart")
    print(
        f"load average before {load_before[0]:.2f} {load_before[1]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f}"
    )
    print(f"federated query() p50 {pct(fed_ms, 0.5):.1f} ms  p95 {pct(fed_ms, 0.95):.1f} ms")
    for label, times in (("flat LightRAG    ", flat_ms), ("flat, 1 BLAS thr.", flat1_ms)):
        print(
            f"{label} p50 {pct(times, 0.5):.1f} ms  p95 {pct(times, 0.95):.1f} ms   ratio p50 "
            f"{pct(fed_ms, 0.5) / pct(times, 0.5):.2f}  p95 {pct(fed_ms, 0.95) / pct(times, 0.95):.2f}"
        )
    # the first round asks every question for the first time (the read caches hold only what earlier
    # questions brought in); later rounds repeat them
    n = len(cases)
    print(
        f"first round only: federated p50 {pct(fed_ms[:n], 0.5):.1f} ms, flat p50 {pct(flat_ms[:n], 0.5):.1f} / "
        f"{pct(flat1_ms[:n], 0.5):.1f} ms (1 BLAS thread), ratio p50 {pct(fed_ms[:n], 0.5) / pct(flat_ms[:n], 0.5):.2f}"
        f" / {pct(fed_ms[:n], 0.5) / pct(flat1_ms[:n], 0.5):.2f}"
    )
    if args.no_profile:
        _loop.run(flat.close())
        return

    # The breakdown, in a second pass (instrumented, so slower than the pass above).
    instrument()
    profiler = cProfile.Profile()

    async def in_loop(f):  # cProfile profiles the thread it is enabled in: the query loop's
        f()

    _on = True
    _loop.run(in_loop(profiler.enable))
    t0 = time.perf_counter()
    for c in cases:
        federated(c)
    wall = (time.perf_counter() - t0) * 1000 / len(cases)
    _loop.run(in_loop(profiler.disable))
    _on = False
    n = len(cases)
    stats = pstats.Stats(profiler)
    own = defaultdict(float)  # loop-thread functions by name: cumulative seconds while running (not suspended)
    for (file, _, func), (_, _, _own, cumtime, _) in stats.stats.items():
        if func in ASYNC_SPANS and (ASYNC_SPANS[func][0] in file):
            own[ASYNC_SPANS[func][1]] += cumtime
    print(f"\ninstrumented pass: {wall:.1f} ms per query (profiler on)")
    print("\n| stage | ms per query |\n|---|---|")
    for name, total in sorted({**spans, **own}.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {1000 * total / n:.2f} |")
    if args.cprofile:
        out = io.StringIO()
        stats.stream = out
        stats.sort_stats("tottime").print_stats(args.cprofile)
        print(out.getvalue())
    _loop.run(flat.close())


if __name__ == "__main__":
    main()
